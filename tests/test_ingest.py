"""`stackprobe ingest`: every fio fixture, live fio streams and client mode, iperf3 errors,
and one clear line for a file it cannot read."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from conftest import FIXTURES, run_cli

PUBLIC_FIO = sorted((FIXTURES / "public" / "fio").iterdir())
RECORDED_FIO = sorted((FIXTURES / "recorded").glob("fio-*.txt"))
SHARED_FIO = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "public" / "fio"


def _ingest(*paths, check=0):
    proc = run_cli(["ingest", "--json", *paths], check=check)
    return json.loads(proc.stdout), proc


@pytest.mark.parametrize("path", PUBLIC_FIO + RECORDED_FIO, ids=lambda p: p.name)
def test_every_fio_fixture_ingests(path):
    records, proc = _ingest(path)
    assert proc.stderr == ""
    assert records, "at least one record"
    for rec in records:
        assert rec["type"] == "io" and rec["tool"] == "fio" and rec["source"] == str(path)
        assert {"read", "write"} <= set(rec)
        for d in ("read", "write", "trim"):
            if d in rec:
                assert rec[d]["iops"] >= 0 and rec[d]["bw_bytes"] >= 0


@pytest.mark.skipif(not SHARED_FIO.is_dir(), reason="shared fixtures not beside this checkout")
def test_every_shared_fio_fixture_ingests():
    paths = sorted(SHARED_FIO.iterdir())
    records, _ = _ingest(*paths)
    assert {r["source"] for r in records} == {str(p) for p in paths}


def test_formats_are_detected_by_content(tmp_path):
    cases = {
        "fio-3.25_normal_8groups_nvme.txt": "normal",
        "fio-3.1_json_randread_qd32_jobs_disk_util_fio-plot.json": "json",
        "fio-3.7_client-server_client_stats_pbench.txt": "client-json",
    }
    for name, fmt in cases.items():
        renamed = tmp_path / "output.dat"
        shutil.copyfile(FIXTURES / "public" / "fio" / name, renamed)
        records, _ = _ingest(renamed)
        assert records[0]["source_format"] == fmt, name
    terse = next(p for p in RECORDED_FIO if "terse-v5" in p.name)
    records, _ = _ingest(terse)
    # the file holds terse and the JSON of the same run: the exact JSON wins
    assert records[0]["source_format"] == "json+" or records[0]["source_format"] == "json"


def test_seed_figures_from_public_fixtures():
    records, _ = _ingest(FIXTURES / "public" / "fio" / "fio-3.25_normal_8groups_nvme.txt")
    seq_read = next(r for r in records if r["job"] == "Seq-Read")
    assert seq_read["read"]["iops"] == pytest.approx(2043, rel=0.01)
    assert seq_read["read"]["clat_ns"]["p99"] == 652_000
    records, _ = _ingest(FIXTURES / "public" / "fio" / "fio-3.7_client-server_client_stats_pbench.txt")
    hosts = [r["host"] for r in records]
    assert hosts.count("all") == 1 and len(hosts) > 1
    agg = next(r for r in records if r["host"] == "all")
    per_client = [r for r in records if r["host"] != "all"]
    assert agg["read"]["iops"] == pytest.approx(sum(r["read"]["iops"] for r in per_client),
                                                rel=0.01)


@pytest.mark.tools
@pytest.mark.beside
def test_status_interval_stream_uses_last_document(tmp_path):
    out = tmp_path / "stream.json"
    subprocess.run(
        ["fio", "--name=s", f"--directory={tmp_path}", "--rw=randread", "--bs=4k", "--size=8M",
         "--ioengine=psync", "--time_based", "--runtime=3", "--status-interval=1",
         "--output-format=json", f"--output={out}"],
        check=True, capture_output=True,
    )
    text = out.read_text()
    assert text.count('"fio version"') >= 3, "several documents back to back"
    records, _ = _ingest(out)
    assert len(records) == 1
    assert "status-interval" in records[0]["source_format"]
    last = json.loads(text[text.rindex('{\n  "fio version"'):])
    assert records[0]["read"]["total_ios"] == last["jobs"][0]["read"]["total_ios"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def fio_servers(count: int):
    """fio --server processes on 127.0.0.1, stopped by PID afterwards."""
    procs, ports = [], []
    try:
        for _ in range(count):
            port = _free_port()
            procs.append(subprocess.Popen(["fio", f"--server=ip:127.0.0.1,{port}"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            ports.append(port)
        for port in ports:
            deadline = time.time() + 10
            while time.time() < deadline:
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                    break
                time.sleep(0.1)
        yield ports
    finally:
        for p in procs:
            if p.poll() is None:
                os.kill(p.pid, signal.SIGTERM)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(p.pid, signal.SIGKILL)
                p.wait()


@pytest.mark.tools
@pytest.mark.beside
def test_client_json_one_record_per_client_plus_all(tmp_path):
    job = tmp_path / "c.fio"
    job.write_text(f"[c]\ndirectory={tmp_path}\nrw=randread\nbs=4k\nsize=8M\nioengine=psync\n"
                   "time_based=1\nruntime=1\n")
    with fio_servers(2) as ports:
        # one job file per --client: with a single trailing job file fio runs only the last
        argv = ["fio", "--output-format=json+"]
        for port in ports:
            argv += [f"--client=ip:127.0.0.1,{port}", str(job)]
        proc = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=60)
    out = tmp_path / "client.json"
    out.write_text(proc.stdout)
    records, _ = _ingest(out)
    hosts = sorted(r["host"] for r in records)
    assert hosts == sorted([f"127.0.0.1:{p}" for p in ports] + ["all"])
    assert all(r["source_format"] == "client-json" for r in records)
    clients = [r for r in records if r["host"] != "all"]
    assert all("p99" in r["read"]["clat_ns"] for r in clients)


def test_iperf3_error_is_an_error_record():
    refused = FIXTURES / "recorded" / "iperf3" / "iperf3-3.12_json_connection-refused_loopback.json"
    interrupted = FIXTURES / "public" / "iperf3" / "iperf3-3.6_tcp_json_interrupted_ctrl-c-prefix_error-key.txt"
    ok = FIXTURES / "public" / "iperf3" / "iperf3-3.9_tcp_json_10s_omit3.json"
    records, _ = _ingest(refused, interrupted, ok)
    assert [r["type"] for r in records] == ["net"] * 3
    assert "refused" in records[0]["error"]
    assert records[1]["error"]
    assert "error" not in records[2] and records[2]["received_bps"] > 0


def test_unreadable_files_get_one_line_each(tmp_path):
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(os.urandom(4096))
    half = tmp_path / "half.json"
    full = (FIXTURES / "public" / "fio" / "fio-3.1_json_randread_qd32_jobs_disk_util_fio-plot.json").read_text()
    half.write_text(full[: len(full) // 2])
    good = FIXTURES / "public" / "fio" / "fio-3.25_normal_8groups_nvme.txt"
    records, proc = _ingest(garbage, tmp_path / "missing.txt", half, good, check=1)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 3 and "Traceback" not in proc.stderr
    assert lines[0].startswith(f"stackprobe: {garbage}: cannot ingest:")
    assert "missing.txt: cannot read" in lines[1]
    assert str(half) in lines[2]
    assert {r["source"] for r in records} == {str(good)}, "the readable file still ingests"


def test_ingest_table_output():
    proc = run_cli(["ingest", FIXTURES / "public" / "fio" / "fio-2.14_normal_freebsd-posixaio_rw-mixed.txt"],
                   check=0)
    assert "1M_seqrw" in proc.stdout and "fio normal" in proc.stdout
