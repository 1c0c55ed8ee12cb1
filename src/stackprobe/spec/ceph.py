"""The suite's `ceph:` section: which Ceph cluster to test and where stackprobe may write in it."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from stackprobe.spec.fields import Size
from stackprobe.spec.steps import StrictModel


class CephSettings(StrictModel):
    """Which Ceph cluster to test and where stackprobe may write in it.

    conf: unset means --ceph-conf, else the lab cluster in .stackprobe/lab/ceph, else
    /etc/ceph/ceph.conf. pool: 'create' makes a pool for the run (removed afterwards);
    a name uses that existing pool, where stackprobe only adds (and then removes) its own
    objects and images.
    """

    conf: str | None = None
    keyring: str | None = None
    client: str = Field(default="admin", pattern=r"^[A-Za-z0-9_.-]+$")
    pool: str = Field(default="create", pattern=r"^[A-Za-z0-9_.-]+$")
    pg_num: int = Field(default=32, ge=1)
    pool_size: int | None = Field(default=None, ge=1, le=10)
    image_size: Size = Size.of("2G")  # the RBD image for rbd_bench and fio on rbd
    fs_name: str | None = None  # which CephFS to mount when the cluster has several


@dataclass(frozen=True)
class CephNeeds:
    """What a step needs of the run's Ceph session: the cluster (always), an RBD image of at
    least `image_bytes` (0: the configured size; None: no image), for a step that works in
    the run's CephFS directory (`cephfs`) the bytes of files it lays out there, and whether
    it needs a pool of the run's own."""

    image_bytes: int | None = None
    cephfs: bool = False
    cephfs_bytes: int = 0
    # it writes objects it cannot name (and a stop would leave them): only in a pool the
    # run creates and removes, never in a user's (`ceph: pool: NAME`)
    own_pool: bool = False
