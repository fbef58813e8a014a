"""The fleet tasks' extra links.

- ``fleet.py``: the training job's console page, its CloudWatch logs and the run's cost report.
"""
