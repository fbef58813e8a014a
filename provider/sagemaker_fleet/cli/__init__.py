"""The ``sagemaker-fleet`` command line (docs/quickstart.md)."""
