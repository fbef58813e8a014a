"""No module of the package over 450 lines: a module that grows past it holds more than one job and is split along
its own seams, not trimmed."""

from __future__ import annotations

from pathlib import Path

import sagemaker_fleet

MAX_LINES = 450


def test_no_module_is_over_450_lines() -> None:
    package = Path(sagemaker_fleet.__file__).parent
    long = {
        str(path.relative_to(package)): n
        for path in package.rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, f"split these modules along their seams: {long}"


#: The run's session in the triggerer, split from the one poller class by responsibility (the session, its sweeps'
#: I/O, its way to AWS, its give-up policy, the waiting cities): each stays well under the cap.
SESSION_MODULES = (
    "triggers/session.py",
    "triggers/sweep_io.py",
    "triggers/connection.py",
    "triggers/outage.py",
    "dispatch/waiters.py",
)
SESSION_MAX_LINES = 300


def test_the_run_session_s_modules_are_at_most_300_lines() -> None:
    package = Path(sagemaker_fleet.__file__).parent
    sizes = {name: len((package / name).read_text(encoding="utf-8").splitlines()) for name in SESSION_MODULES}
    assert {name: n for name, n in sizes.items() if n > SESSION_MAX_LINES} == {}, sizes
