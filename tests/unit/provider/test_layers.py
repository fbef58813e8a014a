"""The layer graph is enforced: the import-linter contracts in pyproject.toml hold for the package as it is, and
each kind of wrong arrow breaks them (checked on a copy of the package with one import added)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "provider" / "sagemaker_fleet"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
ANSI = re.compile(r"\x1b\[[0-9;]*m")

pytestmark = pytest.mark.skipif(
    not LINT_IMPORTS.exists(), reason="import-linter is not installed (make install)"
)


def lint(provider_dir: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """lint-imports with the repository's contracts over the package found in ``provider_dir``."""
    env = {**os.environ, "PYTHONPATH": str(provider_dir), "COLUMNS": "400"}  # one contract per line
    result = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(ROOT / "pyproject.toml")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    result.stdout = ANSI.sub("", result.stdout)  # import-linter 2.6 colours its report even into a pipe
    return result


def test_the_package_keeps_every_contract(tmp_path: Path) -> None:
    result = lint(PACKAGE.parent, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "7 kept, 0 broken" in result.stdout


# (module that gets the import, the import, the contract it breaks)
WRONG_ARROWS = [
    # the job model under the cost report: an arrow back up would make a cycle
    ("jobs/record.py", "from sagemaker_fleet.cost.totals import total", "Layers"),
    # plan and cost are siblings
    ("plan/advice.py", "from sagemaker_fleet.cost.summary import summary_lines", "Layers"),
    # the DAG's contract is the bottom of the graph: it imports nothing of the package
    ("contract.py", "from sagemaker_fleet.settings import SECTION", "Layers"),
    # the fleet spec is below everything but the contract, settings and errors
    ("fleetspec/names.py", "from sagemaker_fleet.plan.model import FleetPlan", "Layers"),
    # production code never imports the simulator (a lazy import counts too)
    (
        "triggers/session.py",
        "def _f():\n    from sagemaker_fleet.sim import engine",
        "are imported only by the command line",
    ),
    # the pure core imports no Airflow
    ("dispatch/book.py", "import airflow", "pure core"),
    ("cost/totals.py", "import boto3", "pure core"),
    # the preflight checks run from the command line: no Airflow (a lazy import counts too), no simulator
    ("preflight/targets.py", "def _f():\n    import airflow", "preflight checks"),
    (
        "preflight/resources.py",
        "from sagemaker_fleet.sim.config import SimConfig",
        "are imported only by the command line",
    ),
    # the preflight checks and the hook are siblings: neither imports the other
    ("preflight/quotas.py", "from sagemaker_fleet.hooks.fleet import SageMakerFleetHook", "Layers"),
    # the fleet spec's modules import each other in one direction only (errors.py imports render.py)
    ("fleetspec/render.py", "from sagemaker_fleet.fleetspec.errors import FleetSpecError", "import circle"),
]


@pytest.mark.parametrize(("module", "line", "contract"), WRONG_ARROWS)
def test_a_wrong_arrow_breaks_a_contract(tmp_path: Path, module: str, line: str, contract: str) -> None:
    copy = tmp_path / "provider"
    shutil.copytree(PACKAGE, copy / "sagemaker_fleet", ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / "sagemaker_fleet" / module
    target.write_text(target.read_text() + "\n\n" + line + "\n")
    result = lint(copy, tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    broken = [text for text in result.stdout.splitlines() if text.rstrip().endswith("BROKEN")]
    # the contract the arrow goes against (a forbidden import also breaks the contracts of the modules that import
    # this one indirectly), and the report names the module that made it
    assert any(contract in text for text in broken), result.stdout
    # (the acyclic-siblings report names it relative to its package: ``- .render -> .errors``)
    name = "sagemaker_fleet." + module.removesuffix(".py").replace("/", ".")
    assert name in result.stdout or f"- .{name.rsplit('.', 1)[1]} -> " in result.stdout
