"""The fleet's AWS hook.

- ``fleet.py``: :class:`~sagemaker_fleet.hooks.fleet.SageMakerFleetHook`, SageMaker's training-job calls (create or
  attach by name, describe, list, stop, keep-alive updates) through boto3 and aiobotocore from one Airflow
  connection.
"""
