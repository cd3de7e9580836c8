"""rtoslab.cli"""
