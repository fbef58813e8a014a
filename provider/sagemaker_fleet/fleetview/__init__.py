"""The Fleet view's model and page: what the Airflow plugin (``sagemaker_fleet.plugin``) serves for a run."""
