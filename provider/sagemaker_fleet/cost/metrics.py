"""Each city's final metrics in a run (FinalMetricDataList of its completed job), and the best and worst city of
each metric: the report's metric columns (docs/formats.md, final metrics).

Whether a higher value is better is read from the metric's name (an accuracy, an AUC, an F1 or a score is; a loss,
an error or an RMSE is not): SageMaker's MetricDefinitions say nothing of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sagemaker_fleet.cost.model import CostLine

#: Words of a metric's name that make a higher value the better one.
_HIGHER_IS_BETTER = re.compile(
    r"acc|auc|f1|precision|recall|r2|r_squared|map\b|ndcg|score|iou|bleu|rouge|coverage", re.IGNORECASE
)


@dataclass(frozen=True)
class MetricSummary:
    """One metric over the run's cities: how many report it, which is better, the best and the worst city."""

    name: str
    higher_is_better: bool
    cities: int
    best: tuple[str, float]
    worst: tuple[str, float]

    def to_json(self) -> dict[str, object]:
        return {
            "metric": self.name,
            "better": "higher" if self.higher_is_better else "lower",
            "cities": self.cities,
            "best": {"city": self.best[0], "value": self.best[1]},
            "worst": {"city": self.worst[0], "value": self.worst[1]},
        }


def higher_is_better(name: str) -> bool:
    return bool(_HIGHER_IS_BETTER.search(name))


def metric_names(lines: Iterable[CostLine]) -> tuple[str, ...]:
    """Every metric any submission reported, in the order first seen."""
    return tuple(dict.fromkeys(name for line in lines for name, _ in line.metrics))


def city_metrics(lines: Iterable[CostLine]) -> dict[str, dict[str, float]]:
    """Each city's final metrics: those of its latest submission that reported any (its completed one)."""
    latest: dict[str, CostLine] = {}
    for line in lines:
        if line.metrics and (line.city not in latest or line.attempt > latest[line.city].attempt):
            latest[line.city] = line
    return {city: dict(line.metrics) for city, line in sorted(latest.items())}


def summarize(by_city: Mapping[str, Mapping[str, float]], names: Iterable[str]) -> tuple[MetricSummary, ...]:
    """The best and worst city of each metric (ties: the first city by name)."""
    summaries = []
    for name in names:
        values = sorted((city, metrics[name]) for city, metrics in by_city.items() if name in metrics)
        if not values:
            continue
        higher = higher_is_better(name)
        best = (max if higher else min)(values, key=lambda item: item[1])
        worst = (min if higher else max)(values, key=lambda item: item[1])
        summaries.append(MetricSummary(name, higher, len(values), best, worst))
    return tuple(summaries)
