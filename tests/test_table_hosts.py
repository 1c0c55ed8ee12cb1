"""Summary rows of per-host figures: one row per host and figure, a repeated step's mean."""

from stackprobe.report.table import _step_rows
from stackprobe.schema.records import CpuRecord, MemBwRecord
from stackprobe.schema.results import StepResult


def _step(records, hosts=("h1", "h2")):
    return StepResult(id="03-cpu", index=3, name="cpu", kind="cpu", title="CPU", layer="hardware",
                      params={}, status="ok", records=records, hosts=list(hosts))


def test_repeated_cpu_rows_are_one_mean_row_per_host():
    recs = [CpuRecord(stressor="matrix", bogo_ops=1, seconds=10, bogo_ops_per_s=v, host=h,
                      workers=2, repetition=rep)
            for h, rep, v in (("h1", 1, 100.0), ("h1", 2, 200.0), ("h2", 1, 50.0), ("h2", 2, 70.0))]
    rows = _step_rows(_step(recs))
    assert [(r.test, r.iops) for r in rows] == [("CPU matrix bogo ops/s (h1)", 150.0),
                                               ("CPU matrix bogo ops/s (h2)", 60.0)]


def test_memory_rows_per_host_and_operation_only_on_hosts():
    recs = [MemBwRecord(tool="sysbench", operation=op, bw_bytes=bw, host=h)
            for h, op, bw in (("h1", "read", 1e9), ("h1", "write", 2e9), ("h2", "read", 3e9))]
    rows = _step_rows(_step(recs))
    assert [r.test for r in rows] == ["Memory read bandwidth (sysbench, h1)",
                                      "Memory write bandwidth (sysbench, h1)",
                                      "Memory read bandwidth (sysbench, h2)"]
    local = _step(recs[:1], hosts=())
    assert all("h1" not in r.test for r in _step_rows(local))
