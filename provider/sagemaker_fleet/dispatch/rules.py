"""DispatchRules: the dispatch's measurement switches (pure). Production runs every rule; ``simulate`` and the
benchmarks turn one off to measure what it gives (``simulate/options.py``, ``benchmarks/``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DispatchRules:
    """Which of the dispatch's optional rules hold (all of them unless a measurement turns one off)."""

    #: hand a freed pool to a city with its image (False: the group's start order only)
    image_handoff: bool = True
    #: end the pools of a group's last jobs as they end (False: only once idle, a sweep later)
    tail_release: bool = True


#: Every rule: what production runs.
ALL_RULES = DispatchRules()
