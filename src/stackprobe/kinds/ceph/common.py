"""What the Ceph kinds share: the Ceph command-line tools, the cluster speeds their
estimates assume before the cluster is known, and how a failed Ceph command is said."""

from __future__ import annotations

from stackprobe.spec.tools import Tool
from stackprobe.transport.base import CommandResult

CEPH = Tool("ceph", "ceph-common", ("ceph", "--version"), "Ceph cluster: status, OSD bench")
RADOS = Tool("rados", "ceph-common", ("rados", "--version"), "RADOS bench")
RBD = Tool("rbd", "ceph-common", ("rbd", "--version"), "RBD bench, the run's image")
CEPH_FUSE = Tool("ceph-fuse", "ceph-fuse", ("ceph-fuse", "--version"), "CephFS mount")

CEPH_CLI_S = 1.0  # one `ceph`/`rados`/`rbd` command: Python start-up and a mon round trip
ASSUMED_OSDS = 3  # osd_bench before the cluster is known
CLUSTER_BYTES_PER_S = 200 * 1024**2
CLUSTER_IOPS = 3000


def last_line(res: CommandResult) -> str:
    """A failed Ceph command's own last words (stderr, else stdout), or its exit status."""
    lines = [ln for ln in (res.stderr or res.stdout).splitlines() if ln.strip()]
    return lines[-1].strip() if lines else f"exit status {res.returncode}"
