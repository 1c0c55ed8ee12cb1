"""Ceph inventory parser on `ceph ... -f json` outputs recorded on the 16.2.15 lab cluster
(with an erasure-coded pool of the recording script's own), and the source list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stackprobe.kinds.ceph.ceph_inventory_sources import (
    INVENTORY_SOURCES,
    ec_profile_argv,
    ec_profile_source,
)
from stackprobe.parsers.ceph.ceph_inventory import (
    SOURCES,
    erasure_profiles_in_use,
    parse_ceph_inventory,
)
from stackprobe.schema.records import CephInventoryRecord

REC = Path(__file__).parent / "fixtures" / "recorded" / "ceph"
V = "ceph-16.2.15_"
VERSION = "ceph version 16.2.15 (618f440892089921c3e944a991122ddc44e60516) pacific (stable)"
FILES = {
    "status": "status.json",
    "osd_tree": "osd-tree.json",
    "df": "df.json",
    "pools": "osd-pool-ls-detail.json",
    "versions": "versions.json",
    "ec_profiles": "erasure-code-profile-ls.json",
    "ec_profile.rec-ec-profile": "erasure-code-profile-get_rec-ec-profile.json",
}


def outputs(*only: str) -> dict[str, str]:
    return {k: (REC / (V + f)).read_text() for k, f in FILES.items() if not only or k in only}


def pool(rec: CephInventoryRecord, name: str) -> dict:
    return next(p for p in rec.pools if p["name"] == name)


def test_full_inventory():
    rec = parse_ceph_inventory(outputs())
    assert rec.fsid == "7f1649b2-60af-4b84-a866-7639656c56f0"
    assert rec.health == "HEALTH_OK" and rec.checks == {}
    assert rec.mds_active == 1
    assert rec.hosts == ["vm"] and rec.device_classes == {"hdd": 3}
    assert [o["id"] for o in rec.osds] == [0, 1, 2]
    assert rec.osds[0] == {"id": 0, "name": "osd.0", "host": "vm", "device_class": "hdd",
                           "up": True, "in": True, "crush_weight": 0.0077972412109375,
                           "reweight": 1.0}
    assert rec.raw_bytes == 25769803776 and rec.raw_used_bytes == 12178767872
    assert rec.versions["overall"] == {VERSION: 6}
    assert rec.versions["osd"] == {VERSION: 3} and set(rec.versions) == {
        "mon", "mgr", "osd", "mds", "overall"}
    # round trip through what results.json stores
    assert CephInventoryRecord.model_validate(rec.to_json()) == rec


def test_pools_replicated_and_erasure():
    rec = parse_ceph_inventory(outputs())
    assert [p["name"] for p in rec.pools] == [
        "labfs-meta", "labfs-data", "device_health_metrics", "rb", "rec-x", "rec-ec"]
    rb = pool(rec, "rb")
    assert rb == {"name": "rb", "id": 4, "type": "replicated", "size": 3, "min_size": 2,
                  "pg_num": 16, "crush_rule": 0, "applications": ["rbd"],
                  "stored_bytes": 2888622336, "objects": 934, "used_bytes": 8665927680}
    assert pool(rec, "labfs-meta")["applications"] == ["cephfs"]
    ec = pool(rec, "rec-ec")
    assert ec["type"] == "erasure" and ec["pg_num"] == 8 and ec["size"] == 3
    assert ec["stored_bytes"] == 1048576 and ec["objects"] == 1
    profile = ec["ec_profile"]
    assert (profile["name"], profile["k"], profile["m"]) == ("rec-ec-profile", 2, 1)
    assert profile["plugin"] == "jerasure" and profile["crush-failure-domain"] == "osd"
    assert "ec_profile" not in rb


def test_health_warn_checks():
    out = outputs()
    out["status"] = (REC / (V + "status_health-warn.json")).read_text()
    rec = parse_ceph_inventory(out)
    assert rec.health == "HEALTH_WARN"
    assert rec.checks == {"POOL_APP_NOT_ENABLED": "1 pool(s) do not have an application enabled"}


def test_missing_sources_leave_their_fields_empty():
    rec = parse_ceph_inventory(outputs("status"))
    assert rec.health == "HEALTH_OK"
    assert (rec.osds, rec.hosts, rec.pools, rec.versions) == ([], [], [], {})
    assert rec.raw_bytes is None and rec.device_classes == {}
    rec = parse_ceph_inventory(outputs("osd_tree"))
    assert rec.health is None and rec.fsid is None and len(rec.osds) == 3
    assert parse_ceph_inventory({}) == CephInventoryRecord()


def test_pool_stats_without_detail_and_profile_without_its_source():
    rec = parse_ceph_inventory(outputs("df"))
    assert pool(rec, "rb") == {"name": "rb", "id": 4, "stored_bytes": 2888622336,
                               "objects": 934, "used_bytes": 8665927680}
    rec = parse_ceph_inventory(outputs("pools"))
    assert pool(rec, "rec-ec")["ec_profile"] == {"name": "rec-ec-profile"}
    assert "stored_bytes" not in pool(rec, "rb")


def test_down_and_out_osds():
    tree = json.loads(outputs("osd_tree")["osd_tree"])
    osd2 = next(n for n in tree["nodes"] if n["id"] == 2)
    osd2.update(status="down", reweight=0)
    tree["stray"] = [{"id": 3, "name": "osd.3", "type": "osd", "type_id": 0, "status": "down",
                      "reweight": 0, "crush_weight": 0}]
    rec = parse_ceph_inventory({"osd_tree": json.dumps(tree)})
    by_id = {o["id"]: o for o in rec.osds}
    assert (by_id[2]["up"], by_id[2]["in"]) == (False, False)
    assert by_id[3]["host"] is None and by_id[3]["device_class"] is None
    assert rec.device_classes == {"hdd": 3, "none": 1} and rec.hosts == ["vm"]


@pytest.mark.parametrize("source", ["status", "osd_tree", "df", "pools", "versions",
                                    "ec_profiles", "ec_profile.rec-ec-profile"])
def test_invalid_json_names_the_source(source):
    out = outputs()
    out[source] = "Error EACCES: access denied\n"
    with pytest.raises(ValueError, match=f"source '{source}'"):
        parse_ceph_inventory(out)


def test_wrong_shapes_and_unknown_sources():
    with pytest.raises(ValueError, match="'osd_tree': not a JSON dict"):
        parse_ceph_inventory({"osd_tree": "[]"})
    with pytest.raises(ValueError, match="'osd_tree' has no 'nodes'"):
        parse_ceph_inventory({"osd_tree": "{}"})
    with pytest.raises(ValueError, match="'pools' has an entry without"):
        parse_ceph_inventory({"pools": '[{"pool_name": "x"}]'})
    with pytest.raises(ValueError, match="'versions'"):
        parse_ceph_inventory({"versions": '{"mon": 1}'})
    with pytest.raises(ValueError, match="unknown source"):
        parse_ceph_inventory({"osdtree": "{}"})


def test_sources_are_the_parser_sources_and_pure_data():
    assert set(INVENTORY_SOURCES) == set(SOURCES)
    for argv in INVENTORY_SOURCES.values():
        assert argv[-2:] == ["-f", "json"] and all(isinstance(a, str) for a in argv)
    assert INVENTORY_SOURCES["status"] == ["-s", "-f", "json"]
    assert INVENTORY_SOURCES["pools"] == ["osd", "pool", "ls", "detail", "-f", "json"]
    assert ec_profile_argv("p1") == ["osd", "erasure-code-profile", "get", "p1", "-f", "json"]
    names = erasure_profiles_in_use(outputs("pools")["pools"])
    assert names == ["rec-ec-profile"]
    assert [ec_profile_source(n) for n in names] == [k for k in FILES if k.startswith("ec_profile.")]
