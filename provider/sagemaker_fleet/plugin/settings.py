"""Whether the Fleet view is on (``[sagemaker_fleet] fleet_view``, default on). Where it is served is the DAG's
contract (:data:`~sagemaker_fleet.contract.FLEET_VIEW_URL_PREFIX`)."""

from __future__ import annotations


def fleet_view_enabled() -> bool:
    from sagemaker_fleet import settings

    return settings.get_bool("fleet_view")
