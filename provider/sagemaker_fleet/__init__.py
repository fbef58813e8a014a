"""sagemaker-fleet: pool-aware SageMaker training fleets for Apache Airflow.

Packages, from the pure model up to Airflow:

- ``fleetspec/``: the fleet spec read, checked and resolved; job names, tags and S3 paths;
- ``jobs/``: training jobs as the fleet submits, reads and prices them (pure);
- ``plan/``: the pool-aware planner (pure);
- ``cost/``: the cost report from what SageMaker billed;
- ``preflight/``: the account checked before a run;
- ``hooks/``: the AWS hook (SageMaker's training-job calls) and botocore's request model;
- ``dispatch/``: which city of a run starts now, from the run's jobs as SageMaker lists them (pure);
- ``triggers/``: the city trigger, the run's shared poller and the sensors' deferrable halves;
- ``operators/``: the fleet DAG's tasks;
- ``sensors/``: a run finished, a warm pool available;
- ``links/``: the tasks' extra links;
- ``dags/``: :func:`~sagemaker_fleet.dags.build_fleet_dag` and its settings groups;
- ``runnote/``: a manual run's note;
- ``observability/``: metrics, lineage and the models asset event;
- ``fleetview/``: the Fleet view of a run (its model and page);
- ``plugin/``: the Airflow plugin that serves the Fleet view;
- ``cli/``: the ``sagemaker-fleet`` command line;
- ``sim/``: the simulated SageMaker control plane and endpoint (never imported by production code);
- ``simulate/``: the ``simulate`` application: fleets run through the simulator's engine in virtual time;
- ``testing/``: DAG-folder checks for a user's CI, and the local Airflow stack.

Modules:

- ``contract.py``: the names and defaults the DAG's parts share, each defined once;
- ``settings.py``: the ``[sagemaker_fleet]`` section of Airflow's configuration;
- ``compat.py``: everything that differs between the supported Airflow and provider versions;
- ``errors.py``: :class:`SageMakerFleetError`, the root of every error raised here;
- ``failures.py``: the failures a retry cannot mend (Airflow fails the task at once), and a task's reading of its
  fleet file, which raises them;
- ``get_provider_info.py``: the provider metadata Airflow's ProvidersManager reads.
"""

from __future__ import annotations

from sagemaker_fleet.errors import SageMakerFleetError

__all__ = ["SageMakerFleetError", "__version__"]

__version__ = "0.1.0"
