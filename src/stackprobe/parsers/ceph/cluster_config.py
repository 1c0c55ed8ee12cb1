"""ClusterConfig: what the configuration review knows of a Ceph cluster, typed.

Filled by parsers/ceph/review_sources.py from the JSON of read-only `ceph` commands (one
field group per command, `COMMANDS` names them); the rules (analysis/ceph_review/) read
only this. A command that was not run or could not be read leaves its fields empty and
its name in `unread`, so a rule that needs it says 'not checked' instead of passing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stackprobe.parsers.ceph.ceph_status import CephStatus

# source name -> the command whose stdout it is (evidence names the command)
COMMANDS: dict[str, str] = {
    "osd_metadata": "ceph osd metadata",
    "config_dump": "ceph config dump",
    "pools": "ceph osd pool ls detail",
    "df": "ceph df",
    "osd_df": "ceph osd df tree",
    "versions": "ceph versions",
    "mon_dump": "ceph mon dump",
    "mon_metadata": "ceph mon metadata",
    "mds_metadata": "ceph mds metadata",
    "time_sync": "ceph time-sync-status",
    "status": "ceph -s",
    "crush_rules": "ceph osd crush rule dump",
    "autoscale": "ceph osd pool autoscale-status",
    "osd_dump": "ceph osd dump",
}
CONFIG_SHOW = "config_show."  # + 'osd.N': `ceph config show osd.N`, one OSD per host
EC_PROFILE = "ec_profile."  # + name: `ceph osd erasure-code-profile get NAME`


def command_of(source: str) -> str:
    if source.startswith(CONFIG_SHOW):
        return f"ceph config show {source[len(CONFIG_SHOW):]}"
    if source.startswith(EC_PROFILE):
        return f"ceph osd erasure-code-profile get {source[len(EC_PROFILE):]}"
    return COMMANDS.get(source, source)


@dataclass(frozen=True)
class OsdMeta:
    """One OSD as `ceph osd metadata` describes it (BlueStore devices, host, memory)."""

    id: int
    host: str
    objectstore: str
    data_type: str  # hdd / ssd / nvme, '' when not said
    data_rotational: bool | None
    data_bytes: int | None
    dedicated_db: bool | None
    dedicated_wal: bool | None
    db_type: str
    db_rotational: bool | None
    db_bytes: int | None
    mem_total_bytes: int | None
    ips: tuple[str, ...]
    version: str


@dataclass(frozen=True)
class OsdUsage:
    """One OSD in `ceph osd df tree`: its PGs now, device class and host."""

    id: int
    device_class: str
    host: str
    pgs: int
    kb: int
    root: str = ""  # the CRUSH root above it ('default'); '' for a stray OSD


@dataclass(frozen=True)
class Pool:
    id: int
    name: str
    replicated: bool
    size: int
    min_size: int
    pg_num: int
    pg_num_target: int
    crush_rule: int
    ec_profile: str
    autoscale_mode: str
    applications: tuple[str, ...]


@dataclass(frozen=True)
class AutoscaleRow:
    pool: str
    pg_num_target: int
    pg_num_final: int
    mode: str
    would_adjust: bool


@dataclass(frozen=True)
class CrushRule:
    id: int
    name: str
    takes: tuple[str, ...]  # item_name of each take step: 'default', 'default~ssd'


@dataclass(frozen=True)
class Ratios:
    epoch: int
    nearfull: float | None
    backfillfull: float | None
    full: float | None


@dataclass(frozen=True)
class Daemon:
    """A mon or an MDS: where it runs (host when the metadata says, else addresses)."""

    kind: str
    name: str
    host: str
    ips: tuple[str, ...]


@dataclass(frozen=True)
class Skew:
    mon: str
    skew_s: float
    health: str


@dataclass(frozen=True)
class ConfigEntry:
    section: str  # global, osd, osd.3, mon ...
    mask: str  # '', 'host:node1', 'class:ssd'
    name: str
    value: str


@dataclass(frozen=True)
class EcProfile:
    name: str
    k: int
    m: int


@dataclass
class ClusterConfig:
    osds: list[OsdMeta] = field(default_factory=list)
    usage: list[OsdUsage] = field(default_factory=list)
    pools: list[Pool] = field(default_factory=list)
    stored: dict[str, int] = field(default_factory=dict)  # pool -> bytes stored (ceph df)
    autoscale: list[AutoscaleRow] = field(default_factory=list)
    rules: list[CrushRule] = field(default_factory=list)
    ratios: Ratios | None = None
    mons: list[Daemon] = field(default_factory=list)
    mdss: list[Daemon] = field(default_factory=list)
    versions: dict[str, dict[str, int]] = field(default_factory=dict)
    skews: list[Skew] = field(default_factory=list)
    config: list[ConfigEntry] = field(default_factory=list)
    running: dict[str, dict[str, str]] = field(default_factory=dict)  # osd.N -> name -> value
    ec_profiles: dict[str, EcProfile] = field(default_factory=dict)
    status: CephStatus | None = None
    read: list[str] = field(default_factory=list)  # sources read
    unread: dict[str, str] = field(default_factory=dict)  # source -> why not

    def has(self, source: str) -> bool:
        return source in self.read

    def setting(self, name: str, who: str = "osd", host: str = "") -> tuple[str, str] | None:
        """(value, where) of an option in the config database for a daemon type on a host:
        the most specific entry wins (osd with a host mask, osd, global), as Ceph does."""
        best: tuple[int, ConfigEntry] | None = None
        for e in self.config:
            if e.name != name or e.section not in ("global", who):
                continue
            if e.mask and e.mask != f"host:{host}":
                continue
            rank = (2 if e.section == who else 0) + (1 if e.mask else 0)
            if best is None or rank > best[0]:
                best = (rank, e)
        if best is None:
            return None
        e = best[1]
        return e.value, f"{e.section}{'/' + e.mask if e.mask else ''}"
