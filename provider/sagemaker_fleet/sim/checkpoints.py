"""Where the simulated training container keeps its checkpoints, keyed by ``CheckpointConfig.S3Uri``.

Progress is measured in seconds of training work. Any job given the same prefix resumes from it — a re-submission
too, as SageMaker copies the prefix back to the container's LocalPath on every (re)start (docs/sagemaker-behaviour.md, checkpoints).
The server swaps in a store that also writes real objects to moto's S3.
"""

from __future__ import annotations

from typing import Protocol


def normalize_prefix(uri: str) -> str:
    return uri if uri.endswith("/") else uri + "/"


class CheckpointStore(Protocol):
    def load(self, uri: str) -> float:
        """Seconds of training already saved under ``uri`` (0 when nothing is)."""
        ...

    def save(self, uri: str, progress_seconds: float, *, job_name: str, at: float) -> None: ...


class InMemoryCheckpointStore:
    def __init__(self) -> None:
        self._progress: dict[str, float] = {}

    def load(self, uri: str) -> float:
        return self._progress.get(normalize_prefix(uri), 0.0)

    def save(self, uri: str, progress_seconds: float, *, job_name: str, at: float) -> None:
        self._progress[normalize_prefix(uri)] = progress_seconds

    def snapshot(self) -> dict[str, float]:
        return dict(self._progress)
