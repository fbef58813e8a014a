"""``DurationHistory`` from a previous run's report.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sagemaker_fleet.plan import DurationHistory, HistoryError


def job(city: str, status: str = "Completed", **fields: object) -> dict[str, object]:
    return {"city": city, "job_name": f"demo-{city}-20261128", "status": status, **fields}


def test_latest_completed_training_seconds_per_city() -> None:
    report = {
        "jobs": [
            job("seoul", training_seconds=1000, startup_seconds=140, start="cold"),
            job("tokyo", "Failed", training_seconds=50),
            {**job("tokyo", training_seconds=1700.4), "job_name": "demo-tokyo-20261128-r3"},
            {**job("tokyo", training_seconds=1500), "job_name": "demo-tokyo-20261128-r2"},
            job("lima", "Stopped", training_seconds=800),
            job("oslo", training_seconds=0),
            job("quito", training_seconds=None),
        ]
    }
    history = DurationHistory.from_report(report)
    assert history.training_seconds("seoul") == 1000
    assert history.training_seconds("tokyo") == 1700  # the -r3 submission is the latest, rounded
    assert history.training_seconds("lima") is None
    assert history.training_seconds("oslo") is None
    assert history.training_seconds("quito") is None


def test_start_up_p90_needs_enough_on_demand_samples() -> None:
    warm = [job(f"w{i}", training_seconds=100, startup_seconds=10 + i, start="warm") for i in range(10)]
    cold = [job(f"c{i}", training_seconds=100, startup_seconds=150, start="cold") for i in range(4)]
    spot = [
        job(f"s{i}", training_seconds=100, startup_seconds=999, start="cold", spot=True) for i in range(5)
    ]
    history = DurationHistory.from_report({"jobs": warm + cold + spot})
    assert history.startup_p90(warm=True) == 18  # P90 of 10..19
    assert history.startup_p90(warm=False) is None  # 4 on-demand cold samples are too few; spot is ignored


def test_load_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text(json.dumps({"fleet": "demo", "jobs": [job("seoul", training_seconds=900)]}))
    assert DurationHistory.load(path).training_seconds("seoul") == 900


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not JSON"),
        ('{"fleet": "demo"}', "jobs: required field is missing"),
        ('{"jobs": {}}', "jobs: expected a list"),
        (
            '{"jobs": [{"city": 3, "status": "Completed"}]}',
            r"jobs\[0\]\.city.*: expected the city's name as text",
        ),
        ('{"jobs": [{"city": "x", "status": "Completed", "training_seconds": "long"}]}', "training_seconds"),
    ],
)
def test_unusable_history_is_a_history_error(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "report.json"
    path.write_text(content)
    with pytest.raises(HistoryError, match=message):
        DurationHistory.load(path)


def test_missing_file_is_a_history_error(tmp_path: Path) -> None:
    with pytest.raises(HistoryError, match="cannot read"):
        DurationHistory.load(tmp_path / "absent.json")


def test_every_job_is_checked_and_every_problem_reported_at_once() -> None:
    """A number as a city used to pass when the job had not completed; now nothing of such a file is used."""
    report = {
        "fleet": "small",
        "jobs": [
            {"city": 3, "status": "Failed"},
            {"city": "tokyo", "status": "Done"},
            {"city": "lima", "status": "Completed", "training_seconds": 10**12},
            {
                "city": "oslo",
                "status": "Completed",
                "startup_seconds": float("inf"),
                "spot": "no",
                "start": "hot",
            },
            "a job",
        ],
    }
    with pytest.raises(HistoryError) as info:
        DurationHistory.from_report(report, "small", source="h.json")
    message = str(info.value)
    assert message.startswith("h.json: 7 error(s) in the history file:\n")
    for fragment in [
        "jobs[0].city: expected the city's name as text, got 3",
        "jobs[1].status: expected one of InProgress, Completed, Failed, Stopping, Stopped, got 'Done'",
        "jobs[2].training_seconds: 1000000000000 s is not a duration a training job can have",
        "jobs[3].startup_seconds: expected a number of seconds or null, got inf",
        "jobs[3].spot: expected true, false or null, got 'no'",
        "jobs[3].start: expected one of cold, warm, got 'hot'",
        "jobs[4]: expected an object (one job), got str",
    ]:
        assert fragment in message


def test_a_report_of_another_fleet_is_refused_by_name() -> None:
    with pytest.raises(HistoryError, match="this is the report of fleet 'demo', not of fleet 'small'"):
        DurationHistory.from_report({"fleet": "demo", "jobs": []}, "small")
    with pytest.raises(HistoryError, match="not a fleet's report"):
        DurationHistory.from_report({"jobs": []}, "small")
    assert DurationHistory.from_report({"fleet": "small", "jobs": []}, "small").training == {}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[" * 100_000, "not JSON"),
        ("9" * 5000, "not JSON"),
        ("[]", "expected a report.json object, got list"),
    ],
)
def test_json_python_cannot_hold_is_a_history_error(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "report.json"
    path.write_text(content)
    with pytest.raises(HistoryError, match=message):
        DurationHistory.load(path)
