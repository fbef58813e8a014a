"""Old import paths of renamed packages, kept working for one release with a ``DeprecationWarning``.

The fleet spec package ``sagemaker_fleet.spec`` was renamed to ``sagemaker_fleet.fleetspec`` (``spec/`` is a test folder to common
tooling) and ``sagemaker_fleet.aws`` to ``sagemaker_fleet.jobs`` (it is the training-job model and does no AWS
I/O). ``import sagemaker_fleet.spec.load`` and ``from sagemaker_fleet.spec import load_fleet_spec`` still work: a
finder on ``sys.meta_path`` answers for the old names with a module that forwards every attribute to the new one,
so classes and functions are the very same objects (``isinstance`` and pickling are unaffected). No folder is left
under the old names. The finder goes away in the release after the one that renamed them (see the changelog).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Sequence
from typing import Any

#: old package → new package
RENAMED_PACKAGES = {
    "sagemaker_fleet.spec": "sagemaker_fleet.fleetspec",
    "sagemaker_fleet.aws": "sagemaker_fleet.jobs",
}


def new_name(fullname: str) -> str | None:
    """The module that replaced ``fullname``, or None when ``fullname`` was not renamed."""
    for old, new in RENAMED_PACKAGES.items():
        if fullname == old or fullname.startswith(old + "."):
            return new + fullname[len(old) :]
    return None


class _Forwarding(types.ModuleType):
    """A module under an old name whose attributes are those of the module under the new name."""

    def __init__(self, name: str, target: types.ModuleType) -> None:
        super().__init__(name, target.__doc__)
        self.__dict__["_target"] = target
        if hasattr(target, "__path__"):
            self.__path__: list[str] = []  # a package: its submodules are found by this finder again

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.__dict__["_target"], attribute)

    def __dir__(self) -> list[str]:
        return sorted(set(dir(self.__dict__["_target"])))


class RenamedPackageFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        new = new_name(fullname)
        if new is None:
            return None
        is_package = hasattr(importlib.import_module(new), "__path__")
        return importlib.machinery.ModuleSpec(fullname, self, is_package=is_package)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        new = new_name(spec.name)
        assert new is not None
        warnings.warn(
            f"{spec.name} was renamed {new}; the old name is deprecated and goes away in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return _Forwarding(spec.name, importlib.import_module(new))

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the module forwards to the new one."""


def install() -> None:
    """Put the finder on ``sys.meta_path`` once (importing ``sagemaker_fleet`` calls this)."""
    if not any(isinstance(finder, RenamedPackageFinder) for finder in sys.meta_path):
        sys.meta_path.append(RenamedPackageFinder())
