"""The Ceph configuration review's rules on recorded outputs: each fires where the cluster
has the problem and stays quiet where it does not (tests/fixtures/ceph_review/SOURCES.md
says where every output comes from: the lab, a real cluster's sosreport, or a recording
with one field changed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FIXTURES
from stackprobe.analysis.ceph_review.registry import RULES, review
from stackprobe.parsers.ceph.review_sources import parse_cluster_config

HERE = FIXTURES / "ceph_review"
RECORDED = FIXTURES / "recorded" / "ceph"
FILES = {
    "osd-metadata.json": "osd_metadata", "config-dump.json": "config_dump",
    "osd-pool-ls-detail.json": "pools", "df.json": "df", "osd-df-tree.json": "osd_df",
    "versions.json": "versions", "mon-dump.json": "mon_dump",
    "mon-metadata.json": "mon_metadata", "mds-metadata.json": "mds_metadata",
    "time-sync-status.json": "time_sync", "status.json": "status",
    "osd-crush-rule-dump.json": "crush_rules", "osd-pool-autoscale-status.json": "autoscale",
    "osd-dump.json": "osd_dump", "config-show-osd.0.json": "config_show.osd.0",
}


def outputs(folder: str, **replace: Path | None) -> dict[str, str]:
    """The recorded outputs of a cluster by source name; `replace` swaps a source's file
    (or drops it with None)."""
    out = {FILES[p.name]: p.read_text() for p in sorted((HERE / folder).iterdir())
           if p.name in FILES}
    for source, path in replace.items():
        if path is None:
            out.pop(source, None)
        else:
            out[source] = path.read_text()
    return out


def findings(outs: dict[str, str], rule: str):
    (result,) = [r for r in review(parse_cluster_config(outs)) if r.rule == rule]
    assert result.checked, result.looked_at
    return result.findings


LAB, CHANGED, REAL = outputs("lab-default"), outputs("lab-changed"), outputs("hotsos-octopus")


def test_every_rule_is_quiet_on_a_sane_real_cluster():
    """The hotsos cluster (SSD OSDs, mons on their own hosts, 3 replicas, ~69 PGs per OSD,
    one version, clocks in sync) gives no rule anything to say."""
    results = review(parse_cluster_config(REAL))
    assert [r.rule for r in results] == [rule.id for rule in RULES]
    assert {r.rule: r.findings for r in results if r.findings} == {}
    assert all(r.checked for r in results)


def test_db_wal_on_the_hdd_data_device_fires_on_the_lab():
    (f,) = findings(LAB, "bluestore-db-placement")
    assert f.severity == "warn" and "osd.0, osd.1, osd.2" in f.message
    assert f.evidence[0].command == "ceph osd metadata"
    assert f.evidence[0].value == "0 / 1 (hdd)"


def test_db_on_a_rotational_device_fires_and_ssd_osds_without_db_do_not():
    msgs = [f.message for f in findings(CHANGED, "bluestore-db-placement")]
    assert any("osd.3, osd.4" in m and "rotational like the data" in m for m in msgs)
    assert findings(REAL, "bluestore-db-placement") == []  # SSD data: no DB needed


def test_db_below_one_percent_fires_and_ten_percent_does_not():
    (f,) = findings(CHANGED, "bluestore-db-size")
    assert f.subject == "osd.4" and f.severity == "warn" and "0.6%" in f.message
    assert {e.field for e in f.evidence} >= {"osd.4 bluefs_db_size", "health BLUEFS_SPILLOVER"}
    assert "bluestore-config-ref/#sizing" in f.doc.url


def test_pgs_per_osd_too_few_on_the_lab_too_many_after_the_changes_fine_on_the_real():
    (few,) = findings(LAB, "pgs-per-osd")
    assert few.severity == "warn" and "3 of 3 OSDs hold fewer than 50" in few.message
    (many,) = findings(CHANGED, "pgs-per-osd")
    assert many.severity == "fail" and "osd.4 with 319" in many.message
    assert many.doc.url.endswith("#too-many-pgs")
    assert findings(REAL, "pgs-per-osd") == []


def test_pool_pg_num_flags_the_pools_with_too_few_and_too_many_pgs_only():
    by_subject = {f.subject: f for f in findings(CHANGED, "pool-pg-num")}
    assert set(by_subject) == {"pool rv-few", "pool rv-many"}  # not rv-sane, labfs-*
    assert "2 OSD(s) hold none of its data" in by_subject["pool rv-few"].message
    assert "154 PGs on each of its 5 OSDs" in by_subject["pool rv-many"].message
    assert findings(REAL, "pool-pg-num") == []


def test_pg_num_more_than_3x_off_the_autoscaler_fires_2x_does_not():
    off = [f for f in findings(outputs("lab-pools"), "pool-pg-num") if "autoscaler" in f.message]
    assert {f.subject for f in off} == {"pool rv-lab-few", "pool rv-lab-many"}  # 1 and 128
    assert all(f.evidence[-1].command == "ceph osd pool autoscale-status" for f in off)
    assert "than 3x off the autoscaler's 32" in off[0].message  # rv-lab-sane: 16 vs 32


def test_autoscaler_that_lists_no_pool_fires():
    warns = [f for f in findings(CHANGED, "pg-autoscaler") if f.severity == "warn"]
    assert len(warns) == 1 and "2 pool(s)" in warns[0].message
    assert findings(REAL, "pg-autoscaler") == []


def test_size_2_and_min_size_1_fire_size_3_does_not():
    by_sev = {(f.subject, f.severity) for f in findings(CHANGED, "pool-redundancy")}
    assert by_sev == {("pool rv-size2", "warn"), ("pool rv-size2", "fail")}
    assert findings(REAL, "pool-redundancy") == []


def test_erasure_pool_with_min_size_k_fires():
    outs = {"pools": (RECORDED / "ceph-16.2.15_osd-pool-ls-detail.json").read_text(),
            "ec_profile.rec-ec-profile": (
                RECORDED / "ceph-16.2.15_erasure-code-profile-get_rec-ec-profile.json").read_text()}
    (f,) = findings(outs, "pool-redundancy")
    assert f.subject == "pool rec-ec" and "below k+1 = 3" in f.message
    assert f.evidence[1].command == "ceph osd erasure-code-profile get rec-ec-profile"


def test_mon_and_mds_on_the_osd_host_fire_mons_of_their_own_do_not():
    subjects = {f.subject for f in findings(LAB, "mon-mds-on-osd-hosts")}
    assert subjects == {"mon.a", "mds.a"}
    assert findings(REAL, "mon-mds-on-osd-hosts") == []  # mons at .120/.125/.131, OSDs elsewhere


def test_memory_target_from_the_config_database_over_the_ram_fires():
    no_show = outputs("lab-changed", **{"config_show.osd.0": None})
    (f,) = findings(no_show, "osd-memory")
    assert f.severity == "fail" and "5 OSDs x osd_memory_target 8.00 GiB = 40.0 GiB" in f.message
    assert "osd/host:vm" in f.evidence[2].field


def test_memory_target_the_osds_run_with_fits_and_the_default_fits_the_real_hosts():
    assert findings(CHANGED, "osd-memory") == []  # they run with 1 GiB from ceph.conf
    assert findings(REAL, "osd-memory") == []  # 4 GiB default, 1 OSD, 16 GB hosts


def test_full_ratios_out_of_order_and_above_default_fire():
    outs = {"osd_dump": (HERE / "derived" / "osd-dump_ratios-out-of-order.json").read_text()}
    severities = sorted(f.severity for f in findings(outs, "full-ratios"))
    assert severities == ["fail", "warn"]
    assert findings(REAL, "full-ratios") == [] and findings(LAB, "full-ratios") == []


def test_mixed_versions_fire_on_the_half_upgraded_cluster():
    outs = {"versions": (HERE / "hotsos-mixed-versions" / "versions.json").read_text()}
    (f,) = findings(outs, "mixed-versions")
    assert "15.2.11, 15.2.13" in f.message
    assert findings(REAL, "mixed-versions") == []


def test_clock_skew_fires_above_the_allowed_drift():
    outs = {"time_sync": (HERE / "derived" / "time-sync-status_skewed.json").read_text()}
    (f,) = findings(outs, "clock-skew")
    assert "0.212 s" in f.message and f.doc.url.endswith("#mon-clock-skew")
    assert findings(REAL, "clock-skew") == []


def test_scrubbing_pgs_fire():
    outs = {"status": (HERE / "lab-pools-scrubbing" / "status.json").read_text()}
    (f,) = findings(outs, "scrub-during-test")
    assert "1 PG(s) scrubbing (1 deep)" in f.message
    assert f.evidence[0].field == "pgs active+clean+scrubbing+deep"
    assert findings(LAB, "scrub-during-test") == []


def test_rule_over_hdd_and_ssd_fires_rule_taking_one_class_does_not():
    (f,) = findings(CHANGED, "crush-device-class")
    assert f.subject == "rule replicated_rule" and "rv-sane" not in f.message
    assert findings(REAL, "crush-device-class") == [] and findings(LAB, "crush-device-class") == []


def test_every_finding_names_its_command_and_a_ceph_docs_section():
    for outs in (LAB, CHANGED):
        for result in review(parse_cluster_config(outs)):
            assert result.doc.url.startswith("https://docs.ceph.com/")
            for f in result.findings:
                assert f.doc.url.startswith("https://docs.ceph.com/") and f.doc.title
                assert f.evidence and all(e.command.startswith("ceph ") for e in f.evidence)


def test_an_unreadable_output_leaves_its_rules_not_checked_and_the_rest_read():
    outs = {**LAB, "osd_metadata": '[{"id": 0, "bluefs_dedicated_db": "maybe"}]'}
    with pytest.raises(ValueError, match=r"^ceph osd metadata: osd\.0 bluefs_dedicated_db"):
        parse_cluster_config(outs)
    config = parse_cluster_config(outs, strict=False)
    assert list(config.unread) == ["osd_metadata"] and "\n" not in config.unread["osd_metadata"]
    results = {r.rule: r for r in review(config)}
    assert not results["bluestore-db-placement"].checked
    assert "ceph osd metadata" in results["bluestore-db-placement"].looked_at
    assert results["pgs-per-osd"].checked and results["pgs-per-osd"].findings
