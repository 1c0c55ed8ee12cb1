"""Everything a run creates in a Ceph cluster, created when first needed, removed at the end.

Names carry the run id (`stackprobe-<run id>`, `...-img`), and each thing is recorded the
moment it exists, so teardown removes exactly what this run made — after success, after a
failed step and after Ctrl-C — and nothing else: a user's pool is used, never modified or
removed; only the objects and images stackprobe put there are removed.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from stackprobe import redact
from stackprobe.errors import UserError
from stackprobe.kinds.ceph.clients import CephClients
from stackprobe.kinds.ceph.common import last_line
from stackprobe.kinds.ceph.keys import client_keys
from stackprobe.kinds.ceph.target import CephTarget
from stackprobe.parsers.ceph.ceph_status import parse_ceph_status
from stackprobe.spec.ceph import CephSettings
from stackprobe.transport.base import Background, CommandResult, Transport
from stackprobe.units import fmt_bytes

MOUNT_TIMEOUT_S = 30.0
PREFILL_IO_SIZE = "4M"


@dataclass
class CephSession:
    target: CephTarget
    settings: CephSettings
    transport: Transport
    run_id: str
    scratch: Path  # the run's local scratch directory (mount point, client conf)
    image_bytes: int = 0  # size of the RBD image the plan needs (0: no image)
    log: list[CommandResult] = field(default_factory=list)  # setup/teardown commands
    pool: str = ""
    pool_created: bool = False
    image: str | None = None
    mount_dir: Path | None = None
    _fuse: Background | None = None
    client_conf: Path | None = None
    start_errors: set[str] = field(default_factory=set)  # HEALTH_ERR checks at start (--force)
    clients: CephClients = field(init=False)  # the client hosts of fleet steps (clients.py)

    def __post_init__(self) -> None:
        self.clients = CephClients(self)
        # the client's key, from the keyrings the Ceph tools will read, is hidden in
        # everything this run keeps (store/redact.py), before any Ceph command runs
        for key in client_keys(self.target.conf, self.target.client, self.target.keyring):
            redact.for_run(self.run_id).register(key)

    @property
    def run_tag(self) -> str:
        """The prefix every name this run creates in the cluster starts with."""
        return f"stackprobe-{self.run_id}"

    # ------------------------------------------------------------------ commands
    def ceph(self, *args: str, timeout: float = 120) -> CommandResult:
        """A monitor command; gives up on an unreachable monitor instead of waiting forever."""
        return self._run(["ceph", *self.target.cli(), "--connect-timeout", "60", *args], timeout)

    def rbd_bounded(self, *args: str, timeout: float = 600) -> CommandResult:
        return self._run(["rbd", *self.target.cli_bounded(), *args], timeout)

    def _run(self, argv: list[str], timeout: float) -> CommandResult:
        result = self.transport.run(argv, timeout=timeout)
        self.log.append(result)
        return result

    def env(self) -> dict[str, str]:
        """Environment for librados clients that only read CEPH_CONF (fio's rbd engine)."""
        return {"CEPH_CONF": str(self.client_conf or self.target.conf)}

    # ------------------------------------------------------------------ before any load
    def preflight(self, force: bool) -> list[str]:
        """Refuse a HEALTH_ERR cluster (unless force); warnings for the report."""
        res = self.ceph("-s", "-f", "json", timeout=60)
        if not res.ok:
            raise UserError(f"ceph -s failed ({last_line(res)}): is {self.target.conf} "
                            "the right cluster, and is it up?")
        try:
            status = parse_ceph_status(res.stdout)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        checks = "; ".join(f"{code}: {msg}" for code, msg in status.checks.items())
        if status.health == "HEALTH_ERR" and not force:
            raise UserError(f"cluster is HEALTH_ERR ({checks}): refusing to load it "
                            "(--force to run anyway)")
        warnings = []
        if status.health != "HEALTH_OK":
            warnings.append(f"cluster health at start: {status.health}: {checks}")
        self.start_errors = set(status.checks) if status.health == "HEALTH_ERR" else set()
        return warnings

    def new_health_error(self) -> str | None:
        """Before each Ceph step: has the cluster gone HEALTH_ERR since the run started (an
        error it did not have then, when --force let a HEALTH_ERR cluster be loaded)? The
        checks in words, or None. An unanswered `ceph -s` is not taken as an error."""
        res = self.ceph("-s", "-f", "json", timeout=60)
        if not res.ok:
            return None
        try:
            status = parse_ceph_status(res.stdout)
        except ValueError:
            return None
        if status.health != "HEALTH_ERR":
            return None
        new = {c: m for c, m in status.checks.items() if c not in self.start_errors}
        if not new and self.start_errors:
            return None
        return "; ".join(f"{code}: {msg}" for code, msg in (new or status.checks).items())

    def setup(self) -> None:
        """The run's pool (created, or the user's checked), and the client conf."""
        conf_text = self.target.client_conf_text()
        if conf_text is not None:
            self.client_conf = self.scratch / "ceph-client.conf"
            self.client_conf.write_text(conf_text, encoding="utf-8")
            os.chmod(self.client_conf, 0o600)
        if self.settings.pool == "create":
            self.pool = self.run_tag
            self._check(self.ceph("osd", "pool", "create", self.pool, str(self.settings.pg_num)),
                        f"create pool {self.pool}")
            self.pool_created = True
            if self.settings.pool_size:
                self._check(self.ceph("osd", "pool", "set", self.pool, "size",
                                      str(self.settings.pool_size)), "set pool size")
            self._check(self.ceph("osd", "pool", "application", "enable", self.pool, "rbd"),
                        "enable rbd on the pool")
        else:
            self.pool = self.settings.pool
            res = self.ceph("osd", "pool", "get", self.pool, "size", "-f", "json")
            if not res.ok:
                raise UserError(f"pool {self.pool}: not usable ({last_line(res)})")

    # ------------------------------------------------------------------ on demand
    def rbd_image(self, execute) -> str:
        """The run's image (pool/name), created and filled on first use.

        Filled with a sequential write so reads hit real data, not unallocated space that
        librbd answers without touching an OSD. `execute(label, argv)` records the commands
        in the step that needed the image.
        """
        if self.image is not None:
            return self.image
        if self.image_bytes <= 0:
            raise UserError("the plan has no RBD step: no image size known")
        name = f"{self.pool}/{self.run_tag}-img"
        res = execute("rbd-create", ["rbd", *self.target.cli(), "create", name,
                                     "--size", f"{self.image_bytes // 1024**2}M",
                                     "--image-feature", "layering"])
        self._check(res, f"create image {name}")
        self.image = name  # from here on teardown removes it
        res = execute("rbd-prefill", ["rbd", *self.target.cli(), "bench", "--io-type", "write",
                                      "--io-pattern", "seq", "--io-size", PREFILL_IO_SIZE,
                                      "--io-threads", "16", "--io-total",
                                      str(self.image_bytes), name])
        self._check(res, f"fill image {name}")
        return name

    def cephfs_dir(self) -> Path:
        """This run's directory in the CephFS, mounted with ceph-fuse on first use."""
        if self.mount_dir is None:
            mnt = self.scratch / "cephfs"
            mnt.mkdir(exist_ok=True)
            argv = ["ceph-fuse", "-f", *self.target.cli(), str(mnt)]
            if self.target.fs_name:
                argv.insert(-1, f"--client_fs={self.target.fs_name}")
            self._fuse = self.transport.start(argv, log=str(self.scratch / "ceph-fuse.log"))
            deadline = time.monotonic() + MOUNT_TIMEOUT_S
            while not os.path.ismount(mnt):
                if not self._fuse.alive() or time.monotonic() > deadline:
                    self._fuse.stop(5)
                    self._fuse = None
                    log = (self.scratch / "ceph-fuse.log").read_text(errors="replace")
                    raise UserError(f"ceph-fuse could not mount the CephFS: {_tail(log)}")
                time.sleep(0.1)
            self.mount_dir = mnt
        run_dir = self.mount_dir / self.run_tag
        run_dir.mkdir(exist_ok=True)
        return run_dir

    # ------------------------------------------------------------------ the end
    def teardown(self) -> list[str]:
        """Remove what this run made; returns problems (never raises: it runs in finally)."""
        problems: list[str] = self.clients.teardown()  # before the run's CephFS directory goes
        if self.mount_dir is not None:
            problems += self._unmount()
        if self.image is not None:
            res = self.rbd_bounded("rm", "--no-progress", self.image, timeout=300)
            if not res.ok and "No such file" not in res.stderr:
                problems.append(f"could not remove image {self.image}: {last_line(res)}")
            else:
                self.image = None
        if self.pool_created:
            res = self.ceph("osd", "pool", "rm", self.pool, self.pool,
                            "--yes-i-really-really-mean-it", timeout=300)
            if not res.ok:
                problems.append(f"could not remove pool {self.pool}: {last_line(res)}")
            else:
                self.pool_created = False
        return problems

    def _unmount(self) -> list[str]:
        import shutil

        assert self.mount_dir is not None
        run_dir = self.mount_dir / self.run_tag
        shutil.rmtree(run_dir, ignore_errors=True)
        problems = []
        if run_dir.exists():
            problems.append(f"could not remove {run_dir} from the CephFS")
        res = self.transport.run(["umount", str(self.mount_dir)], timeout=60)
        if not res.ok:
            self.transport.run(["umount", "-l", str(self.mount_dir)], timeout=60)
        if self._fuse is not None:
            self._fuse.stop(10)
        if os.path.ismount(self.mount_dir):
            problems.append(f"{self.mount_dir} is still mounted")
        else:
            self.mount_dir = None
        return problems

    def pool_max_avail(self, execute) -> int | None:
        """Bytes the run's pool can still take (`ceph df`: replication and full ratio
        accounted for), or None when the cluster does not say."""
        res = execute("ceph-df", ["ceph", *self.target.cli(), "df", "-f", "json"])
        try:
            pools = json.loads(res.stdout)["pools"]
            return int(next(p["stats"]["max_avail"] for p in pools if p["name"] == self.pool))
        except (ValueError, KeyError, TypeError, StopIteration):
            return None

    def cluster_space_check(self, needed: int) -> None:
        """Refuse when the cluster cannot hold the run's data (image, CephFS files)."""
        if needed <= 0:
            return
        res = self.ceph("df", "-f", "json", timeout=60)
        try:
            stats = json.loads(res.stdout)["stats"]
            avail = int(stats["total_avail_bytes"])
        except (ValueError, KeyError, TypeError):
            return  # an old release without these figures: ceph itself will say no
        replicas = self.settings.pool_size or 3
        if needed * replicas > avail:
            raise UserError(f"cluster has {fmt_bytes(avail)} raw space available; the run "
                            f"needs {fmt_bytes(needed)} x {replicas} replicas")

    @staticmethod
    def _check(res: CommandResult, what: str) -> None:
        if not res.ok:
            raise UserError(f"could not {what}: {last_line(res)}")


def _tail(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else "(no output)"


def cephfs_bytes_for(plan) -> int:
    """The largest CephFS step's files (each step's files are removed after it)."""
    return max((s.ceph.cephfs_bytes for s in plan if s.ceph is not None), default=0)


def images_for(plan) -> int:
    """How many images of that size the run makes: the run's own (steps on this machine)
    and one per client host of a step on hosts."""
    steps = [s for s in plan if s.ceph is not None and s.ceph.image_bytes is not None]
    own = any(not s.hosts for s in steps)
    return int(own) + max((len(s.hosts) for s in steps if s.hosts), default=0)


def image_bytes_for(plan, settings: CephSettings) -> int:
    """The image must hold the largest region a step uses (fio on rbd: its `size`); at
    least the configured size; 0 when no step needs an image."""
    sizes = [s.ceph.image_bytes for s in plan
             if s.ceph is not None and s.ceph.image_bytes is not None]
    if not sizes:
        return 0
    return max([settings.image_size.bytes, *sizes])
