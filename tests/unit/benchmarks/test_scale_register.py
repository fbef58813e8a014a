"""benchmarks/scale.py --register: the generated fleet, with register:, is a valid spec whose every city registers
(the benchmark measures that fleet, so a spec the loader refuses would measure nothing)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL

if TYPE_CHECKING:
    import pytest

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


def test_the_register_flag_gives_every_city_the_gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # the scripts import their siblings by name
    import handoff_under_load
    import scale

    path = handoff_under_load.fleet_file(tmp_path, 50, 10, 7)
    scale.with_register(path)
    spec = load_fleet_spec(path, BOTOCORE_MODEL)
    assert all(city.register is not None for city in spec.cities)
    assert spec.cities[0].register.metric == "validation:rmse"  # type: ignore[union-attr]
    for name in ("scale", "handoff_under_load", "orchestration_latency", "result_file"):
        sys.modules.pop(name, None)
