"""Triggerer memory and CPU with 1,000 deferred training jobs: FleetJobTrigger against the stock SageMakerTrigger.

Run: ``.venv/bin/python benchmarks/bench_triggerer.py [--jobs 1000] [--window 60] [--speed 3] [--same-interval S]``
Smoke run: ``--quick`` (200 jobs, 20 s window).

What runs. One simulated SageMaker endpoint (``SimulatorServer``, in this process, SageMaker APIs only, quotas far
above ``--jobs``). For each side a fresh simulator state (reset), ``--jobs`` new InProgress training jobs named
``bench-c<i>-<runkey>`` like one fleet run, and a FRESH child process (clean RSS) that runs one trigger per job:

- ours:  ``FleetJobTrigger(job_name, name_contains="-<runkey>", poll_interval, created_after=<CreationTime>)``,
  the arguments ``FleetTrainingOperator(deferrable=True)`` passes (one batched poller per run per process);
- stock: ``SageMakerTrigger(job_name, job_type="Training", waiter_delay=check_interval, waiter_max_attempts=60)``,
  the arguments ``SageMakerTrainingOperator(deferrable=True)`` passes with its defaults (check_interval 30 s,
  ``max_attempts or 60``).

How they run. The child drives Airflow's own ``airflow.jobs.triggerer_job_runner.TriggerRunner`` (the async
process of the triggerer) in-process: only its supervisor link is replaced. The real runner talks to its
``TriggerRunnerSupervisor`` (database side) over a socket; here ``init_comms`` installs an in-memory stand-in that
answers the runner's once-a-second ``TriggerStateChanges`` with a ``TriggerStateSync`` holding all ``--jobs``
``RunTrigger`` workloads (Fernet-encrypted kwargs, as the database stores them) on the first sync, records the
events it is handed, and never cancels anything. Everything else is Airflow's code: trigger class import and kwarg
decryption, one asyncio task per trigger (``run_trigger``, greenback portal included), the cleanup/sync loop and
the blocked-loop watchdog. Logging is configured as in the triggerer's child process
(``configure_logging(json_output=True, sending_to_supervisor=True)``), written to a file instead of the socket.
The workloads carry no task instance (``ti=None``), so no template rendering and no per-task log context: the
same for both sides. Connection ``aws_default`` comes from ``AIRFLOW_CONN_AWS_DEFAULT``; no database is used.

Time. The simulator runs ``--speed`` simulated seconds per wall second, and every interval is scaled the same way
(30 simulated s = 30/speed wall s), so the window of ``--window`` wall seconds covers window × speed simulated
seconds; CPU and API calls per wall second are ``speed`` times what a real deployment would see. The default
intervals of both operators are 30 s, so the default row is also the "same interval" row; ``--same-interval S``
adds a row with both sides at S simulated seconds.

Start-up ends when every trigger's first poll has reached the simulator (stock: one DescribeTrainingJob each;
ours: one full ListTrainingJobs sweep); then one interval + 5 s of warm-up; then the window. Measured per side:
process CPU (``getrusage`` user+sys, all threads), RSS before the triggers were created, at the window's end and
the peak (``ru_maxrss``), event-loop lag (a 0.1 s ``asyncio.sleep`` ticker: how late it wakes; the triggerer warns
when the 0.1 s sleep takes over 0.2 s), SageMaker API calls (simulator counters before/after the window), and log
lines. After the window the simulated clock jumps to just before the first job's end, the jobs end (normally, over
~15-20 wall seconds at speed 3) and the child counts the terminal events the runner hands to the "supervisor"
(granularity: the runner's 1 s sync loop), and how long after each job's TrainingEndTime its event arrived.
All figures come from this one run; ratios are reported, nothing is asserted. On a shared 2-core machine numbers
are noisy: run it more than once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from result_file import add_result_options, options, printed_lines, started_now, write_result

CHILD_FLAG = "--child"
STOCK_MAX_ATTEMPTS = 60  # SageMakerTrainingOperator: ``self.max_attempts = max_attempts or 60``
TICK = 0.1  # seconds; the triggerer's own watchdog sleeps 0.1 s too
BLOCKED_THRESHOLD = 0.2  # [triggerer] blocked_main_thread_warning_threshold default
LEAD = 2.0  # wall seconds between the clock jump and the first job's end


# ------------------------------------------------------------------------------------------------ child side


def rss_now_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def rss_peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def emit(tag: str, payload: Any = None) -> None:
    print(f"@@ {tag} {json.dumps(payload)}", flush=True)


def build_triggers(cfg: dict[str, Any]) -> list[Any]:
    if cfg["side"] == "ours":
        from sagemaker_fleet.triggers.fleet import FleetJobTrigger

        return [
            FleetJobTrigger(
                job_name=name,
                name_contains=cfg["name_contains"],
                poll_interval=cfg["interval"],
                created_after=created,
                aws_conn_id="aws_default",
                region_name=None,
            )
            for name, created in zip(cfg["names"], cfg["created"], strict=True)
        ]
    from airflow.providers.amazon.aws.triggers.sagemaker import SageMakerTrigger

    return [
        SageMakerTrigger(
            job_name=name,
            job_type="Training",
            waiter_delay=cfg["interval"],
            waiter_max_attempts=STOCK_MAX_ATTEMPTS,
            aws_conn_id="aws_default",
            region_name=None,
            verify=None,
            botocore_config=None,
        )
        for name in cfg["names"]
    ]


class FakeSupervisor:
    """Stands in for ``TriggerCommsDecoder``: the runner only calls ``asend`` and looks at ``_reader_task``."""

    def __init__(self, workloads: list[Any]) -> None:
        from airflow.jobs.triggerer_job_runner import messages

        self._messages = messages
        self._to_create = workloads
        self._reader_task = asyncio.get_running_loop().create_task(asyncio.Event().wait())
        self.events: list[tuple[float, dict[str, Any]]] = []  # (wall time handed over, payload)
        self.failures: list[Any] = []
        self.syncs = 0

    async def asend(self, msg: Any) -> Any:
        self.syncs += 1
        msg.model_dump(mode="json")  # the real runner serialises every sync for the socket
        now = time.time()
        for entry in msg.events or []:
            self.events.append((now, dict(entry.event.payload)))
        self.failures.extend(msg.failures or [])
        to_create, self._to_create = self._to_create, []
        return self._messages.TriggerStateSync(to_create=to_create, to_cancel=set())


async def sim_calls(url: str) -> dict[str, int]:
    from sagemaker_fleet.sim.client import SimClient

    calls = await asyncio.to_thread(SimClient(url).calls)
    return calls["calls"]


class LagTicker:
    def __init__(self) -> None:
        self.samples: list[
            tuple[float, float]
        ] = []  # (wall monotonic at wake-up, seconds the 0.1 s sleep took)

    async def run(self) -> None:
        while True:
            began = time.monotonic()
            await asyncio.sleep(TICK)
            woke = time.monotonic()
            self.samples.append((woke, woke - began))

    def stats(self, start: float, end: float) -> dict[str, float]:
        took = sorted(d for t, d in self.samples if start <= t <= end)
        if not took:
            return {"p99_ms": float("nan"), "max_ms": float("nan"), "over": 0}
        p99 = took[min(int(0.99 * len(took)), len(took) - 1)]
        return {
            "p99_ms": (p99 - TICK) * 1000,
            "max_ms": (took[-1] - TICK) * 1000,
            "over": sum(1 for d in took if d > BLOCKED_THRESHOLD),
        }


async def child_main(cfg: dict[str, Any], workloads: list[Any], log_file: Any) -> dict[str, Any]:
    from airflow.jobs.triggerer_job_runner import TriggerRunner

    n = len(workloads)
    ticker = LagTicker()
    ticker_task = asyncio.create_task(ticker.run())
    supervisor = FakeSupervisor(workloads)

    class BenchRunner(TriggerRunner):
        async def init_comms(self) -> None:
            self.comms_decoder = supervisor  # type: ignore[assignment]

    runner = BenchRunner()
    t0, cpu0 = time.monotonic(), cpu_seconds()
    runner_task = asyncio.create_task(runner.arun())
    while True:  # the supervisor hands all workloads over on the first sync; creation takes a few loops
        if len(runner.triggers) >= n or runner_task.done():
            break
        await asyncio.sleep(0.05)
    t_created = time.monotonic()
    # start-up ends when every trigger's first poll has reached the simulator (stock: one DescribeTrainingJob per
    # trigger; ours: one full ListTrainingJobs sweep), then one more interval + 5 s of steady state before the window
    op, target = ("DescribeTrainingJob", n) if cfg["side"] == "stock" else ("ListTrainingJobs", -(-n // 100))
    deadline = time.monotonic() + cfg["startup_timeout"]
    while True:
        done = (await sim_calls(cfg["sim_url"])).get(op, 0) - cfg["calls_before"].get(op, 0)
        if done >= target or time.monotonic() > deadline or runner_task.done():
            break
        await asyncio.sleep(0.5)
    t_first, cpu_first = time.monotonic(), cpu_seconds()
    await asyncio.sleep(cfg["warmup"])

    log_start = log_file.tell()
    w0, cpu_w0 = time.monotonic(), cpu_seconds()
    emit("WINDOW_START")
    await asyncio.sleep(cfg["window"])
    w1, cpu_w1 = time.monotonic(), cpu_seconds()
    emit("WINDOW_DONE")
    rss_end, peak_end = rss_now_mib(), rss_peak_mib()
    log_end = log_file.tell()
    events_in_window = len(supervisor.events)

    deadline = time.monotonic() + cfg["finish_timeout"]
    while True:
        if len(supervisor.events) >= n or time.monotonic() > deadline or runner_task.done():
            break
        await asyncio.sleep(0.2)
    t_done, cpu_done = time.monotonic(), cpu_seconds()

    runner.stop = True
    if runner._stop_event is not None:
        runner._stop_event.set()
    try:
        await asyncio.wait_for(runner_task, timeout=10)
    except Exception as exc:  # report, do not hide, a runner that failed or hung
        print(f"runner ended with {type(exc).__name__}: {exc}", file=sys.stderr)
    for details in list(runner.triggers.values()):
        details["task"].cancel()
    ticker_task.cancel()

    log_lines = os.pread(log_file.fileno(), log_end - log_start, log_start).count(b"\n")
    return {
        "created_s": t_created - t0,
        "first_polls_s": t_first - t0,
        "cpu_startup": cpu_first - cpu0,
        "cpu_warmup": cpu_w0 - cpu_first,
        "cpu_window": cpu_w1 - cpu_w0,
        "window_s": w1 - w0,
        "cpu_finish": cpu_done - cpu_w1,
        "finish_s": t_done - w1,
        "rss_end": rss_end,
        "peak_window_end": peak_end,
        "peak": rss_peak_mib(),
        "lag_window": ticker.stats(w0, w1),
        "lag_startup": ticker.stats(t0, w0),
        "lag_finish": ticker.stats(w1, t_done),
        "log_lines": log_lines,
        "events_in_window": events_in_window,
        "events": [(t, p.get("status"), p.get("job_name")) for t, p in supervisor.events],
        "failures": [str(f)[:300] for f in supervisor.failures],
        "syncs": supervisor.syncs,
    }


def child(cfg_path: str) -> None:
    cfg = json.loads(Path(cfg_path).read_text())
    log_path = Path(cfg["log"])
    from airflow.sdk.log import configure_logging

    # buffering=0: one write per record, as on the triggerer's log socket
    log_file = open(log_path, "w+b", buffering=0)  # noqa: SIM115 - lives as long as the process
    configure_logging(json_output=True, output=log_file, sending_to_supervisor=True)
    os.environ["_AIRFLOW_PROCESS_CONTEXT"] = "client"  # what TriggerRunner.run() sets

    # import both sides' modules before the baseline, so the baseline is "a triggerer with the classes loaded"
    import airflow.providers.amazon.aws.triggers.sagemaker  # noqa: F401
    from airflow.executors.workloads.trigger import RunTrigger
    from airflow.models.trigger import Trigger

    import sagemaker_fleet.triggers.fleet  # noqa: F401

    triggers = build_triggers(cfg)
    workloads = []
    for i, trigger in enumerate(triggers, start=1):
        classpath, kwargs = trigger.serialize()
        workloads.append(
            RunTrigger(id=i, classpath=classpath, encrypted_kwargs=Trigger.encrypt_kwargs(kwargs))
        )
    del triggers
    import gc

    gc.collect()
    baseline_rss, baseline_peak = rss_now_mib(), rss_peak_mib()
    result = asyncio.run(child_main(cfg, workloads, log_file))
    result.update(baseline_rss=baseline_rss, baseline_peak=baseline_peak)
    emit("RESULT", result)


# ----------------------------------------------------------------------------------------------- parent side


def request(name: str) -> dict[str, Any]:
    from bench_sim_serve import request as serve_request  # this folder is on sys.path when run as a script

    return serve_request(name, max_runtime=5 * 86400)


def create_jobs(sim: Any, names: list[str]) -> None:
    from concurrent.futures import ThreadPoolExecutor

    client = sim.boto3_client("sagemaker")
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda n: client.create_training_job(**request(n)), names))


def diff_calls(before: dict[str, Any], after: dict[str, Any]) -> dict[str, int]:
    b, a = before["calls"], after["calls"]
    return {op: a.get(op, 0) - b.get(op, 0) for op in set(a) | set(b) if a.get(op, 0) != b.get(op, 0)}


def jump_to_first_end(sim: Any, speed: float) -> tuple[float, float, int]:
    """Advance the simulated clock to LEAD wall seconds before the first job can end; returns a (wall, sim) clock
    reference for mapping end times back to wall time, and how many jobs were InProgress before the jump."""
    state = sim.state()
    in_progress = sum(1 for j in state["jobs"] if j["status"] == "InProgress")
    ends = [
        j["created_at"] + (j["startup_seconds"] or 100.0) + j["work_seconds"] + 5.0
        for j in state["jobs"]
        if j["status"] == "InProgress"
    ]
    now = sim.now()
    if ends and min(ends) - now > LEAD * speed:
        sim.advance(min(ends) - now - LEAD * speed)
    return time.time(), sim.now(), in_progress


def run_side(
    sim: Any, side: str, interval_sim: float, args: argparse.Namespace, env: dict[str, str]
) -> dict[str, Any]:
    sim.reset(moto=False)
    runkey = f"{side}{int(interval_sim)}"
    names = [f"bench-c{i:04d}-{runkey}" for i in range(args.jobs)]
    create_jobs(sim, names)
    created = {j["name"]: j["created_at"] for j in sim.state()["jobs"]}
    import datetime as dt

    interval = interval_sim / args.speed
    workdir = Path(env["AIRFLOW_HOME"])
    cfg = {
        "side": side,
        "names": names,
        "created": [dt.datetime.fromtimestamp(created[n], dt.UTC).isoformat() for n in names],
        "name_contains": f"-{runkey}",
        "interval": interval,
        "warmup": interval + 5.0,
        "startup_timeout": 300.0,
        "sim_url": sim.url,
        "window": args.window,
        "finish_timeout": 90.0 + 3 * interval,
        "log": str(workdir / f"{side}-{int(interval_sim)}.log"),
    }
    calls0 = sim.calls()
    cfg["calls_before"] = calls0["calls"]
    cfg_path = workdir / f"{side}-{int(interval_sim)}.json"
    cfg_path.write_text(json.dumps(cfg))
    stderr_path = workdir / f"{side}-{int(interval_sim)}.stderr"
    with stderr_path.open("w") as stderr:
        child_proc = subprocess.Popen(
            [sys.executable, __file__, CHILD_FLAG, str(cfg_path)],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env=env,
        )
        assert child_proc.stdout is not None
        out: dict[str, Any] = {"side": side}
        other: list[str] = []
        for line in child_proc.stdout:
            if not line.startswith("@@ "):
                other.append(line)
                continue
            _, tag, payload = line.rstrip("\n").split(" ", 2)
            if tag == "WINDOW_START":
                out["calls_w0"] = sim.calls()
            elif tag == "WINDOW_DONE":
                out["calls_w1"] = sim.calls()
                out["clock_ref"] = jump_to_first_end(sim, args.speed)
            elif tag == "RESULT":
                out.update(json.loads(payload))
        child_proc.wait()
    if "cpu_window" not in out:
        raise RuntimeError(
            f"{side} child failed (exit {child_proc.returncode}):\n{stderr_path.read_text()[-4000:]}{''.join(other)[-4000:]}\n--- log tail\n{Path(cfg['log']).read_text(errors='replace')[-6000:]}"
        )
    out["calls_window"] = diff_calls(out["calls_w0"], out["calls_w1"])
    out["calls_total"] = diff_calls(calls0, sim.calls())
    out["stderr_tail"] = stderr_path.read_text()[-1500:]
    wall_ref, sim_ref, out["in_progress_at_window_end"] = out["clock_ref"]
    ended = {j["name"]: j["ended_at"] for j in sim.state()["jobs"] if j["ended_at"] is not None}
    out["jobs_ended"] = len(ended)
    end_wall = {n: wall_ref + (e - sim_ref) / args.speed for n, e in ended.items()}
    delivered = {
        name: t for t, status, name in out["events"] if status in ("terminal", "success", "failed", "stopped")
    }
    out["terminal_events"] = len(delivered)
    out["other_events"] = sorted(
        {str(s) for _, s, _ in out["events"]} - {"terminal", "success", "failed", "stopped"}
    )
    lateness = sorted(t - end_wall[n] for n, t in delivered.items() if n in end_wall)
    out["detect_p50"] = lateness[len(lateness) // 2] if lateness else float("nan")
    out["last_after_last_end"] = (
        max(delivered.values()) - max(end_wall.values()) if delivered and end_wall else float("nan")
    )
    out["interval_wall"] = interval
    return out


def fmt(value: float, digits: int = 1) -> str:
    return "n/a" if value != value else f"{value:,.{digits}f}"  # NaN check


def ratio(stock: float, ours: float) -> str:
    if ours != ours or stock != stock:
        return "n/a"
    if ours == 0:
        return "inf" if stock else "-"
    return f"{stock / ours:,.1f}x"


def print_table(title: str, ours: dict[str, Any], stock: dict[str, Any], args: argparse.Namespace) -> None:
    n = args.jobs
    sim_minutes = ours["window_s"] * args.speed / 60

    def calls(r: dict[str, Any], op: str | None = None) -> float:
        c = r["calls_window"]
        return float(sum(c.values()) if op is None else c.get(op, 0))

    rows: list[tuple[str, float, float, int]] = [
        ("all first polls sent after (wall s)", ours["first_polls_s"], stock["first_polls_s"], 1),
        ("RSS before triggers (MiB)", ours["baseline_rss"], stock["baseline_rss"], 1),
        ("RSS at window end (MiB)", ours["rss_end"], stock["rss_end"], 1),
        (
            "  growth over baseline (MiB)",
            ours["rss_end"] - ours["baseline_rss"],
            stock["rss_end"] - stock["baseline_rss"],
            1,
        ),
        (
            "  growth per trigger (KiB)",
            (ours["rss_end"] - ours["baseline_rss"]) * 1024 / n,
            (stock["rss_end"] - stock["baseline_rss"]) * 1024 / n,
            1,
        ),
        ("peak RSS up to window end (MiB)", ours["peak_window_end"], stock["peak_window_end"], 1),
        ("peak RSS, whole child run (MiB)", ours["peak"], stock["peak"], 1),
        ("CPU s, start-up (to all first polls)", ours["cpu_startup"], stock["cpu_startup"], 2),
        ("CPU s, warm-up (interval + 5 s)", ours["cpu_warmup"], stock["cpu_warmup"], 2),
        ("CPU s in window", ours["cpu_window"], stock["cpu_window"], 2),
        (
            "  % of one core",
            100 * ours["cpu_window"] / ours["window_s"],
            100 * stock["cpu_window"] / stock["window_s"],
            1,
        ),
        ("loop lag p99 in window (ms)", ours["lag_window"]["p99_ms"], stock["lag_window"]["p99_ms"], 1),
        ("loop lag max in window (ms)", ours["lag_window"]["max_ms"], stock["lag_window"]["max_ms"], 1),
        ("0.1 s ticks over 0.2 s, window", ours["lag_window"]["over"], stock["lag_window"]["over"], 0),
        ("loop lag max, start-up (ms)", ours["lag_startup"]["max_ms"], stock["lag_startup"]["max_ms"], 1),
        ("API calls in window, total", calls(ours), calls(stock), 0),
        ("  DescribeTrainingJob", calls(ours, "DescribeTrainingJob"), calls(stock, "DescribeTrainingJob"), 0),
        ("  ListTrainingJobs", calls(ours, "ListTrainingJobs"), calls(stock, "ListTrainingJobs"), 0),
        ("  calls per simulated minute", calls(ours) / sim_minutes, calls(stock) / sim_minutes, 1),
        ("log lines in window", ours["log_lines"], stock["log_lines"], 0),
        (
            "InProgress jobs at window end",
            ours["in_progress_at_window_end"],
            stock["in_progress_at_window_end"],
            0,
        ),
        ("jobs ended (simulator)", ours["jobs_ended"], stock["jobs_ended"], 0),
        ("terminal events delivered", ours["terminal_events"], stock["terminal_events"], 0),
        ("event after job end, p50 (wall s)", ours["detect_p50"], stock["detect_p50"], 1),
        (
            "last event after last job end (wall s)",
            ours["last_after_last_end"],
            stock["last_after_last_end"],
            1,
        ),
        ("CPU s, window end -> last event", ours["cpu_finish"], stock["cpu_finish"], 2),
        (
            "API calls, whole child run",
            sum(ours["calls_total"].values()),
            sum(stock["calls_total"].values()),
            0,
        ),
        ("loop lag max, completion (ms)", ours["lag_finish"]["max_ms"], stock["lag_finish"]["max_ms"], 1),
    ]
    print(f"\n{title}")
    print(f"{'metric':<40} | {'ours':>11} | {'stock':>11} | {'stock/ours':>10}")
    print(f"{'-' * 40}-+-{'-' * 11}-+-{'-' * 11}-+-{'-' * 10}")
    for label, a, b, digits in rows:
        print(f"{label:<40} | {fmt(a, digits):>11} | {fmt(b, digits):>11} | {ratio(b, a):>10}")
    for r in (ours, stock):
        notes = []
        if r["events_in_window"]:
            notes.append(
                f"{r['events_in_window']} events arrived before the window ended (jobs ended too early)"
            )
        if r["other_events"]:
            notes.append(f"non-terminal event statuses: {r['other_events']}")
        if r["failures"]:
            notes.append(f"{len(r['failures'])} trigger failures, first: {r['failures'][0]}")
        if notes:
            print(f"  {r['side']}: " + "; ".join(notes))


def parent(args: argparse.Namespace) -> None:

    from airflow.providers.amazon.aws.operators.sagemaker import CHECK_INTERVAL_SECOND
    from cryptography.fernet import Fernet

    from sagemaker_fleet.fleetspec.model import InstanceQuota
    from sagemaker_fleet.sim import SimConfig
    from sagemaker_fleet.sim.client import SimClient
    from sagemaker_fleet.sim.config import TimingConfig
    from sagemaker_fleet.sim.server import ServerSettings, SimulatorServer
    from sagemaker_fleet.sim.startup_model import StartupModel
    from sagemaker_fleet.sim.workload import WorkModel
    from sagemaker_fleet.testing.component_env import aws_connection_json
    from sagemaker_fleet.triggers.defaults import CityTiming

    ours_default = CityTiming().poll_interval
    stock_default = float(CHECK_INTERVAL_SECOND)
    rows = [("default intervals", ours_default, stock_default)]
    if args.same_interval:
        rows.append(("same interval", args.same_interval, args.same_interval))

    began = time.monotonic()
    print(f"command: {shlex.join([Path(sys.executable).name, *sys.argv])}")
    print(
        f"N={args.jobs} jobs, window={args.window:.0f} wall s, speed={args.speed:g} sim s per wall s, "
        f"cpu cores={os.cpu_count()}; default intervals: ours {ours_default:g} s (FleetTrainingOperator's "
        f"CityTiming.poll_interval), stock {stock_default:g} s (SageMakerTrainingOperator.check_interval)"
    )
    config = SimConfig(
        seed=1,
        # long jobs that stay InProgress through the window; the clock jumps to their end afterwards
        work=WorkModel(default_seconds=10 * 3600.0, spread=0.0),
        timing=TimingConfig(startup=StartupModel(spread=0.05), upload_seconds=(5.0, 10.0)),
        default_quota=InstanceQuota(instances=10 * args.jobs, warm_pools=0),
    )
    settings = ServerSettings(speed=args.speed, config=config, with_moto=False)
    with tempfile.TemporaryDirectory(prefix="bench-triggerer-") as home, SimulatorServer(settings) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW")}
        env.update(
            AIRFLOW_HOME=home,
            AIRFLOW__CORE__LOAD_EXAMPLES="False",
            AIRFLOW__CORE__FERNET_KEY=Fernet.generate_key().decode(),
            AIRFLOW_CONN_AWS_DEFAULT=aws_connection_json(server.url),
            AWS_ACCESS_KEY_ID="testing",
            AWS_SECRET_ACCESS_KEY="testing",
            AWS_DEFAULT_REGION="us-east-1",
        )
        sim = SimClient(server.url, timeout=120)
        results = []
        for title, ours_interval, stock_interval in rows:
            ours = run_side(sim, "ours", ours_interval, args, env)
            stock = run_side(sim, "stock", stock_interval, args, env)
            results.append((title, ours_interval, stock_interval, ours, stock))
    for title, ours_interval, stock_interval, ours, stock in results:
        heading = (
            f"{title}: ours poll_interval {ours_interval:g} sim s = {ours['interval_wall']:g} wall s, "
            f"stock waiter_delay {stock_interval:g} sim s = {stock['interval_wall']:g} wall s"
        )
        if title == "default intervals" and ours_interval == stock_interval:
            heading += " (the defaults are equal, so this is also the same-interval row)"
        print_table(heading, ours, stock, args)
        for r in (ours, stock):
            if "Traceback" in r["stderr_tail"] or "Error" in r["stderr_tail"]:
                print(f"  {r['side']} stderr tail:\n{r['stderr_tail']}")
    print(
        f"\nwindow: {args.window:.0f} wall s = {args.window * args.speed / 60:.0f} simulated minutes; CPU and calls "
        f"per wall second are {args.speed:g}x a real deployment's. Loop lag = how late a 0.1 s asyncio.sleep woke. "
        f"Events are counted when the runner hands them to its supervisor (1 s sync loop). "
        f"Total wall time {time.monotonic() - began:.0f} s."
    )


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == CHILD_FLAG:
        child(sys.argv[2])
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--window", type=float, default=60.0, help="measurement window, wall seconds")
    parser.add_argument("--speed", type=float, default=3.0, help="simulated seconds per wall second")
    parser.add_argument(
        "--same-interval", type=float, default=None, metavar="SIM_SECONDS",
        help="add a row with both sides polling every SIM_SECONDS simulated seconds",
    )  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="smoke run: 200 jobs, 20 s window")
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()
    with printed_lines() as printed:
        if args.quick:
            args.jobs, args.window = 200, 20.0
        parent(args)
    write_result(
        "bench_triggerer",
        {"options": options(args), "printed": printed},
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
