"""The pilot's training data: a few kilobytes of CSV per store, the same bytes on every machine and every run.

SageMaker's XGBoost reads CSV without a header, the label in the first column (the ``train`` channel's
``ContentType`` is ``text/csv``). Each row is a day of a store: demand, then day of week, temperature and whether a
promotion ran. A generator seeded by the store's name makes the numbers (Python's ``random`` with a text seed is
the same on every platform and version).
"""

from __future__ import annotations

import random

#: Rows per store: enough for XGBoost to fit twenty small trees, few enough to stay a few kilobytes.
ROWS = 200


def store_csv(store: str, rows: int = ROWS) -> bytes:
    """``store``'s training data: ``demand,weekday,temperature,promotion`` rows, no header."""
    rng = random.Random(f"sagemaker-fleet pilot/{store}")
    base = rng.uniform(40.0, 60.0)
    lines = []
    for day in range(rows):
        weekday = day % 7
        temperature = rng.uniform(-5.0, 30.0)
        promotion = 1 if rng.random() < 0.2 else 0
        demand = base + 6.0 * (weekday >= 5) + 0.4 * temperature + 12.0 * promotion + rng.gauss(0.0, 3.0)
        lines.append(f"{demand:.3f},{weekday},{temperature:.2f},{promotion}")
    return ("\n".join(lines) + "\n").encode()
