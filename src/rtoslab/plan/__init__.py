"""rtoslab.plan"""
