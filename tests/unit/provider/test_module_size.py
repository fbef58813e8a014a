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
