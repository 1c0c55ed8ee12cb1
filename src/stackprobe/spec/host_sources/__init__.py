"""Hosts the way clusters already list them, read into the one `HostsFile` model.

`--hosts` takes hosts.yaml (the full form, read by suite/yaml_model.py) or one of these, each
in its own module, all pure (text in, `HostsFile` out, or one ValueError line naming the
file, line and field of every problem, book.py):

- `hostlist.py`: node ranges as cluster tools write them, `node[01-16],gw1`, with roles
  `storage:oss[1-8],client:node[01-16]` (expanded by ClusterShell's NodeSet);
- `mpi_hostfile.py`: Open MPI (`node1 slots=4 max_slots=8`) and MPICH (`node1:4`) hostfiles;
- `ansible_ini.py`, `ansible_yaml.py`: Ansible inventories, groups as roles.

`detect.py` tells the file forms apart by their content; `book.py` is where every form
adds its hosts (duplicates, conflicting settings and the host limit are refused there).
"""

from __future__ import annotations

from stackprobe.spec.host_sources.book import MAX_HOSTS
from stackprobe.spec.host_sources.detect import Form, form_of
from stackprobe.spec.host_sources.hostlist import parse_hostlist

__all__ = ["MAX_HOSTS", "Form", "form_of", "parse_hostlist", "parse_file"]


def parse_file(text: str, filename: str, role: str | None = None):
    """A hosts file that is not hosts.yaml: its form found from its content, then read.
    `role` (from `--hosts ROLE:FILE`) is the role of every host of a hostfile."""
    from stackprobe.spec.host_sources.ansible_ini import parse_ansible_ini
    from stackprobe.spec.host_sources.ansible_yaml import parse_ansible_yaml
    from stackprobe.spec.host_sources.mpi_hostfile import parse_mpi_hostfile

    form = form_of(text, filename)
    if role is not None and form is not Form.HOSTFILE:
        raise ValueError(f"{filename}:1: role: {role}: only a hostfile takes a role "
                         f"(this is {form.value}: its groups are the roles)")
    if form is Form.ANSIBLE_INI:
        return parse_ansible_ini(text, filename)
    if form is Form.ANSIBLE_YAML:
        return parse_ansible_yaml(text, filename)
    if form is Form.HOSTFILE:
        return parse_mpi_hostfile(text, filename, role or "client")
    raise ValueError(f"{filename}:1: a hosts.yaml is read by the suite loader")
