"""How long something took, in the words a person reads: the one duration format of every table, summary, tooltip
and note (``plan --format table``, ``simulate``, ``report.html``, the Fleet view, the run note).

Not to be confused with :mod:`sagemaker_fleet.plan.durations`, which estimates how long planned jobs take.
"""

from __future__ import annotations

__all__ = ["duration"]


def duration(seconds: float) -> str:
    """``45 s``, ``3 min 20 s``, ``2 h 05 min``: whole seconds (rounded) under a minute, minutes and seconds under
    an hour, hours and minutes from an hour on (the seconds dropped, not rounded). A negative span keeps its sign."""
    whole = round(seconds)
    sign, whole = ("-" if whole < 0 else ""), abs(whole)
    if whole < 60:
        return f"{sign}{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{sign}{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{sign}{hours} h {minutes:02d} min"
