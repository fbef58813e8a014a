"""Where a benchmark's raw result goes: one JSON file per run under ``benchmarks/results/``.

Every script of this folder calls :func:`write_result` at its end (``python benchmarks/X.py`` puts this folder on
``sys.path``, so ``from result_file import ...`` works from any of them). The file is named after the benchmark
and the UTC minute the run started, ``benchmarks/results/<name>-<YYYY-MM-DDTHHMM>Z.json``, and holds the figures
the script printed with what is needed to tell runs apart: the command line, the Python, Airflow and provider
versions, the platform, the CPU count and the git commit of the checkout (the commit belongs here, not in the
docs). ``--results-dir DIR`` (:func:`add_result_options`) writes elsewhere; ``--results-dir ''`` writes nothing.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import os
import platform
import shlex
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator, Mapping

RESULTS_DIR = Path(__file__).resolve().parent / "results"
REPO = Path(__file__).resolve().parents[1]
FORMAT = 1  # bump when the envelope's keys change


def started_now() -> dt.datetime:
    """The run's start, in UTC: take it before the run, pass it to :func:`write_result`."""
    return dt.datetime.now(dt.UTC)


def result_path(name: str, started: dt.datetime, directory: Path = RESULTS_DIR) -> Path:
    """``<directory>/<name>-<YYYY-MM-DDTHHMM>Z.json``; a second run in the same minute gets ``-2``, ``-3``, …"""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"a result name is a plain file-name stem, not {name!r}")
    stamp = started.astimezone(dt.UTC).strftime("%Y-%m-%dT%H%MZ")
    path = directory / f"{name}-{stamp}.json"
    n = 2
    while path.exists():
        path = directory / f"{name}-{stamp}-{n}.json"
        n += 1
    return path


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def environment(argv: list[str] | None = None) -> dict[str, Any]:
    """What ran the benchmark: command line, versions, platform, CPUs and the checkout's commit."""
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "command": shlex.join([Path(sys.executable).name, *(sys.argv if argv is None else argv)]),
        "python": platform.python_version(),
        "airflow": _version("apache-airflow"),
        "provider": _version("airflow-provider-sagemaker-fleet"),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "git_commit": _git("rev-parse", "HEAD"),
        "git_dirty": None if status is None else bool(status),
    }


def write_result(
    name: str,
    payload: Mapping[str, Any] | list[Any],
    started: dt.datetime,
    *,
    directory: Path | None = RESULTS_DIR,
    argv: list[str] | None = None,
) -> Path | None:
    """Write one run's raw result; returns its path (``None`` when ``directory`` is ``None``: nothing written).

    ``payload`` is what the script measured (JSON-serialisable; anything else is written with ``str``);
    ``started`` the run's start (:func:`started_now`), which names the file.
    """
    if directory is None:
        return None
    directory.mkdir(parents=True, exist_ok=True)
    path = result_path(name, started, directory)
    document = {
        "format": FORMAT,
        "benchmark": name,
        "started": started.astimezone(dt.UTC).isoformat(timespec="seconds"),
        "finished": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "environment": environment(argv),
        "result": payload,
    }
    path.write_text(json.dumps(document, indent=2, default=str) + "\n")
    print(f"result written to {path}", file=sys.stderr)
    return path


def add_result_options(parser: argparse.ArgumentParser) -> None:
    """``--results-dir DIR`` (default ``benchmarks/results``; an empty value writes no result file)."""
    parser.add_argument(
        "--results-dir",
        type=lambda text: Path(text) if text else None,
        default=RESULTS_DIR,
        metavar="DIR",
        help="write the run's raw result JSON into this folder (default: benchmarks/results; '' for none)",
    )


def options(args: argparse.Namespace) -> dict[str, Any]:
    """The parsed options of a run (defaults included), for its result; ``--results-dir`` left out."""
    return {key: value for key, value in vars(args).items() if key != "results_dir"}


@contextlib.contextmanager
def printed_lines() -> Iterator[list[str]]:
    """Copy what the block prints to stdout (it still prints) into a list of lines, for a result's ``printed``."""
    lines: list[str] = []
    original = sys.stdout

    class Tee(io.TextIOBase):
        def __init__(self) -> None:
            self._partial = ""

        def write(self, text: str) -> int:
            original.write(text)
            self._partial += text
            *done, self._partial = self._partial.split("\n")
            lines.extend(done)
            return len(text)

        def flush(self) -> None:
            original.flush()

        def finish(self) -> None:
            if self._partial:
                lines.append(self._partial)

    tee = Tee()
    sys.stdout = tee  # type: ignore[assignment]
    try:
        yield lines
    finally:
        sys.stdout = original
        tee.finish()
