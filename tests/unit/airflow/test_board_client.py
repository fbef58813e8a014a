"""The triggerer's S3 side of the account's board: records fetched once per change (ETag), ended runs' records (not
modified for the stale time) never fetched, a record that is not JSON skipped, a board that fails a warning
only — the run's sweeps go on — and a listing whose continuation token repeats stopped, not followed forever."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import time
from typing import Any

import pytest

from sagemaker_fleet.dispatch.board import RunDemand
from sagemaker_fleet.dispatch.cadence import Cadence
from sagemaker_fleet.jobs.paging import ListingError
from sagemaker_fleet.triggers.board_client import BoardClient


class _Body:
    def __init__(self, data: bytes) -> None:
        self.data = data

    async def read(self) -> bytes:
        return self.data


class FakeS3:
    def __init__(self) -> None:
        self.objects: dict[str, tuple[bytes, str, dt.datetime]] = {}
        self.gets: list[str] = []
        self.fail = False

    def put(self, key: str, body: bytes, age: float = 0.0) -> None:
        modified = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=age)
        self.objects[key] = (body, f'"{hash(body)}"', modified)

    async def list_objects_v2(self, **kwargs: Any) -> dict[str, Any]:
        if self.fail:
            raise ConnectionError("board unreachable")
        return {
            "Contents": [
                {"Key": k, "ETag": etag, "LastModified": modified}
                for k, (_, etag, modified) in sorted(self.objects.items())
                if k.startswith(kwargs["Prefix"])
            ],
            "IsTruncated": False,
        }

    async def get_object(self, Bucket: str, Key: str) -> dict[str, Any]:  # noqa: N803 - boto3's names
        self.gets.append(Key)
        return {"Body": _Body(self.objects[Key][0])}

    async def put_object(self, Bucket: str, Key: str, Body: bytes, ContentType: str) -> None:  # noqa: N803
        if self.fail:
            raise ConnectionError("board unreachable")
        self.put(Key, Body)


def client(s3: FakeS3) -> BoardClient:
    board = BoardClient(hook=None, run="-20261129")  # type: ignore[arg-type]
    board._client = s3
    return board


def record(fleet: str, **values: Any) -> bytes:
    return json.dumps(RunDemand(fleet, "20261129", posted=1.0, **values).to_json()).encode()


def test_records_are_fetched_once_per_change_and_ended_runs_never() -> None:
    s3 = FakeS3()
    s3.put("board/daily/20261129.json", record("daily"))
    s3.put("board/weekly/20261122.json", record("weekly"), age=Cadence().stale_seconds + 60)
    s3.put("board/junk.json", b"not json")
    board = client(s3)
    fresh = (
        time.time() - Cadence().stale_seconds
    )  # the sweep's cut (sweep_once): records older than that are not fetched
    first = asyncio.run(board.read("bucket", "board/", fresh))
    assert [r["fleet"] for r in first] == ["daily"]  # type: ignore[index]
    assert sorted(s3.gets) == ["board/daily/20261129.json", "board/junk.json"]
    asyncio.run(board.read("bucket", "board/", fresh))
    assert len(s3.gets) == 2  # nothing changed: no GetObject
    s3.put("board/daily/20261129.json", record("daily", blocked={"ml.m5.xlarge/instances": 2}))
    again = asyncio.run(board.read("bucket", "board/", fresh))
    assert again[0]["blocked"] == {"ml.m5.xlarge/instances": 2}  # type: ignore[index]
    assert len(s3.gets) == 3


def test_a_failing_board_is_one_warning_and_no_answer(caplog: pytest.LogCaptureFixture) -> None:
    """A board that fails answers None (read) and False (post): the sweep goes on with what it last read and posts
    its record again at the next sweep (sweep_once); one warning names the permissions."""
    s3 = FakeS3()
    s3.fail = True
    board = client(s3)
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            assert asyncio.run(board.records("bucket", "board/", 0.0)) is None
            assert asyncio.run(board.put("bucket", "board/x.json", {"version": 1})) is False
    warnings = [r for r in caplog.records if "sharing board is unreachable" in r.getMessage()]
    assert len(warnings) == 1
    assert "s3:GetObject" in warnings[0].getMessage()
    s3.fail = False
    assert asyncio.run(board.put("bucket", "board/x.json", {"version": 1})) is True
    assert asyncio.run(board.records("bucket", "board/", 0.0)) == [{"version": 1}]


class LoopingS3(FakeS3):
    """ListObjectsV2 that answers every call, the first included, with the same continuation token: an endpoint
    fault that the old loop followed forever."""

    def __init__(self) -> None:
        super().__init__()
        self.lists = 0

    async def list_objects_v2(self, **kwargs: Any) -> dict[str, Any]:
        self.lists += 1
        if self.lists > 5:  # the guard failed: stop the test instead of hanging it
            raise AssertionError("the board's listing went on past a repeated continuation token")
        page = await super().list_objects_v2(**kwargs)
        return {**page, "IsTruncated": True, "NextContinuationToken": "same-token"}


def test_a_repeated_continuation_token_stops_the_read_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    s3 = LoopingS3()
    s3.put("board/daily/20261129.json", record("daily"))
    board = client(s3)
    with pytest.raises(ListingError, match="NextContinuationToken 'same-token' came back a second time"):
        asyncio.run(board.read("bucket", "board/", 0.0))
    assert s3.lists == 2
    with caplog.at_level(logging.WARNING):
        assert asyncio.run(board.records("bucket", "board/", 0.0)) is None
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "sharing board's listing did not end" in warnings[0]
    assert "ListObjectsV2(s3://bucket/board/)" in warnings[0]
    assert s3.lists == 4  # two calls again, then it gave up
