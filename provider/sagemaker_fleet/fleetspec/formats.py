"""What a valid value of each text field of a fleet spec looks like, and the fix to give when it does not.

The patterns are matched in full (``fullmatch``), so a trailing newline is never part of a valid value. The fix of
a field is also the fix for a structural (pydantic) error of that field: see :mod:`sagemaker_fleet.fleetspec.messages`.
"""

from __future__ import annotations

import re

from sagemaker_fleet.fleetspec.limits import CITY_NAME_MAX
from sagemaker_fleet.fleetspec.model import KEEP_ALIVE_API_MAX

#: No '-' in a fleet's name: job names are ``{fleet}-{city}-{run_key}``, so the first '-' ends the fleet and two
#: fleets can never name the same job (fleet ``city`` + city ``demand-paris`` vs fleet ``city-demand`` + ``paris``).
FLEET_RE = re.compile(r"[a-z0-9]{1,20}")
CITY_RE = re.compile(rf"^[a-z0-9][a-z0-9-]{{0,{CITY_NAME_MAX - 1}}}$")
REGION_RE = re.compile(r"^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$")
ROLE_ARN_RE = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/[A-Za-z0-9+=,.@_/-]{1,512}$")
S3_URI_RE = re.compile(r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[^\s]*)?$")
INSTANCE_TYPE_RE = re.compile(r"^ml\.[a-z0-9-]+\.[a-z0-9]+$")
KMS_RE = re.compile(r"^[a-zA-Z0-9:/_-]{1,2048}$")
SUBNET_RE = re.compile(r"^subnet-[0-9a-z]{1,25}$")
SECURITY_GROUP_RE = re.compile(r"^sg-[0-9a-z]{1,25}$")
ENV_KEY_RE = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]{0,511}$")
#: A value ``sagemaker-fleet import`` could not draft (an account quota it could not read): written in its place,
#: refused by ``validate`` with the field's fix until a person writes the value.
TODO = "TODO"

#: The pattern of each text field the builder matches against one, by the field's name (a list's items, a map's
#: keys): what the generated fleet-spec reference shows beside the field.
PATTERNS: dict[str, re.Pattern[str]] = {
    "fleet": FLEET_RE,
    "name": CITY_RE,
    "region": REGION_RE,
    "role_arn": ROLE_ARN_RE,
    "output_s3_uri": S3_URI_RE,
    "train_s3_uri": S3_URI_RE,
    "board": S3_URI_RE,
    "volume_kms_key_id": KMS_RE,
    "subnets": SUBNET_RE,
    "security_group_ids": SECURITY_GROUP_RE,
    "environment": ENV_KEY_RE,
}

#: The fix for a field, by its name (the last segment of its path).
FIXES: dict[str, str] = {
    "fleet": (
        "use 1-20 lowercase letters or digits, without '-' (e.g. 'citydemand'): the fleet starts every job "
        "name, {fleet}-{city}-{run_key}, and a '-' in it would let two fleets name the same job"
    ),
    "name": "use lowercase letters, digits and '-', starting with a letter or digit",
    "region": "use an AWS region code such as us-east-1",
    "role_arn": "use an IAM role ARN such as arn:aws:iam::111122223333:role/FleetTraining",
    "output_s3_uri": "use an S3 URI such as s3://bucket/prefix",
    "train_s3_uri": "use an S3 URI such as s3://bucket/data/city/",
    "instance_type": "use a SageMaker instance type such as ml.m5.xlarge",
    "keep_alive": f"use `auto` or whole seconds from 0 to {KEEP_ALIVE_API_MAX}",
    "image_uri": "use a container image URI such as 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
    "input_mode": "use File, FastFile or Pipe",
    "fallback": "use on_demand or fail",
    "cities": "list the fleet's cities, each a mapping with at least `name` and `train_s3_uri`",
    "instances": "give the account's quota of concurrent training instances of this type, e.g. `instances: 20`",
    "warm_pools": (
        "give the account's warm-pool quota of this type, e.g. `warm_pools: 4` (AWS's default is 0: no pool is kept)"
    ),
    "spot_instances": (
        "give the account's quota of concurrent spot training instances of this type, e.g. `spot_instances: 20`, "
        "or leave it out for spot jobs to share `instances`"
    ),
    "subnets": "list 1-16 subnet ids such as subnet-0a1b2c3d",
    "security_group_ids": "list 1-5 security group ids such as sg-0a1b2c3d",
    "group": 'write a pattern with {city}, such as "{fleet}-{city}"',
    "metric": "write the Name of one of the job's MetricDefinitions, such as validation:rmse",
    "direction": "use minimize (lower is better) or maximize",
    "margin": "write a share of the champion's value from 0 to below 1, such as 0.02 for 2 %",
    "margin_abs": "write a number ≥ 0 in the metric's unit, such as 0.5",
    "bound": "write the value a city's first model must reach, a plain number such as 25.0",
    "approve": "use Approved or PendingManualApproval",
    "losers": "use reject (register them Rejected, with the reason) or skip (register nothing)",
    "sharing": (
        "write a mapping such as `sharing: {share: 40%, priority: 10}`, or `sharing: false` for a fleet that "
        "posts nothing on the account's board"
    ),
}
