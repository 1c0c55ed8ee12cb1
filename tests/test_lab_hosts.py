"""`stackprobe lab hosts`: real network namespaces on a bridge, each with its own sshd.

Brings up 3 hosts (a slow link on h2, a slow CPU on h3) under the test prefix "spt" and
checks what a multi-host run relies on: SSH to each host by the generated hosts.yaml, the
hostname, the cgroup and the tbf qdisc; that hosts reach each other through the bridge;
that `down` leaves nothing (namespaces, links, sshds, processes started over SSH, cgroups,
the directory) and can be repeated; that `up` refuses names it does not own, and removes
what it made when it fails half-way. A slow disk gets its own 2-host lab: fio with O_DIRECT
over SSH is capped on h1 and not on h2. Needs root; every fixture tears down in `finally`.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from cephlab import pid_alive
from conftest import run_cli
from hostslab import hosts_lab_missing
from stackprobe.lab import blkio, hosts_lab, netns
from stackprobe.lab import cgroups as lab_cgroups
from stackprobe.lab.hosts_lab import HostsLab, HostsLabError, State
from stackprobe.lab.hosts_specs import check_request, disk_rate, parse_specs
from stackprobe.suite.loader import load_hosts
from stackprobe.transport.ssh import SshPool, SshTransport
from stackprobe.units import parse_size

pytestmark = [pytest.mark.slow, pytest.mark.root, pytest.mark.netns, pytest.mark.tools]

PREFIX = "spt"




@pytest.fixture(scope="module", autouse=True)
def _needs_root():
    """Checked once, before the module's lab exists (its own route would fail the check)."""
    why = hosts_lab_missing()
    if why:
        pytest.skip(why)


def _ours_left() -> dict[str, list[str]]:
    """Everything with the test prefix still on the machine."""
    ns = [line.split()[0] for line in subprocess.run(["ip", "netns", "list"], capture_output=True,
                                                     text=True).stdout.splitlines() if line.strip()]
    links = [line.split()[0].split("@")[0] for line in
             subprocess.run(["ip", "-br", "link"], capture_output=True, text=True).stdout.splitlines()]
    roots = (lab_cgroups.CGROUP_V1_CPU, blkio.CGROUP_V1_BLKIO, lab_cgroups.CGROUP_V2)
    cgroups = [str(p) for root in roots if root.is_dir() for p in root.glob(f"stackprobe-{PREFIX}-*")]
    return {"netns": [n for n in ns if n.startswith(f"{PREFIX}-")],
            "links": [n for n in links if n.startswith(f"{PREFIX}-")],
            "cgroups": cgroups}


def _wait_dead(pids: list[int], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while any(pid_alive(p) for p in pids):
        assert time.monotonic() < deadline, f"still alive: {pids}"
        time.sleep(0.05)


def _nothing_left() -> bool:
    return not any(_ours_left().values())


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """Three hosts, h2 with a 200mbit link and h3 with 20% of a CPU; down in `finally`."""
    lab_dir = tmp_path_factory.mktemp("hostslab") / "lab"
    lab = HostsLab(lab_dir, prefix=PREFIX, log=lambda *_: None)
    try:
        state = lab.up(3, slow_links={"h2": "200mbit"}, slow_cpus={"h3": 20})
        yield lab, state
    finally:
        if (lab_dir / hosts_lab.STATE_FILE).exists():
            lab.down()


def _run_on_all(state: State, argv: list[str]) -> dict[str, str]:
    hosts = load_hosts(state.hosts_yaml)
    pool = SshPool()
    try:
        out = {}
        for h in hosts.select("client"):  # the namespace hosts (`ceph` is this machine)
            res = SshTransport(h.name, h.address, hosts.ssh_for(h), pool).run(argv, timeout=30)
            assert res.returncode == 0, (h.name, res.stderr)
            out[h.name] = res.stdout
        return out
    finally:
        pool.close()


def test_ssh_reaches_each_host_by_the_hosts_file(lab):
    _, state = lab
    hosts = load_hosts(state.hosts_yaml)
    assert [(h.name, h.address) for h in hosts.hosts] == \
        [("ceph", "10.99.0.1"), ("h1", "10.99.0.11"), ("h2", "10.99.0.12"), ("h3", "10.99.0.13")]
    storage, *clients = hosts.hosts
    # this machine, where the lab Ceph cluster runs: a local storage entry, no SSH
    assert storage.access == "local" and storage.roles == ["storage"] and storage.ceph is None
    assert all(h.roles == ["client"] and h.nic_speed_mbps == 10000 for h in clients)
    # each client's own Ceph files, in the hosts lab (written by `lab ceph up`)
    assert [(h.ceph.client, h.ceph.conf) for h in clients] == [
        (f"lab-{h.name}", str(Path(state.dir) / "ceph" / h.name / "ceph.conf")) for h in clients]
    assert clients[0].directories == [str(Path(state.dir) / "h1" / "data")]
    assert Path(clients[0].directories[0]).is_dir()
    assert {k: v.strip() for k, v in _run_on_all(state, ["hostname"]).items()} == \
        {"h1": "h1", "h2": "h2", "h3": "h3"}
    addrs = _run_on_all(state, ["ip", "-br", "addr", "show", "dev", "eth0"])
    assert "10.99.0.12/24" in addrs["h2"] and "fe80" not in addrs["h2"], "IPv4 only on the lab's links"


def test_slow_cpu_host_runs_commands_in_the_lab_cgroup(lab):
    _, state = lab
    cgroups = _run_on_all(state, ["cat", "/proc/self/cgroup"])
    assert f"stackprobe-{PREFIX}-h3" in cgroups["h3"]
    assert "stackprobe-" not in cgroups["h1"] and "stackprobe-" not in cgroups["h2"]
    h3 = state.hosts[2]
    assert h3.cgroup and Path(h3.cgroup).is_dir()
    assert h3.pid in lab_cgroups.cgroup_pids(Path(h3.cgroup))


def test_slow_link_is_a_tbf_on_the_hosts_veth(lab):
    _, state = lab
    shaped = netns.qdisc_show(f"{PREFIX}-h2")
    assert "tbf" in shaped and "rate 200Mbit" in shaped, shaped
    assert "tbf" not in netns.qdisc_show(f"{PREFIX}-h1")


def test_hosts_reach_each_other_through_the_bridge(lab):
    for src, dst in (("h1", "10.99.0.12"), ("h3", "10.99.0.11")):
        proc = subprocess.run(["ip", "netns", "exec", f"{PREFIX}-{src}", "bash", "-c",
                               f"echo > /dev/tcp/{dst}/22"], capture_output=True, text=True, timeout=20)
        assert proc.returncode == 0, (src, dst, proc.stderr)


def test_status_and_a_second_up_is_refused(lab):
    lab_obj, state = lab
    info = lab_obj.status()
    assert info["up"] and [h["running"] for h in info["hosts"]] == [True, True, True]
    with pytest.raises(HostsLabError, match="already up"):
        HostsLab(Path(state.dir), prefix=PREFIX).up(3)
    assert lab_obj.status()["up"], "the refused up touched nothing"


def test_down_leaves_nothing_and_can_be_repeated(lab):
    lab_obj, state = lab
    # Something started over SSH that outlives its session: down must stop it too.
    hosts = load_hosts(state.hosts_yaml)
    pool = SshPool()
    try:
        (h2,) = hosts.select("h2")
        bg = SshTransport(h2.name, h2.address, hosts.ssh_for(h2), pool).start(
            ["sleep", "600"], log=str(Path(state.dir) / "h2" / "data" / "sleep.log"))
    finally:
        pool.close()
    assert pid_alive(bg.pid)
    sshd_pids = [h.pid for h in state.hosts]
    notes = lab_obj.down()
    assert any("h2: stopped" in n for n in notes), notes
    assert not pid_alive(bg.pid)
    assert not [p for p in sshd_pids if pid_alive(p)]
    assert _ours_left() == {"netns": [], "links": [], "cgroups": []}
    assert not Path(state.dir).exists()
    assert lab_obj.down() == [f"no hosts lab in {state.dir}: nothing to do"]
    assert HostsLab(Path(state.dir), prefix=PREFIX).status() == \
        {"dir": state.dir, "up": False, "hosts": []}


DISK_CAP = "20M"  # bytes/s; this machine's disk reads well above 2x that with O_DIRECT
FILE_SIZE = 64 << 20


def _lay_out(path: Path) -> None:
    """FILE_SIZE bytes on the disk itself (written and synced here, outside any lab cgroup)."""
    chunk = os.urandom(1 << 20)
    with open(path, "wb") as f:
        for _ in range(FILE_SIZE // len(chunk)):
            f.write(chunk)
        f.flush()
        os.fsync(f.fileno())


def _fio_read_bw(transport: SshTransport, filename: str) -> float:
    """Bytes/s of a 3 s sequential O_DIRECT read of `filename`, run over SSH on the host."""
    res = transport.run(["fio", "--name=r", f"--filename={filename}", "--rw=read", "--bs=1M",
                         "--size=64M", "--direct=1", "--runtime=3", "--time_based",
                         "--output-format=json"], timeout=60)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout[res.stdout.index("{"):])["jobs"][0]["read"]["bw_bytes"]


@pytest.mark.skipif(shutil.which("fio") is None, reason="needs fio")
def test_slow_disk_caps_direct_io_of_its_hosts_commands(tmp_path):
    lab_dir = tmp_path / "lab"
    lab = HostsLab(lab_dir, prefix=PREFIX, log=lambda *_: None)
    cap = parse_size(DISK_CAP)
    try:
        state = lab.up(2, slow_disks={"h1": DISK_CAP})
        h1, h2 = state.hosts
        assert h1.slow_disk == DISK_CAP and h2.slow_disk is None and h2.disk_cgroup is None
        cg = Path(h1.disk_cgroup)
        assert cg.name == f"stackprobe-{PREFIX}-h1" and cg.is_dir()
        assert h1.disk_device == blkio.device_of(h1.data_dir)
        if state.io_cgroup_version == 1:
            for kind in ("read", "write"):
                assert (cg / f"blkio.throttle.{kind}_bps_device").read_text().split() == \
                    [h1.disk_device, str(cap)]
        else:
            assert f"rbps={cap} wbps={cap}" in (cg / "io.max").read_text()
        assert h1.pid in lab_cgroups.cgroup_pids(cg), "sshd is in the cgroup"
        info = {h["name"]: h for h in lab.status()["hosts"]}
        assert info["h1"]["slow_disk"] == DISK_CAP and info["h1"]["disk_device"] == h1.disk_device

        hosts = load_hosts(state.hosts_yaml)
        pool = SshPool()
        try:
            on = {h.name: SshTransport(h.name, h.address, hosts.ssh_for(h), pool) for h in hosts.hosts}
            assert cg.name in on["h1"].run(["cat", "/proc/self/cgroup"], timeout=30).stdout
            bw = {}
            for h in (h1, h2):
                data = Path(h.data_dir) / "fio-read.dat"
                _lay_out(data)
                bw[h.name] = _fio_read_bw(on[h.name], str(data))
            print(f"O_DIRECT read, cap {DISK_CAP}/s on h1: h1 {bw['h1'] / 2**20:.1f} MiB/s, "
                  f"h2 {bw['h2'] / 2**20:.1f} MiB/s")
            assert bw["h1"] <= 1.3 * cap, bw
            assert bw["h2"] > 2 * cap, bw
            # something started over SSH that outlives its session lives in the cgroup: down stops it
            bg = on["h1"].start(["sleep", "600"], log=str(Path(h1.data_dir) / "sleep.log"))
        finally:
            pool.close()
        assert bg.pid in lab_cgroups.cgroup_pids(cg)
        notes = lab.down()
        assert any("h1: stopped" in n for n in notes), notes
        assert not pid_alive(bg.pid) and not pid_alive(h1.pid)
        assert not cg.exists() and lab_cgroups.cgroup_pids(cg) == []
        assert _nothing_left(), _ours_left()
        assert not lab_dir.exists()
    finally:
        if (lab_dir / hosts_lab.STATE_FILE).exists():
            lab.down()


@pytest.mark.parametrize("spec, message", [
    ("h9:30M", "--slow-disk h9: no such host"),
    ("h1:0", "must be positive"),
    ("h1:abc", "not a size"),
    ("h1", "expected HOST:VALUE, e.g. h2:30M"),
])
def test_slow_disk_spec_errors(spec, message):
    with pytest.raises(HostsLabError, match=message):
        check_request(3, PREFIX, {}, {}, parse_specs([spec], "slow-disk"))


def test_slow_disk_rate_is_bytes_per_second():
    assert disk_rate("h1", "30M") == 30 << 20 and disk_rate("h1", "512k") == 512 << 10
    check_request(3, PREFIX, {}, {}, {"h1": "30M", "h3": "1G"})


def test_device_of_is_the_whole_disk_under_a_partition(tmp_path, monkeypatch):
    """A /sys/dev/block stand-in where this directory's device is partition 2 of a disk 8:0."""
    st_dev = os.stat(tmp_path).st_dev
    disk = tmp_path / "sys" / "block" / "sda"
    (disk / "sda2").mkdir(parents=True)
    (disk / "dev").write_text("8:0\n")
    (disk / "sda2" / "partition").write_text("2\n")
    (tmp_path / "sys" / "dev").mkdir()
    (tmp_path / "sys" / "dev" / f"{os.major(st_dev)}:{os.minor(st_dev)}").symlink_to(disk / "sda2")
    monkeypatch.setattr(blkio, "SYS_DEV_BLOCK", tmp_path / "sys" / "dev")
    assert blkio.device_of(tmp_path) == "8:0"
    (disk / "sda2" / "partition").unlink()
    assert blkio.device_of(tmp_path) == f"{os.major(st_dev)}:{os.minor(st_dev)}"
    with pytest.raises(HostsLabError, match="not a block device"):
        blkio.device_of("/proc")


def test_v2_io_cgroup_writes_io_max(tmp_path, monkeypatch):
    """cgroup v2 on a stand-in root: +io enabled in the root, io.max set, the cpu cgroup shared."""
    (tmp_path / "cgroup.subtree_control").write_text("cpu\n")
    monkeypatch.setattr(lab_cgroups, "CGROUP_V2", tmp_path)
    monkeypatch.setattr(blkio, "CGROUP_V2", tmp_path)
    path = blkio.io_cgroup_path(2, PREFIX, "h1")
    assert path == tmp_path / f"stackprobe-{PREFIX}-h1" == lab_cgroups.cgroup_path(2, PREFIX, "h1")
    path.mkdir()  # as made for a slow CPU on the same host
    blkio.make_io_cgroup(path, 2, "254:0", 20 << 20)
    assert (tmp_path / "cgroup.subtree_control").read_text() == "+io"
    assert (path / "io.max").read_text() == f"254:0 rbps={20 << 20} wbps={20 << 20}"


@pytest.fixture
def foreign_blkio_cgroup():
    """A blkio cgroup with the lab's name for h1, made by someone else (here: the test)."""
    path = blkio.io_cgroup_path(blkio.io_cgroup_version(), PREFIX, "h1")
    path.mkdir()
    try:
        yield path
    finally:
        lab_cgroups.remove_cgroup(path)


def test_up_refuses_a_blkio_cgroup_it_does_not_own(tmp_path, foreign_blkio_cgroup):
    lab = HostsLab(tmp_path / "lab", prefix=PREFIX, log=lambda *_: None)
    try:
        with pytest.raises(HostsLabError, match=f"cgroup {foreign_blkio_cgroup}"):
            lab.up(2, slow_disks={"h1": "20M"})
        assert foreign_blkio_cgroup.is_dir(), "the foreign cgroup is left alone"
        assert _ours_left()["netns"] == [] and not (tmp_path / "lab").exists()
    finally:
        if (tmp_path / "lab" / hosts_lab.STATE_FILE).exists():
            lab.down()


@pytest.fixture
def foreign_netns():
    """A namespace with the lab's name made by someone else (here: the test)."""
    name = f"{PREFIX}-h2"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False)


def test_up_refuses_names_it_does_not_own(tmp_path, foreign_netns):
    lab = HostsLab(tmp_path / "lab", prefix=PREFIX, log=lambda *_: None)
    try:
        with pytest.raises(HostsLabError, match=f"netns {foreign_netns}"):
            lab.up(3)
        assert netns.netns_exists(foreign_netns), "the foreign namespace is left alone"
        assert _ours_left() == {"netns": [foreign_netns], "links": [], "cgroups": []}
        assert not (tmp_path / "lab").exists()
    finally:
        if (tmp_path / "lab" / hosts_lab.STATE_FILE).exists():
            lab.down()


@pytest.fixture
def foreign_route():
    """10.99.0.0/24 routed by an interface that is not the lab's."""
    name = f"{PREFIX}-rt"
    subprocess.run(["ip", "link", "add", name, "type", "bridge"], check=True)
    try:
        subprocess.run(["ip", "addr", "add", "10.99.0.250/24", "dev", name], check=True)
        yield name
    finally:
        subprocess.run(["ip", "link", "del", name], check=False)


def test_up_refuses_a_routed_subnet(tmp_path, foreign_route):
    lab = HostsLab(tmp_path / "lab", prefix=PREFIX, log=lambda *_: None)
    try:
        with pytest.raises(HostsLabError, match=rf"10\.99\.0\.0/24 is already routed.*{foreign_route}"):
            lab.up(2)
        assert _ours_left()["links"] == [foreign_route]
    finally:
        if (tmp_path / "lab" / hosts_lab.STATE_FILE).exists():
            lab.down()


def test_up_failing_half_way_removes_what_it_made(tmp_path, monkeypatch):
    lab_dir = tmp_path / "lab"
    lab = HostsLab(lab_dir, prefix=PREFIX, log=lambda *_: None)
    started: list[int] = []
    real_start = HostsLab._start_sshd

    def start_then_fail(self, state, h):
        if h.name == "h3":
            raise RuntimeError("planted failure starting h3's sshd")
        real_start(self, state, h)
        started.append(h.pid)

    monkeypatch.setattr(HostsLab, "_start_sshd", start_then_fail)
    try:
        with pytest.raises(RuntimeError, match="planted"):
            lab.up(3, slow_links={"h1": "100mbit"}, slow_cpus={"h2": 50})
        assert len(started) == 2, "two real sshds ran before the failure"
        assert not [p for p in started if pid_alive(p)]
        assert _nothing_left(), _ours_left()
        assert not lab_dir.exists()
    finally:
        if (lab_dir / hosts_lab.STATE_FILE).exists():
            HostsLab(lab_dir).down()


def test_sshd_that_does_not_start_is_reported_with_its_log(tmp_path, monkeypatch):
    lab_dir = tmp_path / "lab"
    real_config = HostsLab._sshd_config
    monkeypatch.setattr(HostsLab, "_sshd_config",
                        lambda self, h: real_config(self, h) + ("NoSuchOption yes\n" if h.name == "h2" else ""))
    try:
        with pytest.raises(HostsLabError, match=r"h2: sshd exited .*NoSuchOption"):
            HostsLab(lab_dir, prefix=PREFIX, log=lambda *_: None).up(2)
        assert _nothing_left(), _ours_left()
        assert not lab_dir.exists()
    finally:
        if (lab_dir / hosts_lab.STATE_FILE).exists():
            HostsLab(lab_dir).down()


def test_down_after_a_crash_works_from_state_json(tmp_path):
    """A controller that died: its sshds were killed, no HostsLab object remains; a fresh
    one finds everything from state.json. Then `up` on the same dir starts over."""
    lab_dir = tmp_path / "lab"
    try:
        state = HostsLab(lab_dir, prefix=PREFIX, log=lambda *_: None).up(2, slow_cpus={"h1": 30})
        for h in state.hosts:
            os.kill(h.pid, signal.SIGKILL)
        _wait_dead([h.pid for h in state.hosts])
        assert not HostsLab(lab_dir).status()["up"]
        state = HostsLab(lab_dir, prefix=PREFIX, log=lambda *_: None).up(2)  # the dead lab is cleared
        assert HostsLab(lab_dir).status()["up"] and state.hosts[0].cgroup is None
        os.kill(state.hosts[1].pid, signal.SIGKILL)
        _wait_dead([state.hosts[1].pid])
        HostsLab(lab_dir).down()
        assert _nothing_left(), _ours_left()
        assert not lab_dir.exists()
    finally:
        if (lab_dir / hosts_lab.STATE_FILE).exists():
            HostsLab(lab_dir).down()


def test_cli_up_status_down(tmp_path):
    lab_dir = tmp_path / "lab"
    try:
        up = run_cli(["lab", "hosts", "up", "2", "--dir", lab_dir, "--prefix", PREFIX,
                      "--slow-link", "h2:1gbit", "--slow-disk", "h1:30M"], timeout=120, check=0)
        assert "lab hosts up in" in up.stdout
        assert f"--hosts {lab_dir / 'hosts.yaml'}" in up.stdout
        assert f"stackprobe lab hosts down --dir {lab_dir}" in up.stdout
        status = run_cli(["lab", "hosts", "status", "--dir", lab_dir], check=0)
        assert "h2   10.99.0.12" in status.stdout and "link 1gbit" in status.stdout
        assert f"disk 30M/s ({blkio.device_of(lab_dir)})" in status.stdout
        run_cli(["lab", "hosts", "down", "--dir", lab_dir], timeout=120, check=0)
        assert not lab_dir.exists() and _nothing_left()
        again = run_cli(["lab", "hosts", "down", "--dir", lab_dir], check=0)
        assert "nothing to do" in again.stdout
        assert run_cli(["lab", "hosts", "status", "--dir", lab_dir]).returncode == 1
    finally:
        if (lab_dir / hosts_lab.STATE_FILE).exists():
            HostsLab(lab_dir).down()


@pytest.mark.parametrize("args, message", [
    (["--slow-link", "h2"], "expected HOST:VALUE"),
    (["--slow-link", "h9:1gbit"], "no such host"),
    (["--slow-link", "h2:fast"], "not a rate"),
    (["--slow-cpu", "h3:0"], "1 to 100"),
    (["--slow-cpu", "h3:lots"], "whole percent"),
    (["--slow-cpu", "h1:10", "--slow-cpu", "h1:20"], "given twice"),
    (["--slow-disk", "h9:30M"], "no such host"),
    (["--slow-disk", "h1:0"], "must be positive"),
    (["--slow-disk", "h1:abc"], "not a size"),
    (["--prefix", "Bad-Prefix"], "prefix"),
])
def test_cli_bad_specs_create_nothing(tmp_path, args, message):
    res = run_cli(["lab", "hosts", "up", "3", "--dir", tmp_path / "lab", "--prefix", PREFIX, *args])
    assert res.returncode == 2 and message in res.stderr and len(res.stderr.splitlines()) == 1, res.stderr
    assert not (tmp_path / "lab").exists() and _nothing_left()
