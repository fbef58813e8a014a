"""The model registry's gate: which model of a run each city keeps in service (docs/guides/model-registry.md).

Pure, like the planner and the cost model: no Airflow, no AWS SDK; the calls go through a client handed in.

- ``gate.py``: the rule — a model against its city's champion, or against the bound when there is none;
- ``decision.py``: a city's decision and the run's counts, as the register task returns them (JSON);
- ``packages.py``: what a package records (metadata, description, client token) and the requests that make it;
- ``champion.py``: the champion and its metric, read from a group's listing and descriptions;
- ``registration.py``: one city's registration in order (group, own package, champion, gate, package), and the
  run's, a few cities at a time; the register task and ``simulate`` call it;
- ``standing.py``: where each city stands now (its champion, the last model and its decision): ``models``;
- ``permissions.py``: the IAM actions and resources the registration needs.
"""
