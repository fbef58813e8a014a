"""The repository documents itself: no file cites a document that is not in it, and every relative link in the docs
and the README leads to a file (and heading) that exists."""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[3]
#: Team documents outside the repository, which a user who clones it cannot read. Spelled in pieces so that this
#: file does not match itself.
OUTSIDE_DOCUMENTS = re.compile(
    r"\b" + "CON" + r"TRACT\b|" + "SAGEMAKER" + "_FACTS|" + "STYLE" + r"\.md|\b" + "STYLE" + r" habit"
)
#: Where not even an identifier may carry those names (``CON…_JOB_FIELDS`` was one): the product, its tests and docs.
STRICT_FOLDERS = frozenset({"provider", "docs", "tests", "benchmarks", "scripts", "dags"})
STRICT = re.compile("CON" + "TRACT|" + "SAGEMAKER" + "_FACTS|" + "STYLE" + r"\.md")
DOC_FILES = tuple(
    name
    for name in (
        "README.md",
        "CHANGELOG.md",
        *(p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "docs").rglob("*.md"))),
    )
)
#: ``[text](target)``, not an image's data and not inside inline code spans (removed before matching); the text
#: may wrap onto the next line of its paragraph.
LINK = re.compile(r"(?<!\!)\[(?:[^\]\n]|\n(?!\n))*\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"`[^`\n]*`")
FENCE = re.compile(r"^(```|~~~)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def tracked_files() -> list[Path]:
    """Files git tracks (a fresh clone's files); outside a git checkout, every file under the project folders."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout.decode()
        return [ROOT / name for name in out.split("\0") if name]
    except (OSError, subprocess.SubprocessError):
        folders = ("provider", "tests", "docs", "benchmarks", "scripts", "dags")
        files = [p for folder in folders for p in (ROOT / folder).rglob("*") if p.is_file()]
        return files + [p for p in ROOT.iterdir() if p.is_file()]


def _text(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except OSError:  # listed by git but deleted in the work tree
        return None
    if b"\0" in data[:4096]:
        return None  # binary (images)
    return data.decode("utf-8", errors="replace")


def test_no_file_cites_documents_outside_the_repository() -> None:
    hits = []
    for path in tracked_files():
        if any(part.endswith(".egg-info") for part in path.parts):
            continue
        text = _text(path)
        if text is None:
            continue
        relative = path.relative_to(ROOT)
        strict = relative.parts[0] in STRICT_FOLDERS or relative.as_posix() == "README.md"
        pattern = STRICT if strict else OUTSIDE_DOCUMENTS
        for number, line in enumerate(text.splitlines(), 1):
            if pattern.search(line):
                hits.append(f"{relative}:{number}: {line.strip()[:120]}")
    assert not hits, (
        "point to docs/ instead (docs/formats.md, docs/sagemaker-behaviour.md, …):\n" + "\n".join(hits)
    )


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, each space a ``-``."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps its text
    text = text.replace("`", "").replace("*", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    in_fence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        match = None if in_fence else HEADING.match(line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        found.update(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", line))
    return frozenset(found)


def links(path: Path) -> list[tuple[int, str]]:
    """(line, target) of every link outside fenced blocks and code spans, also one whose text wraps a line."""
    kept: list[str] = []
    in_fence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            kept.append("")
            continue
        kept.append("" if in_fence else CODE_SPAN.sub("", line))
    text = "\n".join(kept)
    return [(text.count("\n", 0, match.start(1)) + 1, match.group(1)) for match in LINK.finditer(text)]


def test_a_link_whose_text_wraps_a_line_is_checked(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "See [the models\nasset](#nowhere) and `[code](x)`.\n\n```\n[fenced](y)\n```\n", encoding="utf-8"
    )
    assert links(page) == [(2, "#nowhere")]


def test_the_link_check_covers_every_folder_of_docs() -> None:
    """Subfolders too (docs/guides/, docs/operators/, …), and the README."""
    assert "README.md" in DOC_FILES
    assert {
        "docs/index.md",
        "docs/guides/aws.md",
        "docs/operators/training.md",
        "docs/concepts/cost.md",
    } <= set(DOC_FILES)


@pytest.mark.parametrize("doc", DOC_FILES)
def test_relative_links_resolve(doc: str) -> None:
    source = ROOT / doc
    broken = []
    for number, target in links(source):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, …
            continue
        file_part, _, fragment = target.partition("#")
        destination = (source.parent / unquote(file_part)).resolve() if file_part else source
        if not destination.exists():
            broken.append(f"{doc}:{number}: {target} (no such file)")
        elif fragment and destination.suffix == ".md" and unquote(fragment) not in anchors(destination):
            broken.append(f"{doc}:{number}: {target} (no such heading in {destination.name})")
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("The run's notice", "the-runs-notice"),
        ("A city waits in `deferred` and does not start", "a-city-waits-in-deferred-and-does-not-start"),
        (
            "4. Quotas to request (Service Quotas → Amazon SageMaker)",
            "4-quotas-to-request-service-quotas--amazon-sagemaker",
        ),
        ("build_fleet_dag", "build_fleet_dag"),
    ],
)
def test_slug_is_githubs(heading: str, anchor: str) -> None:
    assert slug(heading) == anchor
