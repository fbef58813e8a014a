"""triggers layer of sagemaker-fleet."""
