"""operators layer of sagemaker-fleet."""
