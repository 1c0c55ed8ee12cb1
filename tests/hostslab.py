"""What a test needs before it makes a hosts lab (network namespaces on 10.99.0.0/24)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from stackprobe.lab import hosts_lab, netns
from stackprobe.lab.hosts_lab import SUBNET


def hosts_lab_missing(*tools: str) -> str | None:
    """Why a hosts lab cannot be made here, as a skip reason; None when it can: root (for
    namespaces, a bridge, cgroups), sshd, the `tools` named, and the lab subnet free (checked
    before the lab exists: its own route would fail the check)."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, a bridge, sshd, cgroups)"
    if not Path(hosts_lab.SSHD).exists():
        return "no /usr/sbin/sshd (apt-get install -y openssh-server)"
    absent = [t for t in tools if shutil.which(t) is None]
    if absent:
        return f"needs {', '.join(absent)}"
    if netns.overlapping_routes(SUBNET):
        return f"{SUBNET} is in use here (another hosts lab is up?)"
    return None
