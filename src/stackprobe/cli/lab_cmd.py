"""`stackprobe lab ceph|hosts|bmc up|down|status`: test environments stackprobe brings up itself.

ceph:  a real one-host Ceph cluster to try stackprobe on.
hosts: N hosts (network namespaces on a bridge, each with its own sshd) for multi-host runs.
bmc:   a BMC (OpenIPMI's ipmi_sim on 127.0.0.1) for the `ipmi` kind.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import typer

from stackprobe.lab.hosts_specs import MAX_HOSTS
from stackprobe.spec.labs import LAB_BMC_DIR
from stackprobe.spec.labs import LAB_CEPH_DIR as DEFAULT_DIR
from stackprobe.spec.labs import LAB_HOSTS_DIR as HOSTS_DEFAULT_DIR
from stackprobe.spec.labs import LAB_HOSTS_PREFIX as DEFAULT_PREFIX

lab_app = typer.Typer(help="Lab environments stackprobe brings up itself.", no_args_is_help=True)
ceph_app = typer.Typer(help="A one-host Ceph cluster (Debian packages, no systemd).",
                       no_args_is_help=True)
lab_app.add_typer(ceph_app, name="ceph")

DIR_OPTION = typer.Option(DEFAULT_DIR, "--dir", help="Lab directory (everything lives there).")


@ceph_app.command("up")
def up(
    lab_dir: Path = DIR_OPTION,
    osds: int = typer.Option(3, "--osds", min=1, max=12, help="BlueStore OSDs on sparse files."),
    osd_size: str = typer.Option("10G", "--osd-size", help="Size of each OSD's sparse block file."),
    hosts_dir: Path = typer.Option(HOSTS_DEFAULT_DIR, "--hosts-dir",
                                   help="The hosts lab whose hosts become clients when its bridge is up."),
    local: bool = typer.Option(False, "--local", help="Listen on 127.0.0.1 even when the hosts "
                                                      "lab is up (no lab host is a client)."),
) -> None:
    """Bring up mon, mgr, OSDs, an MDS and a CephFS; wait until usable. With the hosts lab up
    (`lab hosts up` first), every lab host is a client with a user and keyring of its own."""
    from stackprobe.lab.ceph_clients import bridge_of
    from stackprobe.lab.ceph_lab import CephLab
    from stackprobe.units import parse_size

    t0 = time.monotonic()
    lab = CephLab(lab_dir)
    bridge = None if local else bridge_of(hosts_dir)
    state = lab.up(osds=osds, osd_size_bytes=parse_size(osd_size), bridge=bridge)
    took = time.monotonic() - t0
    print(f"lab ceph up in {took:.1f} s: {osds} OSDs, CephFS mounted at {state.mount}, "
          f"listening on {state.bind}")
    if bridge is not None:
        print(f"clients: {', '.join(f'{c.host} (client.{c.id})' for c in bridge.clients)}; "
              f"their hosts file: {Path(bridge.lab_dir) / 'hosts.yaml'}")
        print(f"stop this lab before the hosts lab: it listens on {bridge.address}")
    print(f"conf: {state.conf}")
    print(f"test it: stackprobe run ceph-quick --ceph-conf {state.conf}")
    print(f"stop it: stackprobe lab ceph down --dir {lab.dir}")


@ceph_app.command("down")
def down(lab_dir: Path = DIR_OPTION) -> None:
    """Unmount, stop exactly the daemons the lab started (by PID), remove the directory."""
    from stackprobe.lab.ceph_lab import CephLab

    lab = CephLab(lab_dir)
    notes = lab.down()
    for note in notes:
        print(note)
    print(f"lab ceph down: {lab.dir} removed")


@ceph_app.command("status")
def status(
    lab_dir: Path = DIR_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Machine-readable status."),
) -> None:
    """What the lab started and whether it still runs."""
    from stackprobe.lab.ceph_lab import CephLab

    info = CephLab(lab_dir).status()
    if as_json:
        print(json.dumps(info, indent=1))
        return
    if not info["daemons"]:
        print(f"no lab cluster in {info['dir']}")
        raise typer.Exit(1)
    print(f"lab {info['dir']}: {'up' if info['up'] else 'DEGRADED'}, health {info['health']}")
    for d in info["daemons"]:
        print(f"  {d['name']:10s} pid {d['pid']:>7d}  {'running' if d['running'] else 'not running'}")
    print(f"  conf {info['conf']}; CephFS at {info['mount']}; listening on {info['bind']}")
    for c in info["clients"]:
        print(f"  client {c['host']:6s} client.{c['id']}: "
              f"{'reaches the cluster' if c['reaches'] else 'does NOT reach it: ' + c['why']}")
    if not info["up"] or not all(c["reaches"] for c in info["clients"]):
        raise typer.Exit(1)


# ---------------------------------------------------------------------- lab hosts
hosts_app = typer.Typer(help="N hosts on this machine: network namespaces on a bridge, each with "
                             "its own sshd (needs root).", no_args_is_help=True)
lab_app.add_typer(hosts_app, name="hosts")

HOSTS_DIR_OPTION = typer.Option(HOSTS_DEFAULT_DIR, "--dir", help="Lab directory (state, keys, hosts.yaml).")


@hosts_app.command("up")
def hosts_up(
    n: int = typer.Argument(..., help=f"How many hosts (1-{MAX_HOSTS})."),
    lab_dir: Path = HOSTS_DIR_OPTION,
    slow_link: list[str] = typer.Option([], "--slow-link", metavar="HOST:RATE",
                                        help="Shape traffic into HOST, e.g. h2:200mbit (repeatable)."),
    slow_cpu: list[str] = typer.Option([], "--slow-cpu", metavar="HOST:PERCENT",
                                       help="Cap HOST's sshd and its commands to PERCENT of one CPU, "
                                            "e.g. h3:20 (repeatable)."),
    slow_disk: list[str] = typer.Option([], "--slow-disk", metavar="HOST:RATE",
                                        help="Cap reads and writes of HOST's commands to the disk "
                                             "holding its data directory at RATE bytes/s, e.g. "
                                             "h1:30M (repeatable)."),
    prefix: str = typer.Option(DEFAULT_PREFIX, "--prefix",
                               help="Start of every name the lab makes (bridge PREFIX-br, netns PREFIX-h1..)."),
) -> None:
    """Bring up N hosts h1..hN at 10.99.0.11.. with sshd, and write a hosts.yaml for them."""
    from stackprobe.lab.hosts_lab import HostsLab
    from stackprobe.lab.hosts_specs import check_request, parse_cpu_specs, parse_specs

    links = parse_specs(slow_link, "slow-link")
    cpus = parse_cpu_specs(slow_cpu)
    disks = parse_specs(slow_disk, "slow-disk")
    check_request(n, prefix, links, cpus, disks)
    t0 = time.monotonic()
    lab = HostsLab(lab_dir, prefix=prefix)
    state = lab.up(n, slow_links=links, slow_cpus=cpus, slow_disks=disks)
    took = time.monotonic() - t0
    faults = [f"{h.name} link {h.slow_link}" for h in state.hosts if h.slow_link] + \
             [f"{h.name} cpu {h.slow_cpu}%" for h in state.hosts if h.slow_cpu] + \
             [f"{h.name} disk {h.slow_disk}/s ({h.disk_device})" for h in state.hosts if h.slow_disk]
    print(f"lab hosts up in {took:.1f} s: {n} hosts "
          f"{state.hosts[0].address}..{state.hosts[-1].address} on {state.bridge}"
          + (f"; faults: {', '.join(faults)}" if faults else ""))
    print(f"hosts: {state.hosts_yaml}")
    print(f"use it: stackprobe run cluster-acceptance --hosts {state.hosts_yaml}")
    print(f"ssh by hand: ssh -i {state.identity} -o UserKnownHostsFile={state.known_hosts} "
          f"root@{state.hosts[0].address}")
    print(f"stop it: stackprobe lab hosts down --dir {lab.dir}")


@hosts_app.command("down")
def hosts_down(lab_dir: Path = HOSTS_DIR_OPTION) -> None:
    """Stop the hosts' sshds and what runs in them (by PID), remove namespaces, links, cgroups."""
    from stackprobe.lab.hosts_lab import HostsLab

    t0 = time.monotonic()
    lab = HostsLab(lab_dir)
    was_there = lab.dir.exists()
    notes = lab.down()
    for note in notes:
        print(note)
    if was_there:
        print(f"lab hosts down in {time.monotonic() - t0:.1f} s: {lab.dir} removed")


@hosts_app.command("status")
def hosts_status(
    lab_dir: Path = HOSTS_DIR_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Machine-readable status."),
) -> None:
    """What the lab made and whether each host's sshd still runs."""
    from stackprobe.lab.hosts_lab import HostsLab

    info = HostsLab(lab_dir).status()
    if as_json:
        print(json.dumps(info, indent=1))
        return
    if not info["hosts"]:
        print(f"no hosts lab in {info['dir']}")
        raise typer.Exit(1)
    print(f"lab hosts {info['dir']}: {'up' if info['up'] else 'DEGRADED'}, bridge {info['bridge']} "
          f"{'present' if info['bridge_present'] else 'MISSING'}")
    for h in info["hosts"]:
        faults = ", ".join(x for x in (h["slow_link"] and f"link {h['slow_link']}",
                                       h["slow_cpu"] and f"cpu {h['slow_cpu']}%",
                                       h.get("slow_disk") and f"disk {h['slow_disk']}/s "
                                                              f"({h['disk_device'] or '?'})") if x)
        print(f"  {h['name']:4s} {h['address']:12s} netns {h['netns']:10s} sshd pid {h['pid'] or '-'!s:>7}  "
              f"{'running' if h['running'] else 'not running'}" + (f"  [{faults}]" if faults else ""))
    print(f"  hosts file {info['hosts_yaml'] or '(not written: up did not finish)'}")
    if not info["up"]:
        raise typer.Exit(1)


# ---------------------------------------------------------------------- lab bmc
bmc_app = typer.Typer(help="A BMC on this machine: OpenIPMI's ipmi_sim on 127.0.0.1 (IPMI "
                           "over LAN), with sensors and an event log to check.",
                      no_args_is_help=True)
lab_app.add_typer(bmc_app, name="bmc")

BMC_DIR_OPTION = typer.Option(LAB_BMC_DIR, "--dir",
                              help="Lab directory (state, lan.conf, .emu, hosts.yaml).")


@bmc_app.command("up")
def bmc_up(
    lab_dir: Path = BMC_DIR_OPTION,
    port: int = typer.Option(0, "--port", min=0, max=65535,
                             help="UDP port on 127.0.0.1 (0: a free one)."),
) -> None:
    """Start ipmi_sim with a BMC, sensors (one over its critical threshold) and a SEL holding
    one error, and write a hosts.yaml naming it as a management entry."""
    from stackprobe.lab.bmc import BmcLab

    t0 = time.monotonic()
    lab = BmcLab(lab_dir)
    state = lab.up(port or None)
    print(f"lab bmc up in {time.monotonic() - t0:.1f} s: ipmi_sim pid {state['daemon']['pid']} "
          f"on {state['address']}:{state['port']} (lanplus, cipher suite 3, user {state['user']})")
    for line in lab.findings(state):
        print(line)
    print(f"hosts: {state['hosts_yaml']}")
    print(f"password file: {state['password_file']} (the hosts file names it; never printed)")
    print(f"stop it: stackprobe lab bmc down --dir {lab.dir}")


@bmc_app.command("down")
def bmc_down(lab_dir: Path = BMC_DIR_OPTION) -> None:
    """Stop ipmi_sim (by PID) and remove the lab directory."""
    from stackprobe.lab.bmc import BmcLab

    lab = BmcLab(lab_dir)
    was_there = lab.dir.exists()
    for note in lab.down():
        print(note)
    if was_there:
        print(f"lab bmc down: {lab.dir} removed")


@bmc_app.command("status")
def bmc_status(
    lab_dir: Path = BMC_DIR_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Machine-readable status."),
) -> None:
    """Whether the lab's ipmi_sim runs and answers."""
    from stackprobe.lab.bmc import BmcLab

    info = BmcLab(lab_dir).status()
    if as_json:
        print(json.dumps(info, indent=1))
    elif info["pid"] is None:
        print(f"no BMC lab in {info['dir']}")
    else:
        print(f"lab bmc {info['dir']}: {'up' if info['up'] else 'DOWN'}, ipmi_sim pid "
              f"{info['pid']} {'running' if info['running'] else 'not running'}, "
              f"{info['address']}:{info['port']}; hosts file {info['hosts_yaml']}")
    if not info["up"]:
        raise typer.Exit(1)
