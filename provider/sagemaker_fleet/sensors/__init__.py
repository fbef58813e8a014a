"""sensors layer of sagemaker-fleet."""
