"""bmam"""
