"""Read a fleet file's YAML into plain data, the line of every field path, and its duplicate keys.

Whatever the text, the outcome is data or a :class:`FleetSpecError` naming the line and the fix, never a Python
error: the text's size is bounded (:data:`~sagemaker_fleet.fleetspec.limits.SPEC_BYTES_MAX`), nesting is bounded
(PyYAML composes recursively, so ``[[[[…`` would exhaust the stack), an alias may not hold itself, the document's
nodes with every alias expanded are bounded (:data:`~sagemaker_fleet.fleetspec.limits.SPEC_NODES_MAX`: PyYAML
shares an aliased node, but every check after it walks each use), and a value a tag or its looks force into a type
it cannot have (``2026-13-45``, a number of 5,000 digits, ``!!bool maybe``) is reported where it is written.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from sagemaker_fleet.fleetspec.errors import FleetSpecError
from sagemaker_fleet.fleetspec.issue import SpecIssue
from sagemaker_fleet.fleetspec.limits import SPEC_BYTES_MAX, SPEC_NODES_MAX
from sagemaker_fleet.fleetspec.paths import join

#: Levels a document may nest. A fleet spec needs 5 (``cities[0].vpc.subnets[0]``); the bound only keeps the
#: readers' recursion (PyYAML's, ours, pydantic's) far from Python's stack limit.
MAX_NESTING = 20
SPEC_DOCS = "docs/guides/fleet-spec.md"


class _TooDeep(Exception):
    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, with the nesting bounded and the node being constructed remembered for errors."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.depth = 0
        self.current: yaml.Node | None = None

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                raise _TooDeep(self.peek_event().start_mark.line + 1)  # type: ignore[no-untyped-call]
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        self.current = node
        return super().construct_object(node, deep)


def read_yaml(text: str, source: str) -> tuple[object, dict[str, int], list[SpecIssue]]:
    """The document, the line of every field path, and duplicate keys (PyYAML silently keeps the last one)."""
    if len(text) > SPEC_BYTES_MAX or len(text.encode("utf-8", "surrogatepass")) > SPEC_BYTES_MAX:
        raise FleetSpecError([too_large(len(text.encode("utf-8", "surrogatepass")))], source)
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError as exc:
        raise FleetSpecError([_reader_issue(exc, text)], source) from exc
    try:
        node = _compose(loader, text, source)
        lines: dict[str, int] = {}
        duplicates: list[SpecIssue] = []
        _index_lines(node, "", lines, duplicates, set())
        shape = _Shape(source)
        shape.check(node)
        if shape.nodes(node) > SPEC_NODES_MAX:
            raise FleetSpecError([_too_many_nodes(shape.nodes(node))], source)
        return _construct(loader, node, source), lines, duplicates
    finally:
        loader.dispose()


def _compose(loader: _Loader, text: str, source: str) -> yaml.Node:
    try:
        node: yaml.Node | None = loader.get_single_node()
    except _TooDeep as exc:
        raise FleetSpecError([_too_deep(exc.line)], source) from None
    except yaml.reader.ReaderError as exc:
        raise FleetSpecError([_reader_issue(exc, text)], source) from exc
    except yaml.MarkedYAMLError as exc:
        raise FleetSpecError([_syntax_issue(exc, text)], source) from exc
    except yaml.YAMLError as exc:
        raise FleetSpecError([SpecIssue("", f"YAML error: {_one_line(str(exc))}")], source) from exc
    if node is None:
        raise FleetSpecError([SpecIssue("", f"the file is empty; write a fleet spec ({SPEC_DOCS})")], source)
    return node


def _construct(loader: _Loader, node: yaml.Node, source: str) -> object:
    try:
        return loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        fix = (
            "a key must be plain text; quote it"
            if "unhashable" in (exc.problem or "")
            else "remove the tag: a fleet spec holds plain text, numbers, true/false, lists and mappings"
        )
        raise FleetSpecError([_marked_issue(exc, "YAML error", fix)], source) from exc
    except (ValueError, KeyError, AttributeError, TypeError, OverflowError) as exc:
        # a scalar that its tag (``!!int x``) or its looks (``2026-13-45`` is a date) force into a type it is not
        bad = loader.current
        line = bad.start_mark.line + 1 if bad is not None else None
        value = str(bad.value) if isinstance(bad, yaml.ScalarNode) else "?"
        shown, detail = repr(value), f" ({_one_line(str(exc))})" if isinstance(exc, ValueError) else ""
        if len(value) > 40:
            shown, detail = f"a value of {len(value)} characters", ""
        issue = SpecIssue(
            "",
            f"cannot read {shown} as {_tag_name(bad)}{detail}; fix the value, or quote it if it is text",
            line,
        )
        raise FleetSpecError([issue], source) from exc


def _tag_name(node: yaml.Node | None) -> str:
    tag = node.tag if node is not None else ""
    return tag.rsplit(":", 1)[-1] if tag.startswith("tag:yaml.org,2002:") else (tag or "a value")


def _index_lines(
    node: yaml.Node, path: str, lines: dict[str, int], dups: list[SpecIssue], walked: set[int]
) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if id(node) in walked:
        return  # an alias of a node already walked: many aliases of one node would multiply the walk
    walked.add(id(node))
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            key = str(key_node.value) if isinstance(key_node, yaml.ScalarNode) else "?"
            child = join(path, key)
            if key in seen:
                dups.append(
                    SpecIssue(
                        child,
                        f"key `{key}` appears twice (first at line {seen[key]}); keep one",
                        key_node.start_mark.line + 1,
                    )
                )
            else:
                seen[key] = key_node.start_mark.line + 1
            _index_lines(value_node, child, lines, dups, walked)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _index_lines(item, f"{path}[{index}]", lines, dups, walked)


def _children(node: yaml.Node, path: str) -> list[tuple[yaml.Node, str]]:
    if isinstance(node, yaml.MappingNode):
        pairs: list[tuple[yaml.Node, str]] = []
        for key, value in node.value:
            pairs += [
                (key, path),
                (value, join(path, str(key.value) if isinstance(key, yaml.ScalarNode) else "?")),
            ]
        return pairs
    if isinstance(node, yaml.SequenceNode):
        return [(item, f"{path}[{index}]") for index, item in enumerate(node.value)]
    return []


class _Shape:
    """Heights and sizes of the document's nodes, aliases expanded; each node is measured once, so many aliases of
    one node cost nothing to measure. :meth:`check` fails when the document nests deeper than :data:`MAX_NESTING`
    or an alias holds its anchor; :meth:`nodes` is a checked node's size, every alias in it counted as the nodes it
    stands for."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.heights: dict[int, int] = {}
        self.sizes: dict[int, int] = {}
        self.open: set[int] = set()

    def nodes(self, node: yaml.Node) -> int:
        return self.sizes[id(node)]

    def check(self, node: yaml.Node, path: str = "", depth: int = 1) -> int:
        if id(node) in self.open:
            issue = SpecIssue(
                path,
                "an alias is used inside its own anchor (`&a [*a]`), which makes an endless value; "
                "write the value out",
                node.start_mark.line + 1,
            )
            raise FleetSpecError([issue], self.source)
        height = self.heights.get(id(node))
        if height is None:
            if depth > MAX_NESTING:
                raise FleetSpecError([_too_deep(node.start_mark.line + 1)], self.source)
            self.open.add(id(node))
            children = _children(node, path)
            height = 1 + max((self.check(child, at, depth + 1) for child, at in children), default=0)
            self.open.discard(id(node))
            self.heights[id(node)] = height
            self.sizes[id(node)] = 1 + sum(self.sizes[id(child)] for child, _ in children)
        if depth + height - 1 > MAX_NESTING:
            raise FleetSpecError([_too_deep(node.start_mark.line + 1)], self.source)
        return height


def too_large(size: int) -> SpecIssue:
    """A fleet file over :data:`SPEC_BYTES_MAX`."""
    return SpecIssue(
        "",
        f"the file has {size:,} bytes; a fleet spec may have at most {SPEC_BYTES_MAX:,} (SPEC_BYTES_MAX): "
        "split the fleet into several files, or move what every city shares into `defaults` or `job:`",
    )


def _too_many_nodes(nodes: int) -> SpecIssue:
    return SpecIssue(
        "",
        f"the document has {nodes:,} values with its aliases expanded; a fleet spec may have at most "
        f"{SPEC_NODES_MAX:,} (SPEC_NODES_MAX): write out what the aliases repeat, or split the fleet into "
        "several files",
    )


def _too_deep(line: int) -> SpecIssue:
    return SpecIssue(
        "",
        f"the document nests more than {MAX_NESTING} levels deep here (brackets or aliases); a fleet spec needs "
        "at most 5 (cities[0].vpc.subnets[0]): close the brackets or remove the extra levels",
        line,
    )


def _marked_issue(exc: yaml.MarkedYAMLError, kind: str, fix: str) -> SpecIssue:
    mark = exc.problem_mark
    line = mark.line + 1 if mark is not None else None
    return SpecIssue("", f"{kind}: {_problem(exc)}; {fix}", line)


def _problem(exc: yaml.MarkedYAMLError) -> str:
    """PyYAML's problem on one line, with where the construct it was in began."""
    problem = exc.problem or "invalid YAML"
    if exc.context and exc.context_mark is not None:
        problem = f"{problem} ({exc.context} at line {exc.context_mark.line + 1})"
    return _one_line(problem)


#: A key at the start of a line (after an optional list dash): plain, or quoted.
_KEY_RE = re.compile(r"""\s*(?:-\s+)?("[^"]*"|'[^']*'|[^\s#'"\-?:][^#:]*?|[-?:][^\s#:][^#:]*?)\s*:(?:\s|$)""")


def _key_on(lines: list[str], index: int) -> str | None:
    """The mapping key written on line ``index`` (0-based), or None."""
    if not 0 <= index < len(lines):
        return None
    match = _KEY_RE.match(lines[index])
    return match.group(1).strip("'\"") if match else None


def _syntax_issue(exc: yaml.MarkedYAMLError, text: str) -> SpecIssue:
    """A syntax error named by the key it broke: the key on the problem's line (a slip of indentation is nearly
    always there) and the key above it, rather than PyYAML's parser states ("expected <block end>, but found
    '<block mapping start>'"), which stay at the end for the rare case they say more."""
    fix = "fix the indentation or quoting there"
    mark = exc.problem_mark
    if mark is None:
        return _marked_issue(exc, "YAML syntax error", fix)
    lines = text.splitlines()
    at = _key_on(lines, mark.line)
    above = next(
        ((i + 1, key) for i in range(mark.line - 1, -1, -1) if (key := _key_on(lines, i)) is not None), None
    )
    detail = f" (PyYAML: {_problem(exc)})"
    if at is not None and above is not None:
        message = (
            f"YAML syntax error: key '{at}' does not line up with the key '{above[1]}' above it (line "
            f"{above[0]}); fix the indentation: indent '{at}' exactly as far as the key it belongs beside (spaces, "
            f"not tabs), or quote a value that holds ': '{detail}"
        )
    elif at is not None:
        message = f"YAML syntax error at key '{at}'; {fix}{detail}"
    elif above is not None:
        message = f"YAML syntax error below key '{above[1]}' (line {above[0]}); {fix}{detail}"
    else:
        return _marked_issue(exc, "YAML syntax error", fix)
    return SpecIssue("", message, mark.line + 1)


def _reader_issue(exc: yaml.reader.ReaderError, text: str) -> SpecIssue:
    line = text.count("\n", 0, exc.position) + 1 if isinstance(exc.position, int) else None
    character = exc.character if isinstance(exc.character, int) else 0
    return SpecIssue(
        "", f"the character U+{character:04X} is not allowed in YAML ({exc.reason}); remove it", line
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())
