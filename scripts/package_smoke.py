"""Smoke-test the installed wheel as an Airflow deployment runs it (scripts/package_check.sh, step 5).

Run with the smoke virtualenv's Python, its ``bin`` first on PATH and AIRFLOW_HOME (migrated), DAGS_FOLDER and
LOAD_EXAMPLES=False set:

    python scripts/package_smoke.py --version 0.1.0 --airflow 3.0.6 --dags dags/

Checks that the wheel, not a source tree, is what runs; that every module of the package imports and every
``from airflow… import`` in it (the lazy ones inside functions too) resolves on this Airflow; that Airflow lists
the provider with its version and loads the plugin without import errors; that the DAG files parse with no import
error and give their DAGs; and the ``sagemaker-fleet`` command line: ``--version``, ``sim serve`` without the
``sim`` extra, and validate/plan/simulate on the shipped fleets (which read the package's JSON data).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import pkgutil
import re
import subprocess
import sys
import warnings
from pathlib import Path

DIST = "airflow-provider-sagemaker-fleet"
PACKAGE = "sagemaker_fleet"
SIM_HINT = f"pip install '{DIST}[sim]'"
#: Top-level modules of the ``sim`` extra (moto[server]): a module that needs them is the simulator's, not installed.
SIM_MODULES = frozenset({"moto", "werkzeug", "flask", "flask_cors"})
#: The one module that picks an import path by the Airflow version it runs on (its own tests cover each version):
#: its imports for other versions are meant not to resolve here.
VERSION_SWITCH = "compat.py"


class Checks:
    """Collects what was checked and what failed, so that one run names every problem at once."""

    def __init__(self) -> None:
        self.failures: list[str] = []
        self.passed = 0

    def expect(self, ok: bool, what: str, detail: object = "") -> None:
        if ok:
            self.passed += 1
            print(f"  ok    {what}", flush=True)
        else:
            self.failures.append(what)
            shown = str(detail).strip()
            shown = shown if len(shown) < 2000 else shown[:1000] + "\n…\n" + shown[-1000:]
            print(f"  FAIL  {what}{': ' + shown if shown else ''}", flush=True)


def run(*argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)


def json_out(proc: subprocess.CompletedProcess[str]) -> object:
    """The JSON document that ends a command's stdout (Airflow may print log lines before it), or None."""
    lines = proc.stdout.splitlines()
    for start, line in enumerate(lines):
        if line.lstrip().startswith(("[", "{")):
            try:
                return json.loads("\n".join(lines[start:]))
            except json.JSONDecodeError:
                continue
    return None


def check_install(args: argparse.Namespace, checks: Checks) -> None:
    print("the installation")
    dist = importlib.metadata.distribution(DIST)
    checks.expect(dist.version == args.version, f"{DIST} {dist.version} installed", args.version)
    direct = json.loads(dist.read_text("direct_url.json") or "{}")
    editable = direct.get("dir_info", {}).get("editable", False)
    checks.expect(
        not editable and direct.get("url", "").endswith(".whl"),
        f"installed from the wheel, not editable ({direct.get('url', '?').rsplit('/', 1)[-1]})",
        direct,
    )
    module = importlib.import_module(PACKAGE)
    where = Path(module.__file__ or "").resolve()
    checks.expect(
        Path(sys.prefix).resolve() in where.parents,
        f"{PACKAGE} imported from the virtualenv ({where.parent})",
    )
    airflow = importlib.metadata.version("apache-airflow")
    checks.expect(airflow == args.airflow, f"apache-airflow {airflow}", f"expected {args.airflow}")
    for extra, module_name in (("openlineage", "airflow.providers.openlineage"), ("statsd", "statsd")):
        found = importlib.util.find_spec(module_name) is not None
        checks.expect(found, f"extra [{extra}]: {module_name} importable")
    checks.expect(importlib.util.find_spec("moto") is None, "extra [sim] not installed: no moto")


def imported_names(package_dir: Path) -> list[tuple[str, str, str, int]]:
    """Every unconditional ``from airflow… import name`` (and ``openlineage…``) in the package, at any depth (inside
    functions too): (module, name, file, line). Imports under an ``if`` (``TYPE_CHECKING``, a version switch) or in
    a ``try`` whose handlers catch ImportError (a fallback for another version) are meant not to run everywhere."""
    found = []
    for path in sorted(package_dir.rglob("*.py")):
        if path.relative_to(package_dir).as_posix() == VERSION_SWITCH:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        guarded: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.If) or (
                isinstance(node, ast.Try)
                and any(
                    h.type is None or re.search(r"ImportError|Exception", ast.unparse(h.type))
                    for h in node.handlers
                )
            ):
                guarded.update(id(n) for stmt in node.body for n in ast.walk(stmt))
            if isinstance(node, ast.If):
                guarded.update(id(n) for stmt in node.orelse for n in ast.walk(stmt))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and node.module
                and node.module.split(".")[0] in {"airflow", "openlineage"}
                and id(node) not in guarded
            ):
                rel = path.relative_to(package_dir.parent).as_posix()
                found.extend((node.module, alias.name, rel, node.lineno) for alias in node.names)
    return found


def check_imports(checks: Checks) -> None:
    print("the package's imports on this Airflow")
    package = importlib.import_module(PACKAGE)
    failed, sim_only = [], []
    count = 0
    # Airflow's own notes while its modules import (serde: no numpy; deprecations) are not the package's to judge.
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    for info in pkgutil.walk_packages(package.__path__, f"{PACKAGE}."):
        count += 1
        try:
            importlib.import_module(info.name)
        except ImportError as exc:
            if (exc.name or "").split(".")[0] in SIM_MODULES:
                sim_only.append(info.name)
            else:
                failed.append(f"{info.name}: {type(exc).__name__}: {exc}")
        except Exception as exc:  # noqa: BLE001 - every failure is reported, none stops the walk
            failed.append(f"{info.name}: {type(exc).__name__}: {exc}")
    but = f" (but {', '.join(sim_only)}: the [sim] extra's)" if sim_only else ""
    checks.expect(
        not failed,
        f"all {count - len(sim_only)} modules of {PACKAGE} import{but}",
        "\n        ".join([""] + failed),
    )
    missing = []
    names = imported_names(Path(package.__file__ or "").parent)
    for module_name, name, where, line in names:
        try:
            module = importlib.import_module(module_name)
            if name != "*" and not hasattr(module, name):
                importlib.import_module(f"{module_name}.{name}")
        except Exception as exc:  # noqa: BLE001
            missing.append(f"{where}:{line}: from {module_name} import {name} ({type(exc).__name__})")
    checks.expect(
        not missing,
        f"all {len(names)} `from airflow…/openlineage… import` names resolve (lazy ones too; {VERSION_SWITCH} aside)",
        "\n        ".join([""] + missing),
    )


def check_airflow(args: argparse.Namespace, checks: Checks) -> None:
    print("Airflow sees the provider, the plugin and the DAGs")
    proc = run("airflow", "providers", "list", "-o", "json")
    providers = (
        {p.get("package_name"): p.get("version") for p in json_out(proc) or []}
        if proc.returncode == 0
        else {}
    )
    checks.expect(
        providers.get(DIST) == args.version,
        f"`airflow providers list`: {DIST} {providers.get(DIST)}",
        proc.stderr[-2000:] or sorted(providers),
    )
    proc = run("airflow", "plugins", "-o", "json")
    plugins = [p.get("name") for p in json_out(proc) or []] if proc.returncode == 0 else []
    checks.expect(PACKAGE in plugins, f"`airflow plugins`: {PACKAGE} listed", proc.stderr[-2000:] or plugins)
    probe = """
import json
from airflow import plugins_manager as pm
if hasattr(pm, "get_fastapi_plugins"):  # Airflow 3.2+
    errors, (apps, _) = pm.get_import_errors(), pm.get_fastapi_plugins()
else:  # 3.0, 3.1
    pm.ensure_plugins_loaded()
    pm.initialize_fastapi_plugins()
    errors, apps = pm.import_errors, pm.fastapi_apps or []
views = hasattr(pm, "external_views") or hasattr(pm.AirflowPlugin, "external_views")
print(json.dumps({"errors": errors, "apps": [a.get("name") for a in apps], "has_external_views": views}))
"""
    proc = run(sys.executable, "-c", probe)
    loaded = json_out(proc) if proc.returncode == 0 else None
    loaded = loaded if isinstance(loaded, dict) else {}
    checks.expect(
        proc.returncode == 0 and not loaded.get("errors"),
        "plugins load with no import errors",
        loaded.get("errors") or proc.stderr[-2000:],
    )
    checks.expect(
        "SageMaker Fleet view" in loaded.get("apps", []),
        "the Fleet view's FastAPI app builds (the api-server mounts it)",
        loaded or proc.stderr[-2000:],
    )
    if not loaded.get("has_external_views"):
        print(
            f"  note  Airflow {args.airflow} has no plugin external views (3.1 added them): no Fleet tab or nav "
            "entry in its UI; the Fleet view's pages are served by the plugin's FastAPI app"
        )
    proc = run("airflow", "dags", "list-import-errors", "--local", "-o", "json")
    errors = json_out(proc)
    checks.expect(
        proc.returncode == 0 and not errors,
        f"`airflow dags list-import-errors --local`: none in {os.environ.get('AIRFLOW__CORE__DAGS_FOLDER')}",
        json.dumps(errors, indent=1) if errors else proc.stderr[-3000:],
    )
    proc = run("airflow", "dags", "list", "--local", "-o", "json")
    dags = sorted(d.get("dag_id") for d in json_out(proc) or []) if proc.returncode == 0 else []
    expected = sorted(
        {
            m
            for path in Path(args.dags).glob("*.py")
            for m in re.findall(r'dag_id="([^"]+)"', path.read_text())
        }
    )
    checks.expect(
        bool(expected) and set(expected) <= set(dags),
        f"`airflow dags list --local`: {', '.join(expected)}",
        f"listed {dags}; {proc.stderr[-2000:]}",
    )


def check_cli(args: argparse.Namespace, checks: Checks) -> None:
    print("the sagemaker-fleet command line")
    proc = run("sagemaker-fleet", "--version")
    checks.expect(
        proc.returncode == 0 and proc.stdout.strip() == f"sagemaker-fleet {args.version}",
        f"`sagemaker-fleet --version`: {proc.stdout.strip()}",
        proc.stderr,
    )
    proc = run("sagemaker-fleet", "sim", "serve", "--port", "0", timeout=60)
    lines = proc.stderr.strip().splitlines()
    checks.expect(
        proc.returncode == 2 and len(lines) == 1 and SIM_HINT in lines[0] and "Traceback" not in proc.stderr,
        f"`sagemaker-fleet sim serve` without [sim]: exit {proc.returncode}, {lines[0] if lines else ''!r}",
        proc.stderr,
    )
    fleets = Path(args.dags) / "fleets"
    for argv in (
        ("validate", str(fleets / "demo.yaml")),
        ("plan", str(fleets / "weekly.yaml"), "--format", "json"),
        ("simulate", str(fleets / "small.yaml"), "--json"),
    ):
        proc = run("sagemaker-fleet", *argv)
        checks.expect(
            proc.returncode == 0,
            f"`sagemaker-fleet {argv[0]} {Path(argv[1]).relative_to(Path(args.dags).parent)}` (its JSON data read)",
            proc.stderr[-2000:],
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", required=True, help="the version the wheel must report")
    parser.add_argument("--airflow", required=True, help="the apache-airflow version installed")
    parser.add_argument("--dags", required=True, help="the DAG folder (its fleets/ holds the fleet specs)")
    args = parser.parse_args()
    checks = Checks()
    check_install(args, checks)
    check_imports(checks)
    check_airflow(args, checks)
    check_cli(args, checks)
    if checks.failures:
        print(f"{len(checks.failures)} smoke check(s) failed, {checks.passed} passed")
        return 1
    print(f"all {checks.passed} smoke checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
