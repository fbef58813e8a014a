"""The fleet DAG's operators (the task ids they share are in :mod:`sagemaker_fleet.contract`).

- ``plan.py``: ``PlanFleetOperator``, the run-time pool-aware plan, pushed as the run's plan XCom;
- ``cities.py``: the run's cities in plan order, one mapped training task per thousand (``FleetCitiesOperator``);
- ``training.py``: ``FleetTrainingOperator``, one city, deferred at once to the city trigger;
- ``release.py``: ``FleetPoolReleaseOperator``, ends the run's pools still idle once every city had its turn;
- ``register.py``: ``FleetRegisterOperator``, each city's model through the champion gate into the model registry;
- ``report.py``: ``FleetCostReportOperator``, the run's cost report from billed time, locally and on S3;
- ``outcome.py``: ``FleetOutcomeOperator``, fails the run when a city did not train;
- ``notify.py``: ``FleetNotifyOperator``, the run's notice through Airflow notifiers;
- ``aws.py``: ``FleetAwsOperator``, the base of the operators that call AWS from a worker;
- ``run_note.py``: writes the note of a manual run (a note that cannot be written is only a warning).
"""
