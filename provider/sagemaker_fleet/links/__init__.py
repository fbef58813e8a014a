"""The fleet tasks' extra links.

- ``fleet.py``: the training job's console page, its CloudWatch logs, the run's cost report and its
  Fleet view.
"""
