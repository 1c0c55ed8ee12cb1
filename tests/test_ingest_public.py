"""Every public tool output copied into tests/fixtures/public from the shared pool ingests,
and the elbencho and vdbench files give the figures they print (each checked figure read
by eye from the file named beside it)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from conftest import FIXTURES, run_cli
from stackprobe.ingest.detect import detect
from stackprobe.ingest.files import ingest_file

PUBLIC = FIXTURES / "public"
# the tools whose outputs ingest reads: the shared pool of public outputs (60 files, each
# copied here) and the OSU, hpcc, perftest and one elbencho file found besides (SOURCES.md)
POOL_TOOLS = ("elbencho", "fio", "hpcc", "hpl", "io500", "ior", "iperf3", "mdtest", "osu",
              "perftest", "rados", "rbd", "stream", "vdbench")
POOL = sorted(p for tool in POOL_TOOLS for p in (PUBLIC / tool).iterdir())
ELBENCHO = PUBLIC / "elbencho"
VDBENCH = PUBLIC / "vdbench"


def _records(name: str, folder: Path = ELBENCHO):
    return ingest_file(folder / name).records


def test_every_public_file_ingests():
    counts: Counter = Counter()
    for path in POOL:
        found = ingest_file(path)
        assert found.records, path.name
        counts[path.parent.name] += 1
    assert counts == Counter({"ior": 11, "io500": 7, "osu": 7, "fio": 6, "mdtest": 6,
                              "elbencho": 6, "vdbench": 5, "hpcc": 5, "hpl": 4, "iperf3": 4,
                              "rados": 4, "perftest": 3, "stream": 3, "rbd": 1})


def test_elbencho_resfile_write_phase():
    recs = _records("elbencho-2.1-0_resfile_write_4hosts_8threads.txt")
    assert [r.phase for r in recs] == ["SYNC", "MKDIRS", "SYNC", "WRITE"]
    write = recs[-1]
    assert write.last["Throughput MiB/s"] == 6544 and write.first["Throughput MiB/s"] == 6499
    assert write.last["IOPS"] == 6544 and write.first["Elapsed ms"] == 45253
    assert write.last["Total MiB"] == 296330
    assert recs[1].last["Dirs/s"] == 12034
    assert write.params["threads"] == 8 and write.params["hosts"] == 4
    assert write.params["block"] == "1m" and write.date == "2022-03-11T15:59:53-0800"


def test_elbencho_resfile_cleanup_without_blank_lines():
    rm_files, rm_dirs = _records("elbencho-2.1-0_resfile_rmfiles-rmdirs_cleanup.txt")
    assert (rm_files.phase, rm_files.first["Files/s"], rm_files.last["Files/s"]) == ("RMFILES", 17094, 9583)
    assert (rm_dirs.phase, rm_dirs.last["Dirs total"]) == ("RMDIRS", 32)


def test_elbencho_service_mode_log_keeps_every_block():
    recs = _records("elbencho-2.1-0_slurm-stdout_service-mode_mixed.txt")
    assert len(recs) == 252 == len({r.block for r in recs})
    writes = [r for r in recs if r.phase == "WRITE"]
    # the first WRITE round: four hosts, then the master's aggregate
    assert [w.last["Throughput MiB/s"] for w in writes[:5]] == [656, 646, 654, 672, 2630]
    assert writes[0].date == "2022-03-11T15:57:34-0800"


def test_elbencho_latency_line():
    (read,) = _records("elbencho-1.8-0_read-4k-rand-lat_EXTRACTED.txt")
    assert (read.phase, read.last["IOPS"], read.first["Throughput MiB/s"]) == ("READ", 8219, 32)
    assert read.latency_us == {"IO latency min": 91, "IO latency avg": 120, "IO latency max": 1583}


def test_elbencho_csvfile():
    recs = _records("elbencho-2.1-0_csvfile_write_4hosts_8threads.csv")
    assert [r.phase for r in recs] == ["SYNC", "MKDIRS", "SYNC", "WRITE"]
    write = recs[-1]
    assert write.last["MiB/s"] == 6544 and write.first["time ms"] == 45253
    assert write.latency_us == {"IO lat min": 912, "IO lat avg": 4887, "IO lat max": 54402}
    assert write.params["block size"] == 1048576 and write.params["threads"] == 8
    assert write.tool_version == "2.1-0"
    assert recs[1].latency_us["Ent lat avg"] == 1206


def test_elbencho_livecsv_series():
    (series,) = _records("elbencho-2.1-0_livecsv_write_5s-interval.csv")
    assert (series.phase, series.rank) == ("WRITE", "Total")
    assert [p.runtime_ms for p in series.points] == [5000.0 * n for n in range(1, 10)]
    assert series.points[1].mib_s == 7039 and series.points[5].iops == 5529
    assert series.points[-1].done_bytes == 307658489856


def test_vdbench_block_mode_summary_and_flatfile_agree():
    summary = _records("vdbench50401_raw-sd-wd_16workloads_summary.html", VDBENCH)
    flat = _records("vdbench50401_raw-sd-wd_flatfile.html", VDBENCH)
    assert [r.rd for r in summary] == [r.rd for r in flat] == ["rd1", "rd2", "rd3"]
    assert all(len(r.intervals) == 60 for r in summary + flat)
    avg = summary[2].avg
    assert (avg.label, avg.iops, avg.mib_s, avg.read_pct) == ("avg_2-60", 310.05, 1.21, 75.10)
    assert (avg.resp_ms, avg.resp_max_ms, avg.resp_std_ms, avg.queue_depth) == (6.439, 217.978, 17.191, 2.0)
    assert summary[0].avg.iops == 50.02
    assert summary[0].description == "Starting RD=rd1; I/O rate: 50; elapsed=60; For loops: threads=2"
    assert flat[2].avg.iops == 310.0508 and flat[2].avg.columns["reqrate"] == 5000
    assert summary[0].intervals[0].columns["cpu% sys+u"] == 24.1


def test_vdbench_filesystem_mode_summary_totals_flatfile():
    (summary,) = _records("vdbench50407_filesystem-fwd_4k_64t_summary.html", VDBENCH)
    assert [t.label for t in summary.totals] == ["avg_2-60", "std_2-60", "max_2-60"]
    assert (summary.avg.iops, summary.avg.mib_s, summary.avg.resp_ms) == (33891, 132.32, 1.874)
    assert summary.totals[1].iops == 3857.9 and summary.totals[2].columns["ReqstdOps resp"] == 2864.1
    assert summary.totals[2].columns["open resp"] == 15.111
    assert summary.intervals[0].columns["open rate"] == 97.0
    (totals,) = _records("vdbench50407_filesystem-fwd_4k_64t_totals.html", VDBENCH)
    assert (totals.source_format, totals.intervals, totals.avg.bytes_per_io) == ("totals", [], 4093)
    (flat,) = _records("vdbench50407_filesystem-fwd_4k_64t_flatfile.html", VDBENCH)
    assert (flat.avg.iops, flat.avg.mib_s, flat.avg.resp_max_ms) == (33891.3898, 132.3209, 2864.126)
    assert flat.avg.columns["Open_rate"] == 42.7966 and len(flat.intervals) == 60


@pytest.mark.parametrize(("text", "message"), [
    ("OPERATION RESULT TYPE        FIRST DONE  LAST DONE\n"
     "WRITE     Elapsed ms       :      45253      45277\n"
     "          IOPS             :       64x9       6544\n",
     "elbencho line 3: IOPS (first done) is not a number: '64x9'"),
    ("ISO date,label,operation,IOPS [first],IOPS [last]\n2022,,WRITE,12,many\n",
     "elbencho CSV line 2: IOPS [last] is not a number: 'many'"),
    ("Label,Phase,RuntimeMS,Rank,MiB/s\n,WRITE,5000,Total,fast\n",
     "elbencho live CSV line 2: MiB/s is not a number: 'fast'"),
    ("* 'flatfile.html' contains Vdbench generated information\n tod Run Interval rate\n"
     "13:49:01.260 rd1 1 3O.0\n",
     "vdbench flatfile line 3: rate is not a number: '3O.0'"),
])
def test_bad_figure_names_line_and_field(text, message):
    with pytest.raises(ValueError) as exc:
        detect(text).parse(text)
    assert str(exc.value) == message


def test_terminal_tables_show_the_files_figures(tmp_path):
    odd = tmp_path / "odd.txt"  # brackets in a file are text, not the terminal's markup
    odd.write_text("OPERATION RESULT TYPE        FIRST DONE  LAST DONE\n"
                   "WRITE     Elapsed [/x] ms :      1      2\n---\n")
    proc = run_cli(["ingest", ELBENCHO / "elbencho-2.1-0_resfile_write_4hosts_8threads.txt",
                    VDBENCH / "vdbench50407_filesystem-fwd_4k_64t_totals.html", odd],
                   check=0)
    out = proc.stdout
    assert "Throughput MiB/s" in out and "6,544" in out and "threads 8" in out
    assert "avg_2-60" in out and "132.32" in out and "1.874" in out
    assert "Elapsed [/x] ms" in out
