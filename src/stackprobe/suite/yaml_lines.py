"""YAML loading that remembers where every value came from.

pydantic reports an error location as a path ('steps', 3, 'iodepth'); a person needs
'quick.yaml:41'. load_with_lines() returns the plain data and a map from each path to
its line (1-based), so a validation error becomes one line naming file, line and field.
"""

from __future__ import annotations

from typing import Any

import yaml

Path_ = tuple[Any, ...]


class YamlSyntaxError(ValueError):
    """The text is not valid YAML; carries the line fio-style users need."""

    def __init__(self, line: int | None, message: str):
        super().__init__(message)
        self.line = line
        self.message = message


def load_with_lines(text: str) -> tuple[Any, dict[Path_, int]]:
    """Parse YAML text; return (data, {path: line})."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        raise YamlSyntaxError(line, f"{exc.problem or exc}") from None
    except yaml.YAMLError as exc:  # pragma: no cover - yaml raises Marked errors in practice
        raise YamlSyntaxError(None, str(exc)) from None
    if node is None:
        return None, {}
    lines: dict[Path_, int] = {}
    _walk(node, (), lines)
    # Constructing from the composed text again keeps SafeLoader's tag handling exact.
    data = yaml.safe_load(text)
    return data, lines


def _walk(node: yaml.Node, path: Path_, lines: dict[Path_, int]) -> None:
    # A key's own line is the better pointer than where its value starts ('defaults:'
    # rather than the first line under it), so keys are recorded first and kept.
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            lines[path + (key_node.value,)] = key_node.start_mark.line + 1
            _walk(value_node, path + (key_node.value,), lines)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, path + (i,), lines)


def line_for(lines: dict[Path_, int], path: Path_) -> int | None:
    """Line of the deepest part of `path` present in the YAML.

    Elements the YAML does not have (pydantic inserts union tags such as 'fio' into its
    error locations) are skipped rather than ending the walk.
    """
    found: Path_ = ()
    for element in path:
        if found + (element,) in lines:
            found = found + (element,)
    return lines.get(found)
