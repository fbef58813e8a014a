"""Pytest fixtures that start the simulated SageMaker endpoint (filled in by the simulator work)."""
