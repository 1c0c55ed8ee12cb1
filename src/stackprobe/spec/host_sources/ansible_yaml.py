"""Ansible YAML inventories:

    all:
      vars: {ansible_user: bench}
      children:
        storage:
          hosts:
            oss[1:4]:
            mds1: {ansible_host: 10.0.0.5, ansible_port: 2222}
        client:
          hosts: {node01: , node02: }

Top-level keys are groups; a group holds `hosts` (a mapping of names or ranges to their
variables), `children` (groups, each written out or only named when defined elsewhere) and
`vars`. Roles, variables and what is refused are as for the INI form (ansible_groups.py),
every problem noted and the inventory walked on (book.py) but for unreadable YAML and the
node limit.
Read as YAML nodes (safe, no Python objects) so every error has its line; aliases are
followed, but the walk stops at `MAX_NODES` visits, so a file built to multiply itself
through aliases is refused instead of walked.
"""

from __future__ import annotations

import yaml

from stackprobe.spec.host_sources import ansible_vars
from stackprobe.spec.host_sources.ansible_groups import Groups
from stackprobe.spec.host_sources.book import HostBook
from stackprobe.spec.hosts import HostsFile

MAX_NODES = 20_000
MAX_BYTES = 256 * 1024
GROUP_KEYS = ("hosts", "children", "vars")


class _Walk:
    def __init__(self, book: HostBook):
        self.book = book
        self.groups = Groups(book)
        self.visits = 0

    def line(self, node: yaml.Node) -> int:
        return node.start_mark.line + 1

    def visit(self, node: yaml.Node) -> None:
        self.visits += 1
        if self.visits > MAX_NODES:
            raise self.book.fail(self.line(node), "inventory", f"more than {MAX_NODES} values "
                                 "(aliases expanding?)")

    def pairs(self, node: yaml.Node, what: str) -> list[tuple[str, yaml.Node, int]]:
        """A mapping's (key, value node, line); null is an empty mapping. Anything else, and
        a key that is not a name, is noted and left out."""
        self.visit(node)
        if _null(node):
            return []
        if not isinstance(node, yaml.MappingNode):
            self.book.note(self.line(node), what, "expected a mapping")
            return []
        out = []
        for key, value in node.value:
            self.visit(key)
            if not isinstance(key, yaml.ScalarNode) or not key.value.strip():
                self.book.note(self.line(key), what, "a key must be a name")
                continue
            out.append((key.value.strip(), value, self.line(key)))
        return out

    def group(self, name: str, node: yaml.Node, line: int) -> None:
        if name in GROUP_KEYS:
            self.book.note(line, name, "a group cannot be named like a section")
            return
        g = self.groups.get(name, line)
        if not _null(node):
            g.defined = True
        for key, value, kline in self.pairs(node, name):
            if key == "hosts":
                for pattern, host_vars, hline in self.pairs(value, f"{name}.hosts"):
                    for host in ansible_vars.host_names(pattern, self.book, hline):
                        self.groups.host(name, host, hline)
                        self.host_vars(host, host_vars)
            elif key == "children":
                for child, body, cline in self.pairs(value, f"{name}.children"):
                    if child not in GROUP_KEYS:  # else group() notes the name
                        self.groups.child(name, child, cline)
                    self.group(child, body, cline)
            elif key == "vars":
                for var, value_node, vline in self.pairs(value, f"{name}.vars"):
                    self.groups.var(name, var, self.scalar(value_node, var), vline)
            else:
                self.book.note(kline, f"{name}.{key}", "a group holds hosts, children and vars")

    def host_vars(self, host: str, node: yaml.Node) -> None:
        draft = self.book.drafts[host]
        for key, value, line in self.pairs(node, host):
            ansible_vars.apply(self.book, draft, key, self.scalar(value, key), line)

    def scalar(self, node: yaml.Node, what: str) -> object:
        self.visit(node)
        if not isinstance(node, yaml.ScalarNode):
            return [] if isinstance(node, yaml.SequenceNode) else {}
        return node.value


def _null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null")


def parse_ansible_yaml(text: str, filename: str) -> HostsFile:
    book = HostBook(filename)
    if len(text) > MAX_BYTES:
        raise book.fail(1, "inventory", f"larger than {MAX_BYTES // 1024} kB")
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(str(exc.problem or exc).split())
        raise book.fail(mark.line + 1 if mark else 1, "YAML", problem) from None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise book.fail(1, "YAML", " ".join(str(exc).split())[:200] or "unreadable") from None
    if root is None:
        raise book.fail(1, "inventory", "empty")
    walk = _Walk(book)
    try:
        for name, body, line in walk.pairs(root, "inventory"):
            walk.group(name, body, line)
    except RecursionError:
        raise book.fail(1, "inventory", "nested too deep") from None
    walk.groups.finish()
    return book.hosts_file()
