"""The user's pages say how the product works, not when our work on it happened: no page under docs/ outside
docs/contributing/, and not README.md, carries a commit hash or a dated measurement. Figures live in
docs/performance.md (which says when and how each was measured), the state of the work in the issue tracker and
``git log``.

A commit hash is a word of 7 to 40 lower-case hex digits with at least one digit and one letter (``171c6f3``); what
only looks like one is told apart by its context, not by weakening the pattern: a hex colour (``#1f77b4``), an image
digest (``sha256:…``, 64 digits), a UUID's group, a path or URL segment. Account ids (12 digits) and quota codes
(``L-`` + upper-case hex) have no lower-case letter. A dated measurement is an ISO date on a line that also has a
figure with a unit (``301 s``, ``$12.73``, ``1.02×``) or says when something was run or measured ("measured on",
"run on", "before <date>").
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
#: No user page is exempt: dated runs and commits live in benchmarks/results/ and the git log.
EXEMPT: frozenset[str] = frozenset()
HASH = re.compile(r"(?<![\w#/.:@-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w-])")
#: Contexts in which a hex word is not a commit: a colour, a digest, a UUID's groups.
NOT_A_COMMIT = (
    re.compile(r"#[0-9a-fA-F]{6}\b"),
    re.compile(r"\bsha(?:1|256|512):[0-9a-f]+"),
    re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"),
)
DATE = re.compile(r"\b20\d{2}-[01]\d-[0-3]\d\b")
FIGURE = re.compile(r"\d[\d,.]*\s?(?:s|ms|min|h|%|×|GB|MB|kB|requests/s)(?![\w-])|\$\d")
WHEN = re.compile(r"\b(?:measured|benchmarked|run on|ran on|as of|before|after|since|until|last run)\b", re.I)


def user_pages() -> list[str]:
    pages = ["README.md", *(p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "docs").rglob("*.md")))]
    return [page for page in pages if not page.startswith("docs/contributing/") and page not in EXEMPT]


def commit_hashes(line: str) -> list[str]:
    for context in NOT_A_COMMIT:
        line = context.sub(" ", line)
    return HASH.findall(line)


def dated_measurement(line: str) -> bool:
    if not DATE.search(line):
        return False
    rest = DATE.sub(" ", line)
    return bool(FIGURE.search(rest) or WHEN.search(rest))


@pytest.mark.parametrize(
    ("line", "hashes"),
    [
        ("Measured at `171c6f3` on the 2-core machine", ["171c6f3"]),
        ("fixed in 9698123f0e4c2b7a1d5e3f6a8b9c0d1e2f3a4b5c", ["9698123f0e4c2b7a1d5e3f6a8b9c0d1e2f3a4b5c"]),
        ("the tree `fae3767` (after `16de627`)", ["fae3767", "16de627"]),
        ("colour #1f77b4 and #ff7f0e in the chart", []),
        ("image@sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945", []),
        ("run id 123e4567-e89b-12d3-a456-426614174000", []),
        ("role arn:aws:iam::111122223333:role/FleetTraining, quota L-1E3F8A2B", []),
        ("the manual run key m5ba5ff89f and the job citydemand-lima-20261129", []),
        ("words like decade, facade and 20261129 are not hashes", []),
    ],
)
def test_the_hash_pattern(line: str, hashes: list[str]) -> None:
    assert commit_hashes(line) == hashes


@pytest.mark.parametrize(
    ("line", "dated"),
    [
        ("finished **301 s after the services started** (2026-12-01)", True),
        ("Measured on 2026-12-02 on the 2-core development machine", True),
        ("Releases before 2026-12-02 started each city that way", True),
        ("cost $12.73 on 2026-12-03", True),
        ('"Version": "2012-10-17",', False),
        ("airflow dags test city_training_daily 2026-12-04", False),
        ("| `schedule`, `start_date` | `None`, 2026-01-01 UTC |", False),
        ("sagemaker-fleet import demand-seoul-2026-11-28-02-00", False),
    ],
)
def test_the_dated_measurement_pattern(line: str, dated: bool) -> None:
    assert dated_measurement(line) == dated


def test_the_user_pages_include_the_subfolders() -> None:
    pages = set(user_pages())
    assert {"README.md", "docs/index.md", "docs/concepts/hand-off.md", "docs/operators/training.md"} <= pages
    assert not any(page.startswith("docs/contributing/") for page in pages)


@pytest.mark.parametrize("page", user_pages())
def test_no_commit_hash_or_dated_measurement(page: str) -> None:
    found = []
    for number, line in enumerate((ROOT / page).read_text(encoding="utf-8").splitlines(), 1):
        found += [f"{page}:{number}: commit hash {word}" for word in commit_hashes(line)]
        if dated_measurement(line):
            found.append(f"{page}:{number}: dated measurement: {line.strip()[:100]}")
    assert not found, (
        "user pages carry no commit hashes or dated figures: link docs/performance.md for numbers, "
        "and leave the history to git log and the issue tracker\n" + "\n".join(found)
    )
