"""plan layer of sagemaker-fleet."""
