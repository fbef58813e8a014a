"""Following paged AWS listings safely (pure): a listing that does not end is an endpoint fault, not data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sagemaker_fleet.errors import SageMakerFleetError

__all__ = ["MAX_LIST_PAGES", "ListingError", "PageGuard"]

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
