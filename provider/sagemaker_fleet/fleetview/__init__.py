"""The Fleet view's model and page: what the Airflow plugin (``sagemaker_fleet.plugin``) serves for a run.

- ``model.py``: one run's view — the plan's lanes beside what SageMaker did, who waits and why, the money (pure);
- ``account.py``: the account beside the run — capacity per instance type, pools across runs, whom to name;
- ``source.py``: what the view reads from SageMaker, cheaply (batched listings, cached describes, one answer per
  run shared by every viewer);
- ``page.py``: the Fleet tab's page and the fleet runs list, self-contained HTML;
- ``plan_svg.py``: the plan's lanes as a timeline in report.html's language.
"""
