"""What pyproject.toml promises the published package: PyPI and Airflow's provider lists find it by its classifiers,
the extras the docs name exist, the long description is a user's text with links that work on PyPI, its URLs, its
license, every data file of the package goes into the wheel, and the provider info Airflow reads names this package
at the installed version. scripts/package_check.sh checks the same of the built wheel."""

from __future__ import annotations

import fnmatch
import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

import sagemaker_fleet
from sagemaker_fleet.get_provider_info import get_provider_info

REPO = Path(__file__).resolve().parents[3]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
META = PROJECT["project"]
PACKAGE_DIR = REPO / "provider" / "sagemaker_fleet"
HOME = "https://github.com/sagemaker-fleet/airflow-provider-sagemaker-fleet"


def test_classifiers_name_airflow_provider_and_each_supported_python() -> None:
    classifiers = set(META["classifiers"])
    assert {"Framework :: Apache Airflow", "Framework :: Apache Airflow :: Provider"} <= classifiers
    supported = SpecifierSet(META["requires-python"])
    pythons = {f"3.{minor}" for minor in range(8, 20) if f"3.{minor}" in supported}
    assert pythons == {"3.11", "3.12", "3.13"}
    listed = {
        c.rsplit(" :: ", 1)[1]
        for c in classifiers
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    }
    assert listed == pythons
    assert not [c for c in classifiers if c.startswith("License ::")], (
        "the SPDX `license` replaces License classifiers"
    )


@pytest.mark.parametrize(
    ("extra", "package"),
    [("openlineage", "apache-airflow-providers-openlineage"), ("statsd", "statsd"), ("sim", "moto")],
)
def test_extra_exists_and_installs_its_package(extra: str, package: str) -> None:
    names = {Requirement(r).name for r in META["optional-dependencies"][extra]}
    assert package in names


def test_readme_is_a_user_text_whose_links_work_on_pypi() -> None:
    readme = META["readme"]
    path = REPO / readme["file"]
    assert path.is_file()
    assert readme["content-type"] == "text/markdown"
    text = path.read_text(encoding="utf-8")
    assert "pip install" in text
    assert "build_fleet_dag" in text
    assert "make test" not in text, "the contributors' commands stay in README.md"
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    assert targets
    assert all(t.startswith("https://") for t in targets), "PyPI shows relative links broken"


def test_project_urls_all_point_at_the_repository() -> None:
    urls = META["urls"]
    assert set(urls) >= {"Homepage", "Documentation", "Source", "Changelog", "Issues"}
    assert all(url.startswith(HOME) for url in urls.values())


def test_license_is_apache_2_and_its_file_ships() -> None:
    assert META["license"] == "Apache-2.0"
    for pattern in META["license-files"]:
        (path,) = REPO.glob(pattern)
        text = path.read_text(encoding="utf-8")
        assert "Apache License" in text
        assert "Version 2.0, January 2004" in text


def test_every_data_file_of_the_package_is_package_data() -> None:
    """A file the package reads at run time but no pattern names would be missing from the wheel."""
    patterns = PROJECT["tool"]["setuptools"]["package-data"]["sagemaker_fleet"]
    data = [
        p.relative_to(PACKAGE_DIR).as_posix()
        for p in PACKAGE_DIR.rglob("*")
        if p.is_file() and p.suffix not in {".py", ".pyc"} and "__pycache__" not in p.parts
    ]
    assert "py.typed" in data
    assert "data/prices.json" in data
    assert [f for f in data if not any(fnmatch.fnmatch(f, pattern) for pattern in patterns)] == []
    assert all(any(fnmatch.fnmatch(f, pattern) for f in data) for pattern in patterns), (
        "a pattern matching nothing"
    )


def test_provider_info_names_this_package_at_the_installed_version() -> None:
    info = get_provider_info()
    assert info["package-name"] == META["name"]
    installed = importlib.metadata.version(META["name"])
    assert info["versions"] == [installed] == [META["version"]] == [sagemaker_fleet.__version__]
