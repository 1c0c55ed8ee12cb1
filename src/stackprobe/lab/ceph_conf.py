"""ceph.conf for the one-host lab cluster (pure text building).

Everything lives under the lab directory: data, keyrings, sockets, logs, PID files, so
nothing touches /etc/ceph or /var/lib/ceph and two labs can run side by side. The settings
make one host behave like a cluster: replicas may share a host (chooseleaf type 0), memory
targets are small, and pools may be deleted (stackprobe removes what it creates).

The daemons listen on 127.0.0.1, or — when the hosts lab's bridge is up — on the bridge's
address, so the lab hosts (network namespaces) are Ceph clients too; each gets a conf of
its own (`client_conf_text`) naming only the monitor and its own keyring.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

GiB = 1024**3


@dataclass(frozen=True)
class LabConf:
    dir: Path
    fsid: str
    mon_port: int
    osd_block_bytes: int = 10 * GiB  # sparse: only what is written takes space
    osd_memory_target: int = 1 * GiB  # BlueStore's lower bound is 896 MiB
    bind: str = "127.0.0.1"  # the daemons' address: loopback, or the hosts lab's bridge

    @property
    def conf_path(self) -> Path:
        return self.dir / "ceph.conf"

    @property
    def admin_keyring(self) -> Path:
        return self.dir / "ceph.client.admin.keyring"

    @property
    def mon_addr(self) -> str:
        return f"v2:{self.bind}:{self.mon_port}"

    @property
    def daemon_addr(self) -> str:
        """Lines that make every daemon listen on the bind address (none on loopback:
        the one-host lab as it always was)."""
        return "" if self.bind == "127.0.0.1" else f"public addr = {self.bind}\n"


def conf_text(c: LabConf) -> str:
    d = c.dir
    return f"""# stackprobe lab cluster: one host, everything under {d}
[global]
fsid = {c.fsid}
mon host = [{c.mon_addr}]
ms bind msgr1 = false
run dir = {d}/run
admin socket = {d}/run/$cluster-$name.asok
pid file = {d}/run/$cluster-$name.pid
log file = {d}/log/$cluster-$name.log
mon cluster log file = {d}/log/$cluster.log
auth allow insecure global id reclaim = false
osd crush chooseleaf type = 0
osd pool default size = 3
osd pool default min size = 2
osd pool default pg num = 16
osd pool default pgp num = 16
mon allow pool delete = true
mon data avail warn = 2
mon data avail crit = 1
mon warn on pool no redundancy = false
# Small OSDs fill in seconds under a benchmark and BlueStore aborts on ENOSPC before the
# monitor's full flag reaches the clients: stop writes well before the device is full.
mon osd nearfull ratio = 0.70
mon osd backfillfull ratio = 0.75
mon osd full ratio = 0.80
osd failsafe full ratio = 0.85

[client]
# daemons use the keyring in their own data directory; clients (ceph, rados, rbd, fio,
# ceph-fuse) this one
keyring = {c.admin_keyring}
# many clients at once (ceph CLI, ceph-fuse, fio): one socket each
admin socket = {d}/run/$cluster-$name.$pid.asok

[mon]
{c.daemon_addr}mon data = {d}/mon/$cluster-$id

[mgr]
{c.daemon_addr}mgr data = {d}/mgr/$cluster-$id

[osd]
{c.daemon_addr}osd data = {d}/osd/$cluster-$id
osd objectstore = bluestore
bluestore block create = true
bluestore block size = {c.osd_block_bytes}
osd memory target = {c.osd_memory_target}
bluestore cache autotune = true

[mds]
{c.daemon_addr}mds data = {d}/mds/$cluster-$id
"""


def client_conf_text(c: LabConf, client_dir: Path, client_id: str) -> str:
    """The conf of one lab host: the monitor, its own keyring, sockets and logs in its own
    directory (the hosts share the filesystem, not the admin key)."""
    return f"""# stackprobe lab cluster: the conf of client.{client_id}
[global]
fsid = {c.fsid}
mon host = [{c.mon_addr}]
ms bind msgr1 = false

[client]
keyring = {client_dir}/ceph.client.{client_id}.keyring
admin socket = {client_dir}/run/$cluster-$name.$pid.asok
log file = {client_dir}/log/$cluster-$name.$pid.log
"""
