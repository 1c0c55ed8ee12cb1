"""The ceph_review step as stored and judged: its records survive results.json, its
criterion 'no configuration finding' flags warn/fail findings and passes a clean review,
its summary row and table, and it asks the Ceph session for nothing to create."""

from __future__ import annotations

from conftest import run_cli
from stackprobe.analysis.ceph_review.registry import RULES, review
from stackprobe.kinds.ceph.ceph_review import KIND, CephReviewStep
from stackprobe.kinds.ceph.ceph_review_view import KEY, summary, to_record
from stackprobe.kinds.registry import checks
from stackprobe.parsers.ceph.review_sources import parse_cluster_config
from stackprobe.schema.results import StepResult
from test_ceph_review_rules import CHANGED, LAB, REAL


def step_of(outs: dict[str, str]) -> StepResult:
    """A finished ceph_review step as the runner leaves it, read back from its JSON."""
    config = parse_cluster_config(outs, strict=False)
    results = review(config)
    step = StepResult(id="01-ceph-review", index=1, name="ceph-review", kind="ceph_review",
                      title="Ceph configuration review", layer="cluster", params={},
                      status="ok", records=[to_record(f) for r in results for f in r.findings],
                      findings={KEY: summary(results, config)})
    return StepResult.model_validate_json(step.model_dump_json())


def test_no_configuration_finding_flags_each_rule_that_found_something():
    check = checks().find("no configuration finding")
    assert check is not None
    outcomes = check.outcomes(None, [step_of(LAB)])
    assert len(outcomes) == len(RULES)  # every rule was checked: one outcome each
    flagged = {o.measured.split(":")[0] for o in outcomes if not o.ok}
    assert flagged == {"bluestore-db-placement", "pgs-per-osd", "mon-mds-on-osd-hosts"}
    (db,) = [o for o in outcomes if o.measured.startswith("bluestore-db-placement")]
    assert "rotational data device" in db.measured and "docs.ceph.com" in db.detail


def test_no_configuration_finding_holds_on_the_sane_cluster():
    outcomes = checks().find("no configuration finding").outcomes(None, [step_of(REAL)])
    assert outcomes and all(o.ok for o in outcomes)
    assert any(o.measured == "pgs-per-osd: 3 OSDs, median 69 PGs each" for o in outcomes)


def test_a_rule_that_could_not_check_is_not_a_pass():
    outs = {k: v for k, v in REAL.items() if k != "osd_metadata"}
    outcomes = checks().find("no configuration finding").outcomes(None, [step_of(outs)])
    names = {o.measured.split(":")[0] for o in outcomes}
    assert "bluestore-db-placement" not in names and "pgs-per-osd" in names


def test_summary_row_counts_the_findings_and_the_table_lists_them_worst_first():
    step = step_of(CHANGED)
    (row,) = KIND.rows(step)
    assert row.note == "13 rules: 2 fail, 10 warn, 4 info" and row.layer == "cluster"
    (table,) = KIND.tables([step])
    severities = [r[0] for r in table.rows]
    assert severities[:2] == ["FAIL", "FAIL"] and "ok" in severities
    assert all(r[4].startswith("https://docs.ceph.com/") for r in table.rows)


def test_the_step_creates_nothing_in_the_cluster():
    needs = KIND.ceph(CephReviewStep(kind="ceph_review"))
    assert needs is not None  # it runs against the run's cluster ...
    assert (needs.image_bytes, needs.cephfs, needs.cephfs_bytes, needs.own_pool) == (
        None, False, 0, False)  # ... and asks for no image, no CephFS, no pool of its own


def test_ceph_review_usage_errors_exit_2_in_one_line(tmp_path):
    bad_format = run_cli(["ceph", "review", "--format", "xml"], cwd=tmp_path)
    assert bad_format.returncode == 2
    assert bad_format.stderr.strip() == ("stackprobe: --format xml: choose one of terminal, md, "
                                         "json")
    no_conf = run_cli(["ceph", "review", "--ceph-conf", tmp_path / "none.conf"], cwd=tmp_path)
    assert no_conf.returncode == 2 and len(no_conf.stderr.strip().splitlines()) == 1
    assert "none.conf: no such Ceph conf (from --ceph-conf)" in no_conf.stderr
