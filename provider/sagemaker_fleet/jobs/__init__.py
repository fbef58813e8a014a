"""aws layer of sagemaker-fleet."""
