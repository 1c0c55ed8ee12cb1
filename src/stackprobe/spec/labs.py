"""Where the labs stackprobe brings up live by default: what `stackprobe lab` makes and
where a run looks for a cluster. Plain paths, importable without the models (the CLI
shows them in its help)."""

from __future__ import annotations

from pathlib import Path

# `stackprobe lab ceph up`: a cluster a run finds by default (kinds/ceph/target.py)
LAB_CEPH_DIR = Path(".stackprobe") / "lab" / "ceph"
# `stackprobe lab hosts up`: the hosts' state, keys and hosts.yaml
LAB_HOSTS_DIR = Path("/tmp/stackprobe-lab-hosts")
LAB_HOSTS_PREFIX = "sp"  # of the namespaces, veths and bridge
# `stackprobe lab bmc up`: ipmi_sim's state and the hosts.yaml naming its BMC
LAB_BMC_DIR = Path("/tmp/stackprobe-lab-bmc")
