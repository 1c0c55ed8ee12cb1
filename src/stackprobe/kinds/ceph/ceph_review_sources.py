"""The read-only `ceph` commands the configuration review runs, and running them.

Every command only reads what the monitors and the manager know (maps, metadata, the
configuration database, health); none changes the cluster or touches an OSD's data.
`ceph config show osd.N` is asked of one OSD per host (what it runs with, config file
included), and `ceph osd erasure-code-profile get` of each profile an erasure pool uses.
Shared by the `ceph_review` step and `stackprobe ceph review`.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from stackprobe.parsers.ceph.cluster_config import CONFIG_SHOW, EC_PROFILE
from stackprobe.transport.base import CommandResult

REVIEW_SOURCES: dict[str, list[str]] = {
    "osd_metadata": ["osd", "metadata"],
    "config_dump": ["config", "dump"],
    "pools": ["osd", "pool", "ls", "detail"],
    "df": ["df"],
    "osd_df": ["osd", "df", "tree"],
    "versions": ["versions"],
    "mon_dump": ["mon", "dump"],
    "mon_metadata": ["mon", "metadata"],
    "mds_metadata": ["mds", "metadata"],
    "time_sync": ["time-sync-status"],
    "status": ["-s"],
    "crush_rules": ["osd", "crush", "rule", "dump"],
    "autoscale": ["osd", "pool", "autoscale-status"],
    "osd_dump": ["osd", "dump"],
}

# runs (label, argv) commands side by side, their results in the order given
# (StepContext.execute_reads; transport/side_by_side.py)
ExecuteReads = Callable[[list[tuple[str, list[str]]]], list[CommandResult]]


def collect(execute_reads: ExecuteReads, cli: list[str]
            ) -> tuple[dict[str, str], dict[str, str], bool]:
    """(outputs by source, failed sources with their last line, interrupted): the sources,
    then what they name (an OSD per host, each erasure profile in use), each batch side by
    side."""
    outputs: dict[str, str] = {}
    failed: dict[str, str] = {}
    if not _batch(execute_reads, cli, list(REVIEW_SOURCES.items()), outputs, failed):
        return outputs, failed, True
    named = [(f"{CONFIG_SHOW}osd.{osd}", ["config", "show", f"osd.{osd}"])
             for osd in _one_osd_per_host(outputs.get("osd_metadata", ""))]
    named += [(f"{EC_PROFILE}{profile}", ["osd", "erasure-code-profile", "get", profile])
              for profile in _ec_profiles(outputs.get("pools", ""))]
    if not _batch(execute_reads, cli, named, outputs, failed):
        return outputs, failed, True
    return outputs, failed, False


def _batch(execute_reads: ExecuteReads, cli: list[str], sources: list[tuple[str, list[str]]],
           outputs: dict[str, str], failed: dict[str, str]) -> bool:
    """Each source's output or why it failed; False when the user stopped the run."""
    results = execute_reads([("ceph-" + source.replace("_", "-").replace(".", "-"),
                              ["ceph", *cli, *args, "-f", "json"]) for source, args in sources])
    for (source, _), result in zip(sources, results):
        if result.interrupted:
            return False
        if result.ok:
            outputs[source] = result.stdout
        else:
            lines = [ln for ln in (result.stderr or result.stdout).splitlines() if ln.strip()]
            failed[source] = lines[-1].strip() if lines else f"exit status {result.returncode}"
    return True


def _one_osd_per_host(metadata: str) -> list[int]:
    """The lowest OSD id of each host in `ceph osd metadata` (unreadable: none)."""
    try:
        doc = json.loads(metadata)
        first: dict[str, int] = {}
        for m in doc:
            host, osd = str(m["hostname"]), int(m["id"])
            first[host] = min(osd, first.get(host, osd))
        return sorted(first.values())
    except (ValueError, TypeError, KeyError, RecursionError):
        return []


def _ec_profiles(pools: str) -> list[str]:
    try:
        return sorted({str(p["erasure_code_profile"]) for p in json.loads(pools)
                       if p.get("type") == 3 and p.get("erasure_code_profile")})
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return []
