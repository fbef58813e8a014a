"""How much the provider takes from the people who write a fleet file or trigger a run: bytes, YAML nodes, cities,
a name's length, a message's length (pure, standard library only).

Each bound is refused before it costs anything: a fleet file's bytes before it is read, its YAML nodes (aliases
expanded) before any check walks them, a run's conf before any task plans or launches. A refusal names the bound
and the fix (``sagemaker-fleet validate`` exits 2; a fleet DAG's task fails without retries). SageMaker's own
bounds of each field (hyperparameters, environment, …) are in :mod:`sagemaker_fleet.fleetspec.model`; the spec
reference (docs/reference/fleet-spec.md) lists both, generated from the two modules.
"""

from __future__ import annotations

import reprlib

#: A fleet file's size in bytes. A 20,000-city file is about 1.3 MB, one with a ``job:`` on every city about 6 MB;
#: a larger file is refused unread, so the reader never holds more than this.
SPEC_BYTES_MAX = 8 * 1024 * 1024
#: YAML nodes of a fleet file with every alias expanded: nine aliases of nine aliases, eight deep, are hundreds of
#: millions of nodes written in a kilobyte (an alias bomb), which every check after the reader would walk. A
#: 20,000-city file with ``job:`` templates has about 112,000.
SPEC_NODES_MAX = 500_000
#: Cities of one fleet: the largest fleet ``validate`` is measured on (benchmarks/bench_validate.py).
CITIES_MAX = 20_000
#: A city's name, in a fleet file (its pattern) and in a run's conf.
CITY_NAME_MAX = 200
#: A run's conf (Airflow's ``dag_run.conf``, the trigger form's values) as JSON, in bytes: room for 1,250 city
#: names of the longest kind or 18,000 of 12 characters (a run of the whole fleet names none), and nothing larger
#: reaches a task.
CONF_BYTES_MAX = 256 * 1024
#: A value quoted in a refusal (a conf key, an unknown city, an instance type) is cut to this many characters.
SHOWN_VALUE_MAX = 60
#: A refusal's message in characters: what a task's failure, the run note and the Fleet view repeat, whatever
#: was sent.
MESSAGE_MAX = 2_000


def shown(value: object, limit: int = SHOWN_VALUE_MAX) -> str:
    """``value`` as a refusal quotes it: its ``repr`` in at most about ``limit`` characters (a long text with its
    length said, a list or mapping cut after its first few items)."""
    if isinstance(value, str):
        return repr(value) if len(value) <= limit else f"{value[:limit]!r}… ({len(value):,} characters)"
    brief = reprlib.Repr()
    brief.maxstring = brief.maxother = limit
    brief.maxlist = brief.maxdict = brief.maxset = brief.maxtuple = 5
    brief.maxlevel = 2
    text = brief.repr(value)
    return text if len(text) <= limit else f"{text[:limit]}…"


def capped(message: str, limit: int = MESSAGE_MAX) -> str:
    """``message`` cut to ``limit`` characters, saying how much was left out."""
    if len(message) <= limit:
        return message
    return f"{message[: limit - 40]}… ({len(message) - limit + 40:,} more characters)"
