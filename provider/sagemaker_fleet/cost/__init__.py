"""cost layer of sagemaker-fleet."""
