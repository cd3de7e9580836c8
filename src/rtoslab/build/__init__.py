"""rtoslab.build"""
