"""rtoslab.trace"""
