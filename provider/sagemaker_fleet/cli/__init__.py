"""The ``sagemaker-fleet`` command line (CONTRACT §3)."""
