"""The docs' examples are code that runs: every Python block marked as an example in docs/ and README.md is, verbatim,
a marked region of a DAG file, and those DAG files import and build their DAGs.

A block is marked by the HTML comment on the line before its fence (invisible on GitHub)::

    <!-- example: dags/examples/example_fleet_operators.py howto_operator_plan_fleet -->
    ```python
    ...
    ```

and the region is the lines between ``# [START howto_operator_plan_fleet]`` and ``# [END howto_operator_plan_fleet]``
in that file, dedented — the convention of Airflow's own provider docs.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from sagemaker_fleet.testing import assert_dag_folder_ok

ROOT = Path(__file__).resolve().parents[3]
DAGS = ROOT / "dags"
EXAMPLES = DAGS / "examples"
#: The DAG files a snippet may come from: each is parsed and built below (the shipped folder by
#: tests/unit/dags/test_dag_integrity.py, the examples here).
TESTED_FOLDERS = (DAGS, EXAMPLES)
MARKER = re.compile(r"^<!--\s*example:\s*(\S+)\s+(\S+)\s*-->\s*$")
FENCE_OPEN = re.compile(r"^```(\w*)\s*$")


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def marked_blocks(path: Path) -> list[tuple[int, str, str, str | None]]:
    """(line, file, region, block) for each marker in ``path``; block is None when no ```python fence follows."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[tuple[int, str, str, str | None]] = []
    for index, line in enumerate(lines):
        match = MARKER.match(line)
        if not match:
            continue
        fence = FENCE_OPEN.match(lines[index + 1]) if index + 1 < len(lines) else None
        if not fence or fence.group(1) != "python":
            found.append((index + 1, match.group(1), match.group(2), None))
            continue
        body: list[str] = []
        for inner in lines[index + 2 :]:
            if inner.startswith("```"):
                break
            body.append(inner)
        found.append((index + 1, match.group(1), match.group(2), "\n".join(body)))
    return found


def region(source: Path, name: str) -> str | None:
    """The dedented lines between ``# [START name]`` and ``# [END name]``, or None when the file has no such region."""
    lines = source.read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == f"# [START {name}]"]
    ends = [i for i, line in enumerate(lines) if line.strip() == f"# [END {name}]"]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        return None
    return textwrap.dedent("\n".join(lines[starts[0] + 1 : ends[0]])).strip("\n")


ALL_BLOCKS = [(path, *block) for path in doc_files() for block in marked_blocks(path)]


def test_the_docs_have_examples() -> None:
    """The README's DAG and each operator page's are marked (a marker spelled wrong would find nothing)."""
    pages = {path.relative_to(ROOT).as_posix() for path, *_ in ALL_BLOCKS}
    assert "README.md" in pages
    assert any(page.startswith("docs/operators/") for page in pages)


@pytest.mark.parametrize(
    ("doc", "line", "file", "name", "block"),
    [
        pytest.param(path, line, file, name, block, id=f"{path.relative_to(ROOT)}:{line}")
        for path, line, file, name, block in ALL_BLOCKS
    ],
)
def test_every_marked_block_is_a_region_of_a_tested_dag_file(
    doc: Path, line: int, file: str, name: str, block: str | None
) -> None:
    where = f"{doc.relative_to(ROOT)}:{line}"
    assert block is not None, f"{where}: the example marker must be followed by a ```python block"
    source = (ROOT / file).resolve()
    assert source.is_file(), f"{where}: {file} does not exist (paths are from the repository's root)"
    assert source.parent in TESTED_FOLDERS, f"{where}: {file} is not in a DAG folder the tests parse"
    code = region(source, name)
    assert code is not None, f"{where}: {file} has no single '# [START {name}]' … '# [END {name}]' region"
    assert block.strip("\n") == code, f"{where}: the block differs from {file}'s region {name}: copy it again"


def test_the_readmes_dag_is_short() -> None:
    readme = [block for path, _, _, _, block in ALL_BLOCKS if path.name == "README.md"]
    assert readme
    assert all(block is not None and len(block.splitlines()) <= 12 for block in readme)


def test_the_example_dags_import_and_build() -> None:
    """The examples pass the check users run on their own DAG folder: they import with no parse-time access to
    the network, connections or the metadata DB, and build their DAGs."""
    report = assert_dag_folder_ok(EXAMPLES)
    assert set(report.dag_ids) == {"example_fleet_operators", "example_fleet_sensors", "example_fleet_notice"}


def test_the_examples_stay_out_of_the_demos_dag_folder() -> None:
    """dags/ is the demo's and docker-compose's DAG folder: the examples are ignored there."""
    ignore = (DAGS / ".airflowignore").read_text(encoding="utf-8").splitlines()
    assert "examples/" in ignore
