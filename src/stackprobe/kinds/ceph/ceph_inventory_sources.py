"""The `ceph` commands whose stdout parsers/ceph_inventory.py reads, keyed by source name.

Each entry is the argv after `ceph` (the runner adds the binary and, when needed,
`--conf`/`--cluster`). All are read-only queries answered by the monitors and the
manager; none touches an OSD's data. "-f json" everywhere: the plain output changes
between releases, the JSON keys much less.

The erasure-code profiles are fetched per name, for the profiles the erasure pools use:
`erasure_profiles_in_use` in parsers/ceph_inventory.py reads them from the "pools"
output, then `ec_profile_source(name)` / `ec_profile_argv(name)` give the source name and
argv of each. Pure data: nothing here runs a command.
"""

from __future__ import annotations

INVENTORY_SOURCES: dict[str, list[str]] = {
    "status": ["-s", "-f", "json"],
    "osd_tree": ["osd", "tree", "-f", "json"],
    "df": ["df", "-f", "json"],
    "pools": ["osd", "pool", "ls", "detail", "-f", "json"],
    "versions": ["versions", "-f", "json"],
    "ec_profiles": ["osd", "erasure-code-profile", "ls", "-f", "json"],
}


def ec_profile_source(name: str) -> str:
    """The source name under which the profile's output is passed to the parser."""
    return f"ec_profile.{name}"


def ec_profile_argv(name: str) -> list[str]:
    """argv tail for one erasure-code profile; the name comes from `ceph osd pool ls detail`."""
    return ["osd", "erasure-code-profile", "get", name, "-f", "json"]
