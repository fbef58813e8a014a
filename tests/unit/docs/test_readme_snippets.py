"""The README's DAG is the shipped example DAG file itself (which the DAG-folder tests parse), not a copy that may
drift from it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_readmes_dag_is_dags_city_training_daily() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.DOTALL)
    shipped = (ROOT / "dags" / "city_training_daily.py").read_text(encoding="utf-8")
    assert shipped in blocks, "README.md's python block must be dags/city_training_daily.py, verbatim"
    assert len(shipped.strip().splitlines()) <= 15
