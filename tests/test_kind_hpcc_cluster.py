"""hpl_cluster's Open MPI options: its TCP held to the hosts' network, Open MPI's ssh
launched with the hosts' port and key. The run itself, over three lab hosts' sshd, is
tests/test_hpc_lab.py's."""

from __future__ import annotations

from stackprobe.kinds.hpc.hpl_cluster import networks, rsh_args
from stackprobe.spec.hosts import SshSettings


def test_mpi_traffic_is_held_to_the_hosts_networks():
    assert networks(["10.99.0.11", "10.99.0.12"], None) == "10.99.0.0/24"
    assert networks(["10.99.0.11", "10.98.0.5"], None) == "10.99.0.0/24,10.98.0.0/24"
    assert networks(["127.0.0.2", "127.0.0.3"], None) == "127.0.0.0/8"
    assert networks(["a.example"], "192.168.4.7/22") == "192.168.4.0/22"
    args = rsh_args(SshSettings(user="bench", port=2222, identity="/k", known_hosts="none"))
    assert args.split() == ["-o", "BatchMode=yes", "-o", "LogLevel=ERROR", "-p", "2222", "-l", "bench",
                            "-i", "/k", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"]


def test_the_ranks_fill_each_hosts_slots_in_the_hostfiles_order():
    """P x Q smaller than the slots leaves the last hosts without a rank: not reported."""
    from stackprobe.kinds.hpc.hpl_cluster import ranks_by_host

    slots = {"h1": 2, "h2": 2, "h3": 2}
    assert ranks_by_host(["h1", "h2", "h3"], slots, 6) == {"h1": 2, "h2": 2, "h3": 2}
    assert ranks_by_host(["h1", "h2", "h3"], slots, 3) == {"h1": 2, "h2": 1}
    assert ranks_by_host(["h3", "h1"], {"h1": 1, "h3": 4}, 2) == {"h3": 2}
