"""The generated policies, evaluated by an IAM evaluator that is not ours (tests/policy_check.py): the fleet's
own requests — the CreateTrainingJob requests the provider compiles for the spec, the calls on its jobs, its
reports and board — are allowed; a request outside the spec is refused (AccessDenied), whichever dimension it
leaves: another instance type, a longer runtime or keep-alive, another role, another job-name prefix, another
bucket, a subnet or key the spec does not name."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from policy_check import IamRequest, PolicyChecker
from sagemaker_fleet.fleetspec.names import job_name, report_s3_uri, split_s3_uri
from sagemaker_fleet.iam import PARTS, PolicyScope, policy_part
from sagemaker_fleet.iam.context import create_training_job_context
from unit.iam.fleets import ACCOUNT, OUTPUT_KEY, RUN_KEY, VOLUME_KEY, demo, locked, run_requests, small

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec

pytestmark = pytest.mark.node

REGION = "us-east-1"


def policies(spec: FleetSpec, *describe: str) -> dict[str, dict[str, Any]]:
    scope = PolicyScope.of(spec, describe_fleets=describe)
    return {name: policy_part(name, spec, scope).document() for name in PARTS}


def create(request: dict[str, Any]) -> IamRequest:
    """CreateTrainingJob as IAM sees it: the job's ARN and the request's condition keys."""
    arn = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:training-job/{request['TrainingJobName'].lower()}"
    return IamRequest("sagemaker:CreateTrainingJob", arn, create_training_job_context(request))


def tag(request: dict[str, Any]) -> IamRequest:
    """The tags given at creation: AWS asks for sagemaker:AddTags on the new job too."""
    context = create_training_job_context(request)
    tags = {k: v for k, v in context.items() if k.startswith("aws:")}
    return IamRequest("sagemaker:AddTags", create(request).resource, tags)


def pass_role(role: str, service: str = "sagemaker.amazonaws.com") -> IamRequest:
    return IamRequest("iam:PassRole", role, {"iam:PassedToService": service}, region=None)


def on_job(action: str, name: str, **context: str) -> IamRequest:
    return IamRequest(action, f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:training-job/{name}", context)


def s3_object(action: str, uri: str) -> IamRequest:
    bucket, key = split_s3_uri(uri)
    return IamRequest(action, f"arn:aws:s3:::{bucket}/{key}")


def s3_list(uri: str) -> IamRequest:
    bucket, prefix = split_s3_uri(uri)
    return IamRequest("s3:ListBucket", f"arn:aws:s3:::{bucket}", {"s3:prefix": prefix})


def results(checker: PolicyChecker, policy: dict[str, Any], requests: list[IamRequest]) -> list[str]:
    return [d.result for d in checker.decide({"policy": policy}, requests, ACCOUNT)]


# ------------------------------------------------------------------------------------------ the policies themselves


@pytest.mark.parametrize("make", [demo, "locked"])
def test_every_action_and_condition_key_of_the_policies_exists_in_iam(
    policy_checker: PolicyChecker, make: Any, tmp_path: Path
) -> None:
    spec = demo() if make is demo else locked(tmp_path)
    evaluation = policy_checker.evaluate(policies(spec, "weekly"), [], ACCOUNT)
    assert evaluation.problems == ()
    assert evaluation.versions["iam-data"]  # the Service Authorization Reference snapshot it checked against


def test_a_condition_key_iam_does_not_have_is_reported(policy_checker: PolicyChecker) -> None:
    made_up = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "MadeUp",
                "Effect": "Allow",
                "Action": "sagemaker:CreateTrainingJob",
                "Resource": "*",
                "Condition": {"NumericLessThanEquals": {"sagemaker:WarmPoolSeconds": "60"}},
            }
        ],
    }
    evaluation = policy_checker.evaluate({"made-up": made_up}, [], ACCOUNT)
    assert evaluation.problems == (
        "made-up MadeUp: sagemaker:CreateTrainingJob takes no condition key sagemaker:WarmPoolSeconds",
    )


# ------------------------------------------------------------------------------------------ Airflow's principal


def _one_per_condition_context(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One request of each distinct context but for the tag values (the city, the run), which no condition of
    the policy reads: the demo fleet's 200 cities ask for a few distinct launches."""
    distinct: dict[str, dict[str, Any]] = {}
    for request in requests:
        context = create_training_job_context(request)
        shape = {k: v for k, v in context.items() if not k.startswith("aws:RequestTag/")}
        distinct.setdefault(json.dumps(shape, sort_keys=True), request)
    return list(distinct.values())


@pytest.mark.parametrize(("make", "every"), [(demo, False), (small, True)])
def test_airflow_may_make_every_request_of_the_fleets_run(
    policy_checker: PolicyChecker, make: Any, every: bool
) -> None:
    spec = make()
    airflow = policies(spec)["airflow"]
    compiled = run_requests(spec)
    assert len(compiled) > 2 * len(spec.cities)  # re-submissions, spot attempts and their fallbacks too
    assert all(r["TrainingJobName"].startswith(f"{spec.fleet}-") for r in compiled)
    if not every:
        compiled = _one_per_condition_context(compiled)
    some = compiled[0]["TrainingJobName"]
    board = spec.sharing.board if spec.sharing else None
    assert board is not None
    requests = [
        *(create(r) for r in compiled),
        *(tag(r) for r in compiled[:: max(1, len(compiled) // 8)]),  # AddTags has no condition: a few
        *(pass_role(role) for role in sorted({r["RoleArn"] for r in compiled})),
        *(
            on_job(action, some)
            for action in (
                "sagemaker:DescribeTrainingJob",
                "sagemaker:ListTags",
                "sagemaker:AddTags",
                "sagemaker:StopTrainingJob",
            )
        ),
        on_job("sagemaker:UpdateTrainingJob", some, **{"sagemaker:KeepAlivePeriod": "0"}),
        IamRequest("sagemaker:ListTrainingJobs", "*"),
        IamRequest("servicequotas:ListServiceQuotas", "*"),
        s3_list(report_s3_uri(spec.output_s3_uri, "").rstrip("/") + "/"),  # the plan's history listing
        s3_object("s3:GetObject", report_s3_uri(spec.output_s3_uri, "20261128") + "report.json"),
        *(
            s3_object("s3:PutObject", report_s3_uri(spec.output_s3_uri, RUN_KEY) + name)
            for name in ("report.json", "report.csv", "report.html")
        ),
        s3_list(board),
        s3_object("s3:GetObject", f"{board}{spec.fleet}/{RUN_KEY}.json"),  # ShareBoard.key
        s3_object("s3:PutObject", f"{board}{spec.fleet}/{RUN_KEY}.json"),
    ]
    refused = [
        (d.request.action, d.request.resource)
        for d in policy_checker.decide({"airflow": airflow}, requests, ACCOUNT)
        if not d.allowed
    ]
    assert refused == []


def _outside(request: dict[str, Any], change: str) -> dict[str, Any]:
    """``request`` changed in one dimension the spec does not allow."""
    out = copy.deepcopy(request)
    resources = out["ResourceConfig"]
    if change == "instance type":
        resources["InstanceType"] = "ml.p4d.24xlarge"
    elif change == "a second instance group":
        resources["InstanceGroups"] = [
            {"InstanceGroupName": "g", "InstanceType": "ml.p4d.24xlarge", "InstanceCount": 1}
        ]
    elif change == "max runtime":
        out["StoppingCondition"]["MaxRuntimeInSeconds"] += 1
    elif change == "keep-alive":
        resources["KeepAlivePeriodInSeconds"] = 3601
    elif change == "job-name prefix":
        out["TrainingJobName"] = out["TrainingJobName"].replace("citydemand-", "weekly-", 1)
    elif change == "subnets":
        out["VpcConfig"] = {"Subnets": ["subnet-0ff"], "SecurityGroupIds": ["sg-0ff"]}
    elif change == "volume key":
        resources["VolumeKmsKeyId"] = VOLUME_KEY
    elif change == "remote debugging":
        out["RemoteDebugConfig"] = {"EnableRemoteDebug": True}
    elif change == "a file system channel":
        out["InputDataConfig"].append(
            {
                "ChannelName": "fs",
                "DataSource": {
                    "FileSystemDataSource": {
                        "FileSystemId": "fs-0123456789abcdef0",
                        "FileSystemType": "EFS",
                        "FileSystemAccessMode": "ro",
                        "DirectoryPath": "/data",
                    }
                },
            }
        )
    else:
        raise AssertionError(change)
    return out


OUTSIDE = [
    "instance type",
    "a second instance group",
    "max runtime",
    "keep-alive",
    "job-name prefix",
    "subnets",
    "volume key",
    "remote debugging",
    "a file system channel",
]


def test_a_launch_outside_the_demo_spec_is_refused_in_each_dimension(policy_checker: PolicyChecker) -> None:
    spec = demo()
    airflow = policies(spec)["airflow"]
    tokyo = next(r for r in run_requests(spec) if r["TrainingJobName"].startswith("citydemand-tokyo-"))
    assert results(policy_checker, airflow, [create(tokyo)]) == ["Allowed"]
    asked = [create(_outside(tokyo, change)) for change in OUTSIDE]
    assert dict(zip(OUTSIDE, results(policy_checker, airflow, asked), strict=True)) == dict.fromkeys(
        OUTSIDE, "ImplicitlyDenied"
    )


def test_airflow_may_not_reach_beyond_the_fleet(policy_checker: PolicyChecker) -> None:
    spec = demo()
    airflow = policies(spec)["airflow"]
    other_job = job_name("weekly", "tokyo", RUN_KEY)
    requests = {
        "another role": pass_role("arn:aws:iam::111122223333:role/Admin"),
        "a role to another service": pass_role(
            "arn:aws:iam::111122223333:role/FleetTraining", "ec2.amazonaws.com"
        ),
        # the permission that reads another team's Environment and HyperParameters
        "another fleet's job described": on_job("sagemaker:DescribeTrainingJob", other_job),
        "another fleet's job stopped": on_job("sagemaker:StopTrainingJob", other_job),
        "another fleet's tags": on_job("sagemaker:ListTags", other_job),
        "a pool extended": on_job(
            "sagemaker:UpdateTrainingJob",
            job_name("citydemand", "tokyo", RUN_KEY),
            **{"sagemaker:KeepAlivePeriod": "600"},
        ),
        "another region's jobs listed": IamRequest("sagemaker:ListTrainingJobs", "*", region="eu-west-1"),
        "another bucket written": s3_object("s3:PutObject", "s3://acme-ml/fleets/citydemand/reports/x.json"),
        "another bucket listed": s3_list("s3://acme-ml/fleets/citydemand/reports/"),
        "another fleet's reports read": s3_object(
            "s3:GetObject", "s3://sagemaker-fleet-demo/fleets/weekly/reports/20261129/report.json"
        ),
        "the models written": s3_object(
            "s3:PutObject", "s3://sagemaker-fleet-demo/fleets/citydemand/models/x"
        ),
        "the training data read": s3_object("s3:GetObject", "s3://sagemaker-fleet-demo/data/tokyo/train.csv"),
        "the bucket listed from its root": s3_list("s3://sagemaker-fleet-demo/"),
    }
    decided = dict(zip(requests, results(policy_checker, airflow, list(requests.values())), strict=True))
    assert decided == dict.fromkeys(requests, "ImplicitlyDenied")


def test_a_fleet_named_with_describe_fleet_is_described_and_no_other(policy_checker: PolicyChecker) -> None:
    airflow = policies(demo(), "weekly")["airflow"]
    asked = [
        on_job("sagemaker:DescribeTrainingJob", job_name("weekly", "tokyo", RUN_KEY)),
        on_job("sagemaker:DescribeTrainingJob", job_name("payments", "tokyo", RUN_KEY)),
        on_job("sagemaker:StopTrainingJob", job_name("weekly", "tokyo", RUN_KEY)),
    ]
    assert results(policy_checker, airflow, asked) == ["Allowed", "ImplicitlyDenied", "ImplicitlyDenied"]


# ------------------------------------------------------------------------------------------ a locked-down fleet


def test_a_locked_down_fleets_requests_are_allowed_and_each_loosening_refused(
    policy_checker: PolicyChecker, tmp_path: Path
) -> None:
    spec = locked(tmp_path)
    airflow = policies(spec)["airflow"]
    compiled = run_requests(spec)
    assert results(policy_checker, airflow, [create(r) for r in compiled]) == ["Allowed"] * len(compiled)
    oslo = next(r for r in compiled if r["TrainingJobName"] == job_name("locked", "oslo", RUN_KEY))
    narvik = next(r for r in compiled if r["TrainingJobName"] == job_name("locked", "narvik", RUN_KEY))
    assert narvik["ResourceConfig"]["KeepAlivePeriodInSeconds"] == 1800  # its explicit keep_alive

    def changed(request: dict[str, Any], edit: Any) -> IamRequest:
        out = copy.deepcopy(request)
        edit(out)
        return create(out)

    loosened = {
        "no VPC": changed(oslo, lambda r: r.pop("VpcConfig")),
        "a subnet of another type's cities": changed(
            oslo, lambda r: r["VpcConfig"].update(Subnets=["subnet-0a3"])
        ),
        "another security group": changed(oslo, lambda r: r["VpcConfig"].update(SecurityGroupIds=["sg-0ff"])),
        "no volume key": changed(oslo, lambda r: r["ResourceConfig"].pop("VolumeKmsKeyId")),
        "another volume key": changed(oslo, lambda r: r["ResourceConfig"].update(VolumeKmsKeyId=OUTPUT_KEY)),
        "no output key": changed(oslo, lambda r: r["OutputDataConfig"].pop("KmsKeyId")),
        "network isolation off": changed(oslo, lambda r: r.update(EnableNetworkIsolation=False)),
        "runtime above the type's longest": changed(
            oslo, lambda r: r["StoppingCondition"].update(MaxRuntimeInSeconds=5401)
        ),
        "keep-alive above the explicit one": changed(
            narvik, lambda r: r["ResourceConfig"].update(KeepAlivePeriodInSeconds=1801)
        ),
        "the gpu type for longer": changed(
            narvik, lambda r: r["StoppingCondition"].update(MaxRuntimeInSeconds=3600)
        ),
    }
    decided = dict(zip(loosened, results(policy_checker, airflow, list(loosened.values())), strict=True))
    assert decided == dict.fromkeys(loosened, "ImplicitlyDenied")


# ------------------------------------------------------------------------------------------ the view and the CLI


def test_the_view_reads_and_never_writes(policy_checker: PolicyChecker) -> None:
    spec = demo()
    view = policies(spec)["view"]
    own = job_name("citydemand", "tokyo", RUN_KEY)
    report = report_s3_uri(spec.output_s3_uri, RUN_KEY) + "report.html"
    allowed = [
        IamRequest("sagemaker:ListTrainingJobs", "*"),
        on_job("sagemaker:DescribeTrainingJob", own),
        s3_object("s3:GetObject", report),
    ]
    refused = [
        *(create(r) for r in run_requests(spec)[:1]),
        on_job("sagemaker:StopTrainingJob", own),
        on_job("sagemaker:UpdateTrainingJob", own, **{"sagemaker:KeepAlivePeriod": "0"}),
        on_job("sagemaker:AddTags", own),
        on_job("sagemaker:DescribeTrainingJob", job_name("weekly", "tokyo", RUN_KEY)),
        s3_object("s3:PutObject", report),
        pass_role(spec.role_arn),
    ]
    decided = results(policy_checker, view, allowed + refused)
    assert decided == ["Allowed"] * len(allowed) + ["ImplicitlyDenied"] * len(refused)


# ------------------------------------------------------------------------------------------ the model registry


def test_a_fleet_with_register_may_register_its_cities_models_and_no_others(
    policy_checker: PolicyChecker,
) -> None:
    """The register task's calls on the groups the spec's pattern names (`{fleet}-{city}`) are allowed; another
    team's group, and a champion's training job of another fleet (its Environment), are not."""
    from sagemaker_fleet.fleetspec import load_fleet_spec

    spec = load_fleet_spec(Path(__file__).resolve().parents[2] / "e2e" / "fleets" / "registry.yaml")
    airflow = policies(spec)["airflow"]
    base = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}"
    ours, theirs = f"{spec.fleet}-seoul", "payments-seoul"
    asked = {
        "its group read": IamRequest(
            "sagemaker:DescribeModelPackageGroup", f"{base}:model-package-group/{ours}"
        ),
        "its group made": IamRequest(
            "sagemaker:CreateModelPackageGroup", f"{base}:model-package-group/{ours}"
        ),
        "its version registered": IamRequest(
            "sagemaker:CreateModelPackage", f"{base}:model-package/{ours}/3"
        ),
        "its version approved": IamRequest("sagemaker:UpdateModelPackage", f"{base}:model-package/{ours}/3"),
        "its packages listed": IamRequest("sagemaker:ListModelPackages", f"{base}:model-package/{ours}/*"),
        "its champion's job read": on_job(
            "sagemaker:DescribeTrainingJob", job_name(spec.fleet, "seoul", RUN_KEY)
        ),
        "another team's group made": IamRequest(
            "sagemaker:CreateModelPackageGroup", f"{base}:model-package-group/{theirs}"
        ),
        "another team's version approved": IamRequest(
            "sagemaker:UpdateModelPackage", f"{base}:model-package/{theirs}/3"
        ),
        "another fleet's job read": on_job(
            "sagemaker:DescribeTrainingJob", job_name("payments", "seoul", RUN_KEY)
        ),
    }
    decided = dict(zip(asked, results(policy_checker, airflow, list(asked.values())), strict=True))
    allowed = [name for name in asked if not name.startswith("another")]
    assert decided == {name: "Allowed" if name in allowed else "ImplicitlyDenied" for name in asked}
    assert "sagemaker:CreateModelPackage" not in json.dumps(policies(demo())["airflow"])  # no register: none
