"""`stackprobe lab ceph up|down|status`: a real one-host Ceph cluster to try stackprobe on."""

from __future__ import annotations

import json
import time
from pathlib import Path

import typer

from stackprobe.lab.ceph_lab import DEFAULT_DIR, CephLab
from stackprobe.units import parse_size

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
) -> None:
    """Bring up mon, mgr, OSDs, an MDS and a CephFS; wait until usable."""
    t0 = time.monotonic()
    lab = CephLab(lab_dir)
    state = lab.up(osds=osds, osd_size_bytes=parse_size(osd_size))
    took = time.monotonic() - t0
    print(f"lab ceph up in {took:.1f} s: {osds} OSDs, CephFS mounted at {state.mount}")
    print(f"conf: {state.conf}")
    print(f"test it: stackprobe run ceph-quick --ceph-conf {state.conf}")
    print(f"stop it: stackprobe lab ceph down --dir {lab.dir}")


@ceph_app.command("down")
def down(lab_dir: Path = DIR_OPTION) -> None:
    """Unmount, stop exactly the daemons the lab started (by PID), remove the directory."""
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
    print(f"  conf {info['conf']}; CephFS at {info['mount']}")
    if not info["up"]:
        raise typer.Exit(1)
