"""``sagemaker-fleet preflight FLEET.yaml [--endpoint-url URL]``: check the account before the first run.

Plans the spec, then asks the account (AWS through the default credential chain, or the simulator through
``--endpoint-url`` / ``AWS_ENDPOINT_URL``): its SageMaker quotas against the plan's needs and the spec's
``quotas:``, the execution roles, the output bucket, every city's training data and the training images. First, what
this installation is: the Airflow, Amazon provider, OpenLineage provider and boto3 versions, and which of the
provider's version-bound features they give (``compat.features``; facts, outside the summary and the exit code).
One line per finding on stdout (``OK``, ``NOTE``, ``WARNING``, ``ERROR``), then a summary.

Exit codes: 0 the run can work (warnings or not); 2 it cannot (an ERROR finding), or the spec does not allow a
plan; 1 the account could not be asked at all (no credentials, endpoint unreachable) — never for a finding.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cli.argtypes import endpoint_url
from sagemaker_fleet.cli.inputs import INPUT_ERRORS, load_spec, refused
from sagemaker_fleet.cli.streams import library_logs_to_stderr
from sagemaker_fleet.fleetspec.names import today_run_key
from sagemaker_fleet.plan import plan_fleet
from sagemaker_fleet.preflight.checks import AccountClients, preflight
from sagemaker_fleet.preflight.findings import Finding, exit_code, tally

if TYPE_CHECKING:
    import boto3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="FLEET.yaml", help="the fleet spec to check the account for")
    parser.add_argument(
        "--endpoint-url",
        type=endpoint_url,
        default=None,
        help="AWS endpoint of every call, e.g. the simulator's (default: AWS_ENDPOINT_URL or AWS itself)",
    )


def clients(session: boto3.session.Session, endpoint: str | None) -> AccountClients:
    """One client per service the checks call; ECR per region (an image's registry may be in another one)."""
    from botocore.config import Config

    config = Config(retries={"mode": "standard", "max_attempts": 5})

    def client(service: str, region: str | None = None) -> Any:
        factory: Any = session.client  # any service name, so not the stubs' per-service overloads
        return factory(
            service, region_name=region or session.region_name, endpoint_url=endpoint, config=config
        )

    return AccountClients(
        sts=client("sts"),
        service_quotas=client("service-quotas"),
        iam=client("iam"),
        s3=client("s3"),
        ecr=lambda region: client("ecr", region),
        sagemaker=client("sagemaker"),
    )


#: The distributions whose versions decide what the provider can do here.
INSTALLED = (
    "apache-airflow",
    "apache-airflow-providers-amazon",
    "apache-airflow-providers-openlineage",
    "boto3",
)


def _airflow_features() -> list[Any]:
    """``compat.features()``; importing Airflow for it configures Airflow's logging, which Airflow 3.0 writes to
    stdout (a warning at import): preflight's stdout is its report, so that goes to stderr."""
    with contextlib.redirect_stdout(sys.stderr):
        from sagemaker_fleet.compat import features

        return list(features())


def installation_findings() -> list[Finding]:
    """The installed versions (one NOTE) and each version-bound feature: OK where this installation has it, a NOTE
    saying what the provider does instead where it does not (the Fleet tab needs Airflow 3.1, …)."""
    from importlib.metadata import PackageNotFoundError, version

    versions = []
    for name in INSTALLED:
        try:
            versions.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            versions.append(f"{name} not installed")
    found = [Finding("NOTE", "installed", ", ".join(versions))]
    for feature in _airflow_features():
        if feature.available:
            found.append(Finding("OK", f"feature {feature.name}", "available"))
        else:
            found.append(
                Finding("NOTE", f"feature {feature.name}", f"not on this installation; {feature.instead}")
            )
    return found


def run(args: argparse.Namespace) -> int:
    with library_logs_to_stderr():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    try:
        spec = load_spec(args.spec)
        plan = plan_fleet(spec, today_run_key())  # the key names jobs only: any run's plan needs the same
    except INPUT_ERRORS as exc:
        return refused(exc, args.spec)
    import boto3  # lazily: the CLI's other commands must not pay for it
    from botocore.exceptions import BotoCoreError, ClientError

    session = boto3.session.Session(region_name=spec.region)
    try:
        findings = preflight(spec, plan, clients(session, args.endpoint_url))
    except ValueError as exc:  # botocore refuses an endpoint, e.g. a bad AWS_ENDPOINT_URL
        print(f"error: {exc}; set --endpoint-url (or AWS_ENDPOINT_URL) to an http(s) URL", file=sys.stderr)
        return 2
    except (BotoCoreError, ClientError) as exc:
        print(
            f"error: cannot ask the account ({exc}); check the credentials and the endpoint", file=sys.stderr
        )
        return 1
    for finding in [*installation_findings(), *findings]:  # the installation's lines are facts, not checks
        print(finding.line())
    code = exit_code(findings)
    verdict = "the run can go ahead" if code == 0 else "the run cannot work as specified: fix the ERROR lines"
    print(f"preflight {spec.fleet}: {tally(findings)} — {verdict}")
    return code
