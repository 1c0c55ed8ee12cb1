"""The hosts lab's hosts.yaml, and what the Ceph lab needs to know of the hosts lab.

The file describes the lab as a cluster is described: this machine — where the lab Ceph
cluster runs — as a local `storage` entry (no SSH: its commands run here; the others reach
it at the bridge address), and each namespace host as a `client` whose `ceph:` block names
its own conf and keyring in the hosts lab's directory (`ceph/<host>/`). Those files are
written by `stackprobe lab ceph up` when it finds this lab's bridge (lab/ceph_clients.py),
and removed by `lab ceph down`; until then a Ceph step on the hosts says the conf is missing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import yaml

from stackprobe.store.rundir import atomic_write

NIC_SPEED_MBPS = 10_000
STORAGE_HOST = "ceph"  # the local entry: this machine, where the lab Ceph cluster runs
CEPH_SUBDIR = "ceph"
CLIENT_PREFIX = "lab-"


@dataclass
class LabClient:
    """A lab host as a Ceph client: its cephx user and where its files are."""

    host: str  # the hosts lab's name: h1, h2 ...
    netns: str  # its network namespace
    id: str  # the cephx id: lab-h1 (entity client.lab-h1)
    dir: str  # conf, keyring, sockets and logs of this client

    @property
    def conf(self) -> str:
        return str(Path(self.dir) / "ceph.conf")

    @property
    def keyring(self) -> str:
        return str(Path(self.dir) / f"ceph.client.{self.id}.keyring")

    def as_dict(self) -> dict:
        return asdict(self)


def client_id(host: str) -> str:
    return f"{CLIENT_PREFIX}{host}"


def client_dir(lab_dir: str | Path, host: str) -> Path:
    return Path(lab_dir) / CEPH_SUBDIR / host


def lab_client(state, h) -> LabClient:
    """The Ceph client of namespace host `h` (a HostRecord) of the hosts lab `state`."""
    return LabClient(h.name, h.netns, client_id(h.name), str(client_dir(state.dir, h.name)))


def write_hosts_yaml(state, bridge_address: str) -> None:
    """hosts.yaml for `run --hosts`, validated as a run will read it."""
    from stackprobe.suite.yaml_model import load_hosts

    storage = {"name": STORAGE_HOST, "access": "local", "address": bridge_address,
               "roles": ["storage"]}
    clients = []
    for h in state.hosts:
        c = lab_client(state, h)
        clients.append({"name": h.name, "address": h.address, "roles": ["client"],
                        "nic_speed_mbps": NIC_SPEED_MBPS, "directories": [h.data_dir],
                        "ceph": {"conf": c.conf, "client": c.id, "keyring": c.keyring}})
    data = {
        "ssh": {"user": "root", "identity": state.identity, "known_hosts": state.known_hosts,
                "connect_timeout": 10},
        "hosts": [storage, *clients],
    }
    header = (f"# stackprobe lab hosts ({len(state.hosts)} hosts, prefix {state.prefix}); "
              f"removed by `stackprobe lab hosts down --dir {state.dir}`\n"
              f"# '{STORAGE_HOST}' is this machine (the lab Ceph cluster's host); the clients' "
              f"Ceph files are written by `stackprobe lab ceph up`\n")
    path = Path(state.hosts_yaml)
    atomic_write(path, header + yaml.safe_dump(data, sort_keys=False))
    load_hosts(path)  # what `run --hosts` will read must validate
