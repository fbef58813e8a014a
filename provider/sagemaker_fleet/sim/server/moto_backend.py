"""moto, in this process: the WSGI app for every AWS call the engine does not serve, and direct writes to its
S3 and CloudWatch Logs backends for what the simulated training container produces (checkpoints, the model,
log lines), so clients find them through the same endpoint.

moto is imported lazily (it is heavy, and the provider must not import it at module level).
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.fleetspec.names import split_s3_uri
from sagemaker_fleet.sim.checkpoints import normalize_prefix

if TYPE_CHECKING:
    from sagemaker_fleet.sim.job import JobEvent

LOG = logging.getLogger(__name__)
LOG_GROUP = "/aws/sagemaker/TrainingJobs"
CHECKPOINT_OBJECT = "sagemaker-fleet-sim-checkpoint.json"


def moto_wsgi_app() -> Any:
    """moto's own server dispatcher (``moto.moto_server.werkzeug_app``): routes by signature/host to a backend."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

    return DomainDispatcherApplication(create_backend_app)


def moto_request_handler() -> Any:
    """moto's request handler keeps header spellings S3 metadata needs (moto 5.2+); werkzeug's own before it
    (moto 5.1, MWAA's Airflow 3.0.6 pins 5.1.10), which drops headers with an underscore in their name."""
    try:
        from moto.moto_server.werkzeug_app import MotoRequestHandler
    except ImportError:
        from werkzeug.serving import WSGIRequestHandler

        return WSGIRequestHandler
    return MotoRequestHandler


def reset_moto() -> None:
    """Forget every moto resource (buckets, objects, log groups …)."""
    from moto.moto_api._internal.models import moto_api_backend

    moto_api_backend.reset()


def s3_location(uri: str) -> tuple[str, str] | None:
    """(bucket, key) of an ``s3://`` URI, None for another (an ``https://`` one, which SageMaker accepts too):
    the simulator then keeps that job's checkpoint in memory and writes no model object."""
    try:
        bucket, key = split_s3_uri(uri)
    except ValueError:
        return None
    return (bucket, key) if bucket else None


class MotoS3:
    """Object reads and writes on moto's S3 backend; a missing bucket is reported, never created."""

    def __init__(self, account_id: str) -> None:
        self.account_id = account_id

    def _backend(self) -> Any:
        from moto.s3.models import s3_backends

        return s3_backends[self.account_id]["aws"]

    def bucket_exists(self, bucket: str) -> bool:
        from moto.s3.exceptions import MissingBucket

        try:
            self._backend().get_bucket(bucket)
        except MissingBucket:
            return False
        return True

    def put(self, bucket: str, key: str, body: bytes) -> bool:
        if not self.bucket_exists(bucket):
            return False
        self._backend().put_object(bucket, key, body)
        return True

    def get(self, bucket: str, key: str) -> bytes | None:
        if not self.bucket_exists(bucket):
            return None
        found = self._backend().get_object(bucket, key)
        return None if found is None else bytes(found.value)


class MotoCheckpointStore:
    """Checkpoints as real objects under ``CheckpointConfig.S3Uri`` when the bucket exists in moto.

    Where it does not, progress is kept in memory (a real job would fail on a missing bucket; the simulator keeps
    training so a quick demo needs no set-up). Once written to S3, the object is the truth: deleting it makes the
    next job start from scratch.
    """

    def __init__(self, s3: MotoS3) -> None:
        self._s3 = s3
        self._memory: dict[str, float] = {}
        self._mirrored: set[str] = set()

    def load(self, uri: str) -> float:
        prefix = normalize_prefix(uri)
        location = s3_location(prefix + CHECKPOINT_OBJECT)
        if location is not None and prefix in self._mirrored:
            body = self._s3.get(*location)
            if body is None:
                return 0.0
            try:
                return float(json.loads(body)["progress_seconds"])
            except (ValueError, KeyError, TypeError):
                return 0.0
        return self._memory.get(prefix, 0.0)

    def save(self, uri: str, progress_seconds: float, *, job_name: str, at: float) -> None:
        prefix = normalize_prefix(uri)
        self._memory[prefix] = progress_seconds
        location = s3_location(prefix + CHECKPOINT_OBJECT)
        if location is None:
            return
        body = json.dumps({"progress_seconds": progress_seconds, "job": job_name, "time": at}).encode()
        if self._s3.put(*location, body):
            self._mirrored.add(prefix)


class TrainingOutputs:
    """A job listener that writes the model artifact to S3 and each status change to CloudWatch Logs."""

    def __init__(self, s3: MotoS3, account_id: str, region: str) -> None:
        self._s3 = s3
        self._account_id = account_id
        self._region = region

    def __call__(self, event: JobEvent) -> None:
        try:
            self._log(event)
            if event.model_artifacts is not None:
                location = s3_location(event.model_artifacts)
                if location is not None:
                    self._s3.put(*location, f"simulated model of {event.job_name}\n".encode())
        except Exception:  # side effects must never break the control plane
            LOG.exception("writing the outputs of %s to moto failed", event.job_name)

    def _log(self, event: JobEvent) -> None:
        from moto.logs.models import logs_backends

        backend = logs_backends[self._account_id][self._region]
        if LOG_GROUP not in backend.groups:
            backend.create_log_group(LOG_GROUP, {})
        group = backend.groups[LOG_GROUP]
        stream = f"{event.job_name}/algo-1"
        if stream not in group.streams:
            group.create_log_stream(stream)
        line = f"[{event.secondary_status}] {event.message}"
        group.put_log_events(stream, [{"timestamp": int(event.time * 1000), "message": line}])
