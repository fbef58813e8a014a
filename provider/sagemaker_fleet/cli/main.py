"""Entry point of ``sagemaker-fleet``: each sub-command lives in its own module, imported only when used."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import sys
from collections.abc import Sequence

from sagemaker_fleet.cli.extras import DISTRIBUTION

#: sub-command -> (module under sagemaker_fleet.cli, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("validate", "check a fleet spec; exit 2 with every error on stderr"),
    "plan": ("plan", "pool-aware plan of a fleet (warm-pool lanes, order, keep-alive)"),
    "simulate": (
        "simulate",
        "run a fleet through the simulator engine in virtual time; several fleets share one account",
    ),
    "sim": ("sim", "the simulated SageMaker endpoint (`sim serve`)"),
    "report": ("report", "cost report for one run from DescribeTrainingJob"),
    "models": ("models", "each city's model in service; its champion, metric, age and last decision"),
    "preflight": ("preflight", "check the account before a run; its quotas, roles, buckets, data, images"),
    "request": ("request", "print a city's CreateTrainingJob request; as its task sends it"),
    "iam": ("iam", "print the fleet's least-privilege IAM policies; generated from its spec"),
    "import": ("import_jobs", "draft a fleet spec from jobs you already run; or from request files"),
    "prices": (
        "prices",
        "the price table; `prices refresh` writes every region's prices from the AWS Price List",
    ),
    "pilot": ("pilot", "run three stores in your own AWS account; what AWS did beside the simulator"),
}


#: What ``sagemaker-fleet --help`` opens with: what the tool does, for its users (the module docstring is for
#: contributors).
DESCRIPTION = (
    "Train many per-city models on Amazon SageMaker in warm-pool-aware order: check a fleet spec, plan it, "
    "simulate it in virtual time, check the account it runs in, write its least-privilege IAM policies, serve a "
    "simulated SageMaker endpoint, report what a run cost, show each city's model in service, and pilot three "
    "stores in your own AWS account."
)
EPILOG = (
    "Run 'sagemaker-fleet COMMAND --help' for a command's options. Exit codes: 0 done, 1 a failure outside "
    "(AWS unreachable, an upload refused), 2 bad input (the message says which; for 'preflight' also: the "
    "account cannot run the fleet), 3 'report' found no job in the run, 130 'pilot' stopped by Ctrl-C, 143 "
    "by SIGTERM (after its clean-up). Every command honours AWS_ENDPOINT_URL "
    "and the standard AWS environment."
)


class _Formatter(argparse.HelpFormatter):
    """Measures the sub-commands at the indent they are printed at (argparse counts one indent short), so that a
    long command name such as ``preflight`` keeps its help on its own line."""

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        if isinstance(action, argparse._SubParsersAction):
            widest = max((len(name) for name in action.choices), default=0)
            printed_at = self._current_indent + self._indent_increment
            self._action_max_length = max(self._action_max_length, widest + printed_at)


def installed_version() -> str:
    """The installed distribution's version (its metadata: what pip installed), or the package's own when it runs
    from a source tree that was never installed."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        from sagemaker_fleet import __version__

        return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sagemaker-fleet", description=DESCRIPTION, epilog=EPILOG, formatter_class=_Formatter
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {installed_version()}",
        help="print the version and exit",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    for name, (module_name, help_text) in COMMANDS.items():
        module = importlib.import_module(f"sagemaker_fleet.cli.{module_name}")
        command = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit code: 0 done, 2 bad input (a flag, a file: the message says which) or, for
    ``preflight``, an account that cannot run the fleet, 1 a failure outside (AWS unreachable, an upload refused),
    3 ``report`` found no job in the run (nothing written)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse: a bad flag (2, its message already on stderr) or --help (0)
        return exc.code if isinstance(exc.code, int) else 2
    code: int = args._run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
