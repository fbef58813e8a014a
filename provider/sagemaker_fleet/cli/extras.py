"""The commands that need an optional extra say which one when it is missing: one line and exit 2, not a traceback.

``pip install airflow-provider-sagemaker-fleet`` (what an Airflow deployment such as Amazon MWAA installs) leaves
out the simulator's backend, moto with its web server (the ``sim`` extra), so ``sim serve`` checks for it first.
"""

from __future__ import annotations

import importlib.util
import sys

DISTRIBUTION = "airflow-provider-sagemaker-fleet"

#: The top-level modules the ``sim`` extra (``moto[server]``) brings that the simulated endpoint imports: moto and
#: the WSGI stack it serves through.
SIM_MODULES: frozenset[str] = frozenset({"moto", "werkzeug", "flask", "flask_cors"})


def install_hint(extra: str) -> str:
    """The pip command that installs ``extra``, quoted for a shell."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def missing_sim_module(*, with_moto: bool = True) -> str | None:
    """The first module of the ``sim`` extra the endpoint needs that cannot be imported, or None. Checked by name
    (no import) so that the check costs nothing when everything is there."""
    needed = ("moto", "werkzeug", "flask") if with_moto else ("werkzeug",)
    for name in needed:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a parent package that fails, a module without a spec
            found = False
        if not found:
            return name
    return None


def is_sim_extra_error(exc: ImportError) -> bool:
    """Whether ``exc`` is the import of a module the ``sim`` extra installs."""
    return (exc.name or "").split(".")[0] in SIM_MODULES


def extra_missing(command: str, extra: str, module: str | None) -> int:
    """Say on stderr, in one line, that ``command`` needs ``extra`` and how to install it; return exit code 2."""
    because = f" (no module named {module!r})" if module else ""
    print(
        f"error: 'sagemaker-fleet {command}' needs the '{extra}' extra, which is not installed{because}; "
        f"install it with: {install_hint(extra)}",
        file=sys.stderr,
    )
    return 2
