"""IO500 result files -> Io500Record, for every era of the list.

Three formats, told apart by content (the record's `source_format`):

- "prototype": the job output of the SC17 prototype script. Header lines `date=`,
  `nodes=`, `ppn=` (procs = nodes x ppn); per phase `[Starting] NAME` (and maybe a
  `[Warning]: ...` line), then `N/NAME BW:<value> MB/s time: <s>s` or
  `N/NAME IOPs:<value> time:<s>s`; at the end `IO-500 bw score: <v> MB/s`,
  `IO-500 md score: <v> IOPS` and `IO-500 score: <v>`. Its names (md-easy-create,
  md-hard-stat, ...) become today's (mdtest-easy-write, mdtest-hard-stat, ...). The
  bandwidth is IOR's decimal MB/s, metadata rates are plain IOPS, the find rate is an
  integer; seven metadata phases (mdtest-hard-read came later), and its total is the
  product bw x md of the two scores as printed (analysis/io500_score.py).
- "result_summary": result_summary.txt, or the same lines on the console, of io500.sh
  (2018-2020) and of the io500 app (2020 on).
  io500.sh: `[RESULT] BW   phase 1  ior_easy_write  4.430 GB/s : time 322.45 seconds`,
  `[RESULT] IOPS phase 1  mdtest_easy_write  103.110 kiops : time ...` and
  `[SCORE] Bandwidth 2.93392 GB/s : IOPS 24.4074 kiops : TOTAL 8.46223`; the console
  copy prints every [RESULT] line twice (identical repeats are read once). The 2018
  script labelled bandwidth "GB/s" but computed it as IOR's MiB/s / 1024, a binary
  GiB/s; later versions print "GiB/s". Values keep the label the file gives them.
  The io500 app: `IO500 version io500-isc25_v1 (standard)`, then
  `[RESULT]  ior-easy-write  27.030023 GiB/s : time 409.195 seconds`, lines tagged
  `[      ]` for phases run but not scored (timestamp, ior-rnd4K-easy-read), and
  `[SCORE ] Bandwidth ... GiB/s : IOPS ... kiops : TOTAL ...`. A trailing ` [INVALID]`
  (or the early app's `[RESULT-invalid]`) marks what the tool itself refused; the
  extended mode's `[SCOREX]` line is not read.
- "result_ini": result.txt of the io500 app: `[run]` (procs, version, mode), one
  section per phase (exe, score, t_delta, throughput-stonewall or rate-stonewall,
  nproc/found/total-files for find; `; ERROR INVALID ...` comments), and `[SCORE]`
  (BW, MD, SCORE) at the end. Units are not written: the app's are GiB/s for the ior
  phases and kIOPS for the others. A section without a score (timestamp) is left out.

Each figure keeps the value and the unit the file gives it (units spelled GiB/s, GB/s,
MB/s, kIOPS, IOPS: "kiops" and "IOPs" are the same units); the text it was printed as is
kept too (`details["printed"]`, `Io500Score.printed`), because the rounding tolerance of
the recomputed score comes from it. `scored` is True for the twelve phases of the IO500
score (eleven for the prototype) when the file counts them; timestamp, rnd4K and any
other extra phase are not scored. This module does not recompute the score:
analysis/io500_score.py does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.schema.records import Io500Phase, Io500Record, Io500Score

# The phases of the IO500 score, in the order a run makes them (io500.sh 2018 onwards and
# the io500 app).
BW_PHASES = ("ior-easy-write", "ior-hard-write", "ior-easy-read", "ior-hard-read")
MD_PHASES = ("mdtest-easy-write", "mdtest-hard-write", "find", "mdtest-easy-stat",
             "mdtest-hard-stat", "mdtest-easy-delete", "mdtest-hard-read", "mdtest-hard-delete")
SCORED_PHASES = ("ior-easy-write", "mdtest-easy-write", "ior-hard-write", "mdtest-hard-write",
                 "find", "ior-easy-read", "mdtest-easy-stat", "ior-hard-read",
                 "mdtest-hard-stat", "mdtest-easy-delete", "mdtest-hard-read",
                 "mdtest-hard-delete")
# The SC17 prototype had no mdtest-hard-read phase.
PROTOTYPE_MD_PHASES = tuple(p for p in MD_PHASES if p != "mdtest-hard-read")

# The prototype's names for the metadata phases.
_ALIASES = {
    "md-easy-create": "mdtest-easy-write", "md-hard-create": "mdtest-hard-write",
    "md-easy-stat": "mdtest-easy-stat", "md-hard-stat": "mdtest-hard-stat",
    "md-easy-delete": "mdtest-easy-delete", "md-hard-delete": "mdtest-hard-delete",
    "md-hard-read": "mdtest-hard-read",
}
# Unit spellings -> one spelling per unit.
BW_UNITS = {"gib/s": "GiB/s", "gb/s": "GB/s", "mib/s": "MiB/s", "mb/s": "MB/s",
            "tib/s": "TiB/s", "tb/s": "TB/s"}
MD_UNITS = {"kiops": "kIOPS", "iops": "IOPS"}

_WHAT = "IO500 result"
_INVALID = "[INVALID]"

# --- result_summary (io500.sh, io500 app)
_TAG = re.compile(r"^\[(?P<tag>RESULT|SCOREX|SCORE|\s*)(?P<invalid>-invalid)?\s*\]\s*(?P<body>.*)$",
                  re.IGNORECASE)
_RESULT = re.compile(
    r"^(?:(?:BW|IOPS)\s+(?:phase\s+(?P<no>\d+)\s+)?)?(?P<name>[A-Za-z][\w.-]*)\s+"
    r"(?P<value>[^\s:]+)\s+(?P<unit>[A-Za-z/]+)\s*:\s*time\s+(?P<time>[^\s:]+)\s+seconds"
    r"(?P<rest>.*)$"
)
_SCORE = re.compile(
    r"^Bandwidth\s+(?P<bw>[^\s:]+)\s+(?P<bw_unit>[A-Za-z/]+)\s*:\s*IOPS\s+(?P<md>[^\s:]+)\s+"
    r"(?P<md_unit>[A-Za-z/]+)\s*:\s*TOTAL\s+(?P<total>\S+)(?P<rest>.*)$",
    re.IGNORECASE,
)
_APP_HEADER = re.compile(r"^IO500 version\s+(?P<version>\S+)(?:\s+\((?P<mode>[^)]*)\))?")

# --- prototype (SC17)
_PROTO_PHASE = re.compile(
    r"^(?P<no>\d+)/(?P<name>[A-Za-z][\w.-]*)\s+(?:BW:\s*(?P<bw>\S+)\s+(?P<unit>[A-Za-z/]+)"
    r"|IOPs:\s*(?P<iops>\S+))\s+time:\s*(?P<time>\S*?)s?\s*$"
)
_PROTO_SCORE = re.compile(r"^IO-500 (?:(?P<which>bw|md) )?score:\s*(?P<value>\S+)(?:\s+(?P<unit>\S+))?\s*$")
_PROTO_START = re.compile(r"^\[Starting\]\s+(?P<name>\S+)")
_PROTO_WARNING = re.compile(r"^\[Warning\]:?\s*(?P<text>.+)$")
_PROTO_HEADER = re.compile(r"^(?P<key>date|nodes|ppn)=(?P<value>\S+)\s*$")

# --- result_ini (io500 app result.txt)
_SECTION = re.compile(r"^\[(?P<name>[^\]\s]+)\]\s*$")
_PAIR = re.compile(r"^(?P<key>[A-Za-z][\w.-]*)\s*=\s*(?P<value>.*?)\s*$")
_INI_FLOATS = {"throughput-stonewall": "throughput_stonewall", "rate-stonewall": "rate_stonewall"}
_INI_INTS = {"found": "found", "total-files": "total_files", "nproc": "nproc"}
_INI_TEXTS = {"exe": "command", "last-output": "last_output", "t_start": "t_start",
              "t_end": "t_end"}


@guard(_WHAT)
def parse_io500(text: str) -> list[Io500Record]:
    """The IO500 run in `text` (any era's result file, see the module doc) as one record,
    in a list like the other parsers' results. The score is the one the file reports;
    analysis/io500_score.py recomputes it. ValueError when no IO500 result is in the text."""
    lines = [line.strip() for line in text.splitlines()]
    record = None
    if any(_PROTO_PHASE.match(ln) or _PROTO_SCORE.match(ln) for ln in lines):
        record = _prototype(lines)
    elif any(_summary_line(ln) for ln in lines):
        record = _summary(lines)
    elif sections := _ini_sections(lines):
        record = _ini(sections)
    if record is None or (not record.phases and record.score_reported is None):
        raise ValueError(
            f"{_WHAT}: no IO500 result in the text (looked for [RESULT]/[SCORE] lines, "
            "result.txt sections with a score, and the 2017 prototype's 'N/phase' lines)"
        )
    return [record]


def looks_like_io500(text: str) -> bool:
    """Whether `text` holds an IO500 result (for `stackprobe ingest`'s detection)."""
    lines = [line.strip() for line in text.splitlines()]
    if any(_PROTO_PHASE.match(ln) or _PROTO_SCORE.match(ln) or _summary_line(ln)
           or _APP_HEADER.match(ln) for ln in lines):
        return True
    return any(_ini_phase(s) or _ini_score(s) for s in _ini_sections(lines))


# ---------------------------------------------------------------- shared

@dataclass
class _Phases:
    """Phases in file order; a phase read twice must say the same both times."""

    items: dict[str, Io500Phase] = field(default_factory=dict)

    def add(self, phase: Io500Phase) -> None:
        seen = self.items.get(phase.name)
        if seen is None:
            self.items[phase.name] = phase
        elif (seen.value, seen.time_s) != (phase.value, phase.time_s):
            raise ValueError(f"{_WHAT}: phase {phase.name} appears twice with different "
                             "figures (several runs in one text?)")

    def list(self) -> list[Io500Phase]:
        return list(self.items.values())


def _number(text: str, what: str) -> float:
    return finite(text, f"{_WHAT}: {what}")


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{_WHAT}: {what} is not an integer: {text[:40]!r}") from None


def _unit(text: str) -> str:
    low = text.lower()
    return BW_UNITS.get(low) or MD_UNITS.get(low) or text


def _kind(name: str, unit: str) -> str:
    if name == "timestamp":
        return "other"
    if unit in BW_UNITS.values():
        return "bw"
    if unit in MD_UNITS.values():
        return "md"
    return "other"


def _name(label: str) -> str:
    name = label.replace("_", "-")
    return _ALIASES.get(name, name)


def _scored(name: str, kind: str, era_phases: Iterable[str]) -> bool:
    """A phase of the era's score whose unit is of its kind (a hand-edited 'kIOPS' on an
    ior phase leaves it unscored, and the score then incomplete)."""
    if name not in era_phases:
        return False
    return kind == ("bw" if name in BW_PHASES else "md")


def _score(bw: str, md: str, total: str, bw_unit: str, md_unit: str) -> Io500Score:
    return Io500Score(
        bw=_number(bw, "bandwidth score"), md=_number(md, "metadata score"),
        total=_number(total, "total score"), bw_unit=_unit(bw_unit), md_unit=_unit(md_unit),
        printed={"bw": bw, "md": md, "total": total},
    )


# ---------------------------------------------------------------- prototype

def _prototype(lines: list[str]) -> Io500Record:
    phases = _Phases()
    header: dict[str, str] = {}
    scores: dict[str, tuple[str, str | None]] = {}
    warnings: dict[str, list[str]] = {}
    started: str | None = None
    era = BW_PHASES + PROTOTYPE_MD_PHASES
    for line in lines:
        if m := _PROTO_HEADER.match(line):
            header.setdefault(m["key"], m["value"])
        elif m := _PROTO_START.match(line):
            started = m["name"]
        elif (m := _PROTO_WARNING.match(line)) and started:
            warnings.setdefault(started, []).append(m["text"].strip())
        elif m := _PROTO_PHASE.match(line):
            label = m["name"]
            name = _name(label)
            printed = m["bw"] if m["bw"] is not None else m["iops"]
            unit = _unit(m["unit"]) if m["bw"] is not None else "IOPS"
            kind = _kind(name, unit)
            details: dict[str, Any] = {"printed": printed, "phase_number": int(m["no"])}
            if label != name:
                details["label"] = label
            if label in warnings:
                details["warnings"] = warnings[label]
            phases.add(Io500Phase(
                name=name, kind=kind, value=_number(printed, f"{label} value"), unit=unit,
                time_s=_number(m["time"], f"{label} time") if m["time"] else None,
                scored=_scored(name, kind, era), details=details,
            ))
        elif m := _PROTO_SCORE.match(line):
            scores[m["which"] or "total"] = (m["value"], m["unit"])
    reported = None
    if {"bw", "md", "total"} <= scores.keys():
        (bw, bw_unit), (md, md_unit) = scores["bw"], scores["md"]
        reported = _score(bw, md, scores["total"][0], bw_unit or "MB/s", md_unit or "IOPS")
    procs = None
    if "nodes" in header and "ppn" in header:
        procs = _int(header["nodes"], "nodes") * _int(header["ppn"], "ppn")
    version = "prototype" + (f" {header['date']}" if "date" in header else "")
    return Io500Record(version=version, source_format="prototype", procs=procs,
                       phases=phases.list(), score_reported=reported)


# ---------------------------------------------------------------- result_summary

def _summary_line(line: str) -> re.Match[str] | None:
    """A [RESULT]/[      ] phase line or a [SCORE] line: its body's match."""
    m = _TAG.match(line)
    if not m:
        return None
    tag = m["tag"].strip().upper()
    if tag in ("RESULT", ""):
        return _RESULT.match(m["body"])
    if tag in ("SCORE", "SCOREX"):
        return _SCORE.match(m["body"])
    return None


def _summary(lines: list[str]) -> Io500Record:
    phases = _Phases()
    version = mode = None
    app = False
    reported: Io500Score | None = None
    score_invalid = False
    era = SCORED_PHASES
    for line in lines:
        if m := _APP_HEADER.match(line):
            version, mode, app = m["version"], m["mode"], True
            continue
        tag_m = _TAG.match(line)
        if not tag_m:
            continue
        tag = tag_m["tag"].strip().upper()
        invalid = bool(tag_m["invalid"])
        if tag in ("RESULT", "") and (m := _RESULT.match(tag_m["body"])):
            label = m["name"]
            name = _name(label)
            unit = _unit(m["unit"])
            kind = _kind(name, unit)
            details: dict[str, Any] = {"printed": m["value"]}
            if label != name:
                details["label"] = label
            if m["no"]:
                details["phase_number"] = int(m["no"])
            if invalid or _INVALID in m["rest"]:
                details["invalid"] = True
            phases.add(Io500Phase(
                name=name, kind=kind, value=_number(m["value"], f"{label} value"), unit=unit,
                time_s=_number(m["time"], f"{label} time"),
                scored=tag == "RESULT" and _scored(name, kind, era), details=details,
            ))
        elif tag == "SCORE" and (m := _SCORE.match(tag_m["body"])):
            total = m["total"]
            score = _score(m["bw"], m["md"], total, m["bw_unit"], m["md_unit"])
            if reported is not None and reported != score:
                raise ValueError(f"{_WHAT}: two different [SCORE] lines (several runs in one text?)")
            reported = score
            score_invalid = score_invalid or invalid or _INVALID in m["rest"]
    phase_list = phases.list()
    if not app and version is None and phase_list:
        version = "io500.sh"
    return Io500Record(version=version, source_format="result_summary", mode=mode,
                       phases=phase_list, score_reported=reported,
                       valid=_valid(app, score_invalid, phase_list))


def _valid(app: bool, score_invalid: bool, phases: list[Io500Phase]) -> bool | None:
    """False when the tool marked the score, or a scored phase, invalid; True for an io500
    app output without such a mark; None when the format never says (io500.sh)."""
    if score_invalid or any(p.scored and p.details.get("invalid") for p in phases):
        return False
    return True if app else None


# ---------------------------------------------------------------- result_ini

@dataclass
class _Section:
    name: str
    pairs: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)  # '; ERROR ...' comments


def _ini_sections(lines: list[str]) -> list[_Section]:
    sections: list[_Section] = []
    current: _Section | None = None
    for line in lines:
        if m := _SECTION.match(line):
            current = _Section(m["name"])
            sections.append(current)
        elif current is None:
            continue
        elif line.startswith(";"):
            if line[1:].strip().upper().startswith("ERROR"):
                current.errors.append(line[1:].strip())
        elif (m := _PAIR.match(line)) and m["value"]:
            current.pairs.setdefault(m["key"], m["value"])
    return [s for s in sections if _ini_phase(s) or _ini_score(s) or s.name == "run"]


def _ini_phase(section: _Section) -> bool:
    return (section.name not in ("run", "SCORE", "SCOREX", "global")
            and "score" in section.pairs)


def _ini_score(section: _Section) -> bool:
    return section.name == "SCORE" and {"BW", "MD"} <= section.pairs.keys()


def _ini(sections: list[_Section]) -> Io500Record:
    phases = _Phases()
    run: dict[str, str] = {}
    reported: Io500Score | None = None
    invalid = False
    for section in sections:
        if section.name == "run":
            run = section.pairs
        elif _ini_score(section):
            p = section.pairs
            total = p.get("SCORE", "")
            invalid = invalid or _INVALID in total
            total = total.replace(_INVALID, "").strip()
            if total:
                reported = _score(p["BW"], p["MD"], total, "GiB/s", "kIOPS")
        elif _ini_phase(section):
            phases.add(_ini_phase_record(section))
            invalid = invalid or any("INVALID" in e for e in section.errors)
    procs = _int(run["procs"], "procs") if "procs" in run else None
    phase_list = phases.list()
    return Io500Record(version=run.get("version"), source_format="result_ini",
                       mode=run.get("mode"), procs=procs, phases=phase_list,
                       score_reported=reported, valid=_valid(True, invalid, phase_list))


def _ini_phase_record(section: _Section) -> Io500Phase:
    name, p = section.name, section.pairs
    printed = p["score"].replace(_INVALID, "").strip()
    # the io500 app's units: GiB/s for the ior phases, kIOPS for the others
    unit = "GiB/s" if name.startswith("i") else "kIOPS"
    kind = _kind(name, unit)
    details: dict[str, Any] = {"printed": printed}
    for key, out in _INI_TEXTS.items():
        if key in p:
            details[out] = p[key]
    for key, out in _INI_FLOATS.items():
        if key in p:
            details[out] = _number(p[key], f"{name} {key}")
    for key, out in _INI_INTS.items():
        if key in p:
            details[out] = _int(p[key], f"{name} {key}")
    if section.errors:
        details["errors"] = list(section.errors)
        if any("INVALID" in e for e in section.errors):
            details["invalid"] = True
    return Io500Phase(
        name=name, kind=kind, value=_number(printed, f"{name} score"), unit=unit,
        time_s=_number(p["t_delta"], f"{name} t_delta") if "t_delta" in p else None,
        scored=_scored(name, kind, SCORED_PHASES), details=details,
    )
