"""Observability: the fleet's metrics through Airflow's Stats, its lineage through Airflow's OpenLineage provider,
and what a run's models asset event says (docs/guides/observability.md).

- ``metrics.py``: the metrics' names, types and tags, and their values at a city's end and from the cost report
  (pure);
- ``stats.py``: sends them with Airflow's Stats (StatsD, Datadog, OpenTelemetry: Airflow's ``[metrics]``);
- ``facets.py``: a city job's datasets and run facet, the run's totals facet, the models asset event's ``extra``
  (pure);
- ``lineage.py``: OpenLineage objects and the triggerer's own COMPLETE/FAIL of a city task, only when the
  provider is installed and enabled.
"""
