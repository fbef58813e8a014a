"""The fleet's sensors (their deferrable halves are in ``triggers/conditions.py``).

- ``fleet.py``: ``FleetRunSensor`` (a run is finished) and ``WarmPoolAvailableSensor`` (a warm pool is ready for a
  key).
"""
