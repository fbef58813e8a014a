"""Thousands of errors stay readable, every path listed or counted exactly, and collecting them is linear."""

from __future__ import annotations

import re
import sys
from types import FrameType
from typing import Any

import pytest

from sagemaker_fleet.fleetspec import FleetSpecError, SpecIssue, parse_fleet_spec
from sagemaker_fleet.fleetspec.render import GROUP_MIN, ranges, render_issues

HEAD = """\
fleet: many
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/many
quotas:
  ml.m5.xlarge: {instances: 4, warm_pools: 2}
defaults:
  instance_type: ml.m5.xlarge
cities:
"""


def broken(n: int) -> str:
    """n cities, four rules failing in turn: a bad name, a runtime as text, a misspelt key, no data URI."""
    kinds = [
        '  - {{name: "City_{i}", train_s3_uri: "s3://acme-ml/d/{i}/"}}',
        '  - {{name: c{i}, train_s3_uri: "s3://acme-ml/d/{i}/", max_runtime_seconds: "1h"}}',
        '  - {{name: c{i}, train_s3_uri: "s3://acme-ml/d/{i}/", expected_secs: 10}}',
        "  - {{name: c{i}}}",
    ]
    return HEAD + "\n".join(kinds[i % 4].format(i=i) for i in range(n)) + "\n"


def error_of(text: str) -> FleetSpecError:
    with pytest.raises(FleetSpecError) as info:
        parse_fleet_spec(text, source="fleet.yaml")
    return info.value


def test_ranges() -> None:
    assert ranges([9, 1, 2, 3, 7, 10, 3]) == "1-3, 7, 9-10"
    assert ranges([]) == ""


def test_each_rule_prints_once_with_every_other_city_counted_and_listed() -> None:
    error = error_of(broken(2000))
    assert len(error.issues) == 2000
    text = str(error)
    assert text.startswith("fleet.yaml: 2,000 error(s) in fleet spec:\n")
    assert len(text.splitlines()) < 200  # 2,000 errors, four rules
    firsts = [line for line in text.splitlines() if line.startswith("  - ")]
    # each path names its city, unless the city's own name is the error (City_0 is no valid name)
    assert [line.removeprefix("  - ").split(" (line")[0] for line in firsts] == [
        "cities[1] (c1).max_runtime_seconds",
        "cities[2] (c2).expected_secs",
        "cities[0].name",
        "cities[3] (c3).train_s3_uri",
    ]
    assert "(line 12): input should be a valid integer (got '1h')" in firsts[0]
    counts = [int(n.replace(",", "")) for n in re.findall(r"the same error for ([\d,]+) more cities", text)]
    assert counts == [499, 499, 499, 499]
    # every index appears: listed as ranges after its rule's first city
    block = text.split("the same error for 499 more cities (at cities[N].name): cities ")[1].split("\n  - ")[
        0
    ]
    listed = {int(n) for n in re.findall(r"\d+", block)}
    assert listed == set(range(4, 2000, 4))
    # a group of named cities lists the first few of its stores after the indices
    runtime = text.split("(at cities[N].max_runtime_seconds): cities ")[1].split("\n  - ")[0]
    assert " ".join(runtime.split()).endswith("1997 (c5, c9, c13, c17, c21 and 494 more)")


def test_few_cities_print_one_line_each() -> None:
    issues = [SpecIssue(f"cities[{i}].name", "bad", i) for i in range(GROUP_MIN - 1)]
    assert render_issues(issues) == [f"  - cities[{i}].name (line {i}): bad" for i in range(GROUP_MIN - 1)]


class _Calls:
    """Python function calls made while checking a spec (an operation count, not a time), and how many of them
    compared two issues."""

    def __init__(self) -> None:
        self.count = 0
        self.comparisons = 0

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event in ("call", "c_call"):
            self.count += 1
        if (
            event == "call"
            and frame.f_code.co_name == "__eq__"
            and isinstance(frame.f_locals.get("self"), SpecIssue)
        ):
            self.comparisons += 1


def _calls(text: str) -> _Calls:
    counter = _Calls()
    sys.setprofile(counter)
    try:
        with pytest.raises(FleetSpecError):
            parse_fleet_spec(text)
    finally:
        sys.setprofile(None)
    return counter


def test_collecting_errors_is_linear_in_their_number() -> None:
    """8× the broken cities cost about 8× the work, and no error is compared with every other (a scan of the
    issues per error made 20,000 errors 200 million comparisons)."""
    small, large = _calls(broken(100)), _calls(broken(800))
    assert large.count / small.count < 11, (small.count, large.count)
    assert large.comparisons < 800, large.comparisons
