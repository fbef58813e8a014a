"""Fuzz: any argument list for ``validate``, ``plan``, ``simulate``, ``report`` and ``sim serve`` ends in exit 0 or 2
with a message, never a traceback, within a bounded time (:data:`BOUND_SECONDS`).

Nothing leaves the machine: ``report`` reads an empty run and uploads nowhere (its AWS calls are replaced), and
``sim serve`` stops as soon as it serves, listening on port 0 only (a random real port could be another test's).
"""

from __future__ import annotations

import json
import socket
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from unit.fuzz.fuzz_inputs import BASE_TEXT, EXAMPLES, assert_handled, run_cli

_NUMBERS = st.one_of(
    st.sampled_from(
        [
            "0",
            "1",
            "-1",
            "0.5",
            "1.5",
            "nan",
            "inf",
            "-inf",
            "1e400",
            "99999",
            "65536",
            "65535",
            "",
            " ",
            "abc",
            "9" * 400,
            "0x10",
            "1_000",
            "٣",
        ]
    ),
    st.integers(min_value=-(10**6), max_value=10**6).map(str),
    st.floats().map(repr),
)
_WORDS = st.one_of(
    st.sampled_from(
        [
            "20261129",
            "m1234abcd",
            "r2",
            "not a key!",
            "",
            "-",
            "--",
            "x" * 300,
            "ml.m5.xlarge=2:1",
            "ml.m5.xlarge=1:1:1:1",
            "=1:1",
            "ml.m5.xlarge=-1:0",
            "http://127.0.0.1:1",
            "https://",
            "ftp://x",
            "http://[::1",
            "http://x:99999",
            "é",
        ]
    ),
    st.text(min_size=0, max_size=10).filter(lambda t: "\x00" not in t),
)


@pytest.fixture(scope="module")
def files() -> Iterator[dict[str, str]]:
    """Specs (valid, broken, missing, a folder, binary), history files and output folders to pick from."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "good.yaml").write_text(BASE_TEXT, encoding="utf-8")
        (root / "broken.yaml").write_text(BASE_TEXT.replace("fleet: fuzz", "fleet: Fuzz-1"), encoding="utf-8")
        (root / "binary.yaml").write_bytes(b"\xff\xfe\x00garbage")
        (root / "history.json").write_text(
            json.dumps(
                {"fleet": "fuzz", "jobs": [{"city": "seoul", "status": "Completed", "training_seconds": 800}]}
            )
        )
        (root / "other.json").write_text(json.dumps({"fleet": "other", "jobs": []}))
        (root / "shape.json").write_text(
            json.dumps({"fleet": "fuzz", "jobs": [{"city": 3, "status": "Failed"}]})
        )
        (root / "deep.json").write_text("[" * 100_000)
        (root / "a-file").write_text("x")
        taken = socket.socket()
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield {
            "spec": [str(root / name) for name in ("good.yaml", "broken.yaml", "binary.yaml", "missing.yaml")]
            + [str(root)],
            "history": [
                str(root / name)
                for name in (
                    "history.json",
                    "other.json",
                    "shape.json",
                    "deep.json",
                    "missing.json",
                    "binary.yaml",
                )
            ],
            "out": [
                str(root / "out"),
                str(root / "a-file"),
                str(root / "a-file" / "below"),
                "/proc/sys/nope",
            ],
            "port": ["0", str(taken.getsockname()[1])],
        }
        taken.close()


def _flags(files: dict[str, str]) -> dict[str, list[Any]]:
    """Per command: (flag, values) the fuzz may give, the values of the flag's type and beyond."""
    history = st.sampled_from(files["history"])
    out = st.sampled_from(files["out"])
    return {
        "validate": [],
        "plan": [
            ("--history", history),
            ("--run-key", _WORDS),
            ("--format", st.sampled_from(["json", "table", "x"])),
        ],
        "simulate": [
            ("--history", history),
            ("--run-key", _WORDS),
            ("--seed", _NUMBERS),
            ("--strategy", st.sampled_from(["planned", "naive", "best"])),
            ("--json", None),
            ("--compare", None),
            ("--throttle-share", _NUMBERS),
            ("--report-dir", out),
        ],
        "report": [
            ("--run-key", _WORDS),
            ("--out", out),
            ("--endpoint-url", _WORDS),
            ("--no-upload", None),
            ("--describe-workers", _NUMBERS),
            ("--price-cache", out),
        ],
        "sim": [
            (
                "--port",
                st.one_of(st.sampled_from(files["port"]), _NUMBERS.filter(lambda n: n.strip() != "0")),
            ),
            (
                "--host",
                st.sampled_from(["127.0.0.1", "localhost", "no.such.host.invalid", "bad host", "::1"]),
            ),
            ("--speed", _NUMBERS),
            ("--seed", _NUMBERS),
            ("--throttle", _NUMBERS),
            ("--spot-interruptions-per-hour", _NUMBERS),
            ("--spot-discount", _NUMBERS),
            ("--default-work-seconds", _NUMBERS),
            ("--quota", _WORDS),
            ("--fleet", st.sampled_from(files["spec"])),
        ],
    }


@st.composite
def argument_lists(draw: st.DrawFn, files: dict[str, str]) -> list[str]:
    flags = _flags(files)
    command = draw(st.sampled_from([*flags, "bogus"]))
    argv = ["sim", "serve", "--no-moto"] if command == "sim" else [command]
    if command not in ("sim", "bogus") and draw(st.integers(0, 9)) > 0:
        argv.append(
            draw(st.one_of(st.just(files["spec"][0]), st.sampled_from(files["spec"])))
        )  # good half the time
    if command == "report" and draw(st.booleans()):
        argv += ["--run-key", "20261129"]
    chosen = draw(st.lists(st.sampled_from(flags[command]), max_size=3)) if flags.get(command) else []
    for flag, values in chosen:
        argv.append(flag)
        if values is not None and draw(st.integers(0, 9)) > 0:  # now and then the value is left out
            argv.append(draw(values))
    if draw(st.integers(0, 19)) == 0:
        argv.append(draw(_WORDS))  # a stray argument
    return argv


@pytest.fixture(scope="module")
def offline() -> Iterator[None]:
    """``report`` reads no AWS and ``sim serve`` returns once it serves."""
    import sagemaker_fleet.cli.report as report
    import sagemaker_fleet.cli.sim as sim

    patch = pytest.MonkeyPatch()
    patch.setattr(report, "describe_run_jobs", lambda *args, **kwargs: [])
    patch.setattr(report, "upload_report_files", lambda client, files, target: [f"{target}report.html"])
    patch.setattr(sim, "serve_until_stopped", lambda server, settings, stopped=None: server.stop())
    patch.setattr(sim, "stop_on_signals", threading.Event)
    patch.setenv("AWS_ACCESS_KEY_ID", "testing")
    patch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    patch.delenv("AWS_ENDPOINT_URL", raising=False)
    yield
    patch.undo()


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_any_argument_list_runs_or_is_refused_with_a_message(
    data: st.DataObject, files: dict[str, str], offline: None
) -> None:
    argv = data.draw(argument_lists(files))
    note(repr(argv))
    outcome = run_cli(argv)
    event(f"{argv[0]} exit {outcome.code}")
    assert_handled(outcome, f"sagemaker-fleet {argv!r}")
