"""``sagemaker-fleet prices refresh``: every region's SageMaker training prices from the AWS Price List.

Reads the region index of the ``AmazonSageMaker`` offer (``--offers-url``, AWS's by default; public, no
credentials), then each region's offer file from the same host, or local offer files (``--from-file``, for a machine
without internet access), and writes the price table every command reads first (``--out``). Exit codes: 0 the
table was written; 1 the Price List could not be reached; 2 a flag, a file or an answer that is not an offer file
(the message names it), or a table that cannot be written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from sagemaker_fleet.cli.argtypes import endpoint_url, positive
from sagemaker_fleet.cost.offers import OFFER_INDEX_URL, UNIT, OfferFileError
from sagemaker_fleet.cost.offers_fetch import (
    DEFAULT_TIMEOUT_SECONDS,
    OfferFetchError,
    Refresh,
    fetch_json,
    refresh_from_files,
    refresh_from_index,
)
from sagemaker_fleet.fleetspec.price_table import parse_price_table, refreshed_table_path, table_document


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="prices_command", required=True, metavar="SUBCOMMAND")
    refresh = sub.add_parser(
        "refresh",
        help="write every region's on-demand training prices from the AWS Price List",
        description=__doc__,
    )
    source = refresh.add_mutually_exclusive_group()
    source.add_argument(
        "--offers-url",
        type=endpoint_url,
        default=OFFER_INDEX_URL,
        metavar="URL",
        help="the region index of the AmazonSageMaker offer; each region's offer file is fetched from its host",
    )
    source.add_argument(
        "--from-file",
        type=Path,
        action="append",
        default=[],
        metavar="OFFER.json",
        help="a region's AmazonSageMaker offer file saved locally (repeatable; one per region), instead of fetching",
    )
    refresh.add_argument(
        "--region",
        action="append",
        default=[],
        metavar="REGION",
        help="fetch only this region (repeatable; default: every region of the index)",
    )
    refresh.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"where to write the table (default {refreshed_table_path()}, where every command looks first)",
    )
    refresh.add_argument(
        "--timeout",
        type=positive,
        default=DEFAULT_TIMEOUT_SECONDS,
        metavar="SECONDS",
        help="seconds to wait for each file",
    )


def run(args: argparse.Namespace) -> int:
    if args.from_file and args.region:
        print(
            "error: --region: the regions of --from-file are the files' own; drop --region", file=sys.stderr
        )
        return 2
    out: Path = args.out or refreshed_table_path()
    try:
        if args.from_file:
            made = refresh_from_files(args.from_file)
        else:
            made = refresh_from_index(
                args.offers_url, args.region, lambda url: fetch_json(url, timeout=args.timeout)
            )
    except OfferFetchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OfferFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    document = table_document(made.table, UNIT)
    parse_price_table(document, str(out))  # what is written reads back, or nothing is written
    problem = _write(out, document)
    if problem:
        print(f"error: --out {out}: {problem}", file=sys.stderr)
        return 2
    for line in _summary(out, made):
        print(line)
    return 0


def _write(path: Path, document: dict[str, object]) -> str | None:
    """Write atomically (a reader sees the old table or the new one); the reason it failed, or None."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        return f"cannot write the table ({exc.strerror or exc}); pick a writable path"
    return None


def _summary(out: Path, made: Refresh) -> list[str]:
    table = made.table
    count = sum(len(types) for types in table.regions.values())
    lines = [
        f"wrote {out}: {count:,} prices in {len(table.regions)} regions, as of {table.as_of} "
        f"(from {table.retrieved.get('from', '')})"
    ]
    lines += [f"left out: {region}: {why}" for region, why in made.skipped]
    lines += [f"left out of {offer.region}: {item}" for offer in made.offers for item in offer.left_out]
    if out != refreshed_table_path():
        lines.append(
            f"note: commands read {refreshed_table_path()}; set SAGEMAKER_FLEET_PRICE_TABLE={out} to use this one"
        )
    return lines
