"""Bad fleet specs: each error names the exact field path, the YAML line and the fix (docs/guides/fleet-spec.md).

Every case is the valid ``BASE`` with one small edit, so a failing case points at one rule. Each case lists every
path it expects: a spec with one mistake must report that mistake once, with no follow-on noise.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sagemaker_fleet.fleetspec import (
    FleetSpecError,
    SpecIssue,
    build_fleet_spec,
    load_fleet_spec,
    parse_fleet_spec,
)

#: A valid spec; line numbers below refer to it (line 1 is ``fleet:``).
BASE = """\
fleet: citydemand
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/citydemand
quotas:
  ml.m5.xlarge: {instances: 20, warm_pools: 8, spot_instances: 20}
  ml.m5.2xlarge: {instances: 4, warm_pools: 2}
defaults:
  instance_type: ml.m5.xlarge
  max_runtime_seconds: 7200
  keep_alive: auto
cities:
  - name: seoul
    train_s3_uri: s3://acme-ml/data/seoul/
  - name: tehran
    train_s3_uri: s3://acme-ml/data/tehran/
    instance_type: ml.m5.2xlarge
    role_arn: arn:aws:iam::111122223333:role/TeamB
  - name: lagos
    train_s3_uri: s3://acme-ml/data/lagos/
  - name: perth
    train_s3_uri: s3://acme-ml/data/perth/
    spot: {max_wait_seconds: 10800}
"""

DEFAULTS_END = "  keep_alive: auto\n"  # append a line to ``defaults``
SEOUL = "    train_s3_uri: s3://acme-ml/data/seoul/\n"  # append a line to cities[0]
TEHRAN = "    role_arn: arn:aws:iam::111122223333:role/TeamB\n"  # append a line to cities[1]
LAGOS = "    train_s3_uri: s3://acme-ml/data/lagos/\n"  # append a line to cities[2]
PERTH_SPOT = "    spot: {max_wait_seconds: 10800}\n"  # cities[3]'s spot line


def edit(*pairs: str) -> str:
    """``BASE`` with each ``old`` replaced by ``new`` (pairs flattened: old, new, old, new, ...)."""
    text = BASE
    for old, new in zip(pairs[::2], pairs[1::2], strict=True):
        assert text.count(old) == 1, f"{old!r} must occur exactly once in BASE"
        text = text.replace(old, new)
    return text


def named(path: str, names: dict[int, str]) -> str:
    """``path`` as printed: ``cities[2].spot`` -> ``cities[2] (lagos).spot`` when city 2's name is valid."""
    index = path.removeprefix("cities[").split("]", 1)[0]
    if not path.startswith("cities[") or int(index) not in names:
        return path
    return path.replace(f"cities[{index}]", f"cities[{index}] ({names[int(index)]})", 1)


def add(after: str, line: str) -> str:
    return edit(after, after + line + "\n")


def errors_of(text: str) -> FleetSpecError:
    with pytest.raises(FleetSpecError) as info:
        parse_fleet_spec(text, source="fleet.yaml")
    return info.value


# (id, spec text, {field path: a fragment of the fix text})
CASES: list[tuple[str, str, dict[str, str]]] = [
    # --- wrong types
    (
        "string-for-int",
        edit("max_runtime_seconds: 7200", "max_runtime_seconds: '7200'"),
        {"defaults.max_runtime_seconds": "whole number without quotes"},
    ),
    (
        "int-for-bool",
        add(SEOUL, "    enable_network_isolation: 1"),
        {"cities[0].enable_network_isolation": "true or false"},
    ),
    (
        "string-for-bool",
        add(DEFAULTS_END, "  enable_inter_container_traffic_encryption: 'yes'"),
        {"defaults.enable_inter_container_traffic_encryption": "true or false"},
    ),
    (
        "bool-for-int",
        add(DEFAULTS_END, "  instance_count: true"),
        {"defaults.instance_count": "whole number"},
    ),
    (
        "float-for-int",
        add(LAGOS, "    expected_seconds: 90.5"),
        {"cities[2].expected_seconds": "whole number"},
    ),
    ("int-for-string", edit("name: lagos", "name: 123"), {"cities[2].name": "lowercase letters"}),
    (
        "list-for-scalar-hyperparameter",
        add(DEFAULTS_END, "  hyperparameters: {layers: [64, 32]}"),
        {"defaults.hyperparameters[layers]": "one plain value"},
    ),
    (
        "env-value-not-string",
        add(SEOUL, "    environment: {DEBUG: 1}"),
        {"cities[0].environment[DEBUG]": "text"},
    ),
    ("spot-not-mapping", edit(PERTH_SPOT, "    spot: true\n"), {"cities[3].spot": "mapping"}),
    (
        "defaults-not-mapping",
        edit(
            "  max_runtime_seconds: 7200\n",
            "",
            "  keep_alive: auto\n",
            "",
            "defaults:\n  instance_type: ml.m5.xlarge\n",
            "defaults: 5\n",
        ),
        {"defaults": "mapping"},
    ),
    # --- unknown keys at every level
    (
        "unknown-top-key",
        add("region: us-east-1\n", "regoin: eu-west-1"),
        {"regoin": "did you mean `region`?"},
    ),
    (
        "unknown-defaults-key",
        add(DEFAULTS_END, "  instance_typ: ml.m5.xlarge"),
        {"defaults.instance_typ": "did you mean `instance_type`?"},
    ),
    ("unknown-city-key", add(PERTH_SPOT, "    colour: red"), {"cities[3].colour": "allowed keys:"}),
    (
        "unknown-spot-key",
        edit("{max_wait_seconds: 10800}", "{max_wait_seconds: 10800, max_wait: 5}"),
        {"cities[3].spot.max_wait": "did you mean `max_wait_seconds`?"},
    ),
    (
        "unknown-vpc-key",
        add(DEFAULTS_END, "  vpc: {subnets: [subnet-0a1], security_group_ids: [sg-0b2], subnet: subnet-0a1}"),
        {"defaults.vpc.subnet": "did you mean `subnets`?"},
    ),
    (
        "unknown-quota-key",
        edit("{instances: 4, warm_pools: 2}", "{instances: 4, warm_pool: 2}"),
        {"quotas[ml.m5.2xlarge].warm_pool": "did you mean `warm_pools`?"},
    ),
    # --- spot
    (
        "spot-max-wait-below-runtime-on-city",
        edit("{max_wait_seconds: 10800}", "{max_wait_seconds: 3600}"),
        {"cities[3].spot.max_wait_seconds": "raise it to ≥ 7200"},
    ),
    (
        "spot-max-wait-below-runtime-via-defaults",
        add(DEFAULTS_END, "  spot: {max_wait_seconds: 3600}"),
        {"defaults.spot.max_wait_seconds": "raise it to ≥ 7200"},
    ),
    (
        "spot-default-max-wait-below-one-citys-runtime",
        edit(
            DEFAULTS_END,
            DEFAULTS_END + "  spot: {max_wait_seconds: 8000}\n",
            TEHRAN,
            TEHRAN + "    max_runtime_seconds: 9000\n",
        ),
        {"defaults.spot.max_wait_seconds": "set at cities[1].max_runtime_seconds"},
    ),
    (
        "spot-without-max-wait",
        edit("{max_wait_seconds: 10800}", "{max_attempts: 2}"),
        {"cities[3].spot.max_wait_seconds": "set it ≥ 7200"},
    ),
    (
        "spot-max-wait-over-28-days",
        edit("{max_wait_seconds: 10800}", "{max_wait_seconds: 2419201}"),
        {"cities[3].spot.max_wait_seconds": "28-day limit"},
    ),
    (
        "spot-max-attempts-zero",
        edit("{max_wait_seconds: 10800}", "{max_wait_seconds: 10800, max_attempts: 0}"),
        {"cities[3].spot.max_attempts": "use a value ≥ 1"},
    ),
    (
        "spot-bad-fallback",
        edit("{max_wait_seconds: 10800}", "{max_wait_seconds: 10800, fallback: retry}"),
        {"cities[3].spot.fallback": "use on_demand or fail"},
    ),
    # --- keep-alive
    (
        "keep-alive-on-spot-city",
        add(PERTH_SPOT, "    keep_alive: 300"),
        {"cities[3].keep_alive": "warm pools do not work with managed spot training"},
    ),
    (
        "keep-alive-on-spot-city-inherited-from-defaults",
        edit("  keep_alive: auto", "  keep_alive: 300"),
        {"cities[3].spot": "set `keep_alive: 0` on the city"},
    ),
    (
        "keep-alive-over-api-max-on-city",
        add(SEOUL, "    keep_alive: 21601"),
        {"cities[0].keep_alive": "at most 21600"},
    ),
    (
        "keep-alive-over-api-max-in-defaults",
        edit("  keep_alive: auto", "  keep_alive: 30000", PERTH_SPOT, PERTH_SPOT + "    keep_alive: 0\n"),
        {"defaults.keep_alive": "at most 21600"},
    ),
    (
        "keep-alive-word",
        edit("  keep_alive: auto", "  keep_alive: forever"),
        {"defaults.keep_alive": "`auto` or whole seconds"},
    ),
    (
        "keep-alive-negative",
        add(SEOUL, "    keep_alive: -5"),
        {"cities[0].keep_alive": "`auto` or whole seconds"},
    ),
    # --- cities
    (
        "duplicate-city",
        edit("name: lagos", "name: seoul"),
        {"cities[2].name": "first at cities[0]); city names must be unique"},
    ),
    (
        "bad-city-name-space",
        edit("name: lagos", "name: Lagos City"),
        {"cities[2].name": "lowercase letters, digits and '-'"},
    ),
    (
        "bad-city-name-leading-hyphen",
        edit("name: lagos", "name: -lagos"),
        {"cities[2].name": "starting with a letter or digit"},
    ),
    ("bad-city-name-accent", edit("name: lagos", "name: são-paulo"), {"cities[2].name": "lowercase letters"}),
    (
        "missing-city-name",
        edit("  - name: lagos\n    train_s3_uri", "  - train_s3_uri"),
        {"cities[2].name": "add the city's name"},
    ),
    ("missing-train-s3-uri", edit(LAGOS, ""), {"cities[2].train_s3_uri": "add the city's data URI"}),
    ("empty-city-list", BASE.split("cities:")[0] + "cities: []\n", {"cities": "list the fleet's cities"}),
    (
        "cities-not-a-list",
        BASE.split("cities:")[0] + "cities: {seoul: {}}\n",
        {"cities": "list the fleet's cities"},
    ),
    (
        "city-not-a-mapping",
        edit("  - name: lagos\n" + LAGOS, "  - lagos\n"),
        {"cities[2]": "each city is a mapping"},
    ),
    ("name-in-defaults", add(DEFAULTS_END, "  name: everywhere"), {"defaults.name": "move it into `cities`"}),
    (
        "train-uri-in-defaults",
        add(DEFAULTS_END, "  train_s3_uri: s3://acme-ml/data/"),
        {"defaults.train_s3_uri": "set `train_s3_uri` on each city"},
    ),
    # --- ARNs, S3 URIs, names, region, images
    (
        "bad-arn-city-override",
        edit("role/TeamB", "TeamB"),
        {"cities[1].role_arn": "use an IAM role ARN such as arn:aws:iam::111122223333:role/FleetTraining"},
    ),
    (
        "bad-arn-top",
        edit(
            "role_arn: arn:aws:iam::111122223333:role/FleetTraining", "role_arn: arn:aws:iam::1111:role/Fleet"
        ),
        {"role_arn": "use an IAM role ARN"},
    ),
    (
        "user-arn-in-defaults",
        add(DEFAULTS_END, "  role_arn: arn:aws:iam::111122223333:user/alice"),
        {"defaults.role_arn": "use an IAM role ARN"},
    ),
    (
        "bad-train-s3-uri-scheme",
        edit("s3://acme-ml/data/lagos/", "https://acme-ml/data/lagos/"),
        {"cities[2].train_s3_uri": "use an S3 URI such as s3://bucket/data/city/"},
    ),
    (
        "bad-train-s3-uri-no-bucket",
        edit("s3://acme-ml/data/lagos/", "s3://"),
        {"cities[2].train_s3_uri": "use an S3 URI"},
    ),
    (
        "bad-output-s3-uri-bucket",
        edit("s3://acme-ml/fleets/citydemand", "s3://Acme_ML/fleets"),
        {"output_s3_uri": "use an S3 URI such as s3://bucket/prefix"},
    ),
    (
        "bad-fleet-name-case",
        edit("fleet: citydemand", "fleet: City_Demand"),
        {"fleet": "1-20 lowercase letters"},
    ),
    (
        "fleet-name-too-long",
        edit("fleet: citydemand", "fleet: citydemandforecasting"),
        {"fleet": "1-20 lowercase letters"},
    ),
    (
        "fleet-name-with-a-hyphen",  # fleet `city` + city `demand-paris` would name fleet `city-demand`'s paris job
        edit("fleet: citydemand", "fleet: city-demand"),
        {"fleet": "without '-'"},
    ),
    # --- a trailing newline is not part of a valid name (a `$` anchor would accept it)
    (
        "fleet-name-trailing-newline",
        edit("fleet: citydemand", 'fleet: "citydemand\\n"'),
        {"fleet": "1-20 lowercase"},
    ),
    (
        "city-name-trailing-newline",
        edit("  - name: seoul", '  - name: "seoul\\n"'),
        {"cities[0].name": "lowercase"},
    ),
    (
        "region-trailing-newline",
        edit("region: us-east-1", 'region: "us-east-1\\n"'),
        {"region": "such as us-east-1"},
    ),
    (
        "role-trailing-newline",
        edit(
            "role_arn: arn:aws:iam::111122223333:role/FleetTraining",
            'role_arn: "arn:aws:iam::111122223333:role/FleetTraining\\n"',
        ),
        {"role_arn": "IAM role ARN"},
    ),
    (
        "instance-type-trailing-newline",
        edit("  instance_type: ml.m5.xlarge", '  instance_type: "ml.m5.xlarge\\n"'),
        {"defaults.instance_type": ""},
    ),
    ("bad-region", edit("region: us-east-1", "region: useast1"), {"region": "such as us-east-1"}),
    ("bad-region-uppercase", edit("region: us-east-1", "region: US-EAST-1"), {"region": "such as us-east-1"}),
    (
        "image-with-spaces",
        edit("image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4", "image_uri: 'my image'"),
        {"image_uri": "without spaces"},
    ),
    (
        "bad-input-mode",
        add("region: us-east-1\n", "input_mode: Fast"),
        {"input_mode": "use File, FastFile or Pipe"},
    ),
    # --- instance types and quotas
    (
        "instance-type-without-quota-on-city",
        edit("instance_type: ml.m5.2xlarge", "instance_type: ml.c5.xlarge"),
        {"cities[1].instance_type": "add `quotas: {ml.c5.xlarge: {instances: N, warm_pools: N}}`"},
    ),
    (
        "instance-type-without-quota-in-defaults",
        edit("  instance_type: ml.m5.xlarge", "  instance_type: ml.c5.xlarge"),
        {"defaults.instance_type": "no quota for ml.c5.xlarge"},
    ),
    (
        "malformed-instance-type",
        add(SEOUL, "    instance_type: m5.xlarge"),
        {"cities[0].instance_type": "not a SageMaker training instance type; did you mean ml.m5.xlarge?"},
    ),
    (
        "typo-instance-type-is-not-a-missing-quota",
        add(SEOUL, "    instance_type: ml.m5.xlarg"),
        {
            "cities[0].instance_type": "'ml.m5.xlarg' is not a SageMaker training instance type; did you mean ml.m5.xlarge?"
        },
    ),
    (
        "unknown-instance-type-without-a-near-one",
        add(SEOUL, "    instance_type: ml.x9.huge"),
        {"cities[0].instance_type": "use a SageMaker training instance type such as ml.m5.xlarge"},
    ),
    (
        "no-instance-type-anywhere",
        edit("  instance_type: ml.m5.xlarge\n", ""),
        {f"cities[{i}].instance_type": "set `instance_type` in defaults or on the city" for i in (0, 2, 3)},
    ),
    (
        "malformed-quota-instance-type",
        edit("  ml.m5.2xlarge: {", "  m5.2xlarge: {"),
        {
            "quotas[m5.2xlarge]": "did you mean ml.m5.2xlarge?",
            "cities[1].instance_type": "no quota for ml.m5.2xlarge",
        },
    ),
    (
        "quota-zero-instances",
        edit("{instances: 4, warm_pools: 2}", "{instances: 0, warm_pools: 2}"),
        {"quotas[ml.m5.2xlarge].instances": "equal to 1 (got 0); give the account's quota"},
    ),
    ("quota-not-mapping", edit("{instances: 4, warm_pools: 2}", "4"), {"quotas[ml.m5.2xlarge]": "mapping"}),
    (
        "quota-missing-instances",
        edit("{instances: 4, warm_pools: 2}", "{warm_pools: 2}"),
        {"quotas[ml.m5.2xlarge].instances": "add it (give the account's quota"},
    ),
    # --- limits and resources
    (
        "max-runtime-over-28-days",
        add(SEOUL, "    max_runtime_seconds: 2419201"),
        {"cities[0].max_runtime_seconds": "28-day limit (2419200 s); lower it"},
    ),
    ("zero-volume", add(DEFAULTS_END, "  volume_size_gb: 0"), {"defaults.volume_size_gb": "use a value ≥ 1"}),
    (
        "negative-latency",
        add("region: us-east-1\n", "orchestration_latency_seconds: -1"),
        {"orchestration_latency_seconds": "use a value ≥ 0"},
    ),
    (
        "zero-deadline",
        add("region: us-east-1\n", "deadline_seconds: 0"),
        {"deadline_seconds": "use a value ≥ 1"},
    ),
    (
        "bad-subnet-id",
        add(DEFAULTS_END, "  vpc: {subnets: [subnet-0a1, net-2], security_group_ids: [sg-0b2]}"),
        {"defaults.vpc.subnets[1]": "use an id such as subnet-0a1b2c3d"},
    ),
    (
        "bad-security-group-id",
        add(SEOUL, "    vpc: {subnets: [subnet-0a1], security_group_ids: [group-1]}"),
        {"cities[0].vpc.security_group_ids[0]": "use an id such as sg-0a1b2c3d"},
    ),
    (
        "vpc-without-subnets",
        add(DEFAULTS_END, "  vpc: {subnets: [], security_group_ids: [sg-0b2]}"),
        {"defaults.vpc.subnets": "list 1-16 subnet ids"},
    ),
    (
        "vpc-missing-security-groups",
        add(DEFAULTS_END, "  vpc: {subnets: [subnet-0a1]}"),
        {"defaults.vpc.security_group_ids": "add it (list 1-5 security group ids"},
    ),
    (
        "bad-kms-key",
        add(DEFAULTS_END, "  volume_kms_key_id: 'my key!'"),
        {"defaults.volume_kms_key_id": "use a KMS key id, alias or ARN"},
    ),
    (
        "bad-env-var-name",
        add(DEFAULTS_END, "  environment: {1BAD: x, GOOD: y}"),
        {"defaults.environment[1BAD]": "not starting with a digit"},
    ),
    (
        "env-var-value-too-long",
        add(SEOUL, "    environment: {TOKEN: " + "x" * 513 + "}"),
        {"cities[0].environment[TOKEN]": "at most 512"},
    ),
    (
        "bad-price-key",
        add("region: us-east-1\n", "prices: {m5: 0.23}"),
        {"prices[m5]": "'m5' is not a SageMaker training instance type; did you mean ml.m5.large?"},
    ),
    (
        "typo-price-key",
        add("region: us-east-1\n", "prices: {ml.g5.xlarg: 1.4}"),
        {"prices[ml.g5.xlarg]": "did you mean ml.g5.xlarge?"},
    ),
    # --- YAML itself
    ("yaml-syntax-error", edit("  keep_alive: auto", "  keep_alive: [auto"), {"": "YAML syntax error"}),
    ("yaml-tab-indent", edit("  keep_alive: auto", "\tkeep_alive: auto"), {"": "fix the indentation"}),
    (
        "duplicate-yaml-key",
        add(DEFAULTS_END, "  keep_alive: 0"),
        {"defaults.keep_alive": "appears twice (first at line 12); keep one"},
    ),
    ("non-mapping-document", "- seoul\n- tehran\n", {"": "a fleet spec is a mapping"}),
    ("scalar-document", "citydemand\n", {"": "a fleet spec is a mapping"}),
    ("empty-file", "", {"": "the file is empty"}),
    ("comments-only", "# nothing yet\n", {"": "the file is empty"}),
]

REQUIRED_TOP = {
    "fleet": "use 1-20 lowercase letters",
    "region": "use an AWS region code",
    "role_arn": "use an IAM role ARN",
    "image_uri": "use a container image URI",
    "output_s3_uri": "use an S3 URI",
}
for _field, _fix in REQUIRED_TOP.items():
    _line = next(line for line in BASE.splitlines(keepends=True) if line.startswith(f"{_field}:"))
    CASES.append(
        (f"missing-{_field}", edit(_line, ""), {_field: f"required field is missing; add it ({_fix}"})
    )
CASES.append(("missing-cities", BASE.split("cities:")[0], {"cities": "required field is missing; add it"}))

#: Cases whose single error has no line (nothing in the file to point at).
NO_LINE = {"empty-file", "comments-only"}


def test_enough_cases() -> None:
    assert len(CASES) >= 30
    assert len({case_id for case_id, _, _ in CASES}) == len(CASES)


@pytest.mark.parametrize(("text", "expected"), [pytest.param(t, e, id=i) for i, t, e in CASES])
def test_invalid_spec_names_field_path_and_fix(
    request: pytest.FixtureRequest, text: str, expected: dict[str, str]
) -> None:
    error = errors_of(text)
    paths = [issue.path for issue in error.issues]
    assert sorted(paths) == sorted(expected), "\n".join(map(str, error.issues))
    for issue in error.issues:
        assert expected[issue.path] in issue.message, str(issue)
        if request.node.callspec.id not in NO_LINE:
            assert issue.line is not None, f"no line number for {issue}"
        # the rendered error carries the path (naming the city where its name is valid), the line and the message
        where = f" (line {issue.line})" if issue.line is not None else ""
        assert f"  - {named(issue.path, error.city_names) or '<root>'}{where}: " in str(error)
        assert issue.message.split("cities[", 1)[0] in str(error)
    assert str(error).startswith(f"fleet.yaml: {len(error.issues)} error(s) in fleet spec:")


def test_base_is_valid() -> None:
    spec = parse_fleet_spec(BASE)
    assert [city.name for city in spec.cities] == ["seoul", "tehran", "lagos", "perth"]
    assert spec.warnings == ()


@pytest.mark.parametrize(
    ("text", "path", "line"),
    [
        pytest.param(
            edit("{max_wait_seconds: 10800}", "{max_wait_seconds: 60}"),
            "cities[3].spot.max_wait_seconds",
            24,
            id="spot-flow-mapping",
        ),
        pytest.param(add(PERTH_SPOT, "    colour: red"), "cities[3].colour", 25, id="unknown-city-key"),
        pytest.param(edit("region: us-east-1", "region: useast1"), "region", 2, id="top-level"),
        pytest.param(edit("role/TeamB", "TeamB"), "cities[1].role_arn", 19, id="city-override"),
        pytest.param(
            edit("max_runtime_seconds: 7200", "max_runtime_seconds: x"),
            "defaults.max_runtime_seconds",
            11,
            id="defaults",
        ),
        pytest.param(
            edit("{instances: 4, warm_pools: 2}", "{instances: 4, warm_pool: 2}"),
            "quotas[ml.m5.2xlarge].warm_pool",
            8,
            id="quota-entry",
        ),
        pytest.param(add(DEFAULTS_END, "  keep_alive: 0"), "defaults.keep_alive", 13, id="duplicate-key"),
        pytest.param(edit("  keep_alive: auto", "  keep_alive: [auto"), "", 13, id="syntax-error"),
        pytest.param(edit("region: us-east-1\n", ""), "region", 1, id="missing-top-level-field"),
    ],
)
def test_line_numbers_where_yaml_knows_them(text: str, path: str, line: int) -> None:
    (issue,) = errors_of(text).issues
    assert (issue.path, issue.line) == (path, line)
    assert f"(line {line})" in str(issue)


def test_syntax_error_names_where_the_construct_began() -> None:
    (issue,) = errors_of(edit("  keep_alive: auto", "  keep_alive: [auto")).issues
    assert "flow sequence at line 12" in issue.message


def test_all_errors_at_once() -> None:
    text = """\
fleet: 42
regoin: us-east-1
role_arn: arn:aws:iam::111122223333:user/x
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: http://acme-ml/fleets
quotas:
  ml.m5.xlarge: {instances: 0, warm_pools: 8}
defaults:
  instance_type: ml.m5.xlarge
  keep_alive: 30000
  volume_size_gb: "30"
cities:
  - name: seoul
    train_s3_uri: s3://acme-ml/data/seoul/
    spot: {max_wait_seconds: 60}
    keep_alive: 0
  - name: seoul
    train_s3_uri: s3://acme-ml/data/seoul/
    instance_type: ml.g5.xlarge
  - name: BAD
    train_s3_uri: s3://acme-ml/data/x/
    colour: red
"""
    error = errors_of(text)
    expected = {
        "fleet": 1,
        "region": 1,
        "regoin": 2,
        "role_arn": 3,
        "output_s3_uri": 5,
        "quotas[ml.m5.xlarge].instances": 7,
        "defaults.keep_alive": 10,
        "defaults.volume_size_gb": 11,
        "cities[0].spot.max_wait_seconds": 15,
        "cities[1].name": 17,
        "cities[1].instance_type": 19,
        "cities[2].name": 20,
        "cities[2].colour": 22,
    }
    assert {issue.path: issue.line for issue in error.issues} == expected
    assert len(error.issues) == len(expected)  # each once
    names = {0: "seoul", 1: "seoul"}  # cities[2]'s name BAD is invalid: it is known by its index alone
    assert error.city_names == names
    for path in expected:
        assert named(path, names) in str(error)
    assert "cities[2].name (line 20)" in str(error)
    assert "duplicate city 'seoul' (first at cities[0] (seoul))" in str(error)


def test_each_of_many_cities_is_reported() -> None:
    cities = "".join(f"  - {{name: c{i}, train_s3_uri: 'http://x/{i}'}}\n" for i in range(40))
    error = errors_of(BASE.split("cities:")[0] + "cities:\n" + cities)
    assert [issue.path for issue in error.issues] == [f"cities[{i}].train_s3_uri" for i in range(40)]
    assert [issue.line for issue in error.issues] == list(range(14, 54))


def test_a_broken_default_is_reported_once_not_per_city() -> None:
    error = errors_of(
        edit("  keep_alive: auto", "  keep_alive: 30000", PERTH_SPOT, PERTH_SPOT + "    keep_alive: 0\n")
    )
    assert len(error.issues) == 1


def test_recursive_yaml_alias_is_an_error_not_a_crash() -> None:
    error = errors_of(add("region: us-east-1\n", "prices: &p {ml.m5.xlarge: *p}"))
    assert [issue.path for issue in error.issues] == ["prices[ml.m5.xlarge]"]


def test_build_from_parsed_data_has_paths_without_lines() -> None:
    with pytest.raises(FleetSpecError) as info:
        build_fleet_spec({"fleet": "x", "cities": []}, source="api")
    paths = {issue.path for issue in info.value.issues}
    assert {"region", "role_arn", "image_uri", "output_s3_uri", "cities"} <= paths
    assert all(issue.line is None for issue in info.value.issues)


def test_unreadable_files(tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    with pytest.raises(FleetSpecError, match="cannot read the file"):
        load_fleet_spec(missing)
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes(BASE.replace("lagos", "s\xe3o-paulo").encode("latin-1"))
    with pytest.raises(FleetSpecError, match="not UTF-8 text"):
        load_fleet_spec(latin1)


def test_warnings_are_not_errors() -> None:
    spec = parse_fleet_spec(add(SEOUL, "    keep_alive: 3601"))
    assert spec.city("seoul").keep_alive == 3601
    assert any("cities[0] (seoul).keep_alive" in warning and "3600" in warning for warning in spec.warnings)


ODD_VALUES = [
    "",
    "null",
    "-1",
    "0",
    "true",
    "[1, 2]",
    "{a: 1}",
    "'x'",
    "1e309",
    ".inf",
    "2026-11-29",
    "0x10",
    "!!binary aGk=",
    "&a [*a]",
    "[",
    "'",
    "{",
    "ml.m5.xlarge",
    "s3://b/x",
    "-",
    "? [a]: b",
]


@settings(max_examples=300, deadline=None)
@given(
    edits=st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=BASE.count("\n") - 1), st.sampled_from([*ODD_VALUES, None])
        ),
        min_size=1,
        max_size=4,
    )
)
def test_any_mangled_spec_gives_a_spec_or_a_fleet_spec_error(edits: list[tuple[int, str | None]]) -> None:
    """Never a crash: whatever a user writes ends as a valid spec or a list of issues with paths and messages."""
    lines = BASE.splitlines()
    for index, value in edits:
        if value is None:
            lines[index] = ""  # drop the line
        elif ":" in lines[index]:
            key = lines[index].split(":", 1)[0]
            lines[index] = f"{key}: {value}"
        else:
            lines[index] = f"{lines[index]} {value}"
    issues = issues_of("\n".join(lines) + "\n")
    assert all(isinstance(issue.path, str) and issue.message for issue in issues)


def issues_of(text: str) -> tuple[SpecIssue, ...]:
    """The issues of ``text``; none when it is a valid spec. Any other exception fails the test."""
    try:
        parse_fleet_spec(text)
    except FleetSpecError as error:
        return error.issues or (SpecIssue("", ""),)  # an error without issues would be a bug
    return ()
