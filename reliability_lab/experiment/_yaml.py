"""Reading YAML configs with the line of every field, and refusing duplicate keys.

PyYAML silently keeps the last of two equal keys (``runs: 2`` … ``runs: 50``); here the
document is first composed into nodes, which carry their position, and checked: a key given
twice in one mapping is a :class:`~reliability_lab.errors.ConfigError` naming the file, both
lines and the field. YAML merge keys (``<<: *anchor``) are not duplicates: keys written next
to them override the merged ones, as the YAML spec says. The line of every field is kept so
that validation errors can point at it (:func:`line_of`).

Aliases are bounded before anything is expanded: a document whose nodes, with every alias
expanded, number more than :data:`MAX_NODES` ("billion laughs"), nest deeper than
:data:`MAX_DEPTH`, or contain themselves (``x: &x [*x]``) is a ``ConfigError`` naming the line.
The check visits each distinct node once, so it costs time and memory in proportion to the
file, not to its expansion.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from reliability_lab.errors import ConfigError

__all__ = ["MAX_DEPTH", "MAX_NODES", "YamlDocument", "field_path", "line_of", "load_yaml"]

#: Most nodes (mappings, sequences, scalars) a config may hold once its aliases are expanded.
MAX_NODES = 100_000
#: Deepest nesting of mappings and sequences a config may hold, aliases expanded.
MAX_DEPTH = 64

Path_ = tuple[int | str, ...]
_MERGE_TAG = "tag:yaml.org,2002:merge"


@dataclass(frozen=True)
class YamlDocument:
    """A parsed YAML document and the 1-based line of each field path."""

    data: Any
    """The constructed Python value (None for an empty document)."""
    lines: Mapping[Path_, int] = field(default_factory=dict)
    """Field path (``("agents", 0, "model")``) → line where its key or item starts."""


def field_path(loc: Path_) -> str:
    """A field path as written in messages: ``agents[0].params.temperature``.

    >>> field_path(("agents", 0, "params", "temperature")), field_path(())
    ('agents[0].params.temperature', '<top level>')
    """
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "<top level>"


def line_of(lines: Mapping[Path_, int], loc: Path_) -> int | None:
    """Line of the longest prefix of ``loc`` that was written in the file, else None.

    >>> line_of({("llm",): 3, ("llm", "timeout_s"): 4}, ("llm", "timeout_s")), line_of({}, ("x",))
    (4, None)
    """
    for end in range(len(loc), 0, -1):
        line = lines.get(tuple(loc[:end]))
        if line is not None:
            return line
    return None


def _walk(
    node: yaml.Node, path: Path_, lines: dict[Path_, int], source: str, *, merged: bool
) -> None:
    """Record field lines below ``node``; raise on a key given twice in one mapping."""
    if isinstance(node, yaml.MappingNode):
        first: dict[tuple[str, str], int] = {}
        merges: list[yaml.Node] = []
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                merges.append(value_node)
                continue
            key = str(key_node.value) if isinstance(key_node, yaml.ScalarNode) else "<complex key>"
            line = key_node.start_mark.line + 1
            ident = (key_node.tag, key)
            if isinstance(key_node, yaml.ScalarNode) and ident in first:
                raise ConfigError(
                    f"{source}: line {line}: {field_path((*path, key))}: duplicate key {key!r} "
                    f"(first given on line {first[ident]})"
                )
            first[ident] = line
            sub = (*path, key)
            if merged:
                lines.setdefault(sub, line)
            else:
                lines[sub] = line
            _walk(value_node, sub, lines, source, merged=merged)
        for value_node in merges:  # keys of merged mappings count only where not overridden
            many = isinstance(value_node, yaml.SequenceNode)
            for target in value_node.value if many else [value_node]:
                _walk(target, path, lines, source, merged=True)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            sub = (*path, index)
            if merged:
                lines.setdefault(sub, item.start_mark.line + 1)
            else:
                lines[sub] = item.start_mark.line + 1
            _walk(item, sub, lines, source, merged=merged)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


class _Bounds:
    """Expanded size and height of every node, each distinct node visited once."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.known: dict[int, tuple[int, int]] = {}
        self.open: set[int] = set()

    def fail(self, node: yaml.Node, problem: str) -> ConfigError:
        return ConfigError(f"{self.source}: line {node.start_mark.line + 1}: {problem}")

    def visit(self, node: yaml.Node, depth: int) -> tuple[int, int]:
        """(nodes, height) of ``node`` with its aliases expanded; raise past a bound."""
        ident = id(node)
        if ident in self.open:
            raise self.fail(node, "recursive alias: this node contains itself")
        if depth > MAX_DEPTH:
            raise self.fail(node, f"nested deeper than {MAX_DEPTH} levels")
        if ident not in self.known:
            self.open.add(ident)
            size, height = 1, 0
            for child in _children(node):
                child_size, child_height = self.visit(child, depth + 1)
                size, height = size + child_size, max(height, child_height + 1)
                if size > MAX_NODES:
                    raise self.fail(
                        node, f"aliases expand this to more than {MAX_NODES} nodes (refused)"
                    )
            self.open.discard(ident)
            self.known[ident] = (size, height)
        size, height = self.known[ident]
        if depth + height > MAX_DEPTH:
            raise self.fail(node, f"nested deeper than {MAX_DEPTH} levels (aliases expanded)")
        return size, height


def load_yaml(text: str, *, source: str) -> YamlDocument:
    """Parse one YAML document safely, with field lines and duplicate-key checks.

    Raises
    ------
    ConfigError
        A key given twice in one mapping (file, line, field path, line of the first); aliases
        expanding past :data:`MAX_NODES` nodes or :data:`MAX_DEPTH` levels, or recursive.
    yaml.YAMLError
        Invalid YAML (the caller reports its position).
    """
    loader = yaml.SafeLoader(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:
            raise ConfigError(f"{source}: nested too deeply to read (refused)") from None
        if node is None:
            return YamlDocument(None)
        _Bounds(source).visit(node, 0)
        lines: dict[Path_, int] = {}
        _walk(node, (), lines, source, merged=False)
        return YamlDocument(loader.construct_document(node), lines)
    finally:
        loader.dispose()
