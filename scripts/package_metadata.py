"""Check the built sdist and wheel against pyproject.toml before anyone installs them (scripts/package_check.sh).

Reads the distributions, not the source: the metadata (name, version, Requires-Python, Requires-Dist with each
extra, classifiers, license, URLs, entry points, the long description) must say what pyproject.toml promises, and
the wheel must hold every file the package needs at run time (modules, py.typed, its JSON data) and nothing else
(no tests, no caches). Runs where ``packaging`` and ``trove-classifiers`` are installed:

    python scripts/package_metadata.py dist/
"""

from __future__ import annotations

import configparser
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path, PurePosixPath

from packaging.metadata import Metadata
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from trove_classifiers import classifiers as known_classifiers
from trove_classifiers import deprecated_classifiers

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "sagemaker_fleet"
SOURCE = REPO / "provider" / PACKAGE
URL = "https://github.com/sagemaker-fleet/airflow-provider-sagemaker-fleet"
REQUIRED_CLASSIFIERS = {
    "Framework :: Apache Airflow",
    "Framework :: Apache Airflow :: Provider",
    "Programming Language :: Python :: 3.11",
    "Programming Language :: Python :: 3.12",
    "Programming Language :: Python :: 3.13",
}
REQUIRED_EXTRAS = {"openlineage": "apache-airflow-providers-openlineage", "statsd": "statsd", "sim": "moto"}
REQUIRED_URLS = ("Homepage", "Documentation", "Source", "Changelog", "Issues")
#: Files the package reads at run time (importlib.resources) or that type checkers need: never left out.
RUNTIME_FILES = (
    "py.typed",
    "data/prices.json",
    "data/training_instance_types.json",
    "data/openlineage/SageMakerFleetJobRunFacet.json",
    "data/openlineage/SageMakerFleetRunFacet.json",
)
ENTRY_POINTS = {
    "apache_airflow_provider": {"provider_info": "sagemaker_fleet.get_provider_info:get_provider_info"},
    "airflow.plugins": {"sagemaker_fleet": "sagemaker_fleet.plugin:SageMakerFleetPlugin"},
    "console_scripts": {"sagemaker-fleet": "sagemaker_fleet.cli.main:main"},
}


class Checks:
    """Collects what was checked and what failed, so that one run names every problem at once."""

    def __init__(self) -> None:
        self.failures: list[str] = []
        self.passed = 0

    def expect(self, ok: bool, what: str, detail: object = "") -> None:
        if ok:
            self.passed += 1
            print(f"  ok    {what}")
        else:
            self.failures.append(what)
            print(f"  FAIL  {what}{f': {detail}' if detail != '' else ''}")


def source_files() -> set[str]:
    """The package's files as a fresh clone (plus files not committed yet, not ignored) has them."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "provider/" + PACKAGE],
            cwd=REPO,
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout.decode()
        paths = [REPO / name for name in out.split("\0") if name]
    except (OSError, subprocess.SubprocessError):
        paths = [p for p in SOURCE.rglob("*") if p.is_file()]
    return {
        p.relative_to(SOURCE).as_posix()
        for p in paths
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in {".pyc", ".pyo"}
    }


def requirement_key(req: Requirement) -> tuple[str, str, tuple[str, ...], str]:
    return (req.name.lower(), str(req.specifier), tuple(sorted(req.extras)), str(req.marker or ""))


def check_metadata(meta: Metadata, project: dict, label: str, checks: Checks) -> None:
    """The core metadata of one distribution against pyproject's [project] table."""
    checks.expect(meta.name == project["name"], f"{label}: Name {meta.name}")
    checks.expect(str(meta.version) == project["version"], f"{label}: Version {meta.version}")
    checks.expect(
        meta.requires_python == SpecifierSet(project["requires-python"]),
        f"{label}: Requires-Python {meta.requires_python}",
    )
    expected = {requirement_key(Requirement(r)) for r in project["dependencies"]}
    for extra, reqs in project["optional-dependencies"].items():
        for text in reqs:
            req = Requirement(text)
            marker = f'extra == "{extra}"' if req.marker is None else f'({req.marker}) and extra == "{extra}"'
            req.marker = Requirement(f"x; {marker}").marker
            expected.add(requirement_key(req))
    found = {requirement_key(r) for r in meta.requires_dist or []}
    checks.expect(
        found == expected,
        f"{label}: Requires-Dist: {len(found)} requirements, the same as pyproject's",
        f"missing {sorted(expected - found)}, unexpected {sorted(found - expected)}",
    )
    extras = {str(e) for e in meta.provides_extra or []}
    for extra, package in REQUIRED_EXTRAS.items():
        in_extra = {
            r.name.lower()
            for r in meta.requires_dist or []
            if r.marker and r.marker.evaluate({"extra": extra})
        }
        checks.expect(
            extra in extras and package in in_extra,
            f"{label}: extra [{extra}] installs {package}",
            f"Provides-Extra {sorted(extras)}, [{extra}] -> {sorted(in_extra)}",
        )
    classifiers = set(meta.classifiers or [])
    checks.expect(
        REQUIRED_CLASSIFIERS <= classifiers,
        f"{label}: classifiers include the Airflow provider and Python 3.11-3.13 ones",
        sorted(REQUIRED_CLASSIFIERS - classifiers),
    )
    unknown = sorted(c for c in classifiers if c not in known_classifiers or c in deprecated_classifiers)
    checks.expect(
        not unknown, f"{label}: all {len(classifiers)} classifiers are valid trove classifiers", unknown
    )
    checks.expect(
        meta.license_expression == "Apache-2.0" and list(meta.license_files or []) == ["LICENSE"],
        f"{label}: License-Expression {meta.license_expression}, License-File {meta.license_files}",
    )
    urls = dict(meta.project_urls or {})
    checks.expect(
        all(urls.get(name, "").startswith(URL) for name in REQUIRED_URLS),
        f"{label}: Project-URLs {', '.join(REQUIRED_URLS)} under {URL}",
        urls,
    )
    readme = REPO / project["readme"]["file"]
    checks.expect(
        meta.description_content_type == "text/markdown"
        and (meta.description or "").strip() == readme.read_text(encoding="utf-8").strip(),
        f"{label}: long description is {readme.relative_to(REPO)} (text/markdown)",
    )
    checks.expect(
        set(project.get("keywords", [])) <= set(meta.keywords or []), f"{label}: keywords {meta.keywords}"
    )


def check_wheel(wheel: Path, project: dict, checks: Checks) -> Metadata:
    print(f"wheel {wheel.name}")
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist() if not n.endswith("/")]
        info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        meta = Metadata.from_email(archive.read(f"{info}/METADATA"), validate=True)
        check_metadata(meta, project, "wheel", checks)
        points = configparser.ConfigParser(delimiters=("=",))
        points.optionxform = str  # keep the names' case (sagemaker-fleet, provider_info)
        points.read_string(archive.read(f"{info}/entry_points.txt").decode())
        for group, wanted in ENTRY_POINTS.items():
            got = dict(points[group]) if points.has_section(group) else {}
            got = {k.strip(): v.strip() for k, v in got.items()}
            checks.expect(got == wanted, f"wheel: entry points [{group}] {wanted}", got)
        license_text = (
            archive.read(f"{info}/licenses/LICENSE").decode() if f"{info}/licenses/LICENSE" in names else ""
        )
        checks.expect(
            license_text == (REPO / "LICENSE").read_text(encoding="utf-8")
            and "Apache License" in license_text
            and "Version 2.0" in license_text,
            f"wheel: {info}/licenses/LICENSE is the Apache 2.0 text of LICENSE",
        )
        init = archive.read(f"{PACKAGE}/__init__.py").decode()
        version = re.search(r'^__version__ = "([^"]+)"', init, re.MULTILINE)
        checks.expect(
            version is not None and version.group(1) == project["version"],
            f"wheel: {PACKAGE}.__version__ is {project['version']}",
            version.group(1) if version else "no __version__",
        )
    tops = {n.split("/")[0] for n in names}
    checks.expect(tops == {PACKAGE, info}, f"wheel: top level is only {PACKAGE}/ and {info}/", sorted(tops))
    packaged = {n.removeprefix(f"{PACKAGE}/") for n in names if n.startswith(f"{PACKAGE}/")}
    wanted = source_files()
    checks.expect(
        packaged == wanted,
        f"wheel: {PACKAGE}/ holds exactly the source tree's {len(wanted)} files "
        f"({sum(not n.endswith('.py') for n in wanted)} not .py)",
        f"missing {sorted(wanted - packaged)}, extra {sorted(packaged - wanted)}",
    )
    missing = [f for f in RUNTIME_FILES if f not in packaged]
    checks.expect(not missing, f"wheel: run-time files present: {', '.join(RUNTIME_FILES)}", missing)
    junk = sorted(
        n
        for n in names
        if {"tests", "test", "__pycache__"} & set(PurePosixPath(n).parts)
        or n.endswith((".pyc", ".pyo"))
        or PurePosixPath(n).name == "conftest.py"
    )
    checks.expect(not junk, "wheel: no tests, conftest.py, __pycache__ or .pyc", junk[:10])
    return meta


def check_sdist(sdist: Path, project: dict, wheel_meta: Metadata, checks: Checks) -> None:
    print(f"sdist {sdist.name}")
    with tarfile.open(sdist) as archive:
        members = [m.name for m in archive.getmembers() if m.isfile()]
        root = members[0].split("/")[0]
        relative = {m.removeprefix(f"{root}/") for m in members}
        pkg_info = archive.extractfile(f"{root}/PKG-INFO")
        assert pkg_info is not None
        meta = Metadata.from_email(pkg_info.read(), validate=True)
    check_metadata(meta, project, "sdist", checks)
    checks.expect(
        sorted(map(str, meta.requires_dist or [])) == sorted(map(str, wheel_meta.requires_dist or [])),
        "sdist: PKG-INFO's Requires-Dist is the wheel's",
    )
    needed = {"pyproject.toml", "LICENSE", project["readme"]["file"], "PKG-INFO"}
    needed |= {f"provider/{PACKAGE}/{f}" for f in RUNTIME_FILES}
    checks.expect(
        needed <= relative,
        "sdist: holds pyproject.toml, PKG-INFO, LICENSE, the long description and the run-time files",
        sorted(needed - relative),
    )
    junk = sorted(m for m in relative if m.split("/")[0] in {"tests", "dags", "benchmarks", ".venv", "dist"})
    checks.expect(not junk, "sdist: no tests/, dags/, benchmarks/, .venv or dist/", junk[:10])


def main(argv: list[str]) -> int:
    dist = Path(argv[1] if len(argv) > 1 else "dist")
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        print(f"expected one wheel and one sdist in {dist}, found {[p.name for p in wheels + sdists]}")
        return 1
    checks = Checks()
    wheel_meta = check_wheel(wheels[0], project, checks)
    check_sdist(sdists[0], project, wheel_meta, checks)
    if checks.failures:
        print(f"{len(checks.failures)} check(s) failed, {checks.passed} passed")
        return 1
    print(f"all {checks.passed} metadata and file-list checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
