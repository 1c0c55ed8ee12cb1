"""Which Ceph cluster a run talks to, and the arguments every Ceph tool needs for it.

Resolution order for the conf: --ceph-conf, the suite's `ceph.conf`, the lab cluster in
./.stackprobe/lab/ceph (what `stackprobe lab ceph up` makes by default), /etc/ceph/ceph.conf.
librados clients that take no keyring option (fio's rbd engine reads only CEPH_CONF) get a
conf of their own when the suite names a keyring: the cluster's conf plus that keyring.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stackprobe.errors import UserError
from stackprobe.spec.ceph import CephSettings
from stackprobe.spec.labs import LAB_CEPH_DIR as LAB_DIR

SYSTEM_CONF = Path("/etc/ceph/ceph.conf")
OP_TIMEOUT_S = 60


@dataclass(frozen=True)
class CephTarget:
    conf: Path
    client: str = "admin"
    keyring: Path | None = None
    fs_name: str | None = None

    def cli(self) -> list[str]:
        """Options for ceph, rados, rbd and ceph-fuse."""
        args = ["-c", str(self.conf), "--id", self.client]
        if self.keyring is not None:
            args += ["-k", str(self.keyring)]
        return args

    def cli_bounded(self) -> list[str]:
        """cli() for cleanup and teardown: an operation on a cluster whose OSDs are gone
        fails after a while instead of blocking forever (librados waits by default)."""
        return self.cli() + [f"--rados_osd_op_timeout={OP_TIMEOUT_S}",
                             f"--rados_mon_op_timeout={OP_TIMEOUT_S}"]

    def client_conf_text(self) -> str | None:
        """A conf for keyring-less clients, or None when the cluster's conf will do."""
        if self.keyring is None:
            return None
        text = self.conf.read_text(encoding="utf-8")
        return f"{text.rstrip()}\n\n# added by stackprobe for this run\n[client.{self.client}]\n" \
               f"keyring = {self.keyring}\n"


def resolve_target(settings: CephSettings | None, cli_conf: Path | None,
                   cwd: Path) -> CephTarget:
    s = settings or CephSettings()
    if cli_conf is not None:
        conf, source = cli_conf, "--ceph-conf"
    elif s.conf is not None:
        conf, source = Path(s.conf), "the suite's ceph.conf"
    elif (cwd / LAB_DIR / "ceph.conf").is_file():
        conf, source = cwd / LAB_DIR / "ceph.conf", "the lab cluster"
    elif SYSTEM_CONF.is_file():
        conf, source = SYSTEM_CONF, "the system"
    else:
        raise UserError("no Ceph cluster: give --ceph-conf PATH, set ceph.conf in the suite, "
                        "or start one with `stackprobe lab ceph up`")
    if not conf.is_file():
        raise UserError(f"{conf}: no such Ceph conf (from {source})")
    keyring = Path(s.keyring) if s.keyring else None
    if keyring is not None and not keyring.is_file():
        raise UserError(f"{keyring}: no such keyring (from the suite's ceph.keyring)")
    return CephTarget(conf.resolve(), s.client, keyring.resolve() if keyring else None, s.fs_name)
