"""The fleet's AWS hook, and botocore's model of the request it sends.

- ``fleet.py``: :class:`~sagemaker_fleet.hooks.fleet.SageMakerFleetHook`, SageMaker's training-job calls (create or
  attach by name, describe, list, stop, keep-alive updates) through boto3 and aiobotocore from one Airflow
  connection.
- ``request_model.py``: botocore's CreateTrainingJob shape as the fleet spec checks ``job:`` templates against it
  (:data:`~sagemaker_fleet.hooks.request_model.BOTOCORE_MODEL`), loaded once, on first use.
"""
