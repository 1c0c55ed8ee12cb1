"""Shared test helpers: run the real CLI, make scratch dirs, find fixtures; the two tiers.

Tiers: a test that needs what `make` installs or what only root may do carries one of
SYSTEM_MARKERS (declared in pyproject.toml, which makes markers strict); conftest adds
`system` to it. `make test-fast` runs `-m "not system"` with STACKPROBE_TEST_TIER=fast,
which shadows the installed tools on PATH with stubs that fail loudly: a fast test that
quietly needs fio or Ceph fails there instead of passing on a full machine only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from warm_cli import WarmCli

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
STACKPROBE = [sys.executable, "-m", "stackprobe"]

# What puts a test in the full tier only (pyproject.toml says what each means).
SYSTEM_MARKERS = ("slow", "tools", "root", "netns", "ceph", "chromium", "bench")
FAST_TIER = os.environ.get("STACKPROBE_TEST_TIER") == "fast"
# The executables `make` installs that a minimal Debian lacks: in the fast tier each is a
# stub that fails (util-linux, procps, iproute2, findutils and coreutils stay: every
# Debian has them).
SHADOWED = ("fio", "sadf", "stress-ng", "sysbench", "mbw", "iperf3", "ping", "dmidecode",
            "ceph", "rados", "rbd", "ceph-fuse", "ceph-mon", "ceph-mgr", "ceph-osd", "ceph-mds",
            "ceph-authtool", "sshd", "ssh", "ssh-keygen", "chromium", "parted", "hpcc", "mpirun")


# Hypothesis's per-example deadline (200 ms) is wall time: on a busy machine (a CI runner,
# pytest-xdist's two workers beside another job) a quick example takes longer and fails as
# "flaky" (seen: 256 ms). What must be quick is checked by the tests' own limits
# (fuzz_support.time_limit, their budgets).
settings.register_profile("stackprobe", deadline=None)
settings.load_profile("stackprobe")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if any(item.get_closest_marker(m) for m in SYSTEM_MARKERS):
            item.add_marker(pytest.mark.system)


@pytest.fixture(scope="session", autouse=True)
def _fast_tier_without_system_tools(tmp_path_factory):
    """In the fast tier, the installed tools are stubs that exit 127 naming themselves."""
    if not FAST_TIER:
        yield
        return
    stubs = tmp_path_factory.mktemp("fast-tier-stubs")
    for name in SHADOWED:
        stub = stubs / name
        stub.write_text(f"#!/bin/sh\necho 'fast tier: {name} is a system tool; mark the test "
                        f"(tests/conftest.py SYSTEM_MARKERS)' >&2\nexit 127\n")
        stub.chmod(0o755)
    old = os.environ["PATH"]
    os.environ["PATH"] = f"{stubs}:{old}"
    try:
        yield
    finally:
        os.environ["PATH"] = old


_WARM = WarmCli()


@pytest.fixture(scope="session", autouse=True)
def _warm_cli_stopped():
    yield
    _WARM.stop()


def run_cli(args, *, cwd=None, env=None, timeout=600, check=None):
    """Run `stackprobe ARGS` as a user would, in a process of its own (forked from one that
    has the CLI imported: warm_cli.py); returns the CompletedProcess."""
    full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
    proc = _WARM.run([str(a) for a in args], cwd=cwd, env=full_env, timeout=timeout)
    if check is not None:
        assert proc.returncode == check, (proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:])
    return proc


@pytest.fixture
def workdir(tmp_path):
    """A scratch directory on a real filesystem (ext4/xfs under /tmp), for real fio runs."""
    d = tmp_path / "work"
    d.mkdir()
    return d


@pytest.fixture(scope="session")
def ceph_lab(tmp_path_factory):
    """A real lab Ceph cluster for the whole test session, brought up and taken down with
    stackprobe's own commands; the teardown checks nothing is left running or mounted."""
    from cephlab import Lab, ceph_mounts, pid_alive

    reuse = os.environ.get("STACKPROBE_TEST_LAB")  # a developer's running lab: used, kept
    if reuse:
        yield Lab(Path(reuse), Path(reuse) / "ceph.conf")
        return
    lab_dir = tmp_path_factory.mktemp("ceph") / "lab"
    up = run_cli(["lab", "ceph", "up", "--dir", lab_dir, "--osds", "3", "--osd-size", "10G"],
                 timeout=300)
    assert up.returncode == 0, up.stderr[-3000:]
    lab = Lab(lab_dir, lab_dir / "ceph.conf")
    pids = [d["pid"] for d in lab.state()["daemons"]]
    try:
        yield lab
    finally:
        down = run_cli(["lab", "ceph", "down", "--dir", lab_dir], timeout=300)
        assert down.returncode == 0, down.stderr[-3000:]
        assert not lab_dir.exists()
        assert not [p for p in pids if pid_alive(p)], "every lab daemon stopped"
        assert not [m for m in ceph_mounts() if str(lab_dir) in m]


@pytest.fixture(scope="session")
def local_sshd(tmp_path_factory):
    """A real sshd on 127.0.0.1 (a free port) with its own keys; yields the SshSettings and
    port to reach it as root. Stopped by its PID afterwards."""
    import signal
    import socket
    import time

    from stackprobe.spec.hosts import SshSettings

    d = tmp_path_factory.mktemp("sshd")
    for name in ("host_key", "client_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / name)], check=True)
    (d / "authorized_keys").write_text((d / "client_key.pub").read_text())
    (home := d / "home").mkdir()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (d / "sshd_config").write_text(
        f"ListenAddress 127.0.0.1\nPort {port}\nHostKey {d / 'host_key'}\n"
        f"AuthorizedKeysFile {d / 'authorized_keys'}\nPidFile {d / 'sshd.pid'}\n"
        "PermitRootLogin prohibit-password\nPasswordAuthentication no\nUsePAM no\n"
        "StrictModes no\nMaxSessions 20\n"
        f'SetEnv "HOME={home}"\n')  # not this machine's ~/.bashrc on every command
    Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege-separation dir; left in place
    proc = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", str(d / "sshd_config")],
                            stdout=subprocess.DEVNULL, stderr=open(d / "sshd.log", "wb"))
    host_pub = (d / "host_key.pub").read_text().split()
    (d / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_pub[0]} {host_pub[1]}\n")
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    try:
        yield SshSettings(user="root", port=port, identity=str(d / "client_key"),
                          known_hosts=str(d / "known_hosts"), connect_timeout=10)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
