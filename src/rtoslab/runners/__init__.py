"""rtoslab.runners"""
