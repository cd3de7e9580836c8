"""rtoslab.builder"""
