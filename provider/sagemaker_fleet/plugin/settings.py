"""Where the Fleet view is served and whether it is on (``[sagemaker_fleet] fleet_view``, default on)."""

from __future__ import annotations

URL_PREFIX = "/sagemaker-fleet"
#: The tab's address inside the UI: ``/dags/<dag>/runs/<run>/plugin/sagemaker-fleet``.
URL_ROUTE = "sagemaker-fleet"


def fleet_view_enabled() -> bool:
    from sagemaker_fleet import settings

    return settings.get_bool("fleet_view")
