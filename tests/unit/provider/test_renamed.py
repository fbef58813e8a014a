"""The renamed packages' old import paths (``sagemaker_fleet.spec``, ``sagemaker_fleet.aws``) still work for one
release, each with a DeprecationWarning that names the new path, and give the very same objects."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

import sagemaker_fleet.fleetspec.load
import sagemaker_fleet.jobs.keys
from sagemaker_fleet import _renamed


@pytest.fixture(autouse=True)
def _forget_old_names() -> None:
    """Each test imports the old names afresh (so each import warns)."""
    for name in list(sys.modules):
        if _renamed.new_name(name) is not None:
            del sys.modules[name]


def test_an_old_submodule_path_warns_and_is_the_new_module() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = importlib.import_module("sagemaker_fleet.spec.load")
    assert [(w.category, str(w.message).split(";")[0]) for w in caught] == [
        (DeprecationWarning, "sagemaker_fleet.spec was renamed sagemaker_fleet.fleetspec"),
        (DeprecationWarning, "sagemaker_fleet.spec.load was renamed sagemaker_fleet.fleetspec.load"),
    ]
    assert old.load_fleet_spec is sagemaker_fleet.fleetspec.load.load_fleet_spec
    assert old.__name__ == "sagemaker_fleet.spec.load"


def test_from_import_of_a_name_and_of_a_submodule() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from sagemaker_fleet.aws import keys
        from sagemaker_fleet.aws.keys import warm_pool_key
        from sagemaker_fleet.spec import load_fleet_spec
    assert warm_pool_key is sagemaker_fleet.jobs.keys.warm_pool_key
    assert keys.warm_pool_key is warm_pool_key
    assert load_fleet_spec is sagemaker_fleet.fleetspec.load.load_fleet_spec


def test_a_name_the_new_package_lacks_is_an_attribute_error() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = importlib.import_module("sagemaker_fleet.spec")
    with pytest.raises(AttributeError):
        old.no_such_name  # noqa: B018
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("sagemaker_fleet.spec.no_such_module")


def test_other_names_are_not_taken() -> None:
    assert _renamed.new_name("sagemaker_fleet.specs") is None
    assert _renamed.new_name("sagemaker_fleet.aws_extra") is None
    assert _renamed.new_name("sagemaker_fleet.fleetspec.load") is None


def test_the_new_packages_import_without_a_warning() -> None:
    code = (
        "import warnings; warnings.simplefilter('error');"
        "import sagemaker_fleet.fleetspec.load, sagemaker_fleet.jobs.request, sagemaker_fleet.cost"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
