"""Benchmarks: scripts run as `.venv/bin/python bench/NAME.py`; tests import a few of their modules."""
