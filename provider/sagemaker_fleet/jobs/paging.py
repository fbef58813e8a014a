"""Following paged AWS listings safely (pure): a listing that does not end is an endpoint fault, not data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sagemaker_fleet.errors import SageMakerFleetError

__all__ = ["MAX_LIST_PAGES", "ListingError", "PageGuard", "PagedListing"]

#: Pages one listing may take (100 summaries each): a listing past it, or one whose NextToken repeats, is an
#: endpoint fault, not a run's jobs, and raises :class:`ListingError` instead of looping forever.
MAX_LIST_PAGES = 2000


class ListingError(SageMakerFleetError, RuntimeError):
    """A paged listing did not end: its NextToken repeated, or it went past :data:`MAX_LIST_PAGES` pages."""


class PageGuard:
    """Follows a listing's NextTokens; :meth:`next` returns the token of the next page, None at the end."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.seen: set[str] = set()

    def next(self, page: Mapping[str, Any]) -> str | None:
        token = page.get("NextToken")
        if not token:
            return None
        if token in self.seen:
            raise ListingError(f"{self.what}: NextToken {str(token)[:40]!r} came back a second time")
        if len(self.seen) + 1 >= MAX_LIST_PAGES:
            raise ListingError(f"{self.what}: more than {MAX_LIST_PAGES} pages; narrow the listing")
        self.seen.add(str(token))
        return str(token)


class PagedListing:
    """The paging rule of one listing, for a sync and an async loop alike (the caller makes the calls):

        listing = PagedListing("ListTrainingJobs", {"MaxResults": 100}, "TrainingJobSummaries")
        while listing.request is not None:
            yield from listing.take(client.list_training_jobs(**listing.request))

    :attr:`request` is the next call's arguments (the first ones plus the page's ``NextToken``), None once the
    listing has ended; a NextToken that repeats, or more than :data:`MAX_LIST_PAGES` pages, raise
    :class:`ListingError` (:class:`PageGuard`).
    """

    def __init__(self, what: str, request: Mapping[str, Any], items: str) -> None:
        self.request: dict[str, Any] | None = dict(request)
        self.items = items
        self.guard = PageGuard(what)

    def take(self, page: Mapping[str, Any]) -> list[Any]:
        """The items of ``page``, the answer to :attr:`request`; moves :attr:`request` on to the next page."""
        if self.request is None:
            raise ListingError(f"{self.guard.what}: a page came after the listing ended")
        token = self.guard.next(page)
        self.request = {**self.request, "NextToken": token} if token else None
        return list(page.get(self.items) or ())
