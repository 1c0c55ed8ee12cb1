"""`stackprobe lab hosts up|down|status`: N real "hosts" on one machine, for multi-host runs.

Each host is a network namespace with its own UTS namespace (hostname h1, h2, ...), a veth
on a bridge and its own sshd, so stackprobe reaches it exactly as it reaches a real machine:
over SSH, through a hosts.yaml. The hosts share the kernel and the filesystem; what they do
not share is their network stack and address, which is what multi-host tests exercise.

    root namespace:  bridge <prefix>-br 10.99.0.1/24  (this controller reaches the hosts)
                       ├─ veth <prefix>-h1 ── eth0 10.99.0.11/24 in netns <prefix>-h1
                       ├─ veth <prefix>-h2 ── eth0 10.99.0.12/24 in netns <prefix>-h2
                       └─ ...

Faults for demos and acceptance tests: a slow link is a tbf qdisc on the host's root-side
veth (it shapes what flows INTO the host); a slow CPU is a cpu cgroup, a slow disk a blkio
(v2: io) cgroup throttling the disk under the host's data directory. Each cgroup holds the
host's sshd, so every command run over SSH on that host inherits the cap.

The machine is shared, so the lab only ever touches what it made: every name starts with
the prefix, `up` refuses when a name or 10.99.0.0/24 is already taken, state.json lists
the names before anything is created and each sshd PID as soon as it is started, and
`down` stops processes by PID only after checking they are sshd in the lab's namespace
(or, for commands run over SSH, that they live in the lab's namespace or cgroup).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from stackprobe.lab import blkio, netns
from stackprobe.lab.cgroups import (
    CgroupError,
    cgroup_path,
    cgroup_pids,
    cgroup_version,
    make_cpu_cgroup,
    remove_cgroup,
)
from stackprobe.lab.hosts_file import write_hosts_yaml
from stackprobe.lab.hosts_specs import HostsLabError, check_request, disk_rate
from stackprobe.procs import stop_pids
from stackprobe.spec.labs import LAB_HOSTS_DIR, LAB_HOSTS_PREFIX
from stackprobe.store.rundir import atomic_write

STATE_FILE = "state.json"
HOSTS_FILE = "hosts.yaml"
HOME_DIR = "home"  # each host's own $HOME, under its directory (sshd_config SetEnv)
# One lab per machine (its address range is fixed), so one machine-wide directory, like
# the namespaces themselves; /tmp also empties on reboot, when the namespaces vanish too.
DEFAULT_DIR = LAB_HOSTS_DIR
DEFAULT_PREFIX = LAB_HOSTS_PREFIX
SUBNET = "10.99.0.0/24"
BRIDGE_ADDRESS = "10.99.0.1"
HOST_OFFSET = 10  # host i is 10.99.0.(10 + i)
SSHD = "/usr/sbin/sshd"
SSHD_PRIVSEP_DIR = Path("/run/sshd")
READY_TIMEOUT_S = 15.0
SSHD_GRACE_S = 5.0
LEFTOVER_GRACE_S = 3.0

# sh -c script: set the UTS hostname, then become sshd (same PID all the way down).
SSHD_SCRIPT = 'hostname "$1" && exec "$2" -D -e -f "$3"'


@dataclass
class HostRecord:
    name: str  # h1, h2, ...
    address: str
    netns: str
    veth: str  # root-side end, on the bridge
    dir: str
    slow_link: str | None = None  # tbf rate on the veth
    slow_cpu: int | None = None  # percent of one CPU
    cgroup: str | None = None  # made only for a slow CPU
    slow_disk: str | None = None  # bytes/s ('30M') to the disk holding data_dir
    disk_cgroup: str | None = None  # made only for a slow disk (under v2: == cgroup if both)
    disk_device: str | None = None  # MAJ:MIN throttled
    pid: int | None = None  # sshd
    netns_inode: int | None = None

    @property
    def cgroups(self) -> list[Path]:
        """The host's cgroups (cpu, blkio), each once; sshd and its sessions live in them."""
        return [Path(p) for p in dict.fromkeys((self.cgroup, self.disk_cgroup)) if p]

    @property
    def data_dir(self) -> str:
        return str(Path(self.dir) / "data")

    @property
    def log(self) -> Path:
        return Path(self.dir) / "sshd.log"


@dataclass
class State:
    dir: str
    prefix: str
    bridge: str
    hosts: list[HostRecord] = field(default_factory=list)
    cgroup_version: int | None = None
    io_cgroup_version: int | None = None
    started: float = 0.0
    ready_s: float | None = None

    @property
    def hosts_yaml(self) -> str:
        return str(Path(self.dir) / HOSTS_FILE)

    @property
    def identity(self) -> str:
        return str(Path(self.dir) / "client_key")

    @property
    def known_hosts(self) -> str:
        return str(Path(self.dir) / "known_hosts")

    def save(self) -> None:
        data = {**asdict(self), "hosts": [asdict(h) for h in self.hosts]}
        atomic_write(Path(self.dir) / STATE_FILE, json.dumps(data, indent=1) + "\n")

    @classmethod
    def load(cls, lab_dir: Path) -> State | None:
        try:
            data = json.loads((lab_dir / STATE_FILE).read_text())
            data["hosts"] = [HostRecord(**h) for h in data.get("hosts", [])]
            return cls(**data)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError) as exc:
            raise HostsLabError(f"{lab_dir / STATE_FILE}: unreadable lab state ({exc})") from None


# ---------------------------------------------------------------------- processes
def sshd_is_ours(pid: int | None, ns_inode: int | None) -> bool:
    """PID runs /usr/sbin/sshd inside the lab namespace (sshd rewrites its cmdline, so the
    executable and the namespace are what identify it)."""
    if not pid or ns_inode is None:
        return False
    try:
        exe = os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return False  # gone, or a zombie
    return exe in (SSHD, f"{SSHD} (deleted)") and netns.pid_netns_inode(pid) == ns_inode


def _alive_in(pid: int, ns_inode: int | None, cgroups: list[Path]) -> bool:
    """Not a zombie, and still in the lab namespace or a cgroup it was found in."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    if state == "Z":
        return False
    in_ns = ns_inode is not None and netns.pid_netns_inode(pid) == ns_inode
    return in_ns or any(pid in cgroup_pids(cg) for cg in cgroups)


def _tail(path: Path, lines: int = 5) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return " | ".join(text[-lines:]) or "(empty log)"


def _config_path(p: Path | str) -> str:
    """A path (or NAME=path) as an sshd_config argument: quoted; refused when sshd would
    misread it."""
    s = str(p)
    if any(c in s for c in '"%') or any(ord(c) < 32 for c in s):
        raise HostsLabError(f"{s}: a lab directory path may not contain '\"', '%' or control "
                            "characters (sshd_config would misread it)")
    return f'"{s}"'


# ---------------------------------------------------------------------- the lab
class HostsLab:
    def __init__(self, lab_dir: Path = DEFAULT_DIR, prefix: str = DEFAULT_PREFIX, log=print):
        self.dir = Path(os.path.abspath(lab_dir))  # normalised: hosts.yaml refuses ".."
        self.prefix = prefix
        self.log = log
        self._procs: dict[int, subprocess.Popen] = {}  # sshds started here, to reap them

    # ------------------------------------------------------------------ up
    def up(self, n: int, slow_links: dict[str, str] | None = None,
           slow_cpus: dict[str, int] | None = None, slow_disks: dict[str, str] | None = None) -> State:
        """Bring up n hosts; on any failure, remove what was made and re-raise."""
        slow_links, slow_cpus = dict(slow_links or {}), dict(slow_cpus or {})
        slow_disks = dict(slow_disks or {})
        check_request(n, self.prefix, slow_links, slow_cpus, slow_disks)
        self._preflight_tools(bool(slow_links))
        self._clear_own_leftovers()
        state = self._plan(n, slow_links, slow_cpus, slow_disks)
        self._refuse_taken(state)
        self._make_dir()
        state.save()  # the names, before any of them is made
        try:
            self._keys(state)
            netns.add_bridge(state.bridge, f"{BRIDGE_ADDRESS}/24")
            for h in state.hosts:
                self._make_host(state, h)
            SSHD_PRIVSEP_DIR.mkdir(mode=0o755, exist_ok=True)  # a system sshd may need it too: kept
            for h in state.hosts:
                self._start_sshd(state, h)
            for h in state.hosts:
                self._wait_ready(h)
            self._check_between_hosts(state)
            write_hosts_yaml(state, BRIDGE_ADDRESS)
        except BaseException:
            self.log("lab hosts: bring-up failed, removing what was made")
            try:
                self._teardown(state)
                shutil.rmtree(self.dir, ignore_errors=True)
            except Exception as exc:  # keep the original error; say what is left
                self.log(f"lab hosts: cleanup incomplete ({exc}); run `stackprobe lab hosts down "
                         f"--dir {self.dir}`")
            raise
        state.ready_s = round(time.time() - state.started, 2)
        state.save()
        return state

    def _preflight_tools(self, shaping: bool) -> None:
        if os.geteuid() != 0:
            raise HostsLabError("lab hosts needs root (network namespaces, a bridge, sshd on port 22)")
        needed = ["ip", "unshare", "ssh-keygen"] + (["tc"] if shaping else [])
        missing = [t for t in needed if shutil.which(t) is None]
        if not Path(SSHD).exists():
            missing.append(SSHD)
        if missing:
            raise HostsLabError(f"missing {', '.join(missing)}: apt-get install -y iproute2 "
                                "util-linux openssh-client openssh-server")

    def _clear_own_leftovers(self) -> None:
        """A lab recorded in this directory: refuse if it runs, else remove its remains."""
        existing = State.load(self.dir)
        if existing is not None:
            running = [h.name for h in existing.hosts
                       if sshd_is_ours(h.pid, netns.netns_inode(h.netns) or h.netns_inode)]
            if running:
                raise HostsLabError(f"a hosts lab is already up in {self.dir} ({', '.join(running)}): "
                                    f"`stackprobe lab hosts down --dir {self.dir}` first")
            self._teardown(existing)  # a crashed lab's namespaces and links: ours, removed
            shutil.rmtree(self.dir)
        elif self.dir.exists() and (not self.dir.is_dir() or any(self.dir.iterdir())):
            raise HostsLabError(f"{self.dir} exists and is not a hosts lab directory: choose another --dir")

    def _plan(self, n: int, slow_links: dict[str, str], slow_cpus: dict[str, int],
              slow_disks: dict[str, str]) -> State:
        version = cgroup_version() if slow_cpus else None
        io_version = blkio.io_cgroup_version() if slow_disks else None
        state = State(dir=str(self.dir), prefix=self.prefix, bridge=f"{self.prefix}-br",
                      cgroup_version=version, io_cgroup_version=io_version, started=time.time())
        for i in range(1, n + 1):
            name = f"h{i}"
            cpu, disk = slow_cpus.get(name), slow_disks.get(name)
            state.hosts.append(HostRecord(
                name=name, address=f"10.99.0.{HOST_OFFSET + i}", netns=f"{self.prefix}-{name}",
                veth=f"{self.prefix}-{name}", dir=str(self.dir / name),
                slow_link=slow_links.get(name), slow_cpu=cpu, slow_disk=disk,
                cgroup=str(cgroup_path(version, self.prefix, name)) if cpu and version else None,
                disk_cgroup=str(blkio.io_cgroup_path(io_version, self.prefix, name))
                if disk and io_version else None))
        return state

    def _refuse_taken(self, state: State) -> None:
        taken = []
        if netns.link_kind(state.bridge) is not None:
            taken.append(f"interface {state.bridge}")
        for h in state.hosts:
            if netns.link_kind(h.veth) is not None:
                taken.append(f"interface {h.veth}")
            if netns.netns_exists(h.netns):
                taken.append(f"netns {h.netns}")
            taken += [f"cgroup {cg}" for cg in h.cgroups if cg.exists()]
        if taken:
            raise HostsLabError(f"already in use, not by the lab in {self.dir}: {', '.join(taken)} "
                                "(another hosts lab? see `ip netns list`, `ip -br link`)")
        routes = netns.overlapping_routes(SUBNET)
        if routes:
            raise HostsLabError(f"{SUBNET} is already routed here ({'; '.join(routes)}): "
                                "the lab's addresses would clash")

    def _make_dir(self) -> None:
        self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(self.dir)
        # sshd runs as root with StrictModes off: whoever could write its keys or config could log in.
        if not os.path.isdir(self.dir) or os.path.islink(self.dir) or st.st_uid != os.geteuid() \
                or st.st_mode & 0o022:
            raise HostsLabError(f"{self.dir}: must be a directory owned by root and not writable "
                                "by group or others (it holds the lab's root login keys)")

    def _keys(self, state: State) -> None:
        def keygen(path: Path, comment: str) -> str:
            netns.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)])
            return path.with_suffix(".pub").read_text().strip()

        client = keygen(Path(state.identity), f"stackprobe-lab-{state.prefix}-client")
        atomic_write(self.dir / "authorized_keys", client + "\n")
        known = []
        for h in state.hosts:
            hdir = Path(h.dir)
            Path(h.data_dir).mkdir(parents=True)
            (hdir / HOME_DIR).mkdir()
            pub = keygen(hdir / "ssh_host_ed25519_key", f"stackprobe-lab-{state.prefix}-{h.name}")
            known.append(f"{h.address} {' '.join(pub.split()[:2])}")
            atomic_write(hdir / "sshd_config", self._sshd_config(h))
        atomic_write(Path(state.known_hosts), "\n".join(known) + "\n")

    def _sshd_config(self, h: HostRecord) -> str:
        hdir = Path(h.dir)
        return "\n".join([
            f"# stackprobe lab host {h.name} (netns {h.netns}); removed by `lab hosts down`",
            f"ListenAddress {h.address}",
            "Port 22",
            f"HostKey {_config_path(hdir / 'ssh_host_ed25519_key')}",
            f"AuthorizedKeysFile {_config_path(self.dir / 'authorized_keys')}",
            f"PidFile {_config_path(hdir / 'sshd.pid')}",
            "PermitRootLogin prohibit-password",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "UsePAM no",
            "StrictModes no",
            "MaxSessions 30",
            "MaxStartups 100",
            "X11Forwarding no",
            "PrintMotd no",
            "Subsystem sftp internal-sftp",
            # the host's own home, as on a machine of its own: the commands' shell would
            # otherwise read this machine's ~/.bashrc (here `pyenv init`: 150 ms of CPU a
            # command, 0.8 s at a 20% CPU cap, on every command of every step)
            f"SetEnv {_config_path(f'HOME={hdir / HOME_DIR}')}",
            "",
        ])

    def _make_host(self, state: State, h: HostRecord) -> None:
        netns.add_netns(h.netns)
        h.netns_inode = netns.netns_inode(h.netns)
        state.save()
        netns.add_veth(h.veth, h.netns, state.bridge, f"{h.address}/24")
        if h.slow_link:
            netns.shape(h.veth, h.slow_link)
        if h.cgroup and h.slow_cpu and state.cgroup_version:
            make_cpu_cgroup(Path(h.cgroup), state.cgroup_version, h.slow_cpu)
        if h.disk_cgroup and h.slow_disk and state.io_cgroup_version:
            h.disk_device = blkio.device_of(h.data_dir)
            blkio.make_io_cgroup(Path(h.disk_cgroup), state.io_cgroup_version, h.disk_device,
                                 disk_rate(h.name, h.slow_disk))
            state.save()

    def _start_sshd(self, state: State, h: HostRecord) -> None:
        """sshd -D in the host's netns and a fresh UTS namespace; `ip netns exec`, `unshare`
        and `sh` all exec, so the PID recorded is sshd's own."""
        argv = ["ip", "netns", "exec", h.netns, "unshare", "--uts", "--",
                "sh", "-c", SSHD_SCRIPT, "sh", h.name, SSHD, str(Path(h.dir) / "sshd_config")]
        with open(h.log, "ab") as out:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True, close_fds=True)
        self._procs[proc.pid] = proc
        h.pid = proc.pid
        state.save()
        for cg in h.cgroups:  # before sshd accepts anything: every session it forks stays capped
            (cg / "cgroup.procs").write_text(str(proc.pid))

    def _wait_ready(self, h: HostRecord) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        proc = self._procs.get(h.pid or 0)
        while True:
            if proc is not None and proc.poll() is not None:
                raise HostsLabError(f"{h.name}: sshd exited ({proc.returncode}): {_tail(h.log)}")
            try:
                socket.create_connection((h.address, 22), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise HostsLabError(f"{h.name}: sshd not accepting on {h.address}:22 after "
                                        f"{READY_TIMEOUT_S:.0f} s: {_tail(h.log)}") from None
                time.sleep(0.05)
        if not sshd_is_ours(h.pid, h.netns_inode):
            raise HostsLabError(f"{h.name}: PID {h.pid} is not sshd in {h.netns} "
                                "(did ip netns exec or unshare fork?)")

    def _check_between_hosts(self, state: State) -> None:
        """One TCP connection h1 → hN through the bridge: bridged traffic is not filtered."""
        if len(state.hosts) < 2:
            return
        src, dst = state.hosts[0], state.hosts[-1]
        code = f"import socket; socket.create_connection(({dst.address!r}, 22), 5).close()"
        proc = subprocess.run(["ip", "netns", "exec", src.netns, sys.executable, "-c", code],
                              capture_output=True, text=True, timeout=30)
        if proc.returncode != 0:
            err = (proc.stderr.strip().splitlines() or ["?"])[-1]
            raise HostsLabError(f"{src.name} cannot reach {dst.name} ({dst.address}:22) across "
                                f"{state.bridge}: {err} (bridged traffic filtered? "
                                "net.bridge.bridge-nf-call-iptables and the FORWARD chain)")

    # ------------------------------------------------------------------ down
    def down(self) -> list[str]:
        """Stop and remove everything the lab recorded; returns notes. Safe to repeat."""
        state = State.load(self.dir)
        if state is None:
            if self.dir.exists() and (not self.dir.is_dir() or any(self.dir.iterdir())):
                raise HostsLabError(f"{self.dir}: no hosts lab state here; nothing stopped")
            if self.dir.is_dir():
                self.dir.rmdir()
            return [f"no hosts lab in {self.dir}: nothing to do"]
        notes = self._teardown(state)
        shutil.rmtree(self.dir)
        return notes

    def _teardown(self, state: State) -> list[str]:
        """sshds, then what they spawned, cgroups, veths, namespaces, bridge. Each step skips
        what is already gone; what cannot be removed is reported and the state kept."""
        notes: list[str] = []
        problems: list[str] = []
        self._reap()
        inodes = {h.name: netns.netns_inode(h.netns) for h in state.hosts}
        sshd_inode = {h.pid: inodes[h.name] or h.netns_inode for h in state.hosts if h.pid}
        for h in state.hosts:
            if h.pid and Path(f"/proc/{h.pid}").exists() and not sshd_is_ours(h.pid, sshd_inode[h.pid]):
                notes.append(f"{h.name}: PID {h.pid} is no longer the lab's sshd; left alone")
        killed = stop_pids(list(sshd_inode), lambda p: sshd_is_ours(p, sshd_inode[p]), SSHD_GRACE_S)
        if killed:
            notes.append(f"sshd needed SIGKILL: PIDs {', '.join(map(str, killed))}")
        self._reap()
        for h in state.hosts:
            left = self._stop_leftovers(h, inodes[h.name])
            if left:
                notes.append(f"{h.name}: stopped {left} process(es) left from SSH sessions")
        for h in state.hosts:
            for cg in h.cgroups:
                try:
                    remove_cgroup(cg)
                except CgroupError as exc:
                    problems.append(str(exc))
            try:
                netns.delete_link(h.veth, "veth")  # both ends go; then the namespace
            except netns.NetError as exc:
                problems.append(str(exc))
            try:
                netns.delete_netns(h.netns)
            except netns.NetError as exc:
                problems.append(str(exc))
        try:
            netns.delete_link(state.bridge, "bridge")
        except netns.NetError as exc:
            problems.append(str(exc))
        if problems:
            raise HostsLabError(f"lab hosts down incomplete ({'; '.join(problems)}); state kept in "
                                f"{self.dir}, run down again")
        return notes

    def _stop_leftovers(self, h: HostRecord, ns_inode: int | None) -> int:
        """Processes still in the host's namespace or cgroup: commands run over SSH (sessions,
        nohup'd tools). Only the live namespace's inode is trusted, never a recorded one."""
        cgroups = h.cgroups
        me = os.getpid()
        stopped: set[int] = set()
        for _ in range(5):  # a dying session may still fork once
            found = set(netns.pids_in_netns(ns_inode)) if ns_inode is not None else set()
            found |= {p for cg in cgroups for p in cgroup_pids(cg)}
            found = {p for p in found if p != me and _alive_in(p, ns_inode, cgroups)}
            if not found:
                break
            stop_pids(sorted(found), lambda p: _alive_in(p, ns_inode, cgroups), LEFTOVER_GRACE_S)
            stopped |= found
        self._reap()
        return len(stopped)

    def _reap(self) -> None:
        for proc in self._procs.values():
            proc.poll()

    # ------------------------------------------------------------------ status
    def status(self) -> dict:
        state = State.load(self.dir)
        if state is None:
            return {"dir": str(self.dir), "up": False, "hosts": []}
        rows = []
        for h in state.hosts:
            inode = netns.netns_inode(h.netns)
            rows.append({
                "name": h.name, "address": h.address, "netns": h.netns, "netns_present": inode is not None,
                "veth": h.veth, "pid": h.pid, "running": sshd_is_ours(h.pid, inode),
                "slow_link": h.slow_link, "slow_cpu": h.slow_cpu, "cgroup": h.cgroup,
                "slow_disk": h.slow_disk, "disk_cgroup": h.disk_cgroup, "disk_device": h.disk_device,
            })
        bridge = netns.link_kind(state.bridge) == "bridge"
        written = Path(state.hosts_yaml).exists()  # the last thing `up` does
        return {"dir": str(self.dir), "prefix": state.prefix, "bridge": state.bridge,
                "bridge_present": bridge, "up": bridge and written and all(r["running"] for r in rows),
                "hosts_yaml": state.hosts_yaml if written else None, "ready_s": state.ready_s,
                "hosts": rows}
