"""hooks layer of sagemaker-fleet."""
