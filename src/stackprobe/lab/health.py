"""When is the lab cluster usable? Every OSD up and in, every PG active+clean, an active
MDS, the mgr available, and health OK or warnings a one-host lab always has."""

from __future__ import annotations

from stackprobe.parsers.ceph.ceph_status import parse_ceph_status

# Warnings that say nothing about a one-host lab's usability.
LAB_TOLERATED_CHECKS = frozenset({
    "MON_DISK_LOW",  # the VM's disk is shared with everything else
    "POOL_NO_REDUNDANCY",
    "TOO_FEW_PGS",
    "POOL_TOO_FEW_PGS",
    "RECENT_CRASH",
})


def usable(status_text: str, osds: int, tolerated: frozenset[str]) -> tuple[bool, str]:
    """(usable?, what is still missing) from `ceph -s -f json` output."""
    try:
        s = parse_ceph_status(status_text)
    except ValueError as exc:
        return False, str(exc)
    missing = []
    bad_checks = [f"{code}: {msg}" for code, msg in s.checks.items() if code not in tolerated]
    if s.health == "HEALTH_ERR" or bad_checks:
        missing.append(f"{s.health} ({'; '.join(bad_checks) or 'no checks'})")
    if s.up_osds < osds or s.in_osds < osds:
        missing.append(f"{s.up_osds}/{osds} OSDs up, {s.in_osds} in")
    if s.num_pgs == 0 or s.clean_pgs < s.num_pgs:
        missing.append(f"{s.clean_pgs}/{s.num_pgs} PGs active+clean")
    if s.mds_active < 1:
        missing.append("no active MDS")
    if not s.mgr_available:
        missing.append("mgr not available")
    return (not missing), "; ".join(missing)
