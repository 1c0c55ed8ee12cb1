"""What of an Ansible host's variables stackprobe uses, and Ansible's host ranges.

ansible_host → address, ansible_user → ssh user, ansible_port → ssh port,
ansible_ssh_private_key_file → ssh identity (and their older `ansible_ssh_*` spellings),
ansible_connection=local → this machine (`access: local`). Every other variable is
Ansible's own business and is left alone.

Ansible writes ranges `node[01:16]` and `node[1:16:2]`; they are read as NodeSet's
`node[01-16]`, `node[1-16/2]`. Letter ranges (`[a:f]`) are refused by name.
"""

from __future__ import annotations

import re

from stackprobe.spec.host_sources.book import Draft, HostBook
from stackprobe.spec.host_sources.hostlist import expand

VARS = {
    "ansible_host": "address", "ansible_ssh_host": "address",
    "ansible_user": "user", "ansible_ssh_user": "user",
    "ansible_port": "port", "ansible_ssh_port": "port",
    "ansible_ssh_private_key_file": "identity", "ansible_private_key_file": "identity",
    "ansible_connection": "access",
}
_RANGE = re.compile(r"\[([^\[\]:]*):([^\[\]:]*)(?::([^\[\]:]*))?\]")


class _Unexpanded(ValueError):
    """A host pattern that does not expand: noted at its line by host_names."""


def host_names(pattern: str, book: HostBook, line: int) -> list[str]:
    """The names an inventory's host pattern stands for; none when it cannot be read (the
    problem noted at its line, and the inventory read on)."""
    def nodeset(m: re.Match) -> str:
        lo, hi, step = m.group(1), m.group(2), m.group(3)
        if not (lo.isdigit() and hi.isdigit() and (step is None or step.isdigit())):
            raise _Unexpanded("only numeric ranges are read ([01:16], [1:9:2])")
        return f"[{lo}-{hi}{'/' + step if step else ''}]"

    if "[" not in pattern:
        return [pattern]
    try:
        return expand(_RANGE.sub(nodeset, pattern), _Unexpanded)
    except _Unexpanded as exc:
        book.note(line, pattern, str(exc))
        return []


def apply(book: HostBook, draft: Draft, key: str, value: object, line: int) -> None:
    """Set the host setting an Ansible variable stands for (others are ignored); a value
    that cannot be one is noted and left out."""
    target = VARS.get(key)
    if target is None:
        return
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        book.note(line, key, f"{value!r} is not a single value")
        return
    text = str(value).strip()
    if target == "port":
        if not text.isdigit() or not 1 <= int(text[:6]) <= 65535:
            book.note(line, key, f"{text!r} is not a port number")
        else:
            book.set(draft, "port", int(text), line)
    elif target == "access":
        if text not in ("local", "ssh", "smart", "paramiko"):
            book.note(line, key, f"{text!r}: stackprobe reaches hosts over ssh or runs locally "
                      "(local)")
        else:
            book.set(draft, "access", "local" if text == "local" else "ssh", line)
    elif not text:
        book.note(line, key, "empty")
    else:
        book.set(draft, target, text, line)
