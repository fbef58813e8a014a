"""`sagemaker-fleet report` (CONTRACT §3) — not built yet."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("args", nargs="*")


def run(args: argparse.Namespace) -> int:
    print("sagemaker-fleet report: not implemented yet", file=sys.stderr)
    return 3
