"""Which form a hosts file is, from its content (its name only breaks a tie for YAML).

- a `[section]` line, or a `key=value` on a host line that no MPI hostfile has → an Ansible
  INI inventory (an INI file of bare names reads the same as a hostfile: either way one
  role);
- a YAML mapping (a line `key:` opening a block, a `{`, or a `.yaml`/`.yml` name): hosts.yaml
  when it has a top-level `hosts:` list or `ssh:`, else an Ansible YAML inventory;
- anything else: an MPI hostfile (Open MPI's `name slots=N`, MPICH's `name:N`, bare names).
"""

from __future__ import annotations

import re
from enum import StrEnum

import yaml


class Form(StrEnum):
    HOSTS_YAML = "hosts.yaml"
    ANSIBLE_INI = "an Ansible INI inventory"
    ANSIBLE_YAML = "an Ansible YAML inventory"
    HOSTFILE = "an MPI hostfile"


MPI_KEYS = frozenset({"slots", "max_slots", "max-slots", "count", "cpu", "slot"})
_SECTION = re.compile(r"^\[[^\]]+\]\s*(?:[#;].*)?$")
_BLOCK_KEY = re.compile(r"^\s*[^\s#:][^:#]*:\s*(?:#.*)?$")  # 'all:' / '  hosts:' (nothing after)
_TOP_HOSTS_YAML = re.compile(r"^(?:hosts|ssh)\s*:")
_KEY_VALUE = re.compile(r"(?:^|\s)([A-Za-z_][A-Za-z0-9_-]*)=")


def form_of(text: str, filename: str = "") -> Form:
    lines = [ln for ln in (raw.split("#", 1)[0].rstrip() for raw in text.splitlines())
             if ln.strip()]
    if any(_SECTION.match(ln) for ln in lines):
        return Form.ANSIBLE_INI
    yaml_name = filename.endswith((".yaml", ".yml"))
    if yaml_name or any(_BLOCK_KEY.match(ln) for ln in lines) or text.lstrip().startswith("{"):
        if _top_keys(text) & {"hosts", "ssh"} or any(_TOP_HOSTS_YAML.match(ln) for ln in lines):
            return Form.HOSTS_YAML
        return Form.ANSIBLE_YAML
    for ln in lines:
        keys = _KEY_VALUE.findall(ln)
        if any(k not in MPI_KEYS for k in keys):
            return Form.ANSIBLE_INI
    return Form.HOSTFILE


def _top_keys(text: str) -> set[str]:
    """The top-level keys of a YAML mapping (JSON too), read as nodes: nothing expanded;
    empty when it is not one or cannot be read (the reader of its form then says why)."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError, ValueError):
        return set()
    if not isinstance(root, yaml.MappingNode):
        return set()
    return {k.value for k, _ in root.value if isinstance(k, yaml.ScalarNode)}
