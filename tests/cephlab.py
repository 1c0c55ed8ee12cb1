"""Helpers for tests against the real lab Ceph cluster (brought up once per session)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from stackprobe.lab.cgroups import cgroup_path, cgroup_version, make_cpu_cgroup


@dataclass(frozen=True)
class Lab:
    dir: Path
    conf: Path

    def ceph(self, *args: str, check: bool = True) -> str:
        return _run(["ceph", "-c", str(self.conf), *args], check)

    def rados(self, *args: str, check: bool = True) -> str:
        return _run(["rados", "-c", str(self.conf), *args], check)

    def rbd(self, *args: str, check: bool = True) -> str:
        return _run(["rbd", "-c", str(self.conf), *args], check)

    def pools(self) -> list[str]:
        return json.loads(self.ceph("osd", "pool", "ls", "-f", "json"))

    def state(self) -> dict:
        return json.loads((self.dir / "state.json").read_text())

    def osd_pid(self, osd: int) -> int:
        (pid,) = [d["pid"] for d in self.state()["daemons"] if d["name"] == f"osd.{osd}"]
        return pid

    def sha_of_object(self, pool: str, obj: str) -> str:
        data = subprocess.run(["rados", "-c", str(self.conf), "-p", pool, "get", obj, "-"],
                              capture_output=True, check=True).stdout
        return hashlib.sha256(data).hexdigest()

    def sha_of_image(self, spec: str) -> str:
        data = subprocess.run(["rbd", "-c", str(self.conf), "export", "--no-progress", spec, "-"],
                              capture_output=True, check=True).stdout
        return hashlib.sha256(data).hexdigest()


def _run(argv: list[str], check: bool) -> str:
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(argv)}: {proc.stderr.strip()[-500:]}")
    return proc.stdout


def ceph_mounts() -> list[str]:
    """Mount points of ceph-fuse / kernel CephFS mounts on this machine."""
    out = []
    for line in Path("/proc/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) > 2 and ("ceph" in fields[2] or fields[0] == "ceph-fuse"):
            out.append(fields[1])
    return out


def pid_alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@contextlib.contextmanager
def cpu_limited(pid: int, percent: int):
    """Cap one process's CPU (all its threads) with a cgroup made for the test; the
    process goes back to its own cgroup and the test cgroup is removed afterwards."""
    version = cgroup_version()
    group = cgroup_path(version, "test", str(os.getpid()))
    root = group.parent
    original = _cgroup_of(pid, "" if version == 2 else "cpu")
    make_cpu_cgroup(group, version, percent)
    try:
        (group / "cgroup.procs").write_text(str(pid))
        yield
    finally:
        if pid_alive(pid):
            (root / original.lstrip("/") / "cgroup.procs").write_text(str(pid))
        group.rmdir()


def _cgroup_of(pid: int, controller: str) -> str:
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if (controller == "" and controllers == "") or controller in controllers.split(","):
            return path
    raise AssertionError(f"no {controller or 'v2'} cgroup for pid {pid}")
