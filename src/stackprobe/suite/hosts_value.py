"""What `--hosts` names, read into a `HostsFile`: a hosts.yaml (the full form), another
hosts file (an MPI hostfile, an Ansible inventory: spec/host_sources), `ROLE:FILE` (a
hostfile's hosts, all in that role), or hosts and ranges on the command line
(`node[01-16],gw1`, `storage:oss[1-8],client:node[01-16]`).

A value that names an existing file is that file; a value with a `/` or a file suffix that
names none is a missing file (not a host called `hosts.yaml`); anything else is a host list.
Every problem is one SuiteError line naming the file (or `--hosts`), line and field.
"""

from __future__ import annotations

from pathlib import Path

from stackprobe.spec import host_sources
from stackprobe.spec.host_sources.detect import Form
from stackprobe.spec.host_sources.hostlist import ROLE
from stackprobe.spec.hosts import HostsFile
from stackprobe.suite.yaml_model import MAX_BYTES, SuiteError, load_hosts, read_text_file

FILE_SUFFIXES = (".yaml", ".yml", ".ini", ".txt", ".hosts", ".cfg", ".conf", ".inventory")


def load_hosts_value(value: str | Path) -> HostsFile:
    text_value = str(value)
    path = Path(text_value)
    role = None
    if not path.is_file():
        m = ROLE.match(text_value)
        rest = text_value[m.end():] if m else ""
        if m and Path(rest).is_file():
            role, path = m.group(1), Path(rest)
        elif "/" in text_value or path.suffix in FILE_SUFFIXES:
            raise SuiteError(f"{text_value}: no such hosts file")
        else:
            return _one_line(lambda: host_sources.parse_hostlist(text_value))
    text = read_text_file(path, "hosts file")
    if len(text) > MAX_BYTES:
        raise SuiteError(f"{path}:1: {len(text)} characters; a hosts file is a few kB "
                         f"(the limit is {MAX_BYTES})")
    if role is None and host_sources.form_of(text, str(path)) is Form.HOSTS_YAML:
        return load_hosts(path)
    return _one_line(lambda: host_sources.parse_file(text, str(path), role))


def stored(value: str | Path) -> str:
    """How a run keeps its --hosts for `resume`: a file by its absolute path, a host list
    as written."""
    path = Path(str(value))
    if path.is_file():
        return str(path.resolve())
    m = ROLE.match(str(value))
    if m and Path(str(value)[m.end():]).is_file():
        return f"{m.group(1)}:{Path(str(value)[m.end():]).resolve()}"
    return str(value)


def _one_line(parse) -> HostsFile:
    try:
        return parse()
    except ValueError as exc:
        raise SuiteError(" ".join(str(exc).split())) from None
