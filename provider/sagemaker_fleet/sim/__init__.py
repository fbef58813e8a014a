"""The simulated SageMaker training control plane: warm pools, spot, billing, quotas, throttling and the model
registry.

One engine (:class:`SimEngine`) serves both the HTTP endpoint (``sagemaker-fleet sim serve``, see
:mod:`sagemaker_fleet.sim.server`) and the virtual-time ``simulate`` application (:mod:`sagemaker_fleet.simulate`). Production code never imports it.

- ``engine.py``: :class:`SimEngine`, the API operations over the engine's state;
- ``state.py``: everything the engine owns, so that the rules are plain functions of it;
- ``events.py``: the timeline, a heap of timed events cancelled lazily by token;
- ``lifecycle.py``: a training job's life as reactions to timed events;
- ``job.py``: one simulated job, its request, where it is and what it has used;
- ``request.py``: CreateTrainingJob validated as SageMaker does, reduced to what the model needs;
- ``pools.py``: the retained clusters and which new job may take one;
- ``pool_rules.py``: warm-pool rules applied to jobs (reuse, retention, expiry, updates);
- ``spot.py``: the spot market (capacity waits, interruptions, discount);
- ``checkpoints.py``: where the simulated container keeps its checkpoints;
- ``billing.py``: the billing figures of a finished job;
- ``quotas.py``: the account's quotas per instance type;
- ``service_quotas.py``: Service Quotas answered from the simulator's quotas;
- ``registry.py``: the model registry (model package groups and their versioned packages);
- ``faults.py``: seeded throttling (ThrottlingException) and InternalFailure, before or after a call acts;
- ``startup_model.py``: start-up durations calibrated to the seed table;
- ``workload.py``: how many seconds of training a job needs;
- ``metrics.py``: a job's final metrics, for jobs that define them;
- ``render.py``: DescribeTrainingJob and ListTrainingJobs shapes of a simulated job;
- ``listing.py``: ListTrainingJobs filters, sorting and pagination;
- ``snapshot.py``: the engine's state as JSON-ready values, for admin, drivers and tests;
- ``counters.py``: API calls per operation;
- ``clock.py``: the :class:`Clock` protocol, a sped-up wall clock and a virtual clock;
- ``seeding.py``: deterministic random streams keyed by purpose, never by call order;
- ``config.py``: the simulator's knobs as frozen values;
- ``errors.py``: the API errors, shaped as AWS returns them;
- ``provision.py``: what a fleet spec names, created in the simulated account (``--provision``);
- ``client.py``: a small client of a running simulator and its admin calls;
- ``server/``: the HTTP endpoint (the engine, moto and the admin paths on one port).

The ``simulate`` application that drives the engine in virtual time is :mod:`sagemaker_fleet.simulate`.
"""

from __future__ import annotations

from sagemaker_fleet.sim.clock import AdjustableClock, Clock, VirtualClock, WallClock
from sagemaker_fleet.sim.config import SimConfig, SpotMarketConfig, TimingConfig
from sagemaker_fleet.sim.engine import OPERATIONS, SimEngine
from sagemaker_fleet.sim.errors import SimApiError
from sagemaker_fleet.sim.job import JobEvent
from sagemaker_fleet.sim.snapshot import JobFacts
from sagemaker_fleet.sim.startup_model import StartupModel
from sagemaker_fleet.sim.workload import CityRef, WorkModel

__all__ = [
    "OPERATIONS",
    "AdjustableClock",
    "CityRef",
    "Clock",
    "JobEvent",
    "JobFacts",
    "SimApiError",
    "SimConfig",
    "SimEngine",
    "SpotMarketConfig",
    "StartupModel",
    "TimingConfig",
    "VirtualClock",
    "WallClock",
    "WorkModel",
]
