"""A results.json written before the kind contract still compares, row by row, with one
written after it: the same suites run by the old code (runs-before-kind-contract, commit
d5ac617) and by today's (runs-after-kind-contract, see RECORDED.md) pair every row.

compare keys steps by kind and parameters, so a change in how kinds name, store or key
their parameters would leave rows unpaired ('not in this run') — which this test refuses.
Both were recorded by the test suite, whose temporary directories (the lab hosts' declared
directories, a shared mount) differ from session to session: those paths are made the same
before comparing, as the same hosts file would make them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import FIXTURES
from stackprobe.report.compare import NOT_IN_RUN, compare
from stackprobe.report.table import summary_rows
from stackprobe.schema.results import RunResults
from stackprobe.store.rundir import load_results

SESSION_TMP = re.compile(r"/tmp/pytest-of-[^/]+/pytest-\d+/")

BEFORE = FIXTURES / "recorded" / "runs-before-kind-contract"
AFTER = FIXTURES / "recorded" / "runs-after-kind-contract"


def runs(folder: Path) -> dict[str, Path]:
    """suite name -> run directory."""
    return {load_results(d).run.suite: d for d in sorted(folder.iterdir()) if d.is_dir()}


SUITES = sorted(runs(BEFORE))


def without_session_paths(run_dir: Path) -> RunResults:
    text = (run_dir / "results.json").read_text(encoding="utf-8")
    return RunResults.model_validate_json(SESSION_TMP.sub("/tmp/pytest/", text))


def assert_pairs(old_dir: Path, new_dir: Path) -> None:
    old, new = without_session_paths(old_dir), without_session_paths(new_dir)
    comparison = compare([old, new])
    unpaired = [(m.test, [s.absent for s in m.sides]) for m in comparison.rows
                if any(s.absent == NOT_IN_RUN for s in m.sides)]
    assert not unpaired, unpaired
    with_figures = [r for r in summary_rows(old) if r.bw_bytes or r.iops or r.lat_mean_ns]
    paired = [m for m in comparison.rows if all(s.value is not None for s in m.sides)]
    assert len(paired) == len(with_figures) > 0


def test_both_sides_have_the_same_suites():
    assert SUITES == sorted(runs(AFTER))
    assert {"quick", "ceph-quick", "multi-host-test", "trust"} <= set(SUITES)


@pytest.mark.parametrize("suite", SUITES)
def test_an_old_run_pairs_every_row_with_a_new_one(suite):
    assert_pairs(runs(BEFORE)[suite], runs(AFTER)[suite])
