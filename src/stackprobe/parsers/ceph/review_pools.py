"""Pools and placement as the review reads them (-f json of each command):

- `ceph osd pool ls detail`: type, size, min_size, pg_num (and its target), CRUSH rule,
  EC profile, autoscale mode, applications;
- `ceph osd pool autoscale-status`: the autoscaler's pg_num for each pool (pg_num_final);
- `ceph osd crush rule dump`: what each rule takes ('default~ssd' names a device class);
- `ceph osd dump`: the epoch and the nearfull / backfillfull / full ratios;
- `ceph df`: bytes stored per pool;
- `ceph osd erasure-code-profile get NAME`: k and m.
"""

from __future__ import annotations

from stackprobe.parsers.bad_input import guard
from stackprobe.parsers.ceph.cluster_config import AutoscaleRow, CrushRule, EcProfile, Pool, Ratios
from stackprobe.parsers.ceph.json_fields import integer, items, load, number, obj, text

POOLS = "ceph osd pool ls detail"
AUTOSCALE = "ceph osd pool autoscale-status"
RULES = "ceph osd crush rule dump"
OSD_DUMP = "ceph osd dump"
DF = "ceph df"
PROFILE = "ceph osd erasure-code-profile get"
_TYPES = {1: True, 3: False, "replicated": True, "erasure": False}


@guard(POOLS)
def parse_pools(stdout: str) -> list[Pool]:
    out = []
    for i, p in enumerate(load(stdout, POOLS, list)):
        p = obj(p, POOLS, f"entry {i}")
        name = text(p.get("pool_name"), POOLS, f"entry {i} pool_name")
        kind = p.get("type")
        if kind not in _TYPES or isinstance(kind, bool):
            raise ValueError(f"{POOLS}: pool {name!r} type is {str(kind)[:20]!r}")
        pg_num = integer(p.get("pg_num"), POOLS, f"pool {name!r} pg_num")
        apps = p.get("application_metadata") or {}
        out.append(Pool(
            id=integer(p.get("pool_id", p.get("pool")), POOLS, f"pool {name!r} pool_id"),
            name=name,
            replicated=_TYPES[kind],
            size=integer(p.get("size"), POOLS, f"pool {name!r} size"),
            min_size=integer(p.get("min_size"), POOLS, f"pool {name!r} min_size"),
            pg_num=pg_num,
            pg_num_target=integer(p.get("pg_num_target", pg_num), POOLS,
                                  f"pool {name!r} pg_num_target"),
            crush_rule=integer(p.get("crush_rule", 0), POOLS, f"pool {name!r} crush_rule"),
            ec_profile=text(p.get("erasure_code_profile"), POOLS,
                            f"pool {name!r} erasure_code_profile"),
            autoscale_mode=text(p.get("pg_autoscale_mode"), POOLS,
                                f"pool {name!r} pg_autoscale_mode"),
            applications=tuple(sorted(str(a) for a in obj(apps, POOLS, "application_metadata"))),
        ))
    return out


@guard(AUTOSCALE)
def parse_autoscale(stdout: str) -> list[AutoscaleRow]:
    out = []
    for i, r in enumerate(load(stdout, AUTOSCALE, list)):
        r = obj(r, AUTOSCALE, f"entry {i}")
        name = text(r.get("pool_name"), AUTOSCALE, f"entry {i} pool_name")
        adjust = r.get("would_adjust", False)
        if not isinstance(adjust, bool):
            raise ValueError(f"{AUTOSCALE}: pool {name!r} would_adjust is not true/false")
        out.append(AutoscaleRow(
            pool=name,
            pg_num_target=integer(r.get("pg_num_target"), AUTOSCALE, f"pool {name!r} pg_num_target"),
            pg_num_final=integer(r.get("pg_num_final"), AUTOSCALE, f"pool {name!r} pg_num_final"),
            mode=text(r.get("pg_autoscale_mode"), AUTOSCALE, f"pool {name!r} pg_autoscale_mode"),
            would_adjust=adjust,
        ))
    return out


@guard(RULES)
def parse_crush_rules(stdout: str) -> list[CrushRule]:
    out = []
    for i, r in enumerate(load(stdout, RULES, list)):
        r = obj(r, RULES, f"entry {i}")
        takes = tuple(text(s.get("item_name"), RULES, f"rule {i} take item_name")
                      for s in items(r, "steps", RULES) if s.get("op") == "take")
        out.append(CrushRule(integer(r.get("rule_id"), RULES, f"entry {i} rule_id"),
                             text(r.get("rule_name"), RULES, f"entry {i} rule_name"), takes))
    return out


@guard(OSD_DUMP)
def parse_osd_dump(stdout: str) -> Ratios:
    doc = load(stdout, OSD_DUMP, dict)

    def ratio(key: str) -> float | None:
        value = doc.get(key)
        return None if value is None else number(value, OSD_DUMP, key)

    return Ratios(integer(doc.get("epoch"), OSD_DUMP, "epoch"), ratio("nearfull_ratio"),
                  ratio("backfillfull_ratio"), ratio("full_ratio"))


@guard(DF)
def parse_df_stored(stdout: str) -> dict[str, int]:
    out = {}
    for p in items(load(stdout, DF, dict), "pools", DF):
        name = text(p.get("name"), DF, "pool name")
        stats = obj(p.get("stats") or {}, DF, f"pool {name!r} stats")
        out[name] = integer(stats.get("stored", stats.get("bytes_used", 0)), DF,
                            f"pool {name!r} stored")
    return out


@guard(PROFILE)
def parse_ec_profile(stdout: str, name: str) -> EcProfile:
    doc = load(stdout, PROFILE, dict)
    return EcProfile(name, integer(doc.get("k"), PROFILE, f"{name} k"),
                     integer(doc.get("m"), PROFILE, f"{name} m"))
