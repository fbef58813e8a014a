"""The ``sharing`` block of a fleet spec: a share of the account's quotas, a priority and the board (checked here).

A share is written ``40%`` or ``40`` (a percentage of each instance quota the fleet uses), a priority is a whole
number from 0 (the default, lowest) to :data:`~sagemaker_fleet.fleetspec.model.PRIORITY_MAX`, and the board is
an S3 prefix every fleet of the account names alike (default: ``sagemaker-fleet/board/`` in the bucket of
``output_s3_uri``). Several fleets' shares are checked together by :func:`shares_over_100`.

Every fleet takes part, with share 0 and priority 0, unless its spec says ``sharing: false``: runs that start in
the same second then rank on the board before either takes the account's free room (docs/concepts/several-fleets.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from sagemaker_fleet.fleetspec.formats import S3_URI_RE
from sagemaker_fleet.fleetspec.model import PRIORITY_MAX, FleetSpec, SharingLayer, SharingSettings
from sagemaker_fleet.fleetspec.names import split_s3_uri

_PERCENT_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%?\s*$")
SHARE_FIX = "write a percentage of the account's quota from 0 to 100, such as `share: 40%`"
PRIORITY_FIX = f"use a whole number from 0 (lowest, the default) to {PRIORITY_MAX} (highest)"
BOARD_FIX = (
    "use an S3 prefix such as s3://bucket/sagemaker-fleet/board/ (the same for every fleet of the account)"
)
#: The board's prefix in the bucket of ``output_s3_uri`` when the spec names none.
DEFAULT_BOARD_PREFIX = "sagemaker-fleet/board/"


def default_board(output_s3_uri: str) -> str:
    # not checked yet: output_s3_uri's own check reports a bad one
    bucket, _ = split_s3_uri(output_s3_uri, scheme_optional=True)
    return f"s3://{bucket}/{DEFAULT_BOARD_PREFIX}"


def _share(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str) and (match := _PERCENT_RE.fullmatch(value)):
        number = float(match.group(1))
    else:
        return None
    return number / 100 if 0 <= number <= 100 else None


def parse_sharing(
    layer: SharingLayer | bool | None, output_s3_uri: str, error: Callable[[str, str], None]
) -> SharingSettings | None:
    """The resolved settings (None: ``sharing: false``, or a problem, each given to ``error(path, message)``); no
    ``sharing`` block, ``sharing: true`` and ``sharing: {}`` alike take part with share 0 and priority 0."""
    if layer is False:
        return None
    if layer is None or layer is True:
        layer = SharingLayer()
    problems: list[tuple[str, str]] = []
    share = 0.0 if layer.share is None else _share(layer.share)
    if share is None:
        problems.append(("sharing.share", f"{layer.share!r} is not a share; {SHARE_FIX}"))
    priority = layer.priority
    if isinstance(priority, bool) or not isinstance(priority, int) or not 0 <= priority <= PRIORITY_MAX:
        problems.append(("sharing.priority", f"{priority!r} is not a priority; {PRIORITY_FIX}"))
    board = layer.board if layer.board is not None else default_board(output_s3_uri)
    valid_board = bool(S3_URI_RE.fullmatch(board))
    if (
        not valid_board and layer.board is not None
    ):  # the default's bucket is output_s3_uri's: its error says it
        problems.append(("sharing.board", f"{board!r} is not valid; {BOARD_FIX}"))
    for path, message in problems:
        error(path, message)
    if problems or not valid_board or share is None or not isinstance(priority, int):
        return None
    return SharingSettings(share, priority, board if board.endswith("/") else f"{board}/")


def shares_over_100(specs: Iterable[FleetSpec]) -> list[str]:
    """One message per board whose fleets' shares add up to more than 100 % (each fleet counted once)."""
    boards: dict[str, dict[str, float]] = {}
    for spec in specs:
        if spec.sharing is not None:
            boards.setdefault(spec.sharing.board, {})[spec.fleet] = spec.sharing.share
    problems = []
    for board, shares in sorted(boards.items()):
        total = sum(shares.values())
        if total > 1 + 1e-9:
            listed = ", ".join(f"{fleet} {share:.0%}" for fleet, share in sorted(shares.items()))
            problems.append(
                f"sharing.share: the fleets on board {board} are guaranteed {total:.0%} of the account in all "
                f"({listed}); lower their shares to 100% or less in all"
            )
    return problems
