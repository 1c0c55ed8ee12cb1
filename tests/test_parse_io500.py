"""IO500 result files of every era (tests/fixtures/public/io500, SOURCES.md "## IO500")
parsed, and their score recomputed with the official formula (analysis/io500_score.py).
Every expected figure below was read from the files by eye."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from pydantic import TypeAdapter

from stackprobe.analysis.io500_score import (
    CURRENT,
    IO500_LIKE_LABEL,
    PROTOTYPE,
    missing,
    recompute,
    rules_for,
    score,
)
from stackprobe.parsers.hpc.io500_result import SCORED_PHASES, looks_like_io500, parse_io500
from stackprobe.schema.records import Io500Phase, Io500Record, Record

PUBLIC = Path(__file__).parent / "fixtures" / "public"
IO500 = PUBLIC / "io500"
PROTO = IO500 / "io500-2017-prototype_jcahpc_job-output.txt"
SH2018 = IO500 / "io500-2018-io500sh_result_summary_GBs.txt"
SH2020 = IO500 / "io500-2020-io500sh_result_summary_GiBs.txt"
INI24 = IO500 / "io500-isc24_v3_result.ini.txt"
SUM24 = IO500 / "io500-isc24_v3_result_summary.txt"
INI25 = IO500 / "io500-isc25_v1_result.ini.txt"
SUM25 = IO500 / "io500-isc25_v1_result_summary_cephfs_with-rnd4K.txt"
FIXTURES = [PROTO, SH2018, SH2020, INI24, SUM24, INI25, SUM25]
OTHERS = sorted(p for tool in ("ior", "mdtest", "fio", "iperf3", "rados", "rbd")
                for p in (PUBLIC / tool).iterdir())

PROTO_ORDER = ["ior-easy-write", "mdtest-easy-write", "ior-hard-write", "mdtest-hard-write",
               "ior-easy-read", "mdtest-easy-stat", "ior-hard-read", "mdtest-hard-stat", "find",
               "mdtest-easy-delete", "mdtest-hard-delete"]
SH_ORDER = ["ior-easy-write", "mdtest-easy-write", "ior-hard-write", "mdtest-hard-write", "find",
            "ior-easy-read", "mdtest-easy-stat", "ior-hard-read", "mdtest-hard-stat",
            "mdtest-easy-delete", "mdtest-hard-read", "mdtest-hard-delete"]
APP_ORDER = SH_ORDER[:2] + ["timestamp"] + SH_ORDER[2:]

# file -> (source_format, version, mode, procs, names in order, bw unit, md unit,
#          reported (bw, md, total))
EXPECTED = {
    PROTO: ("prototype", "prototype 2017-11-07", None, 2048 * 8, PROTO_ORDER, "MB/s", "IOPS",
            (520399, 13853.1, 7209139386.9)),
    SH2018: ("result_summary", "io500.sh", None, None, SH_ORDER, "GB/s", "kIOPS",
             (2.93392, 24.4074, 8.46223)),
    SH2020: ("result_summary", "io500.sh", None, None, SH_ORDER, "GiB/s", "kIOPS",
             (39.9019, 248.81, 99.6393)),
    INI24: ("result_ini", "io500-isc24_v3", "standard", 640, SH_ORDER, "GiB/s", "kIOPS",
            (122.312630, 192.355126, 153.386640)),
    SUM24: ("result_summary", "io500-isc24_v3", "standard", None, APP_ORDER, "GiB/s", "kIOPS",
            (122.312630, 192.355126, 153.386640)),
    INI25: ("result_ini", "io500-isc25_v1", "standard", 160, SH_ORDER + ["ior-rnd4K-easy-read"],
            "GiB/s", "kIOPS", (8.279468, 7.975270, 8.125945)),
    SUM25: ("result_summary", "io500-isc25_v1", "standard", None,
            APP_ORDER + ["ior-rnd4K-easy-read"], "GiB/s", "kIOPS", (8.279468, 7.975270, 8.125945)),
}

# file -> {phase: (value, unit, time_s)}, a few read from each file by eye
VALUES = {
    PROTO: {"ior-easy-write": (794393.97, "MB/s", 420), "mdtest-hard-write": (4140.437, "IOPS", 101),
            "find": (5020, "IOPS", 10), "mdtest-hard-delete": (1393.784, "IOPS", 258)},
    SH2018: {"ior-easy-write": (4.430, "GB/s", 322.45), "find": (11.770, "kIOPS", 1812.57),
             "mdtest-hard-stat": (38.780, "kIOPS", 24.32), "ior-hard-read": (1.395, "GB/s", 962.56)},
    SH2020: {"ior-hard-write": (10.440, "GiB/s", 335.39), "find": (532.460, "kIOPS", 404.23),
             "mdtest-hard-delete": (124.152, "kIOPS", 646.20)},
    INI24: {"ior-easy-write": (352.803032, "GiB/s", 386.6981), "find": (2872.215129, "kIOPS", 24.1317),
            "ior-hard-read": (227.682852, "GiB/s", 8.7598)},
    SUM24: {"ior-easy-write": (352.803032, "GiB/s", 386.698), "timestamp": (0.0, "kIOPS", 0.0),
            "mdtest-hard-read": (114.129044, "kIOPS", 219.393)},
    INI25: {"ior-hard-write": (1.443928, "GiB/s", 385.0850), "mdtest-easy-delete": (3.721429, "kIOPS", 443.1758),
            "ior-rnd4K-easy-read": (16.369523, "GiB/s", 37.3253)},
    SUM25: {"ior-easy-write": (27.030023, "GiB/s", 409.195), "timestamp": (0.0, "kIOPS", 0.181),
            "ior-rnd4K-easy-read": (16.369523, "GiB/s", 37.325)},
}


def parse(path: Path) -> Io500Record:
    records = parse_io500(path.read_text())
    assert len(records) == 1
    return records[0]


def one_line_error(text: str) -> str:
    with pytest.raises(ValueError) as err:
        parse_io500(text)
    message = str(err.value)
    assert "\n" not in message and message.startswith("IO500 result")
    return message


# ---------------------------------------------------------------- parsing


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_fixture_parses_as_the_file_says(path):
    fmt, version, mode, procs, names, bw_unit, md_unit, reported = EXPECTED[path]
    rec = parse(path)
    assert (rec.source_format, rec.version, rec.mode, rec.procs) == (fmt, version, mode, procs)
    assert rec.type == "io500" and rec.official and rec.label is None
    assert [p.name for p in rec.phases] == names
    scored = [p for p in rec.phases if p.scored]
    assert len(scored) == (11 if path == PROTO else 12)
    assert {p.name for p in scored} <= set(SCORED_PHASES)
    for p in rec.phases:
        assert math.isfinite(p.value) and (p.time_s is None or math.isfinite(p.time_s))
        if p.name == "timestamp":
            assert p.kind == "other" and not p.scored
        elif p.name.startswith("ior-"):
            assert p.kind == "bw" and p.unit == bw_unit
        else:
            assert p.kind == "md" and p.unit == md_unit
    for name, (value, unit, time_s) in VALUES[path].items():
        (p,) = [p for p in rec.phases if p.name == name]
        assert (p.value, p.unit, p.time_s) == (pytest.approx(value), unit, pytest.approx(time_s))
    s = rec.score_reported
    assert (s.bw, s.md, s.total) == pytest.approx(reported)
    assert (s.bw_unit, s.md_unit) == (bw_unit, md_unit)
    # parse_io500 does not recompute
    assert rec.score_computed is None and rec.formula is None and rec.mismatches == []


def test_extras_are_not_scored():
    rec = parse(SUM25)
    extras = {p.name: p for p in rec.phases if not p.scored}
    assert set(extras) == {"timestamp", "ior-rnd4K-easy-read"}
    assert extras["ior-rnd4K-easy-read"].kind == "bw"
    assert parse(INI25).phases[-1].scored is False


def test_prototype_names_warnings_and_product_score():
    text = PROTO.read_text()
    rec = parse(PROTO)
    hard = {p.name: p for p in rec.phases}["mdtest-hard-write"]
    assert hard.details["label"] == "md-hard-create" and hard.details["phase_number"] == 2
    assert hard.details["warnings"] == ["the runtime is below 5 minutes"]
    assert "mdtest-hard-read" not in {p.name for p in rec.phases}
    # the prototype's total is the product of its bw and md scores as printed, not a root
    assert "IO-500 score:  7209139386.9" in text
    assert 520399 * 13853.1 == pytest.approx(7209139386.9, abs=0.01)
    assert rec.score_reported.printed == {"bw": "520399", "md": "13853.1", "total": "7209139386.9"}


def test_io500sh_labels_and_printed_figures():
    rec = parse(SH2018)
    easy = rec.phases[0]
    assert easy.details == {"printed": "4.430", "label": "ior_easy_write", "phase_number": 1}
    assert rec.valid is None  # io500.sh never marks a run invalid


def test_ini_details():
    rec = parse(INI24)
    by = {p.name: p for p in rec.phases}
    find = by["find"].details
    assert (find["found"], find["total_files"], find["nproc"]) == (909322, 69266562, 640)
    assert find["command"].startswith("./pfind /net/hscra/benchmark/datafiles")
    assert by["ior-easy-write"].details["throughput_stonewall"] == 403.55
    assert by["mdtest-hard-write"].details["rate_stonewall"] == 70.423213
    assert by["ior-easy-write"].details["command"].startswith("./ior --dataPacketType=timestamp")
    assert by["ior-easy-write"].details["printed"] == "352.803032"
    assert rec.valid is True


def test_summary_and_ini_of_one_run_agree():
    for summary, ini in ((SUM24, INI24), (SUM25, INI25)):
        a, b = parse(summary), parse(ini)
        va = {p.name: p.value for p in a.phases if p.name != "timestamp"}
        vb = {p.name: p.value for p in b.phases}
        assert va == vb
        assert a.score_reported.model_dump(exclude={"printed"}) == b.score_reported.model_dump(
            exclude={"printed"})


def test_record_round_trips_through_json():
    rec = recompute(parse(SUM25))
    doc = json.loads(json.dumps(rec.to_json()))
    back = TypeAdapter(Record).validate_python(doc)
    assert back == rec


def test_invalid_marks_are_kept():
    text = SUM25.read_text()
    marked = text.replace("TOTAL 8.125945", "TOTAL 8.125945 [INVALID]")
    assert parse_io500(marked)[0].valid is False
    tagged = text.replace("[RESULT]                 find", "[RESULT-invalid]         find")
    rec = parse_io500(tagged)[0]
    find = {p.name: p for p in rec.phases}["find"]
    assert find.details["invalid"] is True and rec.valid is False
    ini = INI25.read_text().replace("SCORE           = 8.125945", "SCORE           = 8.125945 [INVALID]")
    rec = parse_io500(ini)[0]
    assert rec.valid is False and rec.score_reported.total == 8.125945


def test_console_copy_repeats_are_read_once_and_conflicts_refused():
    text = SH2020.read_text()
    results = "".join(ln + "\n" for ln in text.splitlines() if ln.startswith("[RESULT]"))
    rec = parse_io500(text + results)[0]
    assert len(rec.phases) == 12
    changed = results.replace("135.033", "135.034", 1)
    assert "twice" in one_line_error(text + changed)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("text", [
    "", "hello\n", "[RESULT] something went wrong\n", "IO-500\n", "[run]\nprocs = 4\n",
    "[global]\ndatadir = /x\n[ior-easy-write]\nnoRun = FALSE\n",  # an io500 config.ini
    '{"jobs": []}', "\x00\x01\xff" * 50,
])
def test_garbage_raises_one_line(text):
    assert "no IO500 result" in one_line_error(text)


def test_other_tools_outputs_raise_one_line():
    for path in OTHERS:
        if path.suffix == ".csv":
            continue
        one_line_error(path.read_text(errors="replace"))


def test_non_finite_figures_are_refused():
    text = SUM25.read_text().replace("27.030023", "nan", 1)
    assert "not a finite number" in one_line_error(text)
    text = INI25.read_text().replace("score           = 27.030023", "score           = inf")
    assert "not a finite number" in one_line_error(text)
    text = PROTO.read_text().replace("BW:794393.97", "BW:1e999")
    assert "not a finite number" in one_line_error(text)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_truncated_text_parses_or_raises_value_error(path):
    text = path.read_text()
    step = max(1, len(text) // 600)
    for cut in range(0, len(text), step):
        try:
            records = parse_io500(text[:cut])
        except ValueError as exc:
            assert "\n" not in str(exc)
            continue
        for rec in records:
            assert all(math.isfinite(p.value) for p in rec.phases)
            recompute(rec)  # no other exception either


# ---------------------------------------------------------------- detection


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_looks_like_io500(path):
    assert looks_like_io500(path.read_text())


@pytest.mark.parametrize("path", OTHERS, ids=lambda p: p.name)
def test_other_tools_do_not_look_like_io500(path):
    assert not looks_like_io500(path.read_text(errors="replace"))


# ---------------------------------------------------------------- the score

# file -> recomputed (bw, md, total), by hand from the phases as printed
RECOMPUTED = {
    PROTO: (520399.139, 13853.0537, 7209117220.4),
    SH2018: (2.9339625, 24.4070165, 8.4622261),
    SH2020: (39.9023905, 248.8095596, 99.6398324),
    INI24: (122.3126307, 192.3551259, 153.3866405),
    SUM24: (122.3126307, 192.3551259, 153.3866405),
    INI25: (8.2794668, 7.9752700, 8.1259450),
    SUM25: (8.2794668, 7.9752700, 8.1259450),
}


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_recomputed_score_matches_the_file(path):
    rec = parse(path)
    out = recompute(rec)
    s = out.score_computed
    assert (s.bw, s.md, s.total) == pytest.approx(RECOMPUTED[path], rel=1e-7)
    assert (s.bw_unit, s.md_unit) == (EXPECTED[path][5], EXPECTED[path][6])
    assert out.mismatches == []
    assert rec.score_computed is None  # a copy: the parsed record is left as it was
    if path == PROTO:
        assert out.formula == "geomean(bw MB/s) × geomean(md IOPS)"
        assert s.total == pytest.approx(s.bw * s.md)
    else:
        unit = EXPECTED[path][5]
        assert out.formula == f"sqrt(geomean(bw {unit}) × geomean(md kIOPS))"
        assert s.total == pytest.approx(math.sqrt(s.bw * s.md))


def test_rules_per_era():
    assert rules_for(parse(PROTO)) is PROTOTYPE and rules_for(parse(SUM25)) is CURRENT
    assert len(PROTOTYPE.md_phases) == 7 and len(CURRENT.md_phases) == 8


@pytest.mark.parametrize("path, old, new, figures", [
    # one bandwidth phase 0.1 GB/s lower: bw and total move beyond rounding
    (SH2018, "ior_hard_write                3.907", "ior_hard_write                3.807",
     ["bandwidth score (bw)", "total score"]),
    # find +0.001 kIOPS in a file printed with 6 decimals: md and total no longer agree
    (SUM25, "find       33.260196", "find       33.261196", ["metadata score (md)", "total score"]),
    (INI25, "score           = 33.260196", "score           = 33.261196",
     ["metadata score (md)", "total score"]),
    # the total alone, one digit off in its 5th decimal
    (SUM24, "TOTAL 153.386640", "TOTAL 153.386660", ["total score"]),
    # the prototype reported with today's root instead of its product
    (PROTO, "IO-500 score:  7209139386.9", "IO-500 score:  84906.5", ["total score"]),
    (SH2020, "IOPS 248.81 kiops", "IOPS 248.91 kiops", ["metadata score (md)"]),
])
def test_an_edited_figure_is_a_mismatch(path, old, new, figures):
    text = path.read_text()
    assert text.count(old) == 1
    out = recompute(parse_io500(text.replace(old, new))[0])
    assert [m.split(":")[0] for m in out.mismatches] == figures
    assert all("\n" not in m and "the file reports" in m for m in out.mismatches)


def test_mismatch_message_names_figure_and_numbers():
    text = SH2018.read_text().replace("3.907 GB/s", "3.807 GB/s")
    (line, _total) = recompute(parse_io500(text)[0]).mismatches
    assert line.startswith("bandwidth score (bw): the file reports 2.93392 GB/s, the phases give 2.915006 GB/s")
    assert "rounding allows" in line


def test_phases_at_their_rounding_limit_still_match():
    # 8 of the isc25 phases 1e-6 off (the last printed digit): still within rounding
    text = SUM25.read_text().replace("4.739586", "4.739587").replace("2.924762", "2.924761")
    assert recompute(parse_io500(text)[0]).mismatches == []


def test_missing_or_zero_phase_gives_no_score():
    phases = parse(SUM25).phases
    no_md = [p for p in phases if p.name != "mdtest-hard-read"]
    assert score(no_md) is None
    assert missing(no_md) == ["mdtest-hard-read"]
    no_bw = [p for p in phases if p.name != "ior-hard-read"]
    assert score(no_bw) is None
    zero = [p.model_copy(update={"value": 0.0}) if p.name == "find" else p for p in phases]
    assert score(zero) is None and missing(zero) == ["find"]
    assert score(phases) is not None and missing(phases) == []


def test_recompute_says_why_a_reported_score_cannot_be_recomputed():
    text = "\n".join(ln for ln in SUM25.read_text().splitlines() if "mdtest-hard-read" not in ln)
    out = recompute(parse_io500(text)[0])
    assert out.score_computed is None
    (line,) = out.mismatches
    assert line.startswith("total: the file reports 8.125945") and "mdtest-hard-read" in line


def test_no_reported_score_no_mismatches():
    text = "\n".join(ln for ln in SUM25.read_text().splitlines() if not ln.startswith("[SCORE"))
    rec = parse_io500(text)[0]
    assert rec.score_reported is None
    out = recompute(rec)
    assert out.mismatches == [] and out.score_computed.total == pytest.approx(8.125945, abs=2e-6)


def test_mixed_units_are_converted_to_gib_and_kiops():
    phases = parse(SUM25).phases
    mixed = []
    for p in phases:
        if p.name == "ior-easy-write":  # the same figure in MiB/s
            p = Io500Phase(name=p.name, kind="bw", value=p.value * 1024, unit="MiB/s")
        elif p.name == "find":  # and in IOPS
            p = Io500Phase(name=p.name, kind="md", value=p.value * 1000, unit="IOPS")
        mixed.append(p)
    s, ref = score(mixed), score(phases)
    assert (s.bw_unit, s.md_unit) == ("GiB/s", "kIOPS")
    assert (s.bw, s.md, s.total) == pytest.approx((ref.bw, ref.md, ref.total), rel=1e-12)


def test_computed_phases_without_printed_text_are_exact():
    # what the io500-like suite builds: official names, no printed text
    phases = [Io500Phase(name=n, kind="bw" if n.startswith("ior") else "md", value=2.0,
                         unit="GiB/s" if n.startswith("ior") else "kIOPS") for n in SCORED_PHASES]
    s = score(phases)
    assert (s.bw, s.md, s.total) == pytest.approx((2.0, 2.0, 2.0))
    rec = Io500Record(official=False, label=IO500_LIKE_LABEL, phases=phases,
                      score_reported=s.model_copy(update={"total": 2.00001}))
    (line,) = recompute(rec).mismatches
    assert line.startswith("total score: the file reports 2.00001")


def test_unknown_or_doubled_scored_phase_is_refused():
    phases = parse(SUM25).phases
    with pytest.raises(ValueError, match="scored twice"):
        score(phases + [phases[0]])
    with pytest.raises(ValueError, match="not a phase"):
        score(phases + [Io500Phase(name="ior-rnd4K-easy-read", kind="bw", value=1, unit="GiB/s")])


def test_io500_like_label():
    assert IO500_LIKE_LABEL == "io500-like, not an official IO500 score"


def test_a_phase_with_the_wrong_kind_of_unit_is_not_scored():
    text = SUM25.read_text().replace("27.030023 GiB/s", "27.030023 kIOPS")
    rec = parse_io500(text)[0]
    easy = rec.phases[0]
    assert (easy.name, easy.kind, easy.scored) == ("ior-easy-write", "md", False)
    out = recompute(rec)
    assert out.score_computed is None and "ior-easy-write" in out.mismatches[0]
