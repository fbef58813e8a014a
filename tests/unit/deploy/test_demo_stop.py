"""`make demo-stop` ends every component of the demo, also one that does not end on SIGTERM (the scheduler was seen
still running a minute after it, its LocalExecutor workers' ended processes not reaped)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

REPO = Path(__file__).resolve().parents[3]


def _demo_module():
    spec = importlib.util.spec_from_file_location("demo_script", REPO / "scripts" / "demo.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _component(ignore_term: bool) -> subprocess.Popen[bytes]:
    code = "import signal, time\n"
    if ignore_term:
        code += "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    code += "print('up', flush=True)\ntime.sleep(120)\n"
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, start_new_session=True)
    assert process.stdout is not None
    assert process.stdout.readline().strip() == b"up"  # its SIGTERM handler is in place
    return process


def test_demo_stop_ends_a_component_that_ignores_sigterm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = _demo_module()
    polite, stubborn = _component(ignore_term=False), _component(ignore_term=True)
    pids = tmp_path / "pids.json"
    pids.write_text(json.dumps({"triggerer": polite.pid, "scheduler": stubborn.pid}))
    monkeypatch.setattr(demo, "PIDS", pids)
    monkeypatch.setattr(demo, "STOP_GRACE_SECONDS", 1.0)
    try:
        assert demo.stop() == 0
        assert polite.wait(timeout=5) is not None
        assert stubborn.wait(timeout=5) is not None
    finally:
        for process in (polite, stubborn):
            if process.poll() is None:
                process.kill()
    out = capsys.readouterr().out
    assert f"stopped triggerer ({polite.pid})" in out
    assert f"stopped scheduler ({stubborn.pid}, killed after 1 s)" in out
    assert not pids.exists()
