"""links layer of sagemaker-fleet."""
