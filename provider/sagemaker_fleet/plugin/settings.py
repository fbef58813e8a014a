"""Where the Fleet view is served and whether it is on (``[sagemaker_fleet] fleet_view``, default on)."""

from __future__ import annotations

from sagemaker_fleet.contract import FLEET_VIEW_URL_PREFIX as URL_PREFIX
from sagemaker_fleet.contract import FLEET_VIEW_URL_ROUTE as URL_ROUTE

__all__ = ["URL_PREFIX", "URL_ROUTE", "fleet_view_enabled"]


def fleet_view_enabled() -> bool:
    from sagemaker_fleet import settings

    return settings.get_bool("fleet_view")
