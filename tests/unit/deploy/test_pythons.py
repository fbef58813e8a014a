"""The supported Pythons are one list: pyproject's ``requires-python``, the Makefile's ``PYTHONS``, one pinned set
per version under ``requirements/``, and the versions ``make test`` runs the tests on besides the default."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

REPO = Path(__file__).resolve().parents[3]


def makefile_list(name: str) -> list[str]:
    match = re.search(rf"^{name} [:?]?= (.+)$", (REPO / "Makefile").read_text(), re.MULTILINE)
    assert match, f"the Makefile defines no {name}"
    return match.group(1).split()


def pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def pins(version: str) -> dict[str, str]:
    lines = (REPO / "requirements" / f"constraints-py{version}.txt").read_text().splitlines()
    pairs = (line.split("==", 1) for line in lines if line and not line.startswith((" ", "#")))
    return {name: rest.split()[0] for name, rest in pairs}  # "x==1.0 \" then its hashes on the next lines


def test_requires_python_admits_exactly_the_makefiles_versions() -> None:
    spec = SpecifierSet(pyproject()["project"]["requires-python"])
    supported = makefile_list("PYTHONS")
    assert supported == ["3.11", "3.12", "3.13"]
    for minor in range(8, 16):
        assert (f"3.{minor}.0" in spec) == (f"3.{minor}" in supported), f"3.{minor}"


def suite_targets() -> dict[str, tuple[str, str]]:
    """scripts/pythons.sh's targets: name → (Python version, pinned set)."""
    text = (REPO / "scripts" / "pythons.sh").read_text()
    return {
        name: (python, pinned)
        for name, python, pinned in re.findall(
            r"^\s+(af[\d.]+)\) echo \"([\d.]+) (\S+) \S+\" ;;$", text, re.MULTILINE
        )
    }


def pinned_file(path: str) -> dict[str, str]:
    lines = (REPO / path).read_text().splitlines()
    return {
        name.lower().replace("_", "-"): version.split()[0]
        for name, version in (
            line.split("==", 1) for line in lines if "==" in line and not line.startswith(("#", " "))
        )
    }


def test_make_test_runs_every_python_and_every_airflow_minor() -> None:
    """The default suite (.venv: Python 3.11, Airflow 3.3) and ``SUITES`` beside it cover each supported Python
    and each Airflow 3 minor at least once."""
    targets = suite_targets()
    suites = makefile_list("SUITES")
    assert set(suites) <= set(targets), suites
    pythons = {"3.11"} | {targets[name][0] for name in suites}
    assert pythons == set(makefile_list("PYTHONS"))
    minors = {".".join(pins("3.11")["apache-airflow"].split(".")[:2])}
    for name in suites:
        airflow = pinned_file(targets[name][1])["apache-airflow"]
        assert name == "af" + ".".join(airflow.split(".")[:2]), (name, airflow)
        minors.add(".".join(airflow.split(".")[:2]))
    assert minors == {"3.0", "3.1", "3.2", "3.3"}


@pytest.mark.parametrize(("target", "mwaa"), [("af3.0", "3.0.6"), ("af3.2", "3.2.1")])
def test_the_mwaa_suites_pin_exactly_what_mwaa_pins(target: str, mwaa: str) -> None:
    """Every package the suite installs that Amazon MWAA's constraints (both files) pin is at MWAA's version."""
    python, pinned = suite_targets()[target]
    assert python == "3.12"  # MWAA's Airflow 3 images run Python 3.12
    ours = pinned_file(pinned)
    theirs = {
        **pinned_file(f"requirements/mwaa/airflow-{mwaa}-constraints.txt"),
        **pinned_file(f"requirements/mwaa/airflow-{mwaa}-mwaa-essential-constraints.txt"),
    }
    differ = {
        name: (ours[name], theirs[name]) for name in ours.keys() & theirs.keys() if ours[name] != theirs[name]
    }
    assert not differ, differ
    assert ours["apache-airflow"] == mwaa


@pytest.mark.parametrize("version", ["3.11", "3.12", "3.13"])
def test_each_version_has_a_pinned_set_with_one_airflow(version: str) -> None:
    pinned = pins(version)
    assert pinned["apache-airflow"] == pins("3.11")["apache-airflow"]  # the same Airflow on every Python
    for requirement in map(Requirement, pyproject()["project"]["dependencies"]):
        name = requirement.name.lower()
        assert name in pinned, f"{name} is not pinned for Python {version}"
        assert pinned[name] in requirement.specifier, (
            f"{name}=={pinned[name]} is outside {requirement.specifier}"
        )


def test_no_pinned_set_carries_the_sagemaker_sdk() -> None:
    """Nothing imports the SageMaker Python SDK, and on Python 3.12+ it cannot be installed beside Airflow 3.3
    (sagemaker-core pins importlib-metadata below 7, which Airflow needs there)."""
    for version in makefile_list("PYTHONS"):
        assert not {"sagemaker", "sagemaker-core"} & set(pins(version)), version


def test_the_finder_refuses_a_version_it_cannot_run() -> None:
    found = subprocess.run(
        [str(REPO / "scripts" / "pythons.sh"), "find", "3.99"], capture_output=True, text=True
    )
    assert found.returncode == 1
    assert found.stdout == ""
    here = subprocess.run(
        [str(REPO / "scripts" / "pythons.sh"), "find", f"{sys.version_info[0]}.{sys.version_info[1]}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    version = subprocess.run(
        [here, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert version == str(sys.version_info[:2])


#: The pinned sets the installs read (every suite's, uv's, the audit's): each generated by `make constraints`.
PINNED_SETS = sorted(
    [*(f"requirements/constraints-py{v}.txt" for v in ("3.11", "3.12", "3.13"))]
    + [pinned for _, pinned in suite_targets().values()]
    + ["requirements/image-py3.11.txt", "requirements/uv.txt", "requirements/audit-py3.11.txt"]
)


@pytest.mark.parametrize("path", PINNED_SETS)
def test_every_pin_of_every_set_carries_the_hashes_of_its_files(path: str) -> None:
    """A pin without a hash would make --require-hashes refuse the whole install; a set without hashes would let
    a tampered file through unnoticed."""
    text = (REPO / path).read_text()
    blocks = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])  # after the two header lines
    assert len(blocks) > 0
    for block in blocks:
        name = block.split("==", 1)[0]
        hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})\b", block)
        assert hashes, f"{path}: {name} has no --hash=sha256:... (run make constraints)"


def test_every_install_from_a_pinned_set_requires_its_hashes() -> None:
    """The Makefile's .venv and scripts/pythons.sh's suites install the set with --require-hashes, then the project
    alone (no dependency resolved, no build requirement downloaded), and uv itself by hash."""
    makefile = (REPO / "Makefile").read_text()
    pythons = (REPO / "scripts" / "pythons.sh").read_text()
    for text, constraints in ((makefile, "$(CONSTRAINTS)"), (pythons, '"$constraints"')):
        assert f"--require-hashes -r {constraints}" in text
        assert "--no-deps --no-build-isolation -e ." in text
        assert "--require-hashes -r requirements/uv.txt" in text
        assert " -c " not in "".join(line for line in text.splitlines() if "uv pip install" in line)
