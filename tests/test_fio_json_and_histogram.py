"""The fio JSON parser on real outputs, and exact percentiles from merged json+ histograms."""

from __future__ import annotations

import json
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FIXTURES
from stackprobe.analysis.histogram import merge_bins, percentiles
from stackprobe.analysis.io_summary import summarise_io
from stackprobe.parsers.fio.fio_json import FioJsonError, json_documents, parse_fio_json
from stackprobe.schema.records import percentile_key, percentile_value

# beside the one-at-a-time system tests (tests/run_tiers.py): fio's own output against itself: no level
pytestmark = pytest.mark.beside


def test_fio_2_style_and_3_1_json():
    text = (FIXTURES / "public" / "fio" / "fio-3.1_json_randread_qd32_jobs_disk_util_fio-plot.json").read_text()
    (rec,) = parse_fio_json(text)
    doc = json.loads(text)["jobs"][0]
    assert rec.read.bw_bytes == doc["read"]["bw"] * 1024, "fio 3.1 has no bw_bytes"
    assert rec.read.clat_ns["p99.99"] == doc["read"]["clat_ns"]["percentile"]["99.990000"]
    assert rec.jobs == 32 and rec.workload["numjobs"] == 32
    assert rec.workload["filename"] == "/dev/sdb"


def test_global_options_merge_into_each_job():
    text = (FIXTURES / "public" / "fio" / "fio-3.19_json_jobs_disk_util_pbench.json").read_text()
    recs = parse_fio_json(text)
    assert len(recs) == 8
    assert all(r.workload["bs"] == 4096 and r.workload["iodepth"] == 64 for r in recs)
    assert all(r.workload["rwmixread"] == 50 for r in recs), "rw=rw defaults to 50/50"


def test_percentile_keys():
    assert percentile_key("99.900000") == "p99.9"
    assert percentile_key(50.0) == "p50"
    assert percentile_key("99.990000") == "p99.99"
    assert percentile_value("p99.95") == 99.95


def test_no_document_is_an_error():
    with pytest.raises(FioJsonError):
        parse_fio_json("fio: failed to open job file\n")
    assert json_documents("^C{\"a\": 1}\n") == [{"a": 1}]


def _fio_json_plus(tmp_path, *args) -> dict:
    proc = subprocess.run(
        ["fio", f"--directory={tmp_path}", "--output-format=json+", *args],
        capture_output=True, text=True, check=True,
    )
    return proc.stdout


@pytest.mark.tools
def test_percentiles_from_bins_equal_fios_own(tmp_path):
    text = _fio_json_plus(tmp_path, "--name=p", "--rw=randrw", "--bs=4k", "--size=8M",
                          "--ioengine=psync", "--time_based", "--runtime=1")
    (rec,) = parse_fio_json(text)
    for stats in (rec.read, rec.write):
        mine = percentiles(stats.clat_bins)
        fios = {k: v for k, v in stats.clat_ns.items() if k.startswith("p")}
        assert mine == fios


@pytest.mark.tools
def test_jobs_reported_separately_merge_exactly(tmp_path):
    """Two jobs that fio reported separately (no group_reporting) become one row whose
    percentiles come from the summed histogram (never an average of the jobs'), whose
    IOPS add up, and whose median lies between the jobs' medians."""
    text = _fio_json_plus(tmp_path, "--name=m", "--rw=randread", "--bs=4k", "--size=8M",
                          "--ioengine=psync", "--time_based", "--runtime=1", "--numjobs=2")
    recs = parse_fio_json(text)
    assert len(recs) == 2 and all(r.jobs == 1 for r in recs)
    (group,) = summarise_io(recs)
    merged = merge_bins(r.read.clat_bins for r in recs)
    assert sum(merged.values()) == sum(r.read.total_ios for r in recs)
    assert group.read.clat_ns == percentiles(merged)
    assert group.read.iops == pytest.approx(sum(r.read.iops for r in recs))
    lo = min(r.read.clat_ns["p50"] for r in recs)
    hi = max(r.read.clat_ns["p50"] for r in recs)
    assert lo <= group.read.clat_ns["p50"] <= hi


bins_strategy = st.dictionaries(st.integers(1, 10**9), st.integers(1, 10**6), min_size=1, max_size=60)


@given(st.lists(bins_strategy, min_size=1, max_size=5))
def test_merge_is_associative_and_order_free(hists):
    left = merge_bins([merge_bins(hists[:1]), merge_bins(hists[1:])])
    right = merge_bins(reversed(hists))
    assert left == right == merge_bins(hists)
    assert sum(left.values()) == sum(sum(h.values()) for h in hists)


@given(bins_strategy)
def test_percentiles_non_decreasing_and_within_bins(bins):
    result = percentiles(bins)
    values = [result[k] for k in sorted(result, key=percentile_value)]
    assert values == sorted(values)
    assert min(bins) <= values[0] and values[-1] <= max(bins)
    assert all(v in bins for v in values)


def test_percentile_threshold_is_exact_like_fios_long_double():
    """The double nearest 99.95 is a little above 99.95: with 40000 I/Os fio's threshold is
    just above 39980, so a bin reaching exactly 39980 is not p99.95 (double arithmetic says
    it is)."""
    bins = {1000: 39980, 2000: 20}
    assert percentiles(bins, [99.95]) == {"p99.95": 2000.0}
    assert percentiles({1000: 39981, 2000: 19}, [99.95]) == {"p99.95": 1000.0}
