"""Ceph from many client hosts: how each reaches the cluster, and what the run makes for it.

A Ceph step with `hosts:` runs its tool on every client host at once. Each host uses its
own way in — the `ceph:` block of its hosts.yaml entry (conf, cephx user, keyring as they
are on that host), else the run's conf, user and keyring at the same paths, as a cluster
whose clients all carry /etc/ceph/ceph.conf has — and its own names in the cluster, all
starting with the run's tag and ending with the host: rados bench run names, an RBD image
`<tag>-<host>-img`, a CephFS directory `<tag>/<host>` under a ceph-fuse mount the host makes
itself in its scratch directory.

Images are created by the run's own session (the controller's user): creating the first
image validates the pool by allocating a snapshot id at the monitor, which a client whose
OSD caps name pools by application tag may not do; each client then fills its image with
its own key. Every image and mount is recorded the moment it exists; `teardown` (called by
the session's, before the fleet closes) unmounts each host's CephFS over that host's own
transport and removes the images — after success, failure and Ctrl-C alike.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from stackprobe.errors import UserError
from stackprobe.kinds.ceph.common import last_line
from stackprobe.kinds.ceph.target import CephTarget
from stackprobe.transport.base import Background

if TYPE_CHECKING:
    from stackprobe.kinds.ceph.session import CephSession
    from stackprobe.transport.fleet import HostHandle

MOUNT_TIMEOUT_S = 30.0
FILL_IO_SIZE = "4M"


def host_target(run_target: CephTarget, handle: HostHandle) -> CephTarget:
    """The target as one host reaches it: its hosts.yaml `ceph:` block over the run's."""
    own = handle.host.ceph
    if own is None:
        return run_target
    keyring = Path(own.keyring) if own.keyring else (None if own.client else run_target.keyring)
    return replace(run_target, conf=Path(own.conf) if own.conf else run_target.conf,
                   client=own.client or run_target.client, keyring=keyring)


@dataclass
class CephClient:
    """One client host of the run and what the run made for it in the cluster."""

    handle: HostHandle
    target: CephTarget  # paths as they are on that host
    tag: str  # stackprobe-<run id>-<host>: every name this client uses starts with it
    image: str | None = None  # pool/name, once created
    image_bytes: int = 0
    mount_dir: str | None = None  # its ceph-fuse mount point, once mounted
    fuse: Background | None = None

    @property
    def name(self) -> str:
        return self.handle.name

    def cli(self) -> list[str]:
        return self.target.cli()

    def env(self) -> dict[str, str]:
        """For librados clients that read only CEPH_CONF (fio's rbd engine): the host's
        conf, which must name the user's keyring when it is not at Ceph's default path."""
        return {"CEPH_CONF": str(self.target.conf)}


class CephClients:
    """The run's client hosts, each set up on first use (thread-safe: fleets call at once)."""

    def __init__(self, session: CephSession):
        self.session = session
        self._clients: dict[str, CephClient] = {}
        self._lock = threading.Lock()

    def of(self, handle: HostHandle) -> CephClient:
        with self._lock:
            if handle.name not in self._clients:
                self._clients[handle.name] = CephClient(
                    handle, host_target(self.session.target, handle),
                    f"{self.session.run_tag}-{handle.name}")
            return self._clients[handle.name]

    # ------------------------------------------------------------------ on demand
    def image(self, client: CephClient, size_bytes: int, execute) -> str:
        """The client's own image (pool/name), created by the run's user and filled by the
        client with its own key, so reads hit data; `execute(label, argv, on=)` records."""
        if client.image is not None:
            return client.image
        name = f"{self.session.pool}/{client.tag}-img"
        res = execute(f"{client.name}-rbd-create",
                      ["rbd", *self.session.target.cli(), "create", name,
                       "--size", f"{max(1, size_bytes // 1024**2)}M", "--image-feature", "layering"])
        if not res.ok:
            raise UserError(f"could not create image {name}: {last_line(res)}")
        with self._lock:
            client.image, client.image_bytes = name, size_bytes  # from here on teardown removes it
        res = execute(f"{client.name}-rbd-fill",
                      ["rbd", *client.cli(), "bench", "--io-type", "write", "--io-pattern", "seq",
                       "--io-size", FILL_IO_SIZE, "--io-threads", "16",
                       "--io-total", str(size_bytes), name], on=client.handle.transport)
        if not res.ok:
            raise UserError(f"{client.name}: could not fill image {name}: {last_line(res)}")
        return name

    def cephfs_dir(self, client: CephClient, execute) -> str:
        """The client's own directory in the CephFS, under a mount it makes on first use."""
        t = client.handle.transport
        if client.mount_dir is None:
            mnt = f"{client.handle.scratch}/cephfs"
            execute(f"{client.name}-mkdir-mnt", ["mkdir", "-p", "--", mnt], on=t)
            argv = ["ceph-fuse", "-f", *client.cli(), mnt]
            if client.target.fs_name:
                argv.insert(-1, f"--client_fs={client.target.fs_name}")
            fuse = t.start(argv, log=f"{client.handle.scratch}/ceph-fuse.log")
            with self._lock:
                client.fuse, client.mount_dir = fuse, mnt  # teardown unmounts from here on
            deadline = time.monotonic() + MOUNT_TIMEOUT_S
            while not t.run(["mountpoint", "-q", mnt], timeout=15).ok:
                if not fuse.alive() or time.monotonic() > deadline:
                    log = t.run(["tail", "-n", "3", f"{client.handle.scratch}/ceph-fuse.log"],
                                timeout=15).stdout.strip().splitlines()
                    raise UserError(f"{client.name}: ceph-fuse could not mount the CephFS: "
                                    f"{log[-1] if log else '(no output)'}")
                time.sleep(0.2)
        work = f"{client.mount_dir}/{self.session.run_tag}/{client.name}"
        res = execute(f"{client.name}-mkdir", ["mkdir", "-p", "--", work], on=t)
        if not res.ok:
            raise UserError(f"{client.name}: cannot make {work}: {last_line(res)}")
        return work

    # ------------------------------------------------------------------ the end
    def teardown(self) -> list[str]:
        """Unmount every client's CephFS and remove every client's image; problems in words
        (never raises: it runs in finally)."""
        problems: list[str] = []
        for c in list(self._clients.values()):
            if c.mount_dir is not None:
                problems += self._unmount(c)
        for c in list(self._clients.values()):
            if c.image is not None:
                res = self.session.rbd_bounded("rm", "--no-progress", c.image, timeout=300)
                if not res.ok and "No such file" not in res.stderr:
                    problems.append(f"could not remove image {c.image}: {last_line(res)}")
                else:
                    c.image = None
        return problems

    def _unmount(self, c: CephClient) -> list[str]:
        t, mnt = c.handle.transport, c.mount_dir
        assert mnt is not None
        run_dir, problems = f"{mnt}/{self.session.run_tag}", []
        t.run(["rm", "-rf", "--", f"{run_dir}/{c.name}"], timeout=300)
        if t.run(["test", "-e", f"{run_dir}/{c.name}"], timeout=15).ok:
            problems.append(f"{c.name}: could not remove {run_dir}/{c.name} from the CephFS")
        t.run(["rmdir", "--", run_dir], timeout=60)  # the last client's empties it
        if not t.run(["umount", mnt], timeout=60).ok:
            t.run(["umount", "-l", mnt], timeout=60)
        if c.fuse is not None:
            c.fuse.stop(10)
        if t.run(["mountpoint", "-q", mnt], timeout=15).ok:
            return [*problems, f"{c.name}: {mnt} is still mounted"]
        c.mount_dir = None
        return problems
