"""`stackprobe lab ceph up|down|status`: a real one-host Ceph cluster from Debian's packages.

up:    conf + keys + monmap, then mon, mgr, N BlueStore OSDs on sparse files, an MDS with a
       CephFS mounted by ceph-fuse; waits until the cluster is usable. When the hosts lab's
       bridge is up, the daemons listen on its address and each lab host becomes a client
       with a user, keyring and conf of its own (lab/ceph_clients.py); else on 127.0.0.1. No systemd, no
       containers: each daemon runs with -f in its own session and its PID goes into
       state.json before anything else happens, so `down` can always find it.
down:  unmounts the CephFS, stops exactly the recorded daemons by PID (never by name),
       removes the directory.
status: what is recorded, whether each daemon still runs, and which lab hosts reach it.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from stackprobe.errors import UserError
from stackprobe.lab import daemons
from stackprobe.lab.ceph_clients import Bridge, caps, reachable, write_files
from stackprobe.lab.ceph_conf import LabConf, conf_text
from stackprobe.lab.health import LAB_TOLERATED_CHECKS, usable
from stackprobe.lab.hosts_file import LabClient
from stackprobe.spec.labs import LAB_CEPH_DIR
from stackprobe.store.rundir import atomic_write

STATE_FILE = "state.json"
DEFAULT_DIR = LAB_CEPH_DIR  # the lab cluster a run finds by default (kinds/ceph/target.py)
FS_NAME = "labfs"
USABLE_TIMEOUT_S = 180
MDS_GRACE_S = 2.0  # an MDS lingers ~6 s in a shutdown handshake; the lab has nothing to save
DAEMON_GRACE_S = 10.0
UMOUNT_TIMEOUT_S = 30.0  # a umount longer than this waits on a ceph-fuse that no longer answers


class LabError(UserError):
    """The lab could not be brought up or down; says which command failed."""


@dataclass
class LabState:
    dir: str
    fsid: str
    mon_port: int
    osds: int
    daemons: list[daemons.Daemon] = field(default_factory=list)
    mount: str | None = None
    started: float = 0.0
    ready_s: float | None = None
    bind: str = "127.0.0.1"  # the daemons' address (the hosts lab's bridge, or loopback)
    clients: list[dict] = field(default_factory=list)  # LabClient.as_dict() of each lab host

    @property
    def conf(self) -> str:
        return str(Path(self.dir) / "ceph.conf")

    def save(self) -> None:
        data = {**self.__dict__, "daemons": [d.as_dict() for d in self.daemons]}
        atomic_write(Path(self.dir) / STATE_FILE, json.dumps(data, indent=1) + "\n")

    @classmethod
    def load(cls, lab_dir: Path) -> LabState | None:
        try:
            data = json.loads((lab_dir / STATE_FILE).read_text())
        except FileNotFoundError:
            return None
        except (OSError, json.JSONDecodeError) as exc:
            raise LabError(f"{lab_dir / STATE_FILE}: unreadable lab state ({exc})") from None
        data["daemons"] = [daemons.Daemon(**d) for d in data.get("daemons", [])]
        return cls(**data)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class CephLab:
    def __init__(self, lab_dir: Path, log=print):
        self.dir = lab_dir.resolve()
        self.log = log

    # ------------------------------------------------------------------ up
    def up(self, osds: int = 3, osd_size_bytes: int = 10 * 1024**3,
           bridge: Bridge | None = None) -> LabState:
        """`bridge`: the hosts lab found up (ceph_clients.bridge_of): listen on its address
        and make each of its hosts a client."""
        existing = LabState.load(self.dir)
        if existing is not None:
            running = [d.name for d in existing.daemons if daemons.alive(d)]
            if running:
                raise LabError(f"a lab cluster is already up in {self.dir} "
                               f"({', '.join(running)}): `stackprobe lab ceph down` first")
            shutil.rmtree(self.dir)  # a dead lab's leftovers: nothing of it runs
        if self.dir.exists() and any(self.dir.iterdir()):
            raise LabError(f"{self.dir} exists and is not a lab directory: choose another --dir")
        for sub in ("run", "log", "mon", "mgr", "osd", "mds", "mnt"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        conf = LabConf(self.dir, str(uuid.uuid4()), free_port(), osd_block_bytes=osd_size_bytes,
                       **({"bind": bridge.address} if bridge else {}))
        state = LabState(str(self.dir), conf.fsid, conf.mon_port, osds, started=time.time(),
                         bind=conf.bind)
        state.save()
        try:
            atomic_write(conf.conf_path, conf_text(conf))
            self._keys_and_monmap(conf)
            self._start(state, "mon.a", ["ceph-mon", "-f", "-c", state.conf, "-i", "a"])
            self._wait_mon(state)
            self._mgr(state)
            self._osds(state, osds)
            self._wait_osds_up(state)
            self._cephfs(state)
            self._wait_usable(state)
            self._mount(state)
            for client in bridge.clients if bridge else []:
                self._client(state, conf, client)
        except BaseException:
            self.log("bring-up failed: stopping what was started")
            self.down(remove=False)
            raise
        state.ready_s = round(time.time() - state.started, 1)
        state.save()
        return state

    def _keys_and_monmap(self, c: LabConf) -> None:
        d = self.dir
        mon_keyring = d / "mon.keyring"
        self._cmd(["ceph-authtool", "--create-keyring", str(mon_keyring), "--gen-key",
                   "-n", "mon.", "--cap", "mon", "allow *"])
        self._cmd(["ceph-authtool", "--create-keyring", str(c.admin_keyring), "--gen-key",
                   "-n", "client.admin", "--cap", "mon", "allow *", "--cap", "osd", "allow *",
                   "--cap", "mds", "allow *", "--cap", "mgr", "allow *"])
        self._cmd(["ceph-authtool", str(mon_keyring), "--import-keyring", str(c.admin_keyring)])
        monmap = d / "monmap"
        self._cmd(["monmaptool", "--create", "--addv", "a", f"[{c.mon_addr}]",
                   "--fsid", c.fsid, str(monmap)])
        self._cmd(["ceph-mon", "-c", str(c.conf_path), "--mkfs", "-i", "a",
                   "--monmap", str(monmap), "--keyring", str(mon_keyring)])

    def _mgr(self, state: LabState) -> None:
        data = self.dir / "mgr" / "ceph-x"
        data.mkdir(parents=True)
        self.ceph(state, ["auth", "get-or-create", "mgr.x", "mon", "allow profile mgr",
                          "osd", "allow *", "mds", "allow *", "-o", str(data / "keyring")])
        self._start(state, "mgr.x", ["ceph-mgr", "-f", "-c", state.conf, "-i", "x"])

    def _osds(self, state: LabState, count: int) -> None:
        """The OSDs made side by side (each `--mkfs` is ~2 s of BlueStore setup, one after
        another 8 s of the lab's start), then started in their id order. Nothing is started
        until every one is made, so a failure leaves only the mon and mgr to stop."""
        with ThreadPoolExecutor(max_workers=count) as pool:
            made = [f.result() for f in [pool.submit(self._osd_mkfs, state) for _ in range(count)]]
        for osd_id in sorted(made, key=int):
            self._start(state, f"osd.{osd_id}", ["ceph-osd", "-f", "-c", state.conf, "-i", osd_id])

    def _osd_mkfs(self, state: LabState) -> str:
        """One OSD's id, key and BlueStore (on the sparse file the conf names); its id."""
        osd_uuid = str(uuid.uuid4())
        secret = self._cmd(["ceph-authtool", "--gen-print-key"]).strip()
        osd_id = self.ceph(state, ["osd", "new", osd_uuid, "-i", "-"],
                           stdin=json.dumps({"cephx_secret": secret})).strip()
        data = self.dir / "osd" / f"ceph-{osd_id}"
        data.mkdir(parents=True)
        self._cmd(["ceph-authtool", "--create-keyring", str(data / "keyring"),
                   "--name", f"osd.{osd_id}", "--add-key", secret])
        self._cmd(["ceph-osd", "-c", state.conf, "-i", osd_id, "--mkfs", "--osd-uuid", osd_uuid])
        return osd_id

    def _wait_osds_up(self, state: LabState) -> None:
        """Every OSD up before the CephFS pools are made: pools made while one is still
        booting map their PGs to the others first, then move them and recover (seconds)."""
        deadline = time.monotonic() + USABLE_TIMEOUT_S
        while time.monotonic() < deadline:
            text = self.ceph(state, ["osd", "stat", "-f", "json"], check=False)
            try:
                if json.loads(text).get("num_up_osds", 0) >= state.osds:
                    return
            except ValueError:
                pass  # not answering yet: ask again
            time.sleep(0.2)
        raise LabError(f"{state.osds} OSDs not up after {USABLE_TIMEOUT_S} s (see {self.dir}/log)")

    def _cephfs(self, state: LabState) -> None:
        meta, data = f"{FS_NAME}-meta", f"{FS_NAME}-data"
        self.ceph(state, ["osd", "pool", "create", meta, "16"])
        self.ceph(state, ["osd", "pool", "create", data, "16"])
        self.ceph(state, ["fs", "new", FS_NAME, meta, data])
        mds_dir = self.dir / "mds" / "ceph-a"
        mds_dir.mkdir(parents=True)
        self.ceph(state, ["auth", "get-or-create", "mds.a", "mon", "allow profile mds",
                          "osd", "allow rwx", "mds", "allow", "mgr", "allow profile mds",
                          "-o", str(mds_dir / "keyring")])
        self._start(state, "mds.a", ["ceph-mds", "-f", "-c", state.conf, "-i", "a"])

    def _client(self, state: LabState, conf: LabConf, client: LabClient) -> None:
        """A lab host's own user, keyring and conf (recorded first: `down` removes them)."""
        state.clients.append(client.as_dict())
        state.save()
        write_files(conf, client)
        self.ceph(state, ["auth", "get-or-create", f"client.{client.id}", *caps(FS_NAME),
                          "-o", client.keyring])
        os.chmod(client.keyring, 0o600)

    def _mount(self, state: LabState) -> None:
        mnt = self.dir / "mnt"
        self._start(state, "ceph-fuse", ["ceph-fuse", "-f", "-c", state.conf, str(mnt)])
        state.mount = str(mnt)
        state.save()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if os.path.ismount(mnt):
                return
            time.sleep(0.1)
        raise LabError(f"ceph-fuse did not mount {mnt} within 30 s (see {self.dir}/log)")

    def _wait_mon(self, state: LabState) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self._try(["ceph", "-c", state.conf, "--connect-timeout", "5", "mon", "stat"]):
                return
            time.sleep(0.2)
        raise LabError(f"the monitor did not answer within 30 s (see {self.dir}/log)")

    def _wait_usable(self, state: LabState) -> None:
        deadline = time.monotonic() + USABLE_TIMEOUT_S
        last = None
        while time.monotonic() < deadline:
            text = self.ceph(state, ["-s", "-f", "json"], check=False)
            ok, last = usable(text, state.osds, LAB_TOLERATED_CHECKS)
            if ok:
                return
            time.sleep(0.5)
        raise LabError(f"cluster not usable after {USABLE_TIMEOUT_S} s: {last}")

    # ------------------------------------------------------------------ down
    def down(self, remove: bool = True) -> list[str]:
        """Stop what the lab started; returns notes (daemons that needed SIGKILL)."""
        state = LabState.load(self.dir)
        notes: list[str] = []
        if state is None:
            if remove and self.dir.exists():
                raise LabError(f"{self.dir}: no lab state here; nothing stopped")
            return notes
        if state.mount and os.path.ismount(state.mount):
            if not self._try(["umount", state.mount], UMOUNT_TIMEOUT_S):
                # a ceph-fuse that no longer answers (seen after a run killed mid-write) holds
                # umount in the kernel for ever: stop it by its PID, then detach the mount
                fuse = [d for d in state.daemons if d.name == "ceph-fuse"]
                if daemons.stop(fuse, DAEMON_GRACE_S):
                    notes.append("needed SIGKILL: ceph-fuse (it did not answer the unmount)")
                self._try(["umount", "-l", state.mount], UMOUNT_TIMEOUT_S)
        order = [
            [d for d in state.daemons if d.name == "ceph-fuse"],
            [d for d in state.daemons if d.name.startswith("mds.")],
            [d for d in state.daemons if d.name.startswith("osd.")],
            [d for d in state.daemons if d.name.split(".")[0] in ("mgr", "mon")],
        ]
        for i, group in enumerate(order):
            grace = MDS_GRACE_S if i == 1 else DAEMON_GRACE_S
            killed = daemons.stop(group, grace)
            if killed and i != 1:
                notes.append(f"needed SIGKILL: {', '.join(killed)}")
        left = [d.name for d in state.daemons if daemons.alive(d)]
        if left:
            raise LabError(f"still running after SIGKILL: {', '.join(left)}")
        if state.mount and os.path.ismount(state.mount):
            raise LabError(f"{state.mount} is still mounted; not removing {self.dir}")
        for client in state.clients:  # the lab hosts' Ceph files, in the hosts lab
            shutil.rmtree(client["dir"], ignore_errors=True)
        if remove:
            shutil.rmtree(self.dir)
            self._remove_empty_default_parents()
        return notes

    def _remove_empty_default_parents(self) -> None:
        """.stackprobe/lab/ceph's empty parents go too; nothing else is touched."""
        parent = self.dir.parent
        for name in DEFAULT_DIR.parts[-2::-1]:  # 'lab', then '.stackprobe'
            if parent.name != name:
                return
            try:
                parent.rmdir()  # only when empty
            except OSError:
                return
            parent = parent.parent

    # ------------------------------------------------------------------ status
    def status(self) -> dict:
        state = LabState.load(self.dir)
        if state is None:
            return {"dir": str(self.dir), "up": False, "daemons": []}
        rows = [{"name": d.name, "pid": d.pid, "running": daemons.alive(d)} for d in state.daemons]
        health = None
        if any(r["running"] and r["name"] == "mon.a" for r in rows):
            text = self.ceph(state, ["health", "-f", "json"], check=False, timeout=15)
            try:
                health = json.loads(text).get("status")
            except json.JSONDecodeError:
                health = None
        clients = []
        for c in state.clients:
            client = LabClient(**c)
            why = reachable(client) if health is not None else "the monitor is not running"
            clients.append({"host": client.host, "id": client.id, "conf": client.conf,
                            "reaches": why is None, "why": why})
        return {"dir": str(self.dir), "up": all(r["running"] for r in rows), "conf": state.conf,
                "daemons": rows, "health": health, "mount": state.mount,
                "ready_s": state.ready_s, "bind": state.bind, "clients": clients}

    # ------------------------------------------------------------------ helpers
    def ceph(self, state: LabState, args: list[str], *, check: bool = True,
             stdin: str | None = None, timeout: float = 60) -> str:
        return self._cmd(["ceph", "-c", state.conf, "--connect-timeout", "20", *args],
                         check=check, stdin=stdin, timeout=timeout)

    def _start(self, state: LabState, name: str, argv: list[str]) -> None:
        d = daemons.start(name, argv, self.dir / "log" / f"{name}.out")
        state.daemons.append(d)
        state.save()

    def _cmd(self, argv: list[str], *, check: bool = True, stdin: str | None = None,
             timeout: float = 120) -> str:
        try:
            proc = subprocess.run(argv, input=stdin, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            if check:
                raise LabError(f"{' '.join(argv[:4])}: timed out after {timeout:.0f} s") from None
            return ""
        if check and proc.returncode != 0:
            err = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise LabError(f"{' '.join(argv[:4])} failed: {err}")
        return proc.stdout

    @staticmethod
    def _try(argv: list[str], timeout: float = 15) -> bool:
        """True when `argv` ended in time with status 0; one that outlives `timeout` (a
        umount stuck on a FUSE daemon that does not answer) is killed by its PID
        (subprocess.run does) and is False."""
        try:
            return subprocess.run(argv, capture_output=True, timeout=timeout).returncode == 0
        except subprocess.TimeoutExpired:
            return False
