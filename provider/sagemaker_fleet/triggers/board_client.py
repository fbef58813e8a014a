"""BoardClient: the triggerer's S3 calls for the account's board (``sharing``; the rule: :mod:`sagemaker_fleet.dispatch.board`).

One aiobotocore S3 client per run's poller, opened on first use from an S3 hook on the connection of its SageMaker
hook (:meth:`~sagemaker_fleet.hooks.fleet.SageMakerFleetHook.s3_hook`: the same region, endpoint and botocore
config). A read is one ListObjectsV2 of the board's prefix and one GetObject per record whose ETag changed since the
last read — none for a record not modified for :attr:`~sagemaker_fleet.dispatch.cadence.Cadence.stale_seconds`
(an ended run's: the board keeps one object per run; an S3 lifecycle rule may expire them after a day); a post is
one PutObject of the run's record. A record that is not JSON is skipped.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.jobs.paging import ListingError, PageGuard
from sagemaker_fleet.triggers.offloop import off_loop

if TYPE_CHECKING:
    from sagemaker_fleet.hooks.fleet import SageMakerFleetHook

log = logging.getLogger(__name__)


class BoardClient:
    """The S3 side of a run's board (see the module docstring)."""

    def __init__(self, hook: SageMakerFleetHook, run: str = "") -> None:
        self.hook = hook
        self.run = run  #: the run's name filter, for the log
        self.warned = False
        self._client: Any = None
        self._client_cm: Any = None
        self._records: dict[str, tuple[str, object]] = {}  # key → (ETag, JSON)

    async def _s3(self) -> Any:
        if self._client is None:
            s3 = await off_loop(self.hook.s3_hook)  # the hook reads its connection
            self._client_cm = await s3.get_async_conn()
            self._client = await self._client_cm.__aenter__()
        return self._client

    async def records(self, bucket: str, prefix: str, modified_after: float) -> list[object] | None:
        """The board's records (:meth:`read`), or None when it did not answer (:meth:`_warn`)."""
        try:
            return await self.read(bucket, prefix, modified_after)
        except Exception as exc:  # noqa: BLE001 - sharing refines dispatch; dispatch goes on without it
            self._warn(exc)
            return None

    async def put(self, bucket: str, key: str, record: Mapping[str, Any]) -> bool:
        """Put the run's record (:meth:`post`); whether S3 took it (:meth:`_warn` when not)."""
        try:
            await self.post(bucket, key, record)
        except Exception as exc:  # noqa: BLE001 - as for records
            self._warn(exc)
            return False
        return True

    def _warn(self, exc: Exception) -> None:
        """A failed call is not the sweep's failure: the run ranks itself by what it last read, and the others' records
        go stale (so does its own for them) until the board answers again. One warning per poller."""
        if not self.warned:
            self.warned = True
            if isinstance(exc, ListingError):
                log.warning(
                    "%s: the sharing board's listing did not end (%s): this run goes on by what it last read",
                    self.run,
                    exc,
                )
                return
            log.warning(
                "%s: the account's sharing board is unreachable (%s: %s): this run goes on by what it last read; "
                "allow s3:ListBucket, s3:GetObject and s3:PutObject on the board's prefix (docs/guides/aws.md)",
                self.run,
                type(exc).__name__,
                exc,
            )

    async def read(self, bucket: str, prefix: str, modified_after: float) -> list[object]:
        """Every record under ``prefix`` last modified at or after ``modified_after`` (seconds since the epoch),
        cached by ETag. A listing whose continuation token repeats, or that goes on past
        :data:`~sagemaker_fleet.jobs.paging.MAX_LIST_PAGES` pages, raises ListingError (the SageMaker listings'
        rule)."""
        s3 = await self._s3()
        seen: dict[str, tuple[str, object]] = {}
        guard = PageGuard(f"ListObjectsV2(s3://{bucket}/{prefix})", "NextContinuationToken")
        token: str | None = None
        while True:
            page = await s3.list_objects_v2(
                Bucket=bucket, Prefix=prefix, **({"ContinuationToken": token} if token else {})
            )
            for item in page.get("Contents", ()):
                key, etag = str(item["Key"]), str(item.get("ETag", ""))
                modified = item.get("LastModified")
                if modified is not None and modified.timestamp() < modified_after:
                    continue  # an ended run's record (the board keeps one per run): not fetched
                known = self._records.get(key)
                if known is None or known[0] != etag:
                    body = await (await s3.get_object(Bucket=bucket, Key=key))["Body"].read()
                    try:
                        known = (etag, json.loads(body))
                    except ValueError:
                        known = (etag, None)
                seen[key] = known
            token = guard.next(page) if page.get("IsTruncated") else None
            if token is None:
                break
        self._records = seen
        return [record for _, record in seen.values() if record is not None]

    async def post(self, bucket: str, key: str, record: Mapping[str, Any]) -> None:
        s3 = await self._s3()
        await s3.put_object(
            Bucket=bucket, Key=key, Body=json.dumps(record).encode(), ContentType="application/json"
        )

    async def close(self) -> None:
        if self._client_cm is not None:
            cm, self._client_cm, self._client = self._client_cm, None, None
            await cm.__aexit__(None, None, None)
