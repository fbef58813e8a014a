"""Airflow plugins folder of the browser test's stack: the provider's Fleet view plugin.

An installed provider registers the plugin through its ``airflow.plugins`` entry point, and Airflow finds it there;
a checkout whose installed metadata predates the entry point (an editable install of another tree) does not, so
this file adds the same plugin then, and only then (a second registration would be an import error in the UI).
"""

from __future__ import annotations

from importlib.metadata import entry_points

import sagemaker_fleet.plugin as fleet_plugin

if not any(ep.value.startswith("sagemaker_fleet.plugin") for ep in entry_points(group="airflow.plugins")):

    class FleetViewPlugin(fleet_plugin.SageMakerFleetPlugin):
        """The entry point's plugin, found through the plugins folder."""
