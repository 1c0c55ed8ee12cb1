"""The lab hosts as Ceph clients: a cephx user, a keyring and a conf of their own.

When the hosts lab's bridge is up at `lab ceph up`, the daemons listen on the bridge
address and every lab host gets, in the hosts lab's directory (where its hosts.yaml points,
`hosts_lab.ceph_files`), a conf naming only the monitor and a keyring of a user of its own,
`client.lab-<host>`, never the admin key. Its caps are the least the client rungs need:

- mon `allow r`: read the maps (every client), and `profile rbd`'s blocklisting of a dead
  client's watch, which librbd asks for when it opens an image another client crashed in;
- osd `allow rwx tag rbd *=*`: objects and RBD images (the class calls of librbd) in the
  pools with the `rbd` application — the run's own pool is one — and nowhere else;
- osd `allow rw tag cephfs data=<fs>` and mds `allow rw`: the lab's CephFS, mounted with
  ceph-fuse by each host on its own;
- mgr `allow r`: `ceph -s` answers in full.

`reachable` asks, from inside each host's network namespace with that host's own conf and
key, whether the cluster answers — what `lab ceph status` shows.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from stackprobe.lab import netns
from stackprobe.lab.ceph_conf import LabConf, client_conf_text
from stackprobe.lab.hosts_file import LabClient, lab_client
from stackprobe.lab.hosts_lab import BRIDGE_ADDRESS, State

REACH_TIMEOUT_S = 20


def caps(fs_name: str) -> list[str]:
    """`ceph auth get-or-create` arguments after the entity: the least the tests need."""
    return ["mon", "allow r, profile rbd",
            "osd", f"allow rwx tag rbd *=*, allow rw tag cephfs data={fs_name}",
            "mds", "allow rw", "mgr", "allow r"]


def write_files(c: LabConf, client: LabClient) -> None:
    """The client's conf and the directories its sockets and logs go to."""
    d = Path(client.dir)
    for sub in ("run", "log"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    Path(client.conf).write_text(client_conf_text(c, d, client.id), encoding="utf-8")
    os.chmod(client.conf, 0o644)


def reachable(client: LabClient) -> str | None:
    """None when the cluster answers this client in its namespace, else why not (a line)."""
    argv = ["ip", "netns", "exec", client.netns, "ceph", "-c", client.conf, "--id", client.id,
            "--connect-timeout", str(REACH_TIMEOUT_S - 5), "health", "-f", "json"]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=REACH_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return f"no answer within {REACH_TIMEOUT_S} s"
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        return lines[-1].strip() if lines else f"exit status {proc.returncode}"
    try:
        return None if json.loads(proc.stdout).get("status") else "no health in the answer"
    except (json.JSONDecodeError, AttributeError):
        return "an answer that is not JSON"


@dataclass(frozen=True)
class Bridge:
    """A hosts lab that is up: its bridge's address here, and its hosts as clients."""

    address: str
    lab_dir: str
    clients: list[LabClient]


def bridge_of(hosts_dir: Path) -> Bridge | None:
    """The hosts lab in `hosts_dir` when its bridge exists, else None."""
    state = State.load(hosts_dir)
    if state is None or netns.link_kind(state.bridge) != "bridge":
        return None
    return Bridge(BRIDGE_ADDRESS, state.dir, [lab_client(state, h) for h in state.hosts])
