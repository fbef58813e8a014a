"""Every input the fuzz suite (or a user) ever broke a command with, replayed: ``corpus/*.yaml`` are fleet files,
``corpus/cli/*.args`` argument lists (one argument a line). The first line says what must happen:
``# expect: exit 2, "a fragment of the message"`` (or ``exit 0``). Add a file for each new failure."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from unit.fuzz.fuzz_inputs import BASE_TEXT, CORPUS, assert_handled, run_cli

_EXPECT = re.compile(r'^# expect: exit (\d)(?:, "(.*)")?$')
SPECS = sorted(CORPUS.glob("*.yaml"))
ARGS = sorted((CORPUS / "cli").glob("*.args"))


def _expectation(first_line: str) -> tuple[int, str]:
    match = _EXPECT.match(first_line.rstrip("\n"))
    assert match, f'the first line must be `# expect: exit N, "fragment"`, not {first_line!r}'
    return int(match.group(1)), match.group(2) or ""


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_corpus_spec(path: Path) -> None:
    code, fragment = _expectation(path.read_text(encoding="utf-8", errors="replace").splitlines()[0])
    outcome = run_cli(["validate", str(path)])
    assert_handled(outcome, str(path))
    assert outcome.code == code, outcome.err
    assert fragment in outcome.err
    if outcome.code == 0:
        assert_handled(run_cli(["plan", str(path), "--run-key", "20261129"]), f"plan of {path}")
        assert_handled(run_cli(["simulate", str(path), "--json"]), f"simulate of {path}")


@pytest.fixture(scope="module")
def places() -> Iterator[dict[str, str]]:
    """What ``{name}`` in an .args file stands for."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "good.yaml").write_text(BASE_TEXT, encoding="utf-8")
        (root / "shape.json").write_text('{"fleet": "fuzz", "jobs": [{"city": 3, "status": "Failed"}]}')
        (root / "other.json").write_text('{"fleet": "other", "jobs": []}')
        (root / "a-file").write_text("x")
        yield {
            "good": str(root / "good.yaml"),
            "shape": str(root / "shape.json"),
            "other": str(root / "other.json"),
            "file": str(root / "a-file"),
            "tmp": str(root),
        }


@pytest.mark.parametrize("path", ARGS, ids=lambda p: p.stem)
def test_corpus_arguments(path: Path, places: dict[str, str]) -> None:
    first, *argv = path.read_text(encoding="utf-8").splitlines()
    code, fragment = _expectation(first)
    argv = [arg.format(**places) for arg in argv]
    outcome = run_cli(argv)
    assert_handled(outcome, f"{path}: {argv!r}")
    assert outcome.code == code, outcome.err
    assert fragment in outcome.err
