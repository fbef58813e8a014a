"""docs/contributing/architecture.md's stack of layers is the import-linter ``layers`` contract of pyproject.toml:
the same layers, the same siblings in each, in the same order (top to bottom). A layer added to, dropped from or
renamed in one of them and not in the other fails here, so the page cannot describe a package that no longer exists
(it once named an ``account`` layer that had become ``preflight`` and left out ``contract`` and ``iam``). Every
top-level module of the package is in the stack or named on the page beside it (``sim/``, ``simulate/``)."""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "contributing" / "architecture.md"
PYPROJECT = ROOT / "pyproject.toml"
PACKAGE = ROOT / "provider" / "sagemaker_fleet"
ROOT_PACKAGE = "sagemaker_fleet"

Layers = list[frozenset[str]]


def page_layers(text: str) -> Layers:
    """The stack in the fenced block after ``<!-- layers -->``, top to bottom: a line that starts at its first column
    names a layer's siblings (``a | b``) before its description (two spaces or more); an indented line goes on
    describing the layer above."""
    match = re.search(r"<!-- layers -->\n```\n(.*?)```", text, flags=re.S)
    assert match is not None, f"{PAGE.name}: no fenced block after <!-- layers -->"
    layers = []
    for line in match.group(1).splitlines():
        if not line.strip() or line[0].isspace():
            continue
        names = re.split(r"\s{2,}", line, maxsplit=1)[0]
        layers.append(frozenset(name.strip() for name in names.split("|")))
    return layers


def contract_layers(pyproject: str) -> Layers:
    """The one ``layers`` contract of ``[tool.importlinter]``, top to bottom, without the root package's prefix."""
    contracts = tomllib.loads(pyproject)["tool"]["importlinter"]["contracts"]
    stacks = [contract["layers"] for contract in contracts if contract["type"] == "layers"]
    assert len(stacks) == 1, f"pyproject.toml: expected one layers contract, found {len(stacks)}"
    return [
        frozenset(name.strip().removeprefix(f"{ROOT_PACKAGE}.") for name in layer.split("|"))
        for layer in stacks[0]
    ]


def differences(page: Layers, contract: Layers) -> list[str]:
    """The layers only the page has (``- page``) and only the contract has (``+ contract``), in stack order; empty
    when the two agree."""
    lines = difflib.ndiff(
        [" | ".join(sorted(layer)) for layer in page], [" | ".join(sorted(layer)) for layer in contract]
    )
    return [
        f"{'- page' if line[0] == '-' else '+ contract'}: {line[2:]}" for line in lines if line[:1] in "-+"
    ]


def test_the_pages_stack_is_the_layers_contract() -> None:
    page = page_layers(PAGE.read_text(encoding="utf-8"))
    contract = contract_layers(PYPROJECT.read_text(encoding="utf-8"))
    assert differences(page, contract) == [], (
        "docs/contributing/architecture.md's stack and pyproject.toml's layers contract differ: change both"
    )


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda layers: [frozenset({"extra"}), *layers], id="a layer added on top"),
        pytest.param(lambda layers: [*layers[:3], *layers[4:]], id="a layer dropped"),
        pytest.param(lambda layers: [layers[0] | {"extra"}, *layers[1:]], id="a sibling added"),
        pytest.param(lambda layers: [layers[1], layers[0], *layers[2:]], id="two layers swapped"),
    ],
)
def test_a_change_to_one_side_only_is_seen(change: Callable[[Layers], Layers]) -> None:
    contract = contract_layers(PYPROJECT.read_text(encoding="utf-8"))
    assert differences(change(contract), contract) != []
    assert differences(contract, change(contract)) != []


def test_the_pages_parser_reads_siblings_and_skips_descriptions() -> None:
    text = (
        "<!-- layers -->\n```\n"
        "cli                the command\n"
        "dags | plugin      the factory | the\n"
        "                   plugin, a line | with a bar\n"
        "contract           names\n"
        "```\n"
    )
    assert page_layers(text) == [frozenset({"cli"}), frozenset({"dags", "plugin"}), frozenset({"contract"})]


def test_every_top_level_module_is_in_the_stack_or_beside_it() -> None:
    text = PAGE.read_text(encoding="utf-8")
    stacked = set().union(*contract_layers(PYPROJECT.read_text(encoding="utf-8")))
    modules = {
        path.stem if path.suffix == ".py" else path.name
        for path in PACKAGE.iterdir()
        if (path.suffix == ".py" and path.name != "__init__.py") or (path / "__init__.py").exists()
    }
    unnamed = sorted(
        name
        for name in modules - stacked
        if f"`{name}/`" not in text and f"`{name}.py`" not in text and f"`{name}`" not in text
    )
    assert unnamed == [], "name each on docs/contributing/architecture.md: in the stack, or beside it and why"
