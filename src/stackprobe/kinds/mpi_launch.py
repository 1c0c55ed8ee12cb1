"""mpirun on this machine, its ranks on the hosts of hosts.yaml: the Open MPI options that
`hpl_cluster` (one job over all hosts) and `mpi_pairs` (one job per pair) share.

Why this way: Open MPI starts its daemons (orted) on the hosts over SSH with the hosts'
user, port and key from hosts.yaml (`plm_rsh_agent ssh`, `plm_rsh_args`: one set for all
hosts, since mpirun passes the same arguments to every ssh), each daemon started from here
(`plm_rsh_no_tree_spawn 1`: no host needs a key to the others). Its TCP traffic, both the
daemons' (oob) and the processes' (btl), is held to the hosts' network
(`oob_tcp_if_include` / `btl_tcp_if_include`: the step's `network`, else the /24 of each
host's address, /8 for loopback) so nothing goes over another interface. Open MPI refuses
to run as root unless told (`--allow-run-as-root`).
"""

from __future__ import annotations

import ipaddress

from stackprobe.spec.tools import Tool
from stackprobe.transport.fleet import Fleet, HostHandle

MPIRUN = Tool("mpirun", "openmpi-bin", ("mpirun", "--version"), "starts MPI processes")
ORTED = Tool("orted", "openmpi-bin", ("dpkg-query", "-W", "-f=${Version}", "openmpi-bin"),
             "Open MPI's daemon, started on each host by mpirun over SSH")


class MpiLaunchError(ValueError):
    """Why mpirun cannot be given the hosts, in one line."""


def networks(addresses: list[str], given: str | None) -> str:
    """btl/oob_tcp_if_include: the step's network, else each address's /24 (/8 on loopback)."""
    if given is not None:
        return str(ipaddress.ip_network(given, strict=False))
    found = []
    for address in addresses:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError as exc:
            raise MpiLaunchError(f"{address!r} is not an IP address: give the step a "
                                 "`network` for MPI's traffic") from exc
        prefix = 8 if ip.is_loopback else 24 if ip.version == 4 else 64
        net = str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))
        if net not in found:
            found.append(net)
    return ",".join(found)


def rsh_args(ssh) -> str:
    """ssh's options for Open MPI's launcher, from the hosts' settings."""
    args = ["-o", "BatchMode=yes", "-o", "LogLevel=ERROR"]
    if ssh.config:  # the ssh config stackprobe's own connections read (--ssh-config)
        args += ["-F", ssh.config]
    if ssh.port:
        args += ["-p", str(ssh.port)]
    if ssh.user:
        args += ["-l", ssh.user]
    if ssh.identity:
        args += ["-i", ssh.identity]
    if (ssh.known_hosts or "").lower() == "none":
        args += ["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"]
    elif ssh.known_hosts:
        args += ["-o", f"UserKnownHostsFile={ssh.known_hosts}"]
    return " ".join(args)


def same_ssh(fleet: Fleet, handles: list[HostHandle], kind: str) -> None:
    """MpiLaunchError unless the hosts share their ssh settings (mpirun gives every host the
    same); checked before anything runs."""
    # each host's own ssh destination (its name, for the ssh config) is not an option of ssh
    settings = {fleet.hosts_file.ssh_for(h.host).model_dump_json(exclude={"destination"})
                for h in handles}
    if len(settings) > 1:
        raise MpiLaunchError(f"{kind}: the hosts' ssh settings differ; mpirun gives every "
                             "host the same ssh options")


def over_hosts(fleet: Fleet, handles: list[HostHandle], network: str | None,
               root: bool, kind: str) -> list[str]:
    """mpirun's options reaching `handles` (after `mpirun -np N`): the launcher over the
    hosts' SSH and TCP held to their network; MpiLaunchError when the hosts' ssh settings
    differ (mpirun gives every host the same) or an address is not an IP address."""
    same_ssh(fleet, handles, kind)
    try:
        net = networks([h.host.address for h in handles], network)
    except MpiLaunchError as exc:
        raise MpiLaunchError(f"{kind}: {exc}") from None
    return ["--mca", "plm_rsh_agent", "ssh",
            "--mca", "plm_rsh_args", rsh_args(fleet.hosts_file.ssh_for(handles[0].host)),
            "--mca", "plm_rsh_no_tree_spawn", "1",
            "--mca", "btl_tcp_if_include", net, "--mca", "oob_tcp_if_include", net,
            *(["--allow-run-as-root"] if root else [])]
