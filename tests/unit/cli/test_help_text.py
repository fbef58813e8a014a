"""Help written for users: ``--help`` opens with what the tool does and its commands, and every option of every
sub-command (``sim serve`` included) says what it does."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import TYPE_CHECKING

from sagemaker_fleet.cli.main import COMMANDS, build_parser, main

if TYPE_CHECKING:
    import pytest


def parsers(
    parser: argparse.ArgumentParser, name: str = "sagemaker-fleet"
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from parsers(sub, f"{name} {sub_name}")


def test_the_walk_reaches_every_command_and_sim_serve() -> None:
    names = {name for name, _ in parsers(build_parser())}
    assert {f"sagemaker-fleet {command}" for command in COMMANDS} | {"sagemaker-fleet sim serve"} <= names


def test_every_option_of_every_command_has_help() -> None:
    missing = [
        f"{name} {'/'.join(action.option_strings) or action.dest}"
        for name, parser in parsers(build_parser())
        for action in parser._actions
        if not isinstance(action, argparse._SubParsersAction)
        and (not action.help or action.help == argparse.SUPPRESS)
    ]
    assert missing == []


def test_help_opens_with_what_the_tool_does_and_its_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    description = out.split("\n\n")[1]
    assert description.startswith("Train many per-city models on Amazon SageMaker")
    assert "Entry point" not in out
    assert "``" not in out  # no reStructuredText from the module docstrings
    for command, (_, help_text) in COMMANDS.items():
        assert f"{command}  " in out
        assert help_text.split(";")[0] in out
    assert "3 'report' found no job in the run" in " ".join(out.split())
