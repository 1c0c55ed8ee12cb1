"""`stackprobe compare`: rows paired by workload across runs, change against the first run,
the noise verdict, inventory differences — on results built here, and end to end on real
fio runs (a disk directory against a tmpfs one, so the difference is certain)."""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
from pathlib import Path

import pytest

from conftest import run_cli
from stackprobe.analysis.noise import spread
from stackprobe.engine.preflight import supports_direct_io
from stackprobe.report.compare import (
    BEYOND_NOISE,
    NOT_IN_RUN,
    SINGLE_RUN,
    WITHIN_NOISE,
    compare,
    match_rows,
    welch_differs,
    workload_key,
)
from stackprobe.report.compare_inventory import inventory_differences
from stackprobe.report.compare_render import compare_json, compare_markdown, compare_tables
from stackprobe.schema.records import InventoryRecord, MemBwRecord
from stackprobe.schema.results import (
    DirectionSummary,
    IoGroupSummary,
    RepeatStats,
    RunInfo,
    RunResults,
    StepResult,
    StepSummary,
)

# --- building results -------------------------------------------------------------------

FIO = {"rw": "randwrite", "bs": "4k", "iodepth": 128, "size": "256M", "runtime": 5,
       "ioengine": "libaio", "direct": 1, "time_based": True}


def _repeat(values: list[float]) -> RepeatStats:
    s = spread(values)
    return RepeatStats(n=s.n, values=list(values), mean=s.mean, stddev=s.stddev, cov=s.cov,
                       ci95_low=s.ci95_low, ci95_high=s.ci95_high)


def fio_step(index: int, params: dict, *, title: str = "t", headline: str = "iops",
             iops: float | None = 1000.0, lat_ns: float = 1e5, repeat: list[float] | None = None,
             read: bool = False, status: str = "ok", error: str | None = None,
             name: str | None = None) -> StepResult:
    """A fio step with one group; `repeat` gives the headline's per-run values."""
    summary = None
    if iops is not None:
        direction = DirectionSummary(iops=iops, bw_bytes=iops * 4096, lat_mean_ns=lat_ns,
                                     lat_ns={"p99": lat_ns * 3})
        group = IoGroupSummary(label="g", **({"read": direction} if read else {"write": direction}))
        headline_value = {"iops": iops, "bw": iops * 4096, "lat": lat_ns}[headline]
        summary = StepSummary(io=[group], headline_value=headline_value,
                              repeat=_repeat(repeat) if repeat else None)
    return StepResult(id=f"{index:02d}-{name or 'step'}", index=index, name=name or "step",
                      kind="fio", title=title, layer="disk", params=params, headline=headline,
                      status=status, error=error, summary=summary)


def inventory_step(index: int, hosts: dict[str, dict]) -> StepResult:
    records = [InventoryRecord(host=host, kernel=h.get("kernel", "6.1.0"),
                               os=h.get("os", "Debian GNU/Linux 12"),
                               cpu={"model": h.get("cpu", "Xeon"), "logical_cpus": h.get("cpus", 32),
                                    "architecture": h.get("arch", "x86_64")},
                               memory={"total_bytes": h.get("memory", 64 * 1024**3)})
               for host, h in hosts.items()]
    return StepResult(id=f"{index:02d}-inventory", index=index, name="inventory", kind="inventory",
                      title="Inventory", layer="hardware", params={}, status="ok", records=records)


def run(run_id: str, steps: list[StepResult], *, suite: str = "s", target: str = "/srv/t",
        host: str = "h", tools: dict[str, str] | None = None) -> RunResults:
    info = RunInfo(id=run_id, suite=suite, suite_source="s.yaml", target=target, host=host,
                   started="2026-01-01T00:00:00Z", status="ok", stackprobe_version="0.1.0",
                   tool_versions=tools if tools is not None else {"fio": "3.33"})
    return RunResults(run=info, steps=steps)


def only_row(rows, test: str):
    found = [m for m in rows if m.test == test]
    assert len(found) == 1, [m.test for m in rows]
    return found[0]


# --- the workload key -------------------------------------------------------------------

def test_key_ignores_names_titles_and_durations_not_the_workload():
    base = fio_step(1, FIO)
    renamed = fio_step(3, {**FIO, "bs": "4K", "runtime": 300, "time_based": False,
                           "steady_state": {"stop": True}, "advice": {"limit": "1ms"}},
                       title="random write IOPS", headline="bw", name="other")
    assert workload_key(base) == workload_key(renamed)
    assert workload_key(base) == workload_key(fio_step(1, {**FIO, "bs": 4096}))
    for change in ({"bs": "8k"}, {"iodepth": 32}, {"size": "1G"}, {"ioengine": "io_uring"},
                   {"direct": 0}, {"rw": "randread"}, {"options": {"rate_iops": 500}},
                   {"target": "rbd"}):
        assert workload_key(base) != workload_key(fio_step(1, {**FIO, **change})), change


def test_key_treats_fio_defaults_and_reporting_options_as_the_same_workload():
    base = fio_step(1, FIO)
    explicit = fio_step(1, {**FIO, "numjobs": 1, "target": "local", "rwmixread": 70,
                            "options": {"write_lat_log": "x", "log_avg_msec": 1000}})
    assert workload_key(base) == workload_key(explicit)  # rwmixread: randwrite does not mix
    mixed = {**FIO, "rw": "randrw"}
    assert workload_key(fio_step(1, mixed)) == workload_key(fio_step(1, {**mixed, "rwmixread": 50}))
    assert workload_key(fio_step(1, mixed)) != workload_key(fio_step(1, {**mixed, "rwmixread": 70}))


def test_key_job_file_by_name_and_fleet_by_host_count():
    a = fio_step(1, {"job_file": "/home/a/suites/mixed.fio"})
    b = fio_step(1, {"job_file": "/root/mixed.fio"})
    assert workload_key(a) == workload_key(b)
    fleet3 = fio_step(1, FIO).model_copy(update={"hosts": ["h1", "h2", "h3"]})
    fleet2 = fio_step(1, FIO).model_copy(update={"hosts": ["h1", "h2"]})
    assert workload_key(fleet3) != workload_key(fleet2)


# --- matching and change ------------------------------------------------------------------

def test_rows_paired_by_workload_whatever_the_order_and_titles():
    lat = {**FIO, "rw": "randread", "iodepth": 1}
    a = run("a", [fio_step(1, FIO, title="4k random write IOPS", iops=1000),
                  fio_step(2, lat, title="QD1 latency", headline="lat", lat_ns=200_000, read=True)])
    b = run("b", [fio_step(1, lat, title="read latency, renamed", headline="lat", lat_ns=150_000,
                           read=True),
                  fio_step(2, {**FIO, "bs": "4K"}, title="IOPS", iops=1250)])
    rows = match_rows([a, b])
    assert len(rows) == 2
    iops = only_row(rows, "4k random write IOPS")
    assert iops.headline == "iops" and iops.present_in == ["A", "B"]
    assert iops.sides[1].change_pct == pytest.approx(25.0)
    assert iops.sides[1].better is True
    latency = only_row(rows, "QD1 latency")
    assert latency.headline == "lat"
    assert latency.sides[1].change_pct == pytest.approx(-25.0)
    assert latency.sides[1].better is True  # lower latency is better
    worse = match_rows([b, a])
    assert only_row(worse, "read latency, renamed").sides[1].better is False
    assert only_row(worse, "IOPS").sides[1].better is False


def test_change_cells_say_better_or_worse():
    a = run("a", [fio_step(1, FIO, iops=1000, title="w"),
                  fio_step(2, {**FIO, "iodepth": 1}, headline="lat", lat_ns=100_000, title="l")])
    b = run("b", [fio_step(1, FIO, iops=3000, title="w"),
                  fio_step(2, {**FIO, "iodepth": 1}, headline="lat", lat_ns=110_000, title="l")])
    table = compare_tables([a, b])[0]
    b_lines = [r for r in table.rows if r[2] == "B"]
    assert b_lines[0][7] == "+200% (3x) better"
    assert b_lines[1][7] == "+10.0% worse"
    assert b_lines[0][8] == SINGLE_RUN and b_lines[1][8] == SINGLE_RUN


def test_rows_in_only_some_runs_are_listed_not_dropped():
    extra = {**FIO, "bs": "1M", "iodepth": 64}
    a = run("a", [fio_step(1, FIO, title="w"), fio_step(2, extra, title="only A", headline="bw")])
    b = run("b", [fio_step(1, FIO, title="w"),
                  fio_step(2, {**FIO, "rw": "randread"}, title="only B", read=True)])
    rows = match_rows([a, b])
    assert [m.test for m in rows] == ["w", "only A", "only B"]
    only_a, only_b = rows[1], rows[2]
    assert only_a.present_in == ["A"] and only_a.sides[1].absent == NOT_IN_RUN
    assert only_b.present_in == ["B"] and only_b.sides[0].absent == NOT_IN_RUN
    cells = compare_tables([a, b])[0].rows
    assert cells[3][7] == NOT_IN_RUN  # 'only A', run B's line
    assert cells[5][7] == "no figure in A"  # 'only B', run B's line


def test_a_failed_step_shows_its_error_in_the_rows_place():
    a = run("a", [fio_step(1, FIO, title="w")])
    b = run("b", [fio_step(1, FIO, title="w", iops=None, status="failed",
                           error="fio: No space left on device")])
    rows = match_rows([a, b])
    assert len(rows) == 1
    assert rows[0].sides[1].row is None
    assert rows[0].sides[1].absent == "failed: fio: No space left on device"
    alone = match_rows([b, b.model_copy(deep=True)])  # failed in both: still shown
    assert len(alone) == 1 and alone[0].sides[0].absent.startswith("failed")


def test_same_workload_twice_in_a_run_is_paired_in_order():
    a = run("a", [fio_step(1, FIO, title="first", iops=100), fio_step(2, FIO, title="again", iops=200)])
    b = run("b", [fio_step(1, FIO, title="first", iops=110), fio_step(2, FIO, title="again", iops=180)])
    rows = match_rows([a, b])
    assert [(m.test, round(m.sides[1].change_pct)) for m in rows] == [("first", 10), ("again", -10)]


def test_three_runs_each_against_the_first():
    runs = [run(x, [fio_step(1, FIO, iops=v)]) for x, v in (("a", 1000), ("b", 900), ("c", 1100))]
    [row] = match_rows(runs)
    assert [s.label for s in row.sides] == ["A", "B", "C"]
    assert [s.change_pct for s in row.sides] == [None, pytest.approx(-10), pytest.approx(10)]


def mem_step(index: int, per_host: dict[str, list[float]]) -> StepResult:
    """A per-node memory step on several hosts; each host's read bandwidth per repetition."""
    reps = len(next(iter(per_host.values())))
    records = [MemBwRecord(tool="sysbench", operation="read", bw_bytes=v, host=host,
                           repetition=(k + 1) if reps > 1 else None)
               for host, values in per_host.items() for k, v in enumerate(values)]
    firsts = [values[0] for values in per_host.values()]
    summary = StepSummary(membw={"read": statistics.fmean(firsts)}, tool="sysbench",
                          repeat=_repeat(firsts) if reps > 1 else None)
    return StepResult(id=f"{index:02d}-memory", index=index, name="memory", kind="memory",
                      title="Memory bandwidth", layer="hardware", status="ok", headline="membw",
                      params={"tool": "auto", "operations": ["read"], "threads": "auto",
                              "size": "8G", "block_size": "256M", "seconds": 5},
                      hosts=list(per_host), records=records, summary=summary)


def test_per_host_rows_are_matched_host_by_host():
    a = run("a", [mem_step(1, {"h1": [10e9], "h2": [12e9]})])
    b = run("b", [mem_step(1, {"h1": [11e9], "h3": [9e9]})])
    rows = {m.test: m for m in match_rows([a, b])}
    assert set(rows) == {f"Memory read bandwidth (sysbench, {h})" for h in ("h1", "h2", "h3")}
    assert rows["Memory read bandwidth (sysbench, h1)"].sides[1].change_pct == pytest.approx(10)
    assert rows["Memory read bandwidth (sysbench, h2)"].present_in == ["A"]
    assert rows["Memory read bandwidth (sysbench, h3)"].present_in == ["B"]


# --- noise ------------------------------------------------------------------------------

def test_welch():
    assert welch_differs([100, 101, 99], [120, 121, 119])
    assert not welch_differs([100, 110, 90], [104, 114, 94])
    assert not welch_differs([5, 5, 5], [5, 5, 5])
    assert welch_differs([5, 5, 5], [6, 6, 6])  # no scatter: any difference is real
    # unequal variances: df = 50/17 = 2.94, rounded down to 2 (t = 4.30): t = 4.0 is not
    # beyond it, though it would be beyond t(2.94) = 3.2
    shift = 4.0 * (5 / 3) ** 0.5
    assert not welch_differs([0, 2, 4], [1 + shift, 2 + shift, 3 + shift])
    assert welch_differs([0, 2, 4], [1 + shift * 1.1, 2 + shift * 1.1, 3 + shift * 1.1])
    with pytest.raises(ValueError):
        welch_differs([1], [1, 2])


def test_noise_verdict_both_ways_and_single_runs():
    a = run("a", [fio_step(1, FIO, iops=1000, repeat=[990, 1000, 1010])])
    far = run("b", [fio_step(1, FIO, iops=1500, repeat=[1490, 1500, 1510])])
    near = run("c", [fio_step(1, FIO, iops=1005, repeat=[960, 1005, 1050])])
    once = run("d", [fio_step(1, FIO, iops=1500)])
    [row] = match_rows([a, far, near, once])
    assert [s.verdict for s in row.sides] == [None, BEYOND_NOISE, WITHIN_NOISE, SINGLE_RUN]
    [row] = match_rows([once, a])
    assert row.sides[1].verdict == SINGLE_RUN
    cells = compare_tables([a, far])[0].rows
    assert cells[0][4].startswith("1000 ±") and cells[1][8] == BEYOND_NOISE


def test_noise_per_row_from_each_repetitions_records():
    a = run("a", [mem_step(1, {"h1": [10.0e9, 10.1e9, 9.9e9], "h2": [12.0e9, 12.6e9, 11.4e9]})])
    b = run("b", [mem_step(1, {"h1": [11.0e9, 11.1e9, 10.9e9], "h2": [12.2e9, 12.8e9, 11.6e9]})])
    rows = {m.test: m for m in match_rows([a, b])}
    h1, h2 = (rows[f"Memory read bandwidth (sysbench, {h})"] for h in ("h1", "h2"))
    assert h1.sides[0].repeat_values == (10.0e9, 10.1e9, 9.9e9)
    assert h1.sides[1].verdict == BEYOND_NOISE
    assert h2.sides[1].verdict == WITHIN_NOISE


# --- inventory --------------------------------------------------------------------------

def test_inventory_lists_suite_target_and_only_what_differs():
    arm = {"arm1": {"cpu": "Ampere eMAG", "arch": "aarch64", "kernel": "4.14.0-115.el7a"}}
    x86 = {"x86-7": {"cpu": "Xeon Gold 6130", "kernel": "4.14.0-115.el7a"}}
    a = run("a", [inventory_step(1, arm)], host="arm1", tools={"fio": "3.7", "lscpu": "2.38"})
    b = run("b", [inventory_step(1, x86)], host="x86-7", tools={"fio": "3.33"})
    lines = dict(inventory_differences([a, b]))
    assert lines["Suite"] == "s" and lines["Target"] == "/srv/t"
    assert lines["CPU"] == "A: Ampere eMAG · B: Xeon Gold 6130"
    assert lines["Architecture"] == "A: aarch64 · B: x86_64"
    assert lines["Host"] == "A: arm1 · B: x86-7"
    assert lines["Tool fio"] == "A: 3.7 · B: 3.33"
    for same in ("Kernel", "Memory", "Logical CPUs", "OS", "Tool lscpu", "Machines"):
        assert same not in lines


def test_inventory_per_host_and_runs_without_one():
    hosts = {"h1": {}, "h2": {"memory": 128 * 1024**3}}
    a = run("a", [inventory_step(1, {"h1": {}, "h2": {}})], suite="acceptance", target="/a")
    b = run("b", [inventory_step(1, hosts)], suite="acceptance-2", target="/b")
    c = run("c", [fio_step(1, FIO)])
    lines = dict(inventory_differences([a, b]))
    assert lines["Suite"] == "A: acceptance · B: acceptance-2"
    assert lines["h2 Memory"] == "A: 64.0 GiB · B: 128 GiB"
    assert "h1 Memory" not in lines
    same = dict(inventory_differences([a, a.model_copy(deep=True)]))
    assert same["Machines"].startswith("no difference")
    missing = dict(inventory_differences([a, c]))
    assert missing["Inventory"].startswith("none in B")


# --- renderings, settings, errors ---------------------------------------------------------

def test_markdown_json_and_setting_notes():
    a = run("a", [inventory_step(1, {"h": {}}), fio_step(2, FIO, iops=1000, repeat=[990, 1000, 1010])])
    b = run("b", [inventory_step(1, {"h": {"kernel": "6.12"}}),
                  fio_step(2, {**FIO, "runtime": 60}, iops=1100, repeat=[1090, 1100, 1110])])
    md = compare_markdown([a, b])
    assert "# stackprobe compare: A vs B" in md and "**Kernel**: A: 6.1.0 · B: 6.12" in md
    assert "| t | randwrite 4k QD128 | A |" in md and "+10.0% better | beyond noise |" in md
    assert "runtime differs: A: 5 · B: 60 (in 1 matched step)" in md
    doc = json.loads(compare_json([a, b]))
    assert [r["label"] for r in doc["runs"]] == ["A", "B"]
    [row] = doc["rows"]
    assert row["headline"] == "iops" and row["present_in"] == ["A", "B"]
    side = row["runs"][1]
    assert side["change_pct"] == pytest.approx(10) and side["verdict"] == BEYOND_NOISE
    assert side["repeat_values"] == [1090, 1100, 1110] and side["better"] is True
    with pytest.raises(ValueError):
        compare([a])


# --- end to end: real fio runs through the CLI -------------------------------------------

SUITE_DISK = """
name: cmp-disk
defaults: {ioengine: libaio, direct: 1, size: 16M, runtime: 1, time_based: true}
steps:
  - kind: inventory
  - kind: fio
    name: qd1
    rw: randread
    bs: 4k
    iodepth: 1
    headline: iops
    repeat: 5
  - kind: fio
    name: seq
    rw: read
    bs: 1M
    iodepth: 4
"""

# the same workloads reordered, retitled, spelled differently, one measured longer, one more
SUITE_TMPFS = """
name: cmp-tmpfs
defaults: {ioengine: libaio, direct: 1, size: 16M, runtime: 1, time_based: true}
steps:
  - kind: inventory
  - kind: fio
    title: sequential read
    rw: read
    bs: 1024k
    iodepth: 4
    runtime: 2
  - kind: fio
    title: QD1 random reads
    rw: randread
    bs: 4K
    iodepth: 1
    numjobs: 1
    headline: iops
    repeat: 5
  - kind: fio
    name: extra
    rw: randwrite
    bs: 4k
    iodepth: 4
"""


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """One run on a disk directory, one on tmpfs. The repeated step's headline is IOPS:
    tmpfs does tens of times the disk's, so a slow repetition on a busy disk (which can make
    its latency scatter more than the difference) cannot hide the change."""
    if not Path("/dev/shm").is_dir():
        pytest.skip("no /dev/shm")
    base = tmp_path_factory.mktemp("compare")
    shm = Path(tempfile.mkdtemp(prefix="stackprobe-compare-", dir="/dev/shm"))
    try:
        if not supports_direct_io(shm):
            pytest.skip("tmpfs without O_DIRECT on this kernel")
        disk = base / "disk"
        disk.mkdir()
        out = base / "runs"
        for name, text, target in (("disk", SUITE_DISK, disk), ("tmpfs", SUITE_TMPFS, shm)):
            (base / f"{name}.yaml").write_text(text)
            run_cli(["run", base / f"{name}.yaml", "--target", target, "--out", out],
                    cwd=base, check=0)
    finally:
        shutil.rmtree(shm, ignore_errors=True)
    ids = {p.name.rsplit("-", 1)[-1]: p.name for p in out.iterdir() if p.is_dir()}
    return base, out, ids["disk"], ids["tmpfs"]


@pytest.mark.tools
def test_cli_compares_real_runs(two_runs):
    base, out, disk, tmpfs = two_runs
    proc = run_cli(["compare", disk, tmpfs, "--out", out], cwd=base, check=0)
    text = proc.stdout
    assert "Target: A: " in text and "Suite: A: cmp-disk · B: cmp-tmpfs" in text
    assert "no difference in host, CPU" in text  # one machine
    lines = text.splitlines()
    lat_b = next(i for i, line in enumerate(lines) if "4k randread QD1" in line) + 1
    assert "better" in lines[lat_b] and BEYOND_NOISE in lines[lat_b], "\n".join(lines)
    seq_b = next(i for i, line in enumerate(lines) if "1M read QD4" in line) + 1
    assert SINGLE_RUN in lines[seq_b]
    assert NOT_IN_RUN in text  # the extra randwrite step: only in B
    assert "runtime differs: A: 1 · B: 2 (in 1 matched step)" in " ".join(text.split())

    doc = json.loads(run_cli(["compare", disk, tmpfs, "-f", "json", "-o", out], cwd=base,
                             check=0).stdout)
    by_test = {r["test"]: r for r in doc["rows"]}
    qd1 = by_test["4k randread QD1"]
    assert qd1["headline"] == "iops" and qd1["present_in"] == ["A", "B"]
    assert qd1["runs"][1]["change_pct"] > 0 and qd1["runs"][1]["verdict"] == BEYOND_NOISE
    assert len(qd1["runs"][0]["repeat_values"]) == 5
    assert by_test["4k randwrite QD4"]["present_in"] == ["B"]

    md = run_cli(["compare", out / disk, out / tmpfs, "--format", "md"], cwd=base, check=0).stdout
    assert md.startswith("# stackprobe compare: A vs B") and "## Disks and filesystems" in md

    page = run_cli(["compare", disk, tmpfs, "-f", "html", "-o", out], cwd=base, check=0).stdout
    assert page.startswith("<!DOCTYPE html>") and "<title>stackprobe compare A vs B</title>" in page
    assert "4k randread QD1" in page and BEYOND_NOISE in page and SINGLE_RUN in page
    assert "http://" not in page and "https://" not in page and "<script" not in page
    assert page.count("<table") >= 3  # legend, differences, at least one comparison table


@pytest.mark.tools
def test_cli_same_figures_are_within_noise(two_runs):
    base, out, disk, _ = two_runs
    copy = base / "archived-copy"
    shutil.copytree(out / disk, copy)
    doc = json.loads(run_cli(["compare", disk, copy, "-f", "json", "-o", out], cwd=base,
                             check=0).stdout)
    qd1 = next(r for r in doc["rows"] if r["test"] == "4k randread QD1")
    assert qd1["runs"][1]["change_pct"] == 0 and qd1["runs"][1]["verdict"] == WITHIN_NOISE
    assert qd1["runs"][1]["better"] is None
    seq = next(r for r in doc["rows"] if r["test"] == "1M read QD4")
    assert seq["runs"][1]["verdict"] == SINGLE_RUN  # however equal: one value, no claim


@pytest.mark.parametrize("args, message", [
    ([], "compare needs at least two runs"),
    (["RUN_A"], "compare needs at least two runs"),
    (["RUN_A", "no-such-run"], "no-such-run: no such run directory"),
    (["RUN_A", "RUN_A"], "the same run as"),
    (["RUN_A", "RUN_B", "--format", "pdf"], "--format pdf: choose one of text, md, json, html"),
])
@pytest.mark.tools
def test_cli_bad_input_is_one_line_exit_2(two_runs, args, message):
    base, out, disk, tmpfs = two_runs
    args = [{"RUN_A": disk, "RUN_B": tmpfs}.get(a, a) for a in args]
    proc = run_cli(["compare", *args, "--out", out], cwd=base)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and message in proc.stderr, proc.stderr
    bad = base / "not-a-run"
    bad.mkdir(exist_ok=True)
    proc = run_cli(["compare", disk, bad, "--out", out], cwd=base)
    assert proc.returncode == 2 and "not a run directory" in proc.stderr
