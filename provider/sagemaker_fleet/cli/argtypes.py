"""Argument types of the command line: each refuses what it cannot honour, naming the value and what to write.

argparse turns an :class:`argparse.ArgumentTypeError` into ``error: argument --port: …`` and exit 2, so a bad flag
never reaches the command and no value is silently bent into another (a port is never taken modulo 65536, a speed
must be finite).
"""

from __future__ import annotations

import argparse
import math
from urllib.parse import urlsplit

PORT_MAX = 65535


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r}: write a finite number")
    return value


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def port(text: str) -> int:
    value = _whole(text)
    if not 0 <= value <= PORT_MAX:
        raise argparse.ArgumentTypeError(f"{text!r}: a TCP port is 0-{PORT_MAX} (0 picks a free one)")
    return value


def positive(text: str) -> float:
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: must be > 0")
    return value


def non_negative(text: str) -> float:
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: must be ≥ 0")
    return value


def share(text: str) -> float:
    value = _number(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r}: must be a fraction between 0 and 1")
    return value


def workers(text: str) -> int:
    """Calls in flight at once: at least one, and no more than SageMaker would answer without throttling."""
    value = _whole(text)
    if not 1 <= value <= 64:
        raise argparse.ArgumentTypeError(f"{text!r}: use 1-64 (SageMaker throttles more calls at once)")
    return value


def endpoint_url(text: str) -> str:
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise argparse.ArgumentTypeError(f"{text!r}: write an http(s) URL such as http://127.0.0.1:4566")
    try:
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: the port must be a number 0-{PORT_MAX}") from None
    return text


def account_id(text: str) -> str:
    if not (len(text) == 12 and text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r}: an AWS account id is 12 digits, e.g. 111122223333")
    return text
