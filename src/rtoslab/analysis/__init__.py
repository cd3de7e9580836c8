"""rtoslab.analysis"""
