"""LocalAirflowStack's process helpers on real processes: descendants, freezing children, CPU per component."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sagemaker_fleet.testing.stack import LocalAirflowStack, StackSettings

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")

# a parent that burns no CPU, with one child that burns ~0.3 s and then sleeps
PARENT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time\\nt=time.process_time()\\nwhile time.process_time()-t<0.3: pass\\ntime.sleep(60)"])
time.sleep(60)
"""


@pytest.fixture
def stack(tmp_path: Path):
    stack = LocalAirflowStack(
        StackSettings(home=tmp_path, dags_folder=tmp_path, endpoint_url="http://127.0.0.1:1")
    )
    stack.processes["worker"] = subprocess.Popen([sys.executable, "-c", PARENT], start_new_session=True)
    yield stack
    stack.kill_component("worker")


def wait_for(predicate, limit: float = 20.0):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("condition not reached")


def test_cpu_seconds_splits_the_main_process_from_its_children(stack: LocalAirflowStack) -> None:
    wait_for(lambda: stack.descendants("worker"))
    cpu = wait_for(lambda: (c := stack.cpu_seconds()) and c["worker:children"] >= 0.25 and c)
    assert cpu["worker"] < cpu["worker:children"]


def test_freeze_children_stops_them_and_leaves_the_main_process(stack: LocalAirflowStack) -> None:
    child = wait_for(lambda: stack.descendants("worker"))[0]
    frozen = stack.freeze_children("worker")
    assert frozen == [child]

    def state(pid: int) -> str:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat[stat.rindex(")") + 2]

    assert wait_for(lambda: state(child) == "T")
    assert state(stack.processes["worker"].pid) != "T"
    # a kill of the whole group ends frozen children too
    stack.kill_component("worker", signal.SIGKILL)
    assert wait_for(lambda: not Path(f"/proc/{child}").exists() or state(child) == "Z")
    stack.processes["worker"] = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )


def test_a_stack_that_does_not_come_up_leaves_no_component_running(tmp_path: Path, monkeypatch) -> None:
    """An api-server that never answers fails ``with LocalAirflowStack(...)``; the components it had started go too
    (a benchmark whose stack failed left a scheduler, a triggerer and an api-server behind)."""
    from sagemaker_fleet.testing.stack import StackError

    stack = LocalAirflowStack(
        StackSettings(home=tmp_path, dags_folder=tmp_path, endpoint_url="http://127.0.0.1:1")
    )

    def start() -> LocalAirflowStack:
        stack.processes["scheduler"] = subprocess.Popen(
            [sys.executable, "-c", PARENT], start_new_session=True
        )
        raise StackError("the api-server did not answer")

    monkeypatch.setattr(stack, "start", start)
    with pytest.raises(StackError), stack:
        pass
    assert stack.processes == {}


@pytest.mark.parametrize(
    ("supervisor", "workers"), [("def ping(self): ...\n", "1"), ("def is_ready(self): ...\n", None)]
)
def test_an_airflow_whose_uvicorn_kills_starting_workers_gets_one_api_server_worker(
    tmp_path: Path, supervisor: str, workers: str | None
) -> None:
    """The uvicorn beside the stack's ``airflow`` decides (another virtualenv's, as the dags-test runs on 3.0.6 use)."""
    venv = tmp_path / "venv"
    module = venv / "lib" / "python3.12" / "site-packages" / "uvicorn" / "supervisors" / "multiprocess.py"
    module.parent.mkdir(parents=True)
    module.write_text(f"class Process:\n    {supervisor}")
    (venv / "bin").mkdir()
    stack = LocalAirflowStack(
        StackSettings(
            home=tmp_path,
            dags_folder=tmp_path,
            endpoint_url="http://127.0.0.1:1",
            airflow_bin=str(venv / "bin" / "airflow"),
        )
    )
    assert stack.env().get("AIRFLOW__API__WORKERS") == workers
