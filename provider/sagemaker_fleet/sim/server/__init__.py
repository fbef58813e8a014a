"""The simulated AWS endpoint: SageMaker training APIs from the engine, everything else from moto, one port.

- ``server.py``: :class:`SimulatorServer`, the endpoint in a background thread;
- ``app.py``: the WSGI application that routes each call;
- ``control.py``: what the endpoint serves from (the engine on a wall clock, the settings to reset to, moto's outputs);
- ``admin.py``: ``/_sim/…``, state, reset, clock, quotas, work and fault injection;
- ``shapes.py``: a request checked against botocore's service model, as AWS's front door answers;
- ``moto_backend.py``: moto in this process, for every call the engine does not serve;
- ``unserved.py``: a call nobody serves, answered in the caller's protocol, naming the call.
"""

from __future__ import annotations

from sagemaker_fleet.sim.server.control import ServerSettings
from sagemaker_fleet.sim.server.server import SimulatorServer

__all__ = ["ServerSettings", "SimulatorServer"]
