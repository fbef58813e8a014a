"""The parse-time spec cache: the same spec as reading the file, read once per content, never from a folder others
may write."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sagemaker_fleet.fleetspec import cache
from sagemaker_fleet.fleetspec.cache import load_fleet_spec_cached
from sagemaker_fleet.fleetspec.errors import FleetSpecError
from sagemaker_fleet.fleetspec.load import load_fleet_spec

FLEETS = Path(__file__).resolve().parents[3] / "dags" / "fleets"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cache"
    monkeypatch.setenv("SAGEMAKER_FLEET_CACHE_DIR", str(path))
    return path


def test_a_cached_spec_is_the_spec_and_the_second_read_skips_the_file(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = load_fleet_spec_cached(FLEETS / "demo.yaml")
    assert spec == load_fleet_spec(FLEETS / "demo.yaml")
    assert len(list(folder.glob("*.pickle"))) == 1
    calls: list[object] = []
    monkeypatch.setattr(cache, "load_fleet_spec", lambda path: calls.append(path))
    assert load_fleet_spec_cached(FLEETS / "demo.yaml") == spec
    assert calls == []  # served from the cache


def test_a_changed_file_is_read_again(folder: Path, tmp_path: Path) -> None:
    path = tmp_path / "fleet.yaml"
    text = (FLEETS / "small.yaml").read_text()
    path.write_text(text)
    first = load_fleet_spec_cached(path)
    path.write_text(text.replace("orchestration_latency_seconds: 120", "orchestration_latency_seconds: 150"))
    second = load_fleet_spec_cached(path)
    assert second.orchestration_latency_seconds == 150 != first.orchestration_latency_seconds
    assert second == load_fleet_spec(path)


def test_a_spec_with_errors_raises_every_time_and_is_not_cached(folder: Path, tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text((FLEETS / "small.yaml").read_text().replace("fleet: ", "fleet: Not_Valid", 1))
    for _ in range(2):
        with pytest.raises(FleetSpecError):
            load_fleet_spec_cached(path)
    assert list(folder.glob("*.pickle")) == []


def test_a_folder_others_may_write_is_never_read(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder.mkdir(mode=0o700)
    load_fleet_spec_cached(FLEETS / "demo.yaml")
    os.chmod(folder, 0o777)
    calls: list[object] = []
    real = cache.load_fleet_spec
    monkeypatch.setattr(cache, "load_fleet_spec", lambda path: calls.append(path) or real(path))
    assert load_fleet_spec_cached(FLEETS / "demo.yaml") == real(FLEETS / "demo.yaml")
    assert calls == [FLEETS / "demo.yaml"]  # read from the file, the pickle left alone
