"""stress-ng --metrics-brief parser on recorded stress-ng 0.15.06 output (figures read from the files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from stackprobe.parsers.host.stress_ng_cpu import parse_stress_ng_cpu
from stackprobe.schema.records import CpuRecord

REC = Path(__file__).parent / "fixtures" / "recorded" / "stress-ng"


def read(name: str) -> str:
    return (REC / f"stress-ng-0.15.06_{name}.txt").read_text()


def test_cpu_run_figures():
    [rec] = parse_stress_ng_cpu(read("cpu2_3s_metrics-brief"), host="node1")
    assert rec == CpuRecord(
        tool="stress-ng", tool_version=None, stressor="cpu", workers=2, bogo_ops=13196,
        seconds=3.00, bogo_ops_per_s=4396.96, bogo_ops_per_cpu_s=2204.01, host="node1",
    )
    assert rec.type == "cpu"


def test_verbose_run_gives_version_and_ignores_debug_lines():
    [rec] = parse_stress_ng_cpu(read("cpu2_3s_metrics-brief_verbose"))
    assert rec.tool_version == "0.15.06"
    assert (rec.stressor, rec.workers, rec.bogo_ops) == ("cpu", 2, 12679)
    assert rec.bogo_ops_per_s == 4223.19 and rec.bogo_ops_per_cpu_s == 2120.54
    assert rec.host is None


def test_matrix_misc_metrics_are_not_stressor_rows():
    records = parse_stress_ng_cpu(read("matrix2_3s_metrics-brief"))
    assert len(records) == 1
    [rec] = records
    assert (rec.stressor, rec.workers, rec.bogo_ops, rec.seconds) == ("matrix", 2, 50322, 3.00)
    assert rec.bogo_ops_per_s == 16773.53 and rec.bogo_ops_per_cpu_s == 8556.78


def test_killed_worker_raises_although_a_row_was_printed():
    text = read("cpu2_3s_worker-killed_fail")
    assert "5680.31" in text  # the misleading row is there
    with pytest.raises(ValueError, match=r"failed: cpu instance 0 corrupted bogo-ops counter"):
        parse_stress_ng_cpu(text)


def test_unsuccessful_run_without_fail_lines_raises():
    text = "\n".join(
        line for line in read("cpu2_3s_worker-killed_fail").splitlines() if " fail: " not in line
    )
    with pytest.raises(ValueError, match="unsuccessful run"):
        parse_stress_ng_cpu(text)


def test_killed_line_raises():
    text = read("cpu2_3s_metrics-brief").replace(
        "stress-ng: info:  [18508] successful",
        "stress-ng: debug: [18508] process [18509] (cpu) terminated on signal: 9 (Killed)\n"
        "stress-ng: info:  [18508] successful",
    )
    with pytest.raises(ValueError, match=r"terminated on signal: 9 \(Killed\)"):
        parse_stress_ng_cpu(text)


def test_unknown_stressor_raises_one_line():
    with pytest.raises(ValueError, match="unknown stressor") as err:
        parse_stress_ng_cpu(read("unknown-stressor_error"))
    assert "'--nosuchstressor'" in str(err.value)
    assert "\n" not in str(err.value)


def test_no_metrics_lines_raises():
    text = "\n".join(
        line for line in read("cpu2_3s_metrics-brief").splitlines() if "metrc" not in line
    )
    with pytest.raises(ValueError, match="no stress-ng metrics lines"):
        parse_stress_ng_cpu(text)
    with pytest.raises(ValueError, match="no stress-ng metrics lines"):
        parse_stress_ng_cpu("")


def test_rows_count_only_under_the_table_header():
    text = "\n".join(
        line for line in read("cpu2_3s_metrics-brief").splitlines()
        if "stressor" not in line and "(secs)" not in line
    )
    assert "cpu               13196" in text
    with pytest.raises(ValueError, match="no stress-ng metrics lines"):
        parse_stress_ng_cpu(text)


def test_several_stressors_each_with_their_workers():
    # the layout of a real `stress-ng --cpu 1 --matrix 2 --metrics-brief` run (figures made up)
    text = """\
stress-ng: info:  [100] dispatching hogs: 1 cpu, 2 matrix
stress-ng: metrc: [100] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s
stress-ng: metrc: [100]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)
stress-ng: metrc: [100] cpu                2029      1.00      1.00      0.00      2026.41        2032.95
stress-ng: metrc: [100] matrix            15788      1.00      2.00      0.00     15786.04        7893.97
stress-ng: metrc: [100] miscellaneous metrics:
stress-ng: metrc: [100] matrix            792491.61 add matrix ops per sec (geometic mean of 2 instances)
stress-ng: info:  [100] successful run completed in 1.00s
"""
    records = parse_stress_ng_cpu(text)
    assert [(r.stressor, r.workers, r.bogo_ops) for r in records] == [
        ("cpu", 1, 2029), ("matrix", 2, 15788)
    ]


def test_log_brief_and_full_metrics_columns_are_read():
    text = """\
dispatching hogs: 1 cpu
stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s CPU used per       RSS Max
                          (secs)    (secs)    (secs)   (real time) (usr+sys time) instance (%)          (KB)
cpu                2140      1.00      1.00      0.00      2136.88        2137.33        99.98          6472
successful run completed in 1.00s
"""
    [rec] = parse_stress_ng_cpu(text)
    assert (rec.workers, rec.bogo_ops, rec.bogo_ops_per_s, rec.bogo_ops_per_cpu_s) == (
        1, 2140, 2136.88, 2137.33
    )


def test_record_round_trips_through_json():
    [rec] = parse_stress_ng_cpu(read("matrix2_3s_metrics-brief"), host="h")
    assert CpuRecord.model_validate(rec.to_json()) == rec
