"""sim layer of sagemaker-fleet."""
