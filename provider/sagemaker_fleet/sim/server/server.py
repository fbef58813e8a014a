"""``SimulatorServer``: the endpoint in a background thread, for tests, benchmarks and ``sim serve``.

with SimulatorServer(ServerSettings(speed=100)) as server:
    boto3.client("sagemaker", endpoint_url=server.url, ...)
"""

from __future__ import annotations

import logging
import threading
import time
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast

from werkzeug.serving import WSGIRequestHandler, make_server

from sagemaker_fleet.sim.server.app import SimulatorApp
from sagemaker_fleet.sim.server.control import ServerSettings, SimulatorControl
from sagemaker_fleet.sim.server.moto_backend import moto_request_handler, moto_wsgi_app

if TYPE_CHECKING:
    from werkzeug.serving import BaseWSGIServer

    from sagemaker_fleet.sim.engine import SimEngine

LOG = logging.getLogger(__name__)


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, *args: Any, **kwargs: Any) -> None:
        pass  # one line per request drowns the output; errors are still logged


class SimulatorServer:
    def __init__(self, settings: ServerSettings | None = None, *, log_requests: bool = False) -> None:
        self.settings = settings or ServerSettings()
        self._log_requests = log_requests
        self._server: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None
        self.control: SimulatorControl | None = None
        #: What ``settings.provision`` could not create, one line each (an image outside ECR …).
        self.not_provisioned: list[str] = []

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the simulator is not running; call start() first")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def engine(self) -> SimEngine:
        if self.control is None:
            raise RuntimeError("the simulator is not running; call start() first")
        return self.control.engine

    def start(self) -> SimulatorServer:
        if self._server is not None:
            return self
        settings = self.settings
        self.control = SimulatorControl(settings)
        fallback = moto_wsgi_app() if settings.with_moto else None
        handler: type[WSGIRequestHandler] = (
            moto_request_handler() if settings.with_moto else WSGIRequestHandler
        )
        if not self._log_requests:
            handler = type("SimRequestHandler", (_QuietHandler, handler), {})
        app = SimulatorApp(self.control, fallback)
        self._server = make_server(settings.host, settings.port, app, threaded=True, request_handler=handler)
        self._server.daemon_threads = True  # type: ignore[attr-defined]
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="sagemaker-fleet-sim", daemon=True
        )
        self._thread.start()
        if settings.provision:
            self.control.after_moto_reset.append(self.provision)
            self.provision()
        return self

    def provision(self) -> None:
        """Create what the fleets of ``settings.provision`` name (roles, buckets, data, images) through the
        endpoint itself; what cannot be made is logged and kept in :attr:`not_provisioned`."""
        from sagemaker_fleet.sim.client import SimClient
        from sagemaker_fleet.sim.provision import provision_fleet

        client = SimClient(self.url)
        skipped = [line for spec in self.settings.provision for line in provision_fleet(client, spec)]
        for line in skipped:
            LOG.warning("not provisioned: %s", line)
        self.not_provisioned = skipped

    def outage(self, seconds: float) -> threading.Thread:
        """Take the endpoint off the network for ``seconds`` of real time, then bring it back on the same port with
        its state (jobs, pools, clock) as it is: every connection meanwhile is refused, as when the network or the
        service is down. Returns the thread that brings it back (join it to wait)."""
        if self._server is None:
            raise RuntimeError("the simulator is not running; call start() first")
        host, port = self._server.server_address[:2]
        app, handler = self._server.app, cast("type[WSGIRequestHandler]", self._server.RequestHandlerClass)
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

        def back() -> None:
            time.sleep(seconds)
            self._server = make_server(str(host), int(port), app, threaded=True, request_handler=handler)
            self._server.daemon_threads = True  # type: ignore[attr-defined]
            self._thread = threading.Thread(
                target=self._server.serve_forever, name="sagemaker-fleet-sim", daemon=True
            )
            self._thread.start()

        returning = threading.Thread(target=back, name="sagemaker-fleet-sim-outage", daemon=True)
        returning.start()
        return returning

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = None
        self._thread = None

    def wait(self) -> None:
        """Block until the server stops (``sim serve``)."""
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> SimulatorServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
