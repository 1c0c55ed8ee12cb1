"""hpl_cluster: one mpirun over two hosts reached by SSH, started by Open MPI's ssh launcher
with the hosts' port and key, its TCP held to their network.

Both hosts are this machine: a real sshd of the test's own listens on 127.0.0.2 and
127.0.0.3 (hosts.yaml refuses two hosts at one address, and Open MPI takes 127.0.0.1 for
itself and would start no daemon over ssh), one process on each."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from conftest import run_cli
from stackprobe.kinds.hpc.hpl_cluster import networks, rsh_args
from stackprobe.spec.hosts import SshSettings

ADDRESSES = ("127.0.0.2", "127.0.0.3")


def test_mpi_traffic_is_held_to_the_hosts_networks():
    assert networks(["10.99.0.11", "10.99.0.12"], None) == "10.99.0.0/24"
    assert networks(["10.99.0.11", "10.98.0.5"], None) == "10.99.0.0/24,10.98.0.0/24"
    assert networks(["127.0.0.2", "127.0.0.3"], None) == "127.0.0.0/8"
    assert networks(["a.example"], "192.168.4.7/22") == "192.168.4.0/22"
    args = rsh_args(SshSettings(user="bench", port=2222, identity="/k", known_hosts="none"))
    assert args.split() == ["-o", "BatchMode=yes", "-o", "LogLevel=ERROR", "-p", "2222", "-l", "bench",
                            "-i", "/k", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"]


@pytest.fixture
def two_address_sshd(tmp_path_factory):
    d = tmp_path_factory.mktemp("sshd2")
    for name in ("host_key", "client_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / name)], check=True)
    (d / "authorized_keys").write_text((d / "client_key.pub").read_text())
    with socket.socket() as s:
        s.bind((ADDRESSES[0], 0))
        port = s.getsockname()[1]
    listen = "".join(f"ListenAddress {a}\n" for a in ADDRESSES)
    (d / "sshd_config").write_text(
        f"{listen}Port {port}\nHostKey {d / 'host_key'}\nAuthorizedKeysFile {d / 'authorized_keys'}\n"
        f"PidFile {d / 'sshd.pid'}\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n"
        "UsePAM no\nStrictModes no\nMaxSessions 20\n")
    Path("/run/sshd").mkdir(exist_ok=True)
    proc = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", str(d / "sshd_config")],
                            stdout=subprocess.DEVNULL, stderr=open(d / "sshd.log", "wb"))
    key = (d / "host_key.pub").read_text().split()
    (d / "known_hosts").write_text("".join(f"[{a}]:{port} {key[0]} {key[1]}\n" for a in ADDRESSES))
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            socket.create_connection((ADDRESSES[1], port), 0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    try:
        yield {"user": "root", "port": port, "identity": str(d / "client_key"),
               "known_hosts": str(d / "known_hosts")}, d / "sshd.log"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)


@pytest.mark.tools
@pytest.mark.slow
def test_one_hpl_over_two_hosts_by_ssh(tmp_path, two_address_sshd):
    ssh, log = two_address_sshd
    hosts = {"ssh": ssh, "hosts": [{"name": f"n{i}", "address": a, "roles": ["oss"]}
                                   for i, a in enumerate(ADDRESSES, start=1)]}
    (tmp_path / "hosts.yaml").write_text(json.dumps(hosts))
    (tmp_path / "s.yaml").write_text("name: across\nsteps:\n  - {kind: hpl_cluster, hosts: all, "
                                     "n: 1000, per_host: 1}\n")
    run_cli(["run", "s.yaml", "--hosts", "hosts.yaml", "--target", tmp_path, "--out",
             tmp_path / "runs", "--no-monitor"], cwd=tmp_path, check=0, timeout=900)
    [run_dir] = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    [step] = json.loads((run_dir / "results.json").read_text())["steps"]
    assert step["status"] == "ok", step.get("error")
    [rec] = step["records"]
    assert rec["procs"] == 2 and rec["success"] and rec["hpl"]["passed"]
    assert (rec["hpl"]["n"], rec["hpl"]["p"], rec["hpl"]["q"]) == (1000, 1, 2)
    assert rec["hpl"]["flops_per_s"] > 1e8
    steps_dir = run_dir / "steps" / step["id"]
    assert (steps_dir / "hostfile").read_text() == "127.0.0.2 slots=1\n127.0.0.3 slots=1\n"
    [line] = [c for c in step["commands"] if c["argv"][0] == "mpirun"]
    assert "btl_tcp_if_include 127.0.0.0/8" in line["command"]
    assert "plm_rsh_no_tree_spawn 1" in line["command"]
    assert "End of Summary section." in (steps_dir / "hpccoutf.txt").read_text()
    assert not list(Path("/tmp").glob(f"stackprobe-{run_dir.name.split('-')[0]}*"))  # all removed
    # the run's own connection to each host, and Open MPI's ssh to each starting its daemon
    assert log.read_text().count("Accepted publickey") >= 2 * len(ADDRESSES)
    shown = " ".join(run_cli(["show", run_dir], check=0).stdout.split())
    assert "HPL, N=1000 NB=192 P x Q=1x2" in shown
