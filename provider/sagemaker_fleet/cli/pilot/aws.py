"""The pilot's AWS clients: the provider's own SageMaker hook (what the training tasks and the run's poller use) and
an S3 and a Service Quotas client from the same session, every call recorded (:class:`~.calls.CallRecorder`).

Credentials and the endpoint come from the standard AWS environment (no Airflow connection): ``AWS_ENDPOINT_URL``
points every client at the simulator. The hook retries throttled calls as the triggerer's poller does (botocore's
standard mode).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
from sagemaker_fleet.triggers.client import TRIGGERER_RETRIES, aws_host

if TYPE_CHECKING:
    from sagemaker_fleet.cli.pilot.calls import CallRecorder
    from sagemaker_fleet.cli.pilot.settings import PilotSettings


class RecordingHook(SageMakerFleetHook):
    """:class:`SageMakerFleetHook`, each of its sessions (boto3's and aiobotocore's) recorded by ``recorder``."""

    def __init__(self, recorder: CallRecorder, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.recorder = recorder

    def get_session(self, region_name: str | None = None, deferrable: bool = False) -> Any:
        session = super().get_session(region_name=region_name, deferrable=deferrable)
        self.recorder.attach(session)
        return session


@dataclass(frozen=True)
class PilotAws:
    """The clients of one pilot, and the endpoint they reach."""

    hook: RecordingHook
    s3: Any
    quotas: Any
    endpoint_url: str

    @property
    def is_aws(self) -> bool:
        """Whether the endpoint is AWS itself (not the simulator, nor another endpoint ``AWS_ENDPOINT_URL`` names)."""
        return aws_host(self.endpoint_url) is not None


def pilot_aws(settings: PilotSettings, recorder: CallRecorder) -> PilotAws:
    """The clients of the region in ``settings``, recorded by ``recorder``."""
    from botocore.config import Config

    hook = RecordingHook(
        recorder, aws_conn_id=None, region_name=settings.region, config={"retries": TRIGGERER_RETRIES}
    )
    session = hook.get_session(region_name=settings.region)
    config = Config(retries={"mode": "standard", "max_attempts": 10})
    factory: Any = session.client  # any service name, so not the stubs' per-service overloads
    return PilotAws(
        hook=hook,
        s3=factory("s3", region_name=settings.region, config=config),
        quotas=factory("service-quotas", region_name=settings.region, config=config),
        endpoint_url=str(hook.client.meta.endpoint_url),
    )
