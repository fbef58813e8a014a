"""YAML a user can write by mistake: each is one error with its line, never a Python error."""

from __future__ import annotations

import pytest

from sagemaker_fleet.fleetspec import FleetSpecError, parse_fleet_spec
from sagemaker_fleet.fleetspec.paths import lineage, parent
from sagemaker_fleet.fleetspec.yamlread import MAX_NESTING


def only_issue(text: str) -> str:
    with pytest.raises(FleetSpecError) as info:
        parse_fleet_spec(text, source="fleet.yaml")
    (issue,) = info.value.issues
    return str(issue)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("a: 1\nfleet: " + "[" * 3000 + "]" * 3000, "(line 2): the document nests more than 20 levels"),
        ("fleet: " + "{a: " * 1000 + "1" + "}" * 1000, "nests more than 20 levels"),
        (
            "".join(f"a{i}: &a{i} [[[[[{'*a' + str(i - 1) if i else 1}]]]]]\n" for i in range(6)),
            "nests more than",
        ),
        ("a: 1\nfleet: &f [*f]\n", "fleet[0] (line 2): an alias is used inside its own anchor"),
        ("fleet: " + "9" * 5000, "(line 1): cannot read a value of 5000 characters as int"),
        (
            "a: 1\nfleet: 2026-13-45\n",
            "(line 2): cannot read '2026-13-45' as timestamp (month must be in 1..12)",
        ),
        ("fleet: !!bool maybe\n", "cannot read 'maybe' as bool"),
        ("fleet: !!timestamp nope\n", "cannot read 'nope' as timestamp"),
        ("a: 1\nb: 2\nfleet: x\x00\n", "(line 3): the character U+0000 is not allowed in YAML"),
        ("fleet: !!python/object:os.system {}\n", "remove the tag"),
        ("fleet: x\n? [a]\n: b\n", "(line 2): YAML error: found unhashable key"),
        ("", "the file is empty; write a fleet spec (docs/guides/fleet-spec.md)"),
        (
            "- a\n",
            "a fleet spec is a mapping with keys fleet, region, role_arn, ... (docs/guides/fleet-spec.md)",
        ),
    ],
)
def test_bad_yaml_is_one_error_with_its_line(text: str, fragment: str) -> None:
    assert fragment in only_issue(text)


def test_nesting_a_spec_needs_is_allowed() -> None:
    assert MAX_NESTING >= 5  # cities[0].vpc.subnets[0] and a margin
    with pytest.raises(FleetSpecError) as info:  # spec errors (fleet is no list, fields missing), not depth
        parse_fleet_spec("fleet: " + "[" * (MAX_NESTING - 2) + "]" * (MAX_NESTING - 2))
    assert "nests" not in str(info.value)
    assert "fleet (line 1): input should be a valid string" in str(info.value)


def test_many_aliases_of_one_node_are_cheap() -> None:
    """Nine aliases of nine aliases … (a billion leaves): each node measured once, refused by the node budget
    (tests/unit/fleetspec/test_input_limits.py has the bomb under ``job:`` and its memory)."""
    items = ['"lol"'] + [f"*l{i}" for i in range(8)]
    laughs = "".join(f"l{i}: &l{i} [{', '.join([items[i]] * 9)}]\n" for i in range(9))
    with pytest.raises(FleetSpecError) as info:
        parse_fleet_spec(laughs + "fleet: x\n")
    assert "the document has 490,329,066 values with its aliases expanded" in str(info.value)


@pytest.mark.parametrize(
    "path", ["cities[0].environment[a]]", "x]", "[", "cities[0].environment[a.b]", "a.b[c"]
)
def test_walking_up_any_path_ends(path: str) -> None:
    """An environment key with a ']' once made the line look-up loop for ever."""
    walked = list(lineage(path))
    assert walked[0] == path
    assert len(walked) <= path.count(".") + path.count("[") + 1
    assert parent("cities[3].spot.max_wait_seconds") == "cities[3].spot"
    assert parent("cities[3]") == "cities"
    assert parent("cities") == ""
