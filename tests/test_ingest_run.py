"""`stackprobe ingest` sources (standard input, directories) and ingested files made into
runs (--new, --into) that every run command reads; the workload key an ingested rados
bench output gets is the one the real plan code gives a live rados_bench step."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from conftest import FIXTURES, STACKPROBE
from stackprobe.cli.app import app
from stackprobe.errors import UserError
from stackprobe.ingest.files import Ingested, ingest_file
from stackprobe.ingest.into_run import plan_file
from stackprobe.ingest.sources import MAX_BYTES
from stackprobe.parsers.host.memory import parse_sysbench_memory
from stackprobe.parsers.host.stress_ng_cpu import parse_stress_ng_cpu
from stackprobe.plan.expand import expand
from stackprobe.report.compare import compare, workload_key
from stackprobe.schema.results import StepResult
from stackprobe.store.index import figure_rows, list_runs
from stackprobe.store.rundir import load_results
from stackprobe.suite.loader import parse_suite

CEPH = FIXTURES / "recorded" / "ceph"
RADOS_WRITE_JSON = CEPH / "rados-bench-16.2.15_write_4M_t16_3s.json"
RADOS_WRITE_TEXT = CEPH / "rados-bench-16.2.15_write_4M_t16_3s_text.txt"
RADOS_SEQ_TEXT = CEPH / "rados-bench-16.2.15_seq_4K_t1_5s_text.txt"
RADOS_WRITE_64K_T8 = CEPH / "rados-bench-16.2.15_write_64K-in-4M-objects_t8_3s_show-time_text.txt"
RBD_READ = CEPH / "rbd-bench-16.2.15_read_rand_4K_t16_256M.txt"
OSD_BENCH = CEPH / "ceph-16.2.15_osd-bench_osd0_default_1G_4M.json"
FIO_4GROUPS = FIXTURES / "recorded" / "fio-3.33_normal+json_4groups_stonewall_numjobs2_randrw.txt"
NOT_A_TOOL = "a note someone left beside the outputs\n"


def cli(*args, stdin: bytes | None = None):
    return CliRunner().invoke(app, [str(a) for a in args], input=stdin,
                              env={"COLUMNS": "200"}, catch_exceptions=True)


def only_run(runs):
    (path,) = [p for p in runs.iterdir() if p.is_dir()]
    return path


def test_stdin_is_read_named_and_kept_byte_for_byte(tmp_path):
    """A real pipe: `-` reads standard input; the copy in the run is what was piped."""
    data = RADOS_WRITE_TEXT.read_bytes()
    runs = tmp_path / "runs"
    proc = subprocess.run([*STACKPROBE, "ingest", "-", "--json", "--new", "piped", "--runs-dir",
                           str(runs)], input=data, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    (rec,) = json.loads(proc.stdout)
    assert rec["source"] == "<stdin>" and rec["tool"] == "rados bench"
    run = only_run(runs)
    assert run.name.endswith("-piped")
    results = load_results(run)
    (step,) = results.steps
    assert (run / "steps" / step.id / "stdin.txt").read_bytes() == data
    assert results.run.ingested[0]["source"] == "<stdin>"

    bad = cli("ingest", "-", stdin=NOT_A_TOOL.encode())
    assert bad.exit_code == 1
    assert bad.stderr.startswith("stackprobe: <stdin>: cannot ingest: unknown format")


def test_a_directory_is_read_recursively_and_what_it_cannot_read_is_listed(tmp_path):
    top = tmp_path / "outputs"
    (top / "b" / "c").mkdir(parents=True)
    (top / "a-rados.txt").write_bytes(RADOS_WRITE_TEXT.read_bytes())
    (top / "b" / "c" / "rbd.txt").write_bytes(RBD_READ.read_bytes())
    (top / "b" / "notes.txt").write_text(NOT_A_TOOL)
    (top / "b" / "core").write_bytes(b"\x7fELF\x02\x01\x01\0\0\0" * 10)
    with open(top / "huge.log", "wb") as f:  # sparse: the limit is checked before reading
        f.truncate(MAX_BYTES + 1)
    (top / "b" / "gone.txt").symlink_to(top / "removed-since")

    out = cli("ingest", top, "--json")
    assert out.exit_code == 1
    sources = [r["source"] for r in json.loads(out.stdout)]
    assert sources == [str(top / "a-rados.txt"), str(top / "b" / "c" / "rbd.txt")]
    lines = out.stderr.splitlines()
    assert [ln.split(": ")[1] for ln in lines] == [
        str(top / "b" / "core"), str(top / "b" / "gone.txt"), str(top / "b" / "notes.txt"),
        str(top / "huge.log")]
    assert "binary content" in lines[0] and lines[1].endswith("a dangling symbolic link")
    assert "unknown format" in lines[2]
    assert "larger than the 64.0 MiB ingest limit (not read)" in lines[3]

    (top / "empty").mkdir()
    empty = cli("ingest", top / "empty")
    assert empty.exit_code == 1
    assert empty.stderr == f"stackprobe: {top / 'empty'}: cannot ingest: no files under this directory\n"

    for name in ("core", "gone.txt", "notes.txt"):
        (top / "b" / name).unlink()
    (top / "huge.log").unlink()
    assert cli("ingest", top, "--json").exit_code == 0


def test_new_run_is_read_by_every_run_command(tmp_path):
    runs = tmp_path / "runs"
    given = [RADOS_WRITE_JSON, RBD_READ, OSD_BENCH, FIO_4GROUPS]
    unknown = tmp_path / "notes.txt"
    unknown.write_text(NOT_A_TOOL)
    out = cli("ingest", *given[:2], unknown, *given[2:], "--new", "lab import", "--runs-dir", runs)
    assert out.exit_code == 1, out.output
    assert f"stackprobe: {unknown}: cannot ingest: unknown format" in out.stderr
    run = only_run(runs)
    assert run.name.endswith("-lab-import")

    results = load_results(run)
    assert results.run.suite == "lab import" and results.run.status == "ok"
    assert [s.kind for s in results.steps] == ["rados_bench", "rbd_bench", "osd_bench", "fio"]
    assert [e.get("step") for e in results.run.ingested] == [
        "01-rados-bench", "02-rbd-bench", None, "03-osd-bench", "04-" + FIO_4GROUPS.stem]
    assert results.run.ingested[2]["refused"].startswith("cannot ingest: unknown format")
    assert any(w.startswith(f"not ingested: {unknown}") for w in results.run.warnings)
    for entry, src in zip([e for e in results.run.ingested if "copy" in e], given):
        assert (run / entry["copy"]).read_bytes() == src.read_bytes()
    rados = results.steps[0]
    assert rados.params["threads"] == 16 and rados.params["modes"] == ["write"]
    assert rados.status == "ok" and rados.summary.headline_value > 0 and rados.warnings == []
    fio = results.steps[3]
    assert fio.params == {"job_file": FIO_4GROUPS.name} and "4 different fio" in fio.warnings[0]

    (row,) = list_runs(runs)
    assert row["run_id"] == run.name and row["suite"] == "lab import"
    workloads = {r["workload"].split(":")[0] for r in figure_rows(runs)}
    assert {"rados_bench", "rbd_bench", "osd_bench"} <= workloads

    assert cli("show", run.name, "--runs-dir", runs).exit_code == 0
    for fmt in ("md", "html"):
        assert cli("report", run, "-f", fmt).exit_code == 0
    assert "rados bench" in (run / "report.md").read_text()
    exported = cli("export", run.name, "-f", "csv", "--runs-dir", runs)
    assert exported.exit_code == 0 and "rados_bench:" in exported.stdout
    history = cli("history", "--suite", "lab import", "--runs-dir", runs)
    assert history.exit_code == 0, history.output


def test_into_adds_steps_under_unique_names_and_keeps_refusals(tmp_path):
    runs = tmp_path / "runs"
    assert cli("ingest", RADOS_WRITE_JSON, "--new", "first", "--runs-dir", runs).exit_code == 0
    run = only_run(runs)
    unknown = tmp_path / "notes.txt"
    unknown.write_text(NOT_A_TOOL)

    out = cli("ingest", RADOS_WRITE_TEXT, unknown, "--into", run.name, "--runs-dir", runs)
    assert out.exit_code == 1 and str(run) in out.stderr
    results = load_results(run)
    assert [s.name for s in results.steps] == ["rados-bench", "rados-bench-2"]
    assert [s.index for s in results.steps] == [1, 2]
    assert [e.get("refused", "")[:14] for e in results.run.ingested] == [
        "", "", "cannot ingest:"]
    indexed = {r["step_id"] for r in figure_rows(runs)}
    assert indexed == {"01-rados-bench", "02-rados-bench-2"}

    # only refusals: the run still says what it was given
    assert cli("ingest", unknown, "--into", run).exit_code == 1
    assert len(load_results(run).run.ingested) == 4 and len(load_results(run).steps) == 2


def test_into_and_new_refuse_what_they_cannot_use(tmp_path):
    runs = tmp_path / "runs"
    missing = cli("ingest", RADOS_WRITE_JSON, "--into", "no-such-run", "--runs-dir", runs)
    assert isinstance(missing.exception, UserError) and "no such run directory" in str(
        missing.exception)
    both = cli("ingest", RADOS_WRITE_JSON, "--into", "x", "--new", "y", "--runs-dir", runs)
    assert isinstance(both.exception, UserError)
    nothing = cli("ingest", tmp_path / "absent.txt", "--new", "empty", "--runs-dir", runs)
    assert nothing.exit_code == 1 and "cannot read" in nothing.stderr
    mbw = FIXTURES / "recorded" / "mbw" / "mbw_q_n5_256MiB.txt"  # no format ingest reads
    no_kind = cli("ingest", mbw, "--new", "noisy", "--runs-dir", runs)
    assert no_kind.exit_code == 1
    assert no_kind.stderr.startswith(f"stackprobe: {mbw}: cannot ingest: ")
    assert not runs.exists() or not any(p.is_dir() for p in runs.iterdir())


def test_into_leaves_a_run_its_controller_still_writes_alone(tmp_path):
    """As resume does: a run marked running whose PID is a live stackprobe process is
    refused; the same PID gone (or another program's) is not."""
    runs = tmp_path / "runs"
    assert cli("ingest", RADOS_WRITE_JSON, "--new", "held", "--runs-dir", runs).exit_code == 0
    run = only_run(runs)
    doc = json.loads((run / "results.json").read_text())
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "stackprobe"])
    try:
        doc["run"].update(status="running", pid=holder.pid)
        (run / "results.json").write_text(json.dumps(doc))
        held = cli("ingest", RADOS_WRITE_TEXT, "--into", run)
        assert isinstance(held.exception, UserError), held.output
        assert f"still running (pid {holder.pid})" in str(held.exception)
    finally:
        holder.kill()
        holder.wait()
    assert cli("ingest", RADOS_WRITE_TEXT, "--into", run).exit_code == 0
    assert len(load_results(run).steps) == 2


def _planned_key(suite_yaml: str):
    """The workload key of the suite's one measuring step as the real plan code plans it
    (after the Ceph inventory the plan puts first)."""
    (planned,) = [p for p in expand(parse_suite(suite_yaml, "suite.yaml"))
                  if p.kind != "ceph_inventory"]
    step = StepResult(id=planned.id, index=planned.index, name=planned.name, kind=planned.kind,
                      title=planned.title, layer=planned.layer, params=planned.params,
                      hosts=list(planned.hosts))
    return workload_key(step)


LIVE_RADOS = """
name: live
steps:
  - kind: rados_bench
    block_size: {bs}
    threads: {threads}
    seconds: 10
"""


def test_ingested_rados_bench_has_the_workload_key_of_a_live_step(tmp_path):
    """The recorded output of the kind's own command (rados bench 3 write -b 4M -t 16
    --format json, RECORDED.md) keys like a planned rados_bench step of 4M and 16 threads
    (its three modes and longer time are not the workload), and unlike one of 64 threads."""
    runs = tmp_path / "runs"
    assert cli("ingest", RADOS_WRITE_JSON, RADOS_WRITE_64K_T8, "--new", "keys",
               "--runs-dir", runs).exit_code == 0
    steps = load_results(only_run(runs)).steps
    assert workload_key(steps[0]) == _planned_key(LIVE_RADOS.format(bs="4M", threads=16))
    assert workload_key(steps[0]) != _planned_key(LIVE_RADOS.format(bs="4M", threads=64))
    assert workload_key(steps[1]) == _planned_key(LIVE_RADOS.format(bs="64k", threads=8))
    assert "objects of 4194304 B written 65536 B at a time" in steps[1].warnings[0]


def test_same_rados_workload_from_two_files_compares_side_by_side(tmp_path):
    """The same command recorded as text and as JSON: two ingested runs pair the row."""
    runs = tmp_path / "runs"
    for name, path in (("text", RADOS_WRITE_TEXT), ("json", RADOS_WRITE_JSON)):
        assert cli("ingest", path, "--new", name, "--runs-dir", runs).exit_code == 0
    a, b = (load_results(p) for p in sorted(p for p in runs.iterdir() if p.is_dir()))
    (row,) = compare([a, b]).rows
    assert row.present_in == ["A", "B"] and row.direction == "write"


def test_a_read_output_says_what_it_does_not_state(tmp_path):
    """rados bench seq prints no concurrency: the step says which value was assumed."""
    runs = tmp_path / "runs"
    assert cli("ingest", RADOS_SEQ_TEXT, "--new", "seq", "--runs-dir", runs).exit_code == 0
    (step,) = load_results(only_run(runs)).steps
    assert "modes" not in step.params
    assert step.warnings == ["not stated in the file, taken as the rados_bench kind's "
                             "defaults: threads=16"]


def test_what_a_suite_could_not_say_is_kept_as_the_file_says_and_named():
    """An 1800 s iperf3 run (a network step of a suite takes at most 600 s): its time is
    in the parameters anyway; an fio terse line names no option: the step says so."""
    iperf3 = FIXTURES / "public" / "iperf3" / "iperf3-3.1.6_tcp_json_1800s_180intervals.json"
    planned, warnings = plan_file(ingest_file(iperf3))
    assert planned.kind == "network" and planned.params["seconds"] == 1800
    assert planned.params["streams"] == 1 and planned.params["reverse"] is False
    assert warnings == ["seconds=1800: as the file says; not a value a network step of a "
                        "suite takes"]
    terse = FIXTURES / "recorded" / "fio-3.33_client_terse-v3_randread.txt"
    planned, warnings = plan_file(ingest_file(terse))
    assert planned.kind == "fio" and planned.params == {}
    assert warnings[0].startswith("the fio terse output names none of the job's options")


def test_a_format_named_elsewhere_takes_the_kind_of_its_records():
    """Formats the detection names outside this table (stress-ng, sysbench) become the
    kind that measures their records, with the parameters the output states."""
    stress = FIXTURES / "recorded" / "stress-ng" / "stress-ng-0.15.06_matrix2_3s_metrics-brief.txt"
    text = stress.read_text()
    planned, warnings = plan_file(Ingested(stress, "stress-ng metrics",
                                           parse_stress_ng_cpu(text), text))
    assert planned.kind == "cpu" and warnings == []
    assert planned.params == {"stressor": "matrix", "seconds": 3, "workers": 2}
    sysbench = FIXTURES / "recorded" / "sysbench" / "sysbench-1.0.20_memory_read_seq_2threads_1M_16G.txt"
    text = sysbench.read_text()
    planned, warnings = plan_file(Ingested(sysbench, "sysbench output",
                                           [parse_sysbench_memory(text, "read")], text))
    assert planned.kind == "memory" and planned.params["tool"] == "sysbench"
    assert planned.params["threads"] == 2 and planned.params["operations"] == ["read"]
    assert warnings == ["not stated in the file, taken as the memory kind's defaults: size=8G, "
                        "seconds=5.0"]


def test_a_stream_past_the_limit_is_refused_without_holding_it(monkeypatch):
    """Standard input has no size to check first: it is read up to the limit, no further."""
    monkeypatch.setattr("stackprobe.ingest.sources.MAX_BYTES", 4096)
    out = cli("ingest", "-", stdin=RADOS_WRITE_TEXT.read_bytes() * 4)
    assert out.exit_code == 1 and out.stderr == (
        "stackprobe: <stdin>: cannot ingest: larger than the 4.00 KiB ingest limit "
        "(read no further)\n")
    assert cli("ingest", "-", "--json", stdin=RADOS_WRITE_TEXT.read_bytes()).exit_code == 0


def test_an_ingested_rados_bench_write_pairs_with_the_write_row_of_a_live_three_mode_step(tmp_path):
    """The public rados bench write (4M objects, 16 threads) against the lab's recorded
    ceph-quick run, whose 4M/16-thread step ran write, seq and rand: the write rows of the
    two runs sit side by side; seq and rand are in the live run alone."""
    live = FIXTURES / "recorded" / "runs-after-kind-contract" / "20261124T051943Z-ceph-quick"
    written = FIXTURES / "public" / "rados" / "rados-bench_write_4M_60s_2017_stfc.log"
    made = cli("ingest", written, "--new", "old-cluster", "--runs-dir", tmp_path)
    assert made.exit_code == 0, made.output
    (ingested,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    out = cli("compare", live, ingested, "--format", "json")
    assert out.exit_code == 0, out.output
    rows = {r["test"]: r for r in json.loads(out.output)["rows"]
            if r["test"].startswith("rados bench 4M, 16 threads")}
    write = rows["rados bench 4M, 16 threads: write"]
    assert write["present_in"] == ["A", "B"], write
    a, b = write["runs"]
    assert b["bw_bytes"] == ingest_file(written).records[0].write.bw_bytes
    assert b["change_pct"] == pytest.approx((b["value"] / a["value"] - 1) * 100, abs=0.1)
    assert rows["rados bench 4M, 16 threads: seq"]["present_in"] == ["A"]
