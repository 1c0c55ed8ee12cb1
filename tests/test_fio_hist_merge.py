"""Merging per-job fio histograms gives exactly fio's group_reporting figures.

The proof needs both halves from ONE run: the per-job histograms come from fio's histogram
logs (write_hist_log, one file per job), the group's from its json+ report. Recorded runs are
in fixtures/recorded/fio-hist/ (RECORDED.md, "fio-hist"); one test re-makes the proof with
the real fio on every run.

fio writes a log line only when a completion arrives log_hist_msec after the previous line
and nothing when a job ends, so the recorded and live jobs end with a pause before their
last I/O (see record_fio_hist.sh); the plain time-based recording shows what is lost without.
"""

from __future__ import annotations

import configparser
import gzip
import json
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FIXTURES
from stackprobe.analysis.histogram import merge_bins, percentiles
from stackprobe.parsers.fio.fio_hist_log import PLAT_NR, bucket_value, parse_hist_log
from stackprobe.parsers.fio.fio_json import result_document
from stackprobe.schema.records import percentile_key

# beside the one-at-a-time system tests (tests/run_tiers.py): histograms merged against fio's own percentiles: no level
pytestmark = pytest.mark.beside

RECORDED = FIXTURES / "recorded"
HIST = RECORDED / "fio-hist"
EXACT = HIST / "fio-3.33_exact_2groups"
TIMEBASED = HIST / "fio-3.33_timebased_randrw_4jobs"
DIRECTIONS = {0: "read", 1: "write", 2: "trim"}


# ---------------------------------------------------------------- helpers


def _read(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode()


def _job_groups(job_file: str) -> dict[int, int]:
    """{job number: group id} as fio numbers them: jobs in file order, numjobs clones each,
    a new group at every `stonewall` (or `new_group`) section."""
    cp = configparser.ConfigParser(allow_no_value=True, interpolation=None, strict=False)
    cp.read_string(job_file)
    default_numjobs = int(cp.get("global", "numjobs", fallback="1"))
    groups: dict[int, int] = {}
    group = -1
    for section in cp.sections():
        if section == "global":
            continue
        opts = cp[section]
        if group < 0 or "stonewall" in opts or "new_group" in opts:
            group += 1
        for _ in range(int(opts.get("numjobs", default_numjobs))):
            groups[len(groups) + 1] = group
    return groups


def _load_logs(directory: Path) -> dict[int, dict[int, dict[int, int]]]:
    """{job number: parse_hist_log(...)} for every h_clat_hist.<n>.log[.gz] in directory."""
    logs = {}
    for path in directory.iterdir():
        m = re.fullmatch(r"h_clat_hist\.(\d+)\.log(\.gz)?", path.name)
        if m:
            logs[int(m.group(1))] = parse_hist_log(_read(path))
    return logs


def _bins(stats: dict) -> dict[int, int]:
    return {int(k): int(v) for k, v in (stats.get("bins") or {}).items()}


def _cases(directory: Path):
    """(group entry of the json+ report, direction name, merged per-job log histogram)."""
    doc = json.loads((directory / "out.json").read_text())
    logs = _load_logs(directory)
    groups = _job_groups((directory / "job.fio").read_text())
    assert sorted(logs) == sorted(groups), "one log per job"
    for entry in doc["jobs"]:
        members = [n for n, g in groups.items() if g == entry["groupid"]]
        for d, name in DIRECTIONS.items():
            yield entry, name, merge_bins(logs[n].get(d, {}) for n in members)


def _assert_merge_equals_group(entry: dict, name: str, merged: dict[int, int]) -> None:
    stats = entry[name]
    clat = stats["clat_ns"]
    assert merged == _bins(clat), f"{entry['jobname']} {name}: histogram"
    assert sum(merged.values()) == stats["total_ios"]


def _assert_percentiles_equal_fios(entry: dict, name: str, merged: dict[int, int]) -> None:
    clat = entry[name]["clat_ns"]
    fios = {percentile_key(p): float(v) for p, v in (clat.get("percentile") or {}).items()}
    mine = percentiles(merged, [float(p) for p in clat.get("percentile") or {}])
    assert mine == fios, f"{entry['jobname']} {name}: percentiles"


EXACT_CASES = [
    pytest.param(entry, name, merged, id=f"g{entry['groupid']}-{name}")
    for entry, name, merged in _cases(EXACT)
]


def _json_plus_docs():
    """Every recorded json+ document: fio-hist/*/out.json and the recorded/*.txt with bins."""
    paths = sorted(HIST.glob("*/out.json")) + sorted(RECORDED.glob("*.txt"))
    docs = [(p, result_document(p.read_text())[0]) for p in paths if '"bins"' in p.read_text()]
    assert len(docs) >= 3
    return docs


# ---------------------------------------------------------------- (a) bucket values


def test_bucket_value_strictly_increasing_and_fios_geometry():
    values = [bucket_value(i) for i in range(PLAT_NR)]
    assert all(a < b for a, b in zip(values, values[1:]))
    assert values[:128] == list(range(128))
    assert values[128:131] == [129, 131, 133]  # width-2 buckets report their middle
    assert values[-1] == (1 << 33) + (2 * 63 + 1) * (1 << 26)  # last group: 27 error bits
    for bad in (-1, PLAT_NR):
        with pytest.raises(ValueError):
            bucket_value(bad)


def test_every_json_plus_bin_key_is_a_bucket_value():
    values = {bucket_value(i) for i in range(PLAT_NR)}
    keys = 0
    for path, doc in _json_plus_docs():
        for entry in doc.get("jobs") or doc["client_stats"]:  # client mode: per client
            for name in DIRECTIONS.values():
                for lat in ("clat_ns", "lat_ns", "slat_ns"):
                    bins = _bins((entry.get(name) or {}).get(lat) or {})
                    assert set(bins) <= values, (path.name, entry["jobname"], name, lat)
                    keys += len(bins)
    assert keys > 1000


# ---------------------------------------------------------------- parser


def _line(time_ms: int, direction: int, counts: dict[int, int], bs: int = 4096) -> str:
    row = [0] * PLAT_NR
    for i, c in counts.items():
        row[i] = c
    return ", ".join(str(x) for x in [time_ms, direction, bs, *row])


def test_parse_sums_intervals_per_direction():
    text = "\n".join([
        _line(501, 0, {5: 2, 200: 1}),
        _line(501, 1, {300: 4}),
        "",
        _line(1001, 0, {5: 1}),
    ]) + "\n"
    assert parse_hist_log(text) == {0: {5: 3, bucket_value(200): 1}, 1: {bucket_value(300): 4}}
    assert parse_hist_log("") == {}


@pytest.mark.parametrize(
    "bad, message",
    [
        (_line(501, 0, {})[: -len(", 0")], "line 2: 1858 columns"),  # a column short
        (", ".join(["501", "1", "4096"] + ["0"] * (PLAT_NR // 2)), "line 2: 931 columns"),
        (_line(501, 0, {}).replace("4096", "4k"), "line 2: a column is not an integer"),
        (_line(501, 3, {}), "line 2: direction 3"),
        (_line(501, 0, {7: -1}), "line 2: negative"),
    ],
)
def test_parse_rejects_malformed_lines(bad, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_hist_log(_line(1, 0, {1: 1}) + "\n" + bad + "\n")


# ---------------------------------------------------------------- (b) the proof, recorded


@pytest.mark.parametrize("entry, name, merged", EXACT_CASES)
def test_recorded_merged_logs_equal_group_histogram(entry, name, merged):
    _assert_merge_equals_group(entry, name, merged)


@pytest.mark.parametrize("entry, name, merged", EXACT_CASES)
def test_recorded_percentiles_of_merged_logs_equal_fios(entry, name, merged):
    """Same keys, same values. Exactness is demanding here: fio compares the running count
    with `(long double) p / 100.0 * N` (stat.c, calc_clat_percentiles). For p = 99.95 (as a
    double, a hair above 99.95) and N = 40000 that threshold is just above 39980, so a bin
    whose running count reaches exactly 39980 is not yet fio's p99.95."""
    _assert_percentiles_equal_fios(entry, name, merged)


def test_recorded_cases_are_not_trivial():
    """Both groups, both directions, several intervals per log; and the logs hold clat:
    group 1 ran with lat_percentiles=1, its lat histogram differs from the one matched."""
    active = [(e, n, m) for e, n, m in _cases(EXACT) if e[n]["total_ios"]]
    assert {(e["groupid"], n) for e, n, _ in active} == {(0, "read"), (0, "write"),
                                                         (1, "read"), (1, "write")}
    assert all(len(m) > 50 for _, _, m in active)
    lines = [_read(p).count("\n") for p in EXACT.glob("h_clat_hist.*.log.gz")]
    assert len(lines) == 7 and min(lines) >= 3
    for entry, name, merged in active:
        if entry["groupid"] == 1:
            assert "bins" in entry[name]["lat_ns"] and merged != _bins(entry[name]["lat_ns"])


def test_timebased_logs_miss_the_tail_after_the_last_line():
    """A plain time_based run: every logged I/O is in fio's report (bin by bin), but the
    I/Os completed after a job's last log line are in the report only."""
    for entry, name, merged in _cases(TIMEBASED):
        group = _bins(entry[name]["clat_ns"])
        assert all(group.get(v, 0) >= c for v, c in merged.items())
        if name != "trim":
            assert 0 < sum(merged.values()) < entry[name]["total_ios"] == sum(group.values())


# ---------------------------------------------------------------- (c) the proof, live


LIVE_JOB = """\
[global]
directory={data}
size=8m
io_size=64m
bs=4k
direct=1
ioengine=psync
numjobs=3
group_reporting=1
write_hist_log=h
log_hist_msec=100
log_hist_coarseness=0
number_ios=3000
thinktime=600ms
thinktime_blocks=2999
thinktime_blocks_type=issue

[randread]
rw=randread

[randwrite]
rw=randwrite
"""


@pytest.mark.tools
def test_live_fio_merged_logs_equal_group_report(tmp_path):
    """Real fio, 3 read + 3 write jobs in one group: re-makes the proof on every test run."""
    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / "job.fio").write_text(LIVE_JOB.format(data=data))
    proc = subprocess.run(
        ["fio", "--output-format=json+", "--output=out.json", "job.fio"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert len(_load_logs(tmp_path)) == 6
    checked = 0
    for entry, name, merged in _cases(tmp_path):
        _assert_merge_equals_group(entry, name, merged)
        _assert_percentiles_equal_fios(entry, name, merged)
        checked += bool(merged)
    assert checked == 2


# ---------------------------------------------------------------- (d) order and grouping


_job_hist = st.dictionaries(
    st.integers(0, PLAT_NR - 1).map(bucket_value), st.integers(1, 10**6), max_size=40
)


@given(
    jobs=st.lists(_job_hist, min_size=1, max_size=8).filter(lambda js: any(js)),
    data=st.data(),
)
def test_merge_then_percentiles_ignores_job_order_and_grouping(jobs, data):
    reference = merge_bins(jobs)
    order = data.draw(st.permutations(range(len(jobs))))
    cuts = sorted(data.draw(st.sets(st.integers(1, len(jobs) - 1), max_size=len(jobs)))
                  if len(jobs) > 1 else set())
    shuffled = [jobs[i] for i in order]
    parts = [shuffled[a:b] for a, b in zip([0, *cuts], [*cuts, len(jobs)])]
    regrouped = merge_bins(merge_bins(part) for part in parts)
    assert regrouped == reference
    assert percentiles(regrouped) == percentiles(reference)
    assert sum(regrouped.values()) == sum(sum(j.values()) for j in jobs)
