"""What the Ceph kinds share: the Ceph command-line tools and the cluster speeds their
estimates assume before the cluster is known."""

from __future__ import annotations

from stackprobe.spec.tools import Tool

CEPH = Tool("ceph", "ceph-common", ("ceph", "--version"), "Ceph cluster: status, OSD bench")
RADOS = Tool("rados", "ceph-common", ("rados", "--version"), "RADOS bench")
RBD = Tool("rbd", "ceph-common", ("rbd", "--version"), "RBD bench, the run's image")
CEPH_FUSE = Tool("ceph-fuse", "ceph-fuse", ("ceph-fuse", "--version"), "CephFS mount")

CEPH_CLI_S = 1.0  # one `ceph`/`rados`/`rbd` command: Python start-up and a mon round trip
ASSUMED_OSDS = 3  # osd_bench before the cluster is known
CLUSTER_BYTES_PER_S = 200 * 1024**2
CLUSTER_IOPS = 3000
