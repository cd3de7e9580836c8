"""rtoslab.experiments"""
