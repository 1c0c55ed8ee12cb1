"""Memory-bandwidth parsers on recorded sysbench / mbw / stress-ng output, plus real runs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from stackprobe.kinds.host.memory_commands import (
    MEMORY_TOOLS,
    STRESS_NG_STREAM_MAX_SECONDS,
    STRESS_NG_STREAM_MIN_SECONDS,
    longer_stress_ng_stream,
    mbw_argv,
    stress_ng_stream_argv,
    sysbench_memory_argv,
)
from stackprobe.parsers.host.memory import parse_mbw, parse_stress_ng_stream, parse_sysbench_memory

REC = Path(__file__).parent / "fixtures" / "recorded"
MIB = 1024**2


def read(tool: str, name: str) -> str:
    return (REC / tool / name).read_text()


# ------------------------------------------------------------------ sysbench


def test_sysbench_read_figures():
    rec = parse_sysbench_memory(
        read("sysbench", "sysbench-1.0.20_memory_read_seq_2threads_1M_16G.txt"), "read"
    )
    assert rec.tool == "sysbench" and rec.tool_version == "1.0.20"
    assert rec.operation == "read"
    assert rec.bw_bytes == pytest.approx(160165.03 * MIB)
    assert rec.threads == 2
    assert rec.block_bytes == 1024 * 1024
    assert rec.total_bytes == 16384 * MIB


def test_sysbench_write_figures():
    rec = parse_sysbench_memory(
        read("sysbench", "sysbench-1.0.20_memory_write_seq_2threads_1M_16G.txt"), "write"
    )
    assert rec.operation == "write"
    assert rec.bw_bytes == pytest.approx(61647.09 * MIB)


def test_sysbench_time_limited_run_reports_what_was_moved():
    text = read("sysbench", "sysbench-1.0.20_memory_write_seq_1thread_1M_time-limited-3s.txt")
    rec = parse_sysbench_memory(text, "write")
    assert rec.threads == 1
    assert rec.total_bytes == 95049 * MIB  # not the 1T asked for
    assert rec.bw_bytes == pytest.approx(31672.23 * MIB)


def test_sysbench_operation_mismatch_raises():
    text = read("sysbench", "sysbench-1.0.20_memory_read_seq_2threads_1M_16G.txt")
    with pytest.raises(ValueError, match="'read' run, not 'write'"):
        parse_sysbench_memory(text, "write")


def test_sysbench_fatal_raises_its_message():
    with pytest.raises(ValueError, match="Invalid value for memory-oper: copy"):
        parse_sysbench_memory(
            read("sysbench", "sysbench-1.0.20_memory_invalid-oper_fatal.txt"), "read"
        )


@pytest.mark.parametrize("text", ["", "garbage\n", "sysbench 1.0.20\nTotal operations: 3\n"])
def test_sysbench_malformed_raises(text):
    with pytest.raises(ValueError, match="MiB transferred"):
        parse_sysbench_memory(text, "read")


# ------------------------------------------------------------------ mbw


def test_mbw_quiet_uses_avg_lines():
    recs = parse_mbw(read("mbw", "mbw_q_n5_256MiB.txt"))
    by_op = {r.operation: r for r in recs}
    assert list(by_op) == ["memcpy", "dumb", "mcblock"]
    assert by_op["memcpy"].bw_bytes == pytest.approx(18219.344 * MIB)
    assert by_op["dumb"].bw_bytes == pytest.approx(17688.598 * MIB)
    assert by_op["mcblock"].bw_bytes == pytest.approx(31196.685 * MIB)
    assert all(r.tool == "mbw" and r.threads == 1 for r in recs)
    assert by_op["memcpy"].total_bytes == 5 * 256 * MIB
    assert by_op["mcblock"].block_bytes is None  # -q hides the block size


def test_mbw_verbose_gives_mcblock_block_size():
    by_op = {r.operation: r for r in parse_mbw(read("mbw", "mbw_n2_64MiB_not-quiet.txt"))}
    assert by_op["mcblock"].block_bytes == 262144
    assert by_op["memcpy"].block_bytes is None
    assert by_op["mcblock"].bw_bytes == pytest.approx(37847.428 * MIB)
    assert by_op["dumb"].total_bytes == 2 * 64 * MIB


def test_mbw_without_avg_lines_uses_harmonic_mean_of_runs():
    by_op = {r.operation: r for r in parse_mbw(read("mbw", "mbw_q_a_n3_64MiB_no-average.txt"))}
    rates = [11145.942, 13660.619, 11583.710]
    expected = 3 / sum(1 / r for r in rates)
    assert by_op["memcpy"].bw_bytes == pytest.approx(expected * MIB)
    assert set(by_op) == {"memcpy", "dumb", "mcblock"}


def test_mbw_avg_equals_harmonic_mean_of_its_runs():
    """Checks the -a fallback against mbw's own AVG on a file that has both."""
    text = read("mbw", "mbw_q_n5_256MiB.txt")
    with_avg = {r.operation: r.bw_bytes for r in parse_mbw(text)}
    no_avg = "\n".join(line for line in text.splitlines() if not line.startswith("AVG"))
    derived = {r.operation: r.bw_bytes for r in parse_mbw(no_avg)}
    for op, bw in with_avg.items():
        assert derived[op] == pytest.approx(bw, rel=0.01)


def test_mbw_array_size_error_raises():
    with pytest.raises(ValueError, match="array size"):
        parse_mbw(read("mbw", "mbw_q_n2_0MiB_array-size-error.txt"))


def test_mbw_malformed_raises():
    with pytest.raises(ValueError, match="not mbw output"):
        parse_mbw("Long uses 8 bytes.\n")


# ------------------------------------------------------------------ stress-ng


def test_stress_ng_stream_sums_instances():
    text = read("stress-ng", "stress-ng-0.15.06_stream2_10s_metrics-brief.txt")
    recs = parse_stress_ng_stream(text)
    by_op = {r.operation: r for r in recs}
    assert by_op["read"].bw_bytes == pytest.approx((12846.35 + 12392.11) * MIB)
    assert by_op["write"].bw_bytes == pytest.approx((8564.23 + 8261.40) * MIB)
    assert all(r.tool == "stress-ng" and r.threads == 2 for r in recs)


def test_stress_ng_stream_falls_back_to_mean_times_instances():
    text = read("stress-ng", "stress-ng-0.15.06_stream2_10s_metrics-brief.txt")
    only_misc = "\n".join(line for line in text.splitlines() if "(instance" not in line)
    by_op = {r.operation: r for r in parse_stress_ng_stream(only_misc)}
    assert by_op["read"].bw_bytes == pytest.approx(2 * 12617.18 * MIB)
    assert by_op["write"].bw_bytes == pytest.approx(2 * 8411.46 * MIB)
    assert by_op["read"].threads == 2


def test_stress_ng_newer_wording_of_the_mean():
    """stress-ng 0.16+ words the metric 'MB per sec memory read rate (harmonic mean ...)'."""
    text = (
        "stress-ng: metrc: [7] stream   3288.47 MB per sec memory read rate "
        "(harmonic mean of 1 instance)\n"
        "stress-ng: metrc: [7] stream   2192.31 MB per sec memory write rate "
        "(harmonic mean of 1 instance)\n"
    )
    by_op = {r.operation: r for r in parse_stress_ng_stream(text)}
    assert by_op["read"].bw_bytes == pytest.approx(3288.47 * MIB)
    assert by_op["write"].threads == 1


def test_stress_ng_too_short_raises_clearly():
    with pytest.raises(ValueError, match="too short"):
        parse_stress_ng_stream(read("stress-ng", "stress-ng-0.15.06_stream2_3s_too-short.txt"))


def test_stress_ng_too_short_names_the_cache_its_arrays_follow():
    text = read("stress-ng", "stress-ng-0.15.06_stream1_10s_too-short_300MiB-L3.txt")
    with pytest.raises(ValueError, match="sized by a 300 MiB CPU cache"):
        parse_stress_ng_stream(text)


def test_a_stress_ng_run_called_too_short_is_run_again_twice_as_long_up_to_the_longest():
    short = read("stress-ng", "stress-ng-0.15.06_stream1_10s_too-short_300MiB-L3.txt")
    ok = read("stress-ng", "stress-ng-0.15.06_stream1_20s_300MiB-L3.txt")
    assert longer_stress_ng_stream({"workers": 1, "seconds": 10}, short) == \
        {"workers": 1, "seconds": 20}
    assert longer_stress_ng_stream({"workers": 1, "seconds": 20}, short) == \
        {"workers": 1, "seconds": STRESS_NG_STREAM_MAX_SECONDS}
    assert longer_stress_ng_stream({"workers": 1, "seconds": 40}, short) is None  # the longest
    assert longer_stress_ng_stream({"workers": 1, "seconds": 20}, ok) is None
    by_op = {r.operation: r for r in parse_stress_ng_stream(ok)}
    assert by_op["read"].bw_bytes == pytest.approx(6115.35 * MIB)
    assert by_op["write"].bw_bytes == pytest.approx(4076.90 * MIB)


def test_stress_ng_stdout_only_raises():
    with pytest.raises(ValueError, match="stderr"):
        parse_stress_ng_stream("")


# ------------------------------------------------------------------ argv builders


def test_argv_builders():
    assert sysbench_memory_argv("read", 2, 1024**3, 10, block_bytes=1024**2) == [
        "sysbench", "memory", "--threads=2", "--memory-block-size=1048576",
        "--memory-total-size=1073741824", "--memory-oper=read", "--memory-access-mode=seq",
        "--time=10", "run",
    ]
    # by default each thread sweeps 256 MiB: larger than any L3, so DRAM is measured
    assert "--memory-block-size=268435456" in sysbench_memory_argv("write", 1, 1024**3, 5)
    assert mbw_argv(256, 5) == ["mbw", "-q", "-n", "5", "256"]
    assert stress_ng_stream_argv(2, 10) == [
        "stress-ng", "--stream", "2", "--timeout", "10s", "--metrics-brief"
    ]


@pytest.mark.parametrize(
    "call",
    [
        lambda: sysbench_memory_argv("copy", 1, 1024, 1),
        lambda: sysbench_memory_argv("read", 0, 1024, 1),
        lambda: mbw_argv(0, 1),
        lambda: stress_ng_stream_argv(2, 3),
        lambda: stress_ng_stream_argv(0, 10),
    ],
)
def test_argv_builders_reject_bad_values(call):
    with pytest.raises(ValueError):
        call()


def test_memory_tools_table():
    assert set(MEMORY_TOOLS) == {"sysbench", "mbw", "stress-ng"}
    assert MEMORY_TOOLS["stress-ng"].output == "stderr"
    assert MEMORY_TOOLS["sysbench"].output == "stdout"
    text = read("sysbench", "sysbench-1.0.20_memory_write_seq_2threads_1M_16G.txt")
    kwargs = {"operation": "write", "threads": 2, "total_bytes": 16 * 1024**3, "time_s": 10}
    assert MEMORY_TOOLS["sysbench"].argv(**kwargs)[0] == "sysbench"
    [rec] = MEMORY_TOOLS["sysbench"].parse(text, **kwargs)
    assert rec.operation == "write"
    assert len(MEMORY_TOOLS["mbw"].parse(read("mbw", "mbw_q_n5_256MiB.txt"), mib=256, runs=5)) == 3


# ------------------------------------------------------------------ real tools


def _run(argv: list[str], timeout: float) -> subprocess.CompletedProcess:
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return proc


def _plausible(bw: float) -> bool:
    return 100e6 < bw < 1e12  # 100 MB/s .. 1 TB/s


@pytest.mark.tools
@pytest.mark.parametrize("operation", ["read", "write"])
def test_real_sysbench_memory(operation):
    proc = _run(sysbench_memory_argv(operation, 1, 256 * MIB, 5), timeout=60)
    rec = parse_sysbench_memory(proc.stdout, operation)
    assert _plausible(rec.bw_bytes)
    assert rec.total_bytes == 256 * MIB


@pytest.mark.tools
def test_real_mbw():
    proc = _run(mbw_argv(16, 2), timeout=60)
    recs = parse_mbw(proc.stdout)
    assert {r.operation for r in recs} == {"memcpy", "dumb", "mcblock"}
    assert all(_plausible(r.bw_bytes) for r in recs)


@pytest.mark.slow
def test_real_stress_ng_stream():
    """At the shortest run first, as the memory step does; when stress-ng calls it too short
    (its arrays follow the CPU cache: 10 s was too short here with a 300 MiB L3), longer."""
    kwargs = {"workers": 1, "seconds": STRESS_NG_STREAM_MIN_SECONDS}
    proc = _run(stress_ng_stream_argv(**kwargs), timeout=60)
    while (longer := longer_stress_ng_stream(kwargs, proc.stderr)) is not None:
        kwargs = longer
        proc = _run(stress_ng_stream_argv(**kwargs), timeout=kwargs["seconds"] + 60)
    recs = parse_stress_ng_stream(proc.stderr)
    assert {r.operation for r in recs} == {"read", "write"}
    assert all(_plausible(r.bw_bytes) for r in recs)
