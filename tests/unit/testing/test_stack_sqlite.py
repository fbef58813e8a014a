"""A LocalAirflowStack on SQLite waits for the database lock instead of failing after SQLite's default 5 s: a UI
trigger (two writing requests at once) while the scheduler writes answered 500 "database is locked" before.

Checked on a real Airflow engine in a child process with the stack's environment: it writes while this process
holds SQLite's write lock for longer than 5 s."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from sagemaker_fleet.testing.component_env import SQLITE_CONNECT_ARGS_PATH
from sagemaker_fleet.testing.stack import LocalAirflowStack, StackSettings

HOLD_SECONDS = 7.0  # longer than the sqlite3 driver's default wait of 5 s

WRITE = """
from sqlalchemy import text
from airflow import settings
settings.configure_orm()
print("ready", flush=True)  # the parent holds the lock from now on for HOLD_SECONDS
with settings.engine.begin() as connection:
    connection.execute(text("INSERT INTO probe VALUES (1)"))
"""


def stack_env(tmp_path: Path, **settings: object) -> dict[str, str]:
    stack = LocalAirflowStack(
        StackSettings(home=tmp_path, dags_folder=tmp_path, endpoint_url="http://127.0.0.1:1", **settings)
    )
    return stack.env()


def test_a_sqlite_stack_names_the_connect_args_and_a_postgres_one_does_not(tmp_path: Path) -> None:
    env = stack_env(tmp_path)
    assert env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONNECT_ARGS"] == SQLITE_CONNECT_ARGS_PATH
    assert env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONNECT_ARGS_ASYNC"] == SQLITE_CONNECT_ARGS_PATH
    postgres = stack_env(tmp_path, sql_alchemy_conn="postgresql+psycopg2://postgres@127.0.0.1:5432/test")
    assert "AIRFLOW__DATABASE__SQL_ALCHEMY_CONNECT_ARGS" not in postgres


def test_a_write_waits_for_the_lock_longer_than_sqlites_default(tmp_path: Path) -> None:
    env = stack_env(tmp_path)
    database = tmp_path / "airflow.db"
    holder = sqlite3.connect(database, isolation_level=None)
    holder.execute("CREATE TABLE probe (x INTEGER)")
    holder.execute("BEGIN EXCLUSIVE")  # this process holds the write lock
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITE], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "ready"
    time.sleep(
        HOLD_SECONDS
    )  # the child's write waits all this time (with SQLite's default it fails after 5 s)
    holder.execute("COMMIT")
    _, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err[-2000:]
    assert holder.execute("SELECT COUNT(*) FROM probe").fetchone() == (1,)
