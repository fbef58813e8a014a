"""A spec without ``job:`` compiles to exactly the request it compiled to before ``job:`` existed, byte for byte.

``tests/data/requests/pinned.json`` was written by the compiler as it was before templates: for every fleet below,
the SHA-256 of its compiled requests (one JSON text per submission: the first try, a spot attempt, the on-demand
fallback, an Airflow try, a forced retrain, of every city) and the first city's texts in full, for a readable diff.
Regenerate it only for a deliberate change of the request (``python tests/unit/jobs/test_request_pinned.py``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from sagemaker_fleet.fleetspec import CitySpec, load_fleet_spec
from sagemaker_fleet.jobs.request import Submission, compile_training_request

ROOT = Path(__file__).resolve().parents[3]
FLEET_FILES = sorted([*ROOT.glob("dags/fleets/*.yaml"), *ROOT.glob("tests/e2e/fleets/*.yaml")])
PINNED = ROOT / "tests" / "data" / "requests" / "pinned.json"
RUN_KEY = "20261129"
SUBMISSIONS_PER_CITY = 5


def submissions(city: CitySpec) -> Iterator[Submission]:
    yield Submission(city.name, RUN_KEY, attempt=1, keep_alive_seconds=900)
    yield Submission(city.name, RUN_KEY, attempt=2, spot=True, keep_alive_seconds=0)
    yield Submission(city.name, RUN_KEY, attempt=3, spot=False, keep_alive_seconds=300)
    yield Submission(city.name, RUN_KEY, attempt=4, airflow_try="scheduled__2026-11-29T00:00:00+00:00/2")
    yield Submission(city.name, "abc123", attempt=1, forced=True)


def compiled_texts(path: Path) -> list[str]:
    fleet = load_fleet_spec(path)
    return [
        json.dumps(compile_training_request(fleet, city, submission))
        for city in fleet.cities
        for submission in submissions(city)
    ]


def fingerprint(texts: list[str]) -> dict[str, object]:
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()
    return {"requests": len(texts), "sha256": digest, "first_city": texts[:SUBMISSIONS_PER_CITY]}


@pytest.mark.parametrize("path", FLEET_FILES, ids=lambda p: p.name)
def test_a_spec_without_job_compiles_to_the_pinned_bytes(path: Path) -> None:
    pinned = json.loads(PINNED.read_text(encoding="utf-8"))[path.relative_to(ROOT).as_posix()]
    found = fingerprint(compiled_texts(path))
    assert found["first_city"] == pinned["first_city"]
    assert found == pinned


if __name__ == "__main__":
    table = {path.relative_to(ROOT).as_posix(): fingerprint(compiled_texts(path)) for path in FLEET_FILES}
    PINNED.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
