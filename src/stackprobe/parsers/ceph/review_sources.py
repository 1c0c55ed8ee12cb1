"""The review's outputs, keyed by source name (cluster_config.COMMANDS) -> ClusterConfig.

`parse_cluster_config(outputs)` reads each source with its own parser. Strict (the
default, and what the fuzz targets call): a source that is not what its command writes
raises its one-line ValueError, naming the command. Lenient (`strict=False`, what the
step and `stackprobe ceph review` use): the source goes to `unread` with that message and
the rest is read, so one bad output costs only the rules that need it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from stackprobe.parsers.bad_input import describe
from stackprobe.parsers.ceph.ceph_status import parse_ceph_status
from stackprobe.parsers.ceph.cluster_config import (
    COMMANDS,
    CONFIG_SHOW,
    EC_PROFILE,
    ClusterConfig,
    Daemon,
)
from stackprobe.parsers.ceph.review_daemons import (
    parse_config_dump,
    parse_config_show,
    parse_daemon_metadata,
    parse_mon_dump,
    parse_time_sync,
    parse_versions,
)
from stackprobe.parsers.ceph.review_osds import parse_osd_df_tree, parse_osd_metadata
from stackprobe.parsers.ceph.review_pools import (
    parse_autoscale,
    parse_crush_rules,
    parse_df_stored,
    parse_ec_profile,
    parse_osd_dump,
    parse_pools,
)

# source -> (parser, ClusterConfig field it fills)
_PARSERS: dict[str, tuple[Callable[[str], Any], str]] = {
    "osd_metadata": (parse_osd_metadata, "osds"),
    "config_dump": (parse_config_dump, "config"),
    "pools": (parse_pools, "pools"),
    "df": (parse_df_stored, "stored"),
    "osd_df": (parse_osd_df_tree, "usage"),
    "versions": (parse_versions, "versions"),
    "mon_dump": (parse_mon_dump, "mons"),
    "mon_metadata": (lambda t: parse_daemon_metadata(t, "mon"), "mons"),
    "mds_metadata": (lambda t: parse_daemon_metadata(t, "mds"), "mdss"),
    "time_sync": (parse_time_sync, "skews"),
    "status": (parse_ceph_status, "status"),
    "crush_rules": (parse_crush_rules, "rules"),
    "autoscale": (parse_autoscale, "autoscale"),
    "osd_dump": (parse_osd_dump, "ratios"),
}
assert set(_PARSERS) == set(COMMANDS)
# mon metadata (hosts) is read after mon dump (addresses), so it can add to it
_ORDER = list(_PARSERS)


def parse_cluster_config(outputs: dict[str, str], strict: bool = True) -> ClusterConfig:
    unknown = [k for k in outputs if k not in _PARSERS
               and not k.startswith((CONFIG_SHOW, EC_PROFILE))]
    if unknown:
        raise ValueError(f"ceph review: unknown source(s) {sorted(unknown)[:5]}")
    config = ClusterConfig()
    for source in sorted(outputs, key=_position):
        try:
            _read(config, source, outputs[source])
        except ValueError as exc:
            if strict:
                raise
            config.unread[source] = describe(exc)
            continue
        config.read.append(source)
    return config


def _position(source: str) -> tuple[int, str]:
    return (_ORDER.index(source) if source in _PARSERS else len(_ORDER), source)


def _read(config: ClusterConfig, source: str, stdout: str) -> None:
    if source.startswith(CONFIG_SHOW):
        daemon = source[len(CONFIG_SHOW):]
        config.running[daemon] = parse_config_show(stdout, daemon)
    elif source.startswith(EC_PROFILE):
        name = source[len(EC_PROFILE):]
        config.ec_profiles[name] = parse_ec_profile(stdout, name)
    elif source == "mon_metadata":
        _merge_mons(config, parse_daemon_metadata(stdout, "mon"))
    else:
        parse, name = _PARSERS[source]
        setattr(config, name, parse(stdout))


def _merge_mons(config: ClusterConfig, found: list[Daemon]) -> None:
    """mon metadata gives hosts; mon dump gave addresses: one Daemon per mon with both."""
    by_name = {m.name: m for m in config.mons}
    for m in found:
        known = by_name.get(m.name)
        by_name[m.name] = m if known is None else replace(
            known, host=m.host, ips=tuple(dict.fromkeys(known.ips + m.ips)))
    config.mons = list(by_name.values())
