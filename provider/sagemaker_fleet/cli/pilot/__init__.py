"""``sagemaker-fleet pilot``: three stores trained in the user's own AWS account with SageMaker's built-in XGBoost,
through the provider's own spec, planner, job names and dispatch; what AWS did written beside what the simulator
predicts (docs/guides/pilot.md).

- ``settings.py``: the flags and :class:`~.settings.PilotSettings` (what every pilot keeps the same, too);
- ``fleet.py``: the pilot's fleet spec, plan, dispatch book and price (:class:`~.fleet.PilotFleet`);
- ``data.py``: the stores' few kilobytes of CSV, the same bytes every time;
- ``calls.py``: every AWS call the dry run lists, in order, and the recorder of the calls a run makes;
- ``ceiling.py``: the cost ceiling and its arithmetic;
- ``policy.py``: the least IAM policies (the caller's, the execution role's);
- ``dry_run.py``: what ``--dry-run`` prints;
- ``aws.py``: the clients, the provider's hook among them, every call recorded;
- ``dispatch.py``: the stores trained as the triggerer trains cities (the run's poller, one ``CityRun`` each);
- ``cleanup.py``: jobs ended, pools ended, objects listed (and deleted);
- ``record.py``: AWS beside the simulator's prediction: ``pilot.json`` and ``pilot.txt``;
- ``real_run.py``: the run (not the dry run) in order, and Ctrl-C.

Exit codes: 0 done (every store trained, every pool ended); 1 a store or an AWS call failed (cleaned up first);
2 refused before anything was launched (a flag, the ceiling above ``--max-cost``, a quota, a used run key); 130
Ctrl-C (cleaned up).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

from sagemaker_fleet.cli.inputs import INPUT_ERRORS
from sagemaker_fleet.cli.pilot.ceiling import cost_ceiling
from sagemaker_fleet.cli.pilot.fleet import PilotRefused, pilot_fleet
from sagemaker_fleet.cli.pilot.settings import add_arguments, settings_of
from sagemaker_fleet.cli.streams import library_logs_to_stderr, quiet_airflow_logs

__all__ = ["add_arguments", "run"]

#: What refuses a pilot before anything is called: a flag, the spec the flags make, the plan.
REFUSALS: tuple[type[Exception], ...] = (PilotRefused, *INPUT_ERRORS)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from sagemaker_fleet.cli.pilot.calls import planned_calls
    from sagemaker_fleet.cli.pilot.dry_run import dry_run_json, dry_run_text
    from sagemaker_fleet.cli.pilot.policy import caller_policy, execution_role_policy

    if args.json and not args.dry_run:
        print("error: --json goes with --dry-run (a run writes pilot.json into --out)", file=sys.stderr)
        return 2
    settings = settings_of(args)
    try:
        fleet = pilot_fleet(settings)
    except REFUSALS as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.policy is not None:
        policy = caller_policy(settings) if args.policy == "caller" else execution_role_policy(settings)
        print(json.dumps(policy, indent=2))
        return 0
    ceiling = cost_ceiling(fleet)
    over = ceiling.usd > settings.max_cost
    if args.dry_run:
        calls = planned_calls(fleet)
        if args.json:
            print(json.dumps(dry_run_json(fleet, ceiling, calls), indent=2))
        else:
            print(dry_run_text(fleet, ceiling, calls), end="")
    if over:
        print(
            f"error: the cost ceiling is ${ceiling.usd}, above --max-cost ${settings.max_cost}: raise --max-cost, or "
            "lower --max-runtime",
            file=sys.stderr,
        )
        return 2
    if args.dry_run:
        return 0
    out = args.out if args.out is not None else Path(f"pilot-{settings.run_key}")
    if out.exists() and any(out.iterdir()):
        print(f"error: --out {out}: the folder is not empty; name a new one", file=sys.stderr)
        return 2
    quiet_airflow_logs()
    with contextlib.redirect_stdout(sys.stderr):  # Airflow's import may print (3.0): stdout is the pilot's
        from sagemaker_fleet.cli.pilot.real_run import run_pilot
    with library_logs_to_stderr():
        return run_pilot(fleet, ceiling, out)
