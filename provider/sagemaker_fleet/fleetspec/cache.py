"""A fleet spec read once per file content on a machine, not once per parse of the DAG file.

Airflow parses a DAG file in a fresh process each time: the dag-processor every few minutes and once for each
task ended from the triggerer (its callback), so a fleet DAG reads its spec about once per city per run. Reading a
1,000-city spec (YAML, then every check) takes ~0.3 s of CPU; unpickling the result takes ~0.01 s. The cache is
keyed by the file's bytes and this package's version, lives in a directory only its owner may write (a pickle is
code, so a file anyone else could have written is never read), and any problem with it falls back to reading the
file: the cache can make a parse faster, never different.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec.errors import FleetSpecError
from sagemaker_fleet.fleetspec.load import load_fleet_spec, read_spec_bytes
from sagemaker_fleet.fleetspec.model import FleetSpec

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.request_model import ModelSource

#: Bump when FleetSpec's shape changes within one version (the key also has the package's version).
CACHE_FORMAT = 2


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("airflow-provider-sagemaker-fleet")
    except PackageNotFoundError:  # pragma: no cover - a source tree without an install
        return "0"


def cache_dir() -> Path:
    """``$SAGEMAKER_FLEET_CACHE_DIR``, else ``$XDG_CACHE_HOME/sagemaker-fleet/specs`` (``~/.cache/…``)."""
    explicit = os.environ.get("SAGEMAKER_FLEET_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sagemaker-fleet" / "specs"


def _private(folder: Path) -> bool:
    """The folder exists (made if missing, mode 0700), is ours, and no one else may write it."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = folder.stat()
    return info.st_uid == os.getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def load_fleet_spec_cached(path: str | Path, model: ModelSource | None = None) -> FleetSpec:
    """:func:`~sagemaker_fleet.fleetspec.load.load_fleet_spec`, through the cache. A spec with errors raises as
    ever (only valid specs are cached); the version of the model a template was checked against keys it too."""
    try:
        data = read_spec_bytes(path)
    except FleetSpecError:
        return _load(path, model)  # the loader says what is wrong with the path or the file's size
    checked = (model.version if model is not None else "-").encode()
    key = hashlib.sha256(
        b"%d\0%s\0%s\0%s\0%s\0"
        % (CACHE_FORMAT, _version().encode(), sys.version.encode(), str(path).encode(), checked)
        + data
    ).hexdigest()
    folder = cache_dir()
    try:
        if not _private(folder):
            return _load(path, model)
        entry = folder / f"{key}.pickle"
        if entry.exists() and entry.stat().st_uid == os.getuid():
            spec = pickle.loads(entry.read_bytes())  # noqa: S301 - our own file, in our own private folder
            if isinstance(spec, FleetSpec):
                return spec
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError):
        pass
    spec = _load(path, model)
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            pickle.dump(spec, out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, folder / f"{key}.pickle")
    except OSError:
        pass
    return spec


def _load(path: str | Path, model: ModelSource | None) -> FleetSpec:
    return load_fleet_spec(path) if model is None else load_fleet_spec(path, model)
