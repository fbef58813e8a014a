"""What the fuzz suite feeds the command line: YAML documents and argument lists, and how it runs one.

Documents come two ways: a valid fleet spec with one value replaced somewhere by anything (so the checks past the
YAML layer are reached), and YAML text built from fragments (nesting, anchors and aliases, tags, duplicate keys,
unicode, huge and tiny numbers), most of it not a spec at all and some not even YAML.

The property for every input: the command returns 0 or 2, raises nothing (an exception here is the traceback a
user would see), prints no traceback, and ends within :data:`BOUND_SECONDS`.
"""

from __future__ import annotations

import contextlib
import copy
import io
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from sagemaker_fleet.cli.main import main
from sagemaker_fleet.cli.report import NO_JOBS_EXIT

#: Generous on purpose: the cases take milliseconds and a hang takes forever, but `report`'s boto3 session alone can
#: take over 10 s on a shared machine loaded with other suites.
BOUND_SECONDS = 30.0
#: Examples per property; ``FUZZ_EXAMPLES=2000 make unit`` fuzzes longer.
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "100"))
CORPUS = Path(__file__).parent / "corpus"

BASE: dict[str, Any] = {
    "fleet": "fuzz",
    "region": "us-east-1",
    "role_arn": "arn:aws:iam::111122223333:role/FleetTraining",
    "image_uri": "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
    "output_s3_uri": "s3://acme-ml/fleets/fuzz",
    "quotas": {"ml.m5.xlarge": {"instances": 4, "warm_pools": 2, "spot_instances": 2}},
    "defaults": {"instance_type": "ml.m5.xlarge", "max_runtime_seconds": 7200, "keep_alive": "auto"},
    "cities": [
        {"name": "seoul", "train_s3_uri": "s3://acme-ml/data/seoul/", "expected_seconds": 900},
        {"name": "lagos", "train_s3_uri": "s3://acme-ml/data/lagos/", "hyperparameters": {"lr": 0.1}},
        {"name": "perth", "train_s3_uri": "s3://acme-ml/data/perth/", "spot": {"max_wait_seconds": 10800}},
        {"name": "lima", "train_s3_uri": "s3://acme-ml/data/lima/", "environment": {"MODE": "fast"}},
    ],
}
BASE_TEXT = yaml.safe_dump(BASE, sort_keys=False)

# ------------------------------------------------------------------------------------------------ values

_NUMBERS = st.one_of(
    st.integers(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.sampled_from([0, -1, 1, 2**31, 2**63, 10**12, 10**18, 28 * 24 * 3600 + 1, 21601, 3601, 16385, 101]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e-300, 5e-324, 1e300, 0.5, -0.0]),
)
_TEXT = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        ["", " ", "auto", "ml.m5.xlarge", "s3://b/p", "paris\n", "a]", "x" * 3000, "é", "\u2028"]
    ),
)
SCALARS = st.one_of(st.none(), st.booleans(), _NUMBERS, _TEXT)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.one_of(_TEXT, st.integers()), inner, max_size=4)
    ),
    max_leaves=12,
)
_KEYS = st.sampled_from(
    sorted(
        {
            *BASE,
            *BASE["defaults"],
            "name",
            "train_s3_uri",
            "expected_seconds",
            "spot",
            "max_wait_seconds",
            "instance_count",
            "volume_size_gb",
            "vpc",
            "prices",
            "deadline_seconds",
            "orchestration_latency_seconds",
            "hyperparameters",
            "environment",
            "input_mode",
            "warm_pools",
            "instances",
            "bogus",
        }
    )
)


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, (*prefix, index))
    return found


_BASE_PATHS = _paths(BASE)[1:]


@st.composite
def mutated_specs(draw: st.DrawFn) -> str:
    """The valid spec with one to three values replaced, added or removed, dumped as YAML."""
    data = copy.deepcopy(BASE)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        path = draw(st.sampled_from(_BASE_PATHS))
        holder: Any = data
        try:
            for part in path[:-1]:
                holder = holder[part]
        except (KeyError, IndexError, TypeError):
            continue
        action = draw(st.sampled_from(["replace", "add", "delete"]))
        if isinstance(holder, dict) and action == "add":
            holder[draw(_KEYS)] = draw(VALUES)
        elif action == "delete" and isinstance(holder, dict | list):
            with contextlib.suppress(KeyError, IndexError, TypeError):
                del holder[path[-1]]
        else:
            with contextlib.suppress(KeyError, IndexError, TypeError):
                holder[path[-1]] = draw(VALUES)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=draw(st.booleans()))


# --------------------------------------------------------------------------------------------- raw YAML

_RAW_SCALARS = st.one_of(
    st.sampled_from(
        [
            "~",
            "null",
            "true",
            "yes",
            "on",
            ".inf",
            "-.inf",
            ".nan",
            "0x1F",
            "0o17",
            "1_000",
            "1e400",
            "-0",
            "2026-13-45",
            "2026-02-30 25:61:61",
            "9" * 5000,
            "'quoted'",
            '"esc \\u263a \\x00"',
            "|\n  block\n",
            "!!int x",
            "!!float y",
            "!!bool maybe",
            "!!timestamp nope",
            "!!binary '@@@'",
            "!!set {a, b}",
            "!!python/object:os.system {}",
            "!!str 1",
            "!custom x",
            "!!omap [a: 1]",
            "&a 1",
            "*a",
            "*undefined",
            "? [a]\n: b",
            "\t",
            "%YAML 1.1",
            "---",
            "...",
            "- ",
            ": ",
            "{",
            "]",
            "#c",
            "@",
            "`",
            "\x00",
            "\ufeff",
        ]
    ),
    st.text(max_size=12).map(lambda t: t.replace("\n", " ")),
    st.integers().map(str),
    st.floats().map(repr),
    # what YAML reads as a date (valid or not), a number past Python's 4,300 digits, a tagged value
    st.tuples(st.integers(0, 9999), st.integers(0, 99), st.integers(0, 99)).map(
        lambda d: f"{d[0]:04d}-{d[1]:02d}-{d[2]:02d}"
    ),
    st.integers(min_value=1, max_value=6000).map(lambda n: "9" * n),
    st.tuples(
        st.sampled_from(
            [
                "!!int",
                "!!float",
                "!!bool",
                "!!timestamp",
                "!!binary",
                "!!null",
                "!!str",
                "!!seq",
                "!!map",
                "!!set",
                "!!omap",
                "!!pairs",
                "!foo",
                "!!python/name:os.system",
            ]
        ),
        st.sampled_from(["x", "1", "1.5", "yes", "2026-01-01", "'@@@'", "[a]", "{a: 1}", ""]),
    ).map(" ".join),
)


def _flow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.lists(inner, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
        st.lists(st.tuples(st.one_of(_KEYS, _RAW_SCALARS), inner), max_size=4).map(
            lambda pairs: "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
        ),
        st.tuples(st.sampled_from(["a", "b"]), inner).map(lambda av: f"&{av[0]} {av[1]}"),
        st.integers(min_value=20, max_value=5000).map(lambda n: "[" * n + "]" * n),
        st.integers(min_value=5, max_value=400).map(lambda n: "{a: " * n + "1" + "}" * n),
    )


RAW_VALUES = st.recursive(_RAW_SCALARS, _flow, max_leaves=10)


@st.composite
def raw_documents(draw: st.DrawFn) -> str:
    """Block-style YAML built from fragments: some a spec's keys, some duplicates, some not YAML at all."""
    lines = []
    for _ in range(draw(st.integers(min_value=0, max_value=8))):
        key = draw(st.one_of(_KEYS, _RAW_SCALARS))
        indent = "  " * draw(st.integers(min_value=0, max_value=2))
        lines.append(f"{indent}{key}: {draw(RAW_VALUES)}")
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(BASE_TEXT.splitlines())))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n---\n", "\n...\n"]))


@st.composite
def spliced_specs(draw: st.DrawFn) -> str:
    """The valid spec's text with a raw fragment spliced in at a line: anchors, aliases, tags in real places."""
    lines = BASE_TEXT.splitlines()
    at = draw(st.integers(0, len(lines)))
    fragment = draw(raw_documents())
    return "\n".join(lines[:at] + fragment.splitlines() + lines[at:]) + "\n"


_EDGES = st.sampled_from(
    [
        0,
        1,
        2,
        59,
        600,
        3600,
        3601,
        21600,
        21601,
        86400,
        86401,
        28 * 24 * 3600,
        28 * 24 * 3600 + 1,
        366 * 24 * 3600,
        10**5,
        10**5 + 1,
        10**12,
    ]
)
_BIG_OR_SMALL = st.one_of(st.integers(min_value=1, max_value=7200), _EDGES)


@st.composite
def numeric_specs(draw: st.DrawFn) -> str:
    """The valid spec with its numbers at the edges of their bounds: most still validate, so the planner and
    the simulator get the extremes a spec allows (28-day jobs, 100,000-instance quotas, a day of latency)."""
    data = copy.deepcopy(BASE)
    defaults, cities, quota = data["defaults"], data["cities"], data["quotas"]["ml.m5.xlarge"]
    for holder, key in draw(
        st.lists(
            st.sampled_from(
                [
                    (defaults, "max_runtime_seconds"),
                    (defaults, "expected_seconds"),
                    (defaults, "keep_alive"),
                    (defaults, "instance_count"),
                    (defaults, "volume_size_gb"),
                    (cities[0], "expected_seconds"),
                    (cities[1], "max_runtime_seconds"),
                    (cities[2]["spot"], "max_wait_seconds"),
                    (cities[2]["spot"], "max_attempts"),
                    (quota, "instances"),
                    (quota, "warm_pools"),
                    (quota, "spot_instances"),
                    (data, "orchestration_latency_seconds"),
                    (data, "deadline_seconds"),
                ]
            ),
            min_size=1,
            max_size=5,
        )
    ):
        holder[key] = draw(_BIG_OR_SMALL)
    if draw(st.booleans()):
        data["cities"] = [
            {**city, "name": f"{city['name']}{i}"} for i in range(draw(st.integers(1, 30))) for city in cities
        ]
    return yaml.safe_dump(data, sort_keys=False)


_VALUE_LINES = [
    i for i, line in enumerate(BASE_TEXT.splitlines()) if line.rstrip().endswith(tuple("0123456789to/"))
]


@st.composite
def retyped_specs(draw: st.DrawFn) -> str:
    """The valid spec's text with one or two scalars rewritten as raw YAML (a tag, a date, a 5,000-digit number,
    an alias): the document still parses, so what its values turn into is what gets checked."""
    lines = BASE_TEXT.splitlines()
    for index in draw(st.lists(st.sampled_from(_VALUE_LINES), min_size=1, max_size=2)):
        key = lines[index].split(":", 1)[0]
        lines[index] = f"{key}: {draw(RAW_VALUES)}"
    return "\n".join(lines) + "\n"


DOCUMENTS = st.one_of(mutated_specs(), numeric_specs(), retyped_specs(), raw_documents(), spliced_specs())

# ---------------------------------------------------------------------------------------------- running


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str
    seconds: float


class Hang(Exception):
    """The command was still running :data:`BOUND_SECONDS` after it started."""


def _hang(signum: int, frame: object) -> None:
    raise Hang(f"still running after {BOUND_SECONDS} s")


def run_cli(argv: list[str]) -> Outcome:
    """``sagemaker-fleet ARGV`` in this process; an exception propagates (it is what the user would see), and a
    command still running after :data:`BOUND_SECONDS` is interrupted with :class:`Hang` (a hang fails the case
    at once instead of at pytest's timeout)."""
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _hang)
    signal.setitimer(signal.ITIMER_REAL, BOUND_SECONDS)
    began = time.monotonic()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return Outcome(code, out.getvalue(), err.getvalue(), time.monotonic() - began)


def assert_handled(outcome: Outcome, what: str) -> None:
    """The property: exit 0, 2, or ``report``'s "no job in the run" (the offline fake finds none), no traceback,
    bounded time; a message on stderr whenever it is not 0."""
    hint = f"{what}\n(add the case to {CORPUS} so that it is replayed for ever)"
    assert outcome.code in (0, 2, NO_JOBS_EXIT), f"exit {outcome.code}; stderr:\n{outcome.err}\n{hint}"
    assert "Traceback" not in outcome.err, f"{outcome.err}\n{hint}"
    assert outcome.seconds < BOUND_SECONDS, f"took {outcome.seconds:.1f} s\n{hint}"
    if outcome.code != 0:
        assert outcome.err.strip(), f"exit {outcome.code} without a message\n{hint}"
