"""The IO500 score recomputed from the phases with the official formula, and checked
against the score the result file reports.

The formula (IO500 lists since 2018: io500.sh, then the io500 app):

- bandwidth score = geometric mean of the four ior phases (ior-easy-write,
  ior-hard-write, ior-easy-read, ior-hard-read), in GiB/s;
- metadata score = geometric mean of the eight metadata phases (mdtest-easy-write,
  mdtest-hard-write, find, mdtest-easy-stat, mdtest-hard-stat, mdtest-easy-delete,
  mdtest-hard-read, mdtest-hard-delete), in kIOPS;
- total = sqrt(bandwidth score x metadata score).

Phases run but not scored (timestamp, ior-rnd4K-easy-read, the extended mode's extras)
take no part. The SC17 prototype scored differently: seven metadata phases (no
mdtest-hard-read), bandwidth in MB/s and metadata in IOPS, and a total that is the
product bandwidth x metadata, not its square root (`PROTOTYPE`).

The score is computed in the units the phases carry, so that a file is compared with its
own [SCORE] line: a 2018 io500.sh file (GB/s) is recomputed in GB/s, the prototype in
MB/s and IOPS. Only when the bandwidth phases (or the metadata ones) carry different
units are they converted, to GiB/s (kIOPS). "GB/s" is then taken as the SI unit it names,
although io500.sh's 2018 "GB/s" figures were IOR's MiB/s / 1024 (parsers/io500_result.py);
within one file the units never differ.

`IO500_LIKE_LABEL` is what stackprobe's io500-like suite calls its score: the same phases
and formula on fio and find, which is not an official IO500 score.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from stackprobe.parsers.hpc.io500_result import BW_PHASES, MD_PHASES, PROTOTYPE_MD_PHASES
from stackprobe.schema.records import Io500Phase, Io500Record, Io500Score

IO500_LIKE_LABEL = "io500-like, not an official IO500 score"

# Units as multiples of bytes/s and ops/s, for phases whose units differ.
_BW_FACTORS = {"GiB/s": 2.0**30, "GB/s": 1e9, "MiB/s": 2.0**20, "MB/s": 1e6,
               "TiB/s": 2.0**40, "TB/s": 1e12}
_MD_FACTORS = {"kIOPS": 1e3, "IOPS": 1.0}


def in_base_units(value: float, unit: str) -> float | None:
    """A phase figure in bytes/s or ops/s ('2.5 GiB/s' -> 2684354560.0); None: unknown unit."""
    factor = _BW_FACTORS.get(unit) or _MD_FACTORS.get(unit)
    return value * factor if factor else None


_FLOAT_SLACK = 1e-9  # relative: floating-point arithmetic, for figures counted as exact


@dataclass(frozen=True)
class Rules:
    """Which phases a score takes and how bandwidth and metadata make the total."""

    name: str
    bw_phases: tuple[str, ...]
    md_phases: tuple[str, ...]
    product: bool  # total = bw x md (the prototype); else sqrt(bw x md)

    def total(self, bw: float, md: float) -> float:
        return bw * md if self.product else math.sqrt(bw * md)

    def formula(self, bw_unit: str, md_unit: str) -> str:
        inner = f"geomean(bw {bw_unit}) × geomean(md {md_unit})"
        return inner if self.product else f"sqrt({inner})"

    def kind_of(self, name: str) -> str | None:
        if name in self.bw_phases:
            return "bw"
        return "md" if name in self.md_phases else None


CURRENT = Rules("IO500", BW_PHASES, MD_PHASES, product=False)
PROTOTYPE = Rules("IO-500 prototype (SC17)", BW_PHASES, PROTOTYPE_MD_PHASES, product=True)


def rules_for(record: Io500Record) -> Rules:
    """The prototype's rules for a prototype file, today's for every other record."""
    return PROTOTYPE if record.source_format == "prototype" else CURRENT


@dataclass
class _Group:
    """The scored phases of one kind: values and printed-rounding bounds, in `unit`."""

    unit: str
    values: list[float]
    errors: list[float]

    def mean(self) -> float:
        return _geomean(self.values)

    def bounds(self) -> tuple[float, float]:
        """The geometric mean is increasing in every input: the range rounding allows is
        the mean of the lower bounds to the mean of the upper bounds."""
        low = [max(v - e, 0.0) for v, e in zip(self.values, self.errors)]
        high = [v + e for v, e in zip(self.values, self.errors)]
        return _geomean(low), _geomean(high)


def score(phases: list[Io500Phase], rules: Rules = CURRENT) -> Io500Score | None:
    """The IO500 score of `phases` (the scored ones) with `rules`, in their units.

    None when a phase of the score is missing or is not above zero. The IO500 rules make
    such a run invalid (every phase must run; the io500 app marks a phase whose result is
    0 [INVALID]), and the app's own geometric mean then leaves the phase out, which would
    raise the score: no figure is better than one the rules do not accept. `missing()`
    says which phases are to blame. A scored phase the rules do not know, or one scored
    twice, raises ValueError: the formula is not defined for it.
    """
    groups = _groups(phases, rules)
    if groups is None:
        return None
    bw, md = groups
    bw_score, md_score = bw.mean(), md.mean()
    return Io500Score(bw=bw_score, md=md_score, total=rules.total(bw_score, md_score),
                      bw_unit=bw.unit, md_unit=md.unit)


def missing(phases: list[Io500Phase], rules: Rules = CURRENT) -> list[str]:
    """The phases of the score that are not among the scored `phases`, or not above 0."""
    scored = _scored(phases, rules)
    return [name for name in rules.bw_phases + rules.md_phases
            if name not in scored or not scored[name].value > 0]


def recompute(record: Io500Record) -> Io500Record:
    """A copy of `record` with the score recomputed from its phases (`score_computed`),
    the formula used, and one line in `mismatches` per figure (bw, md, total) that the
    reported score gives differently from what rounding allows.

    Tolerance: each figure in a result file is printed with a fixed number of digits (the
    io500 app 6 decimals; io500.sh 3 decimals for phases and 6 significant digits for its
    scores; the prototype 2 or 3 decimals, integers for find, 6 significant digits for the
    scores). A printed figure is taken to be within one unit of its last printed digit of
    the value the tool computed with: printf rounding is off by at most half a unit, bc's
    truncation (the find rate of io500.sh and of the prototype) by less than one. The
    geometric mean, the product and the square root all grow with each input, so the
    range rounding allows for a recomputed figure is the formula applied to every
    phase's lower bound and to every upper bound. A reported figure matches when it is
    within one unit of its own last digit of that range. For the total, the bandwidth and
    metadata ranges are first widened by one unit of the reported bw's and md's last
    digit: a tool may have combined the scores it printed rather than unrounded ones (the
    prototype's bc multiplied its two printed scores). Figures without printed text
    (computed by stackprobe, not read from a file) count as exact, up to a relative 1e-9.

    A record without a reported score gets no mismatches; one whose phases make no score
    (`score()` is None) while the file reports one gets a line saying which phases lack.
    """
    rules = rules_for(record)
    computed = score(record.phases, rules)
    mismatches: list[str] = []
    reported = record.score_reported
    if reported is not None:
        if computed is None:
            lacking = ", ".join(missing(record.phases, rules))
            mismatches.append(
                f"total: the file reports {_printed(reported, 'total')} but no score can be "
                f"recomputed ({lacking}: missing or not above 0)"
            )
        else:
            mismatches = _compare(record.phases, rules, reported, computed)
    if computed is not None:
        formula = rules.formula(computed.bw_unit, computed.md_unit)
    else:
        formula = rules.formula(_unit_of(record.phases, "bw", rules), _unit_of(record.phases, "md", rules))
    return record.model_copy(deep=True, update={
        "score_computed": computed, "formula": formula, "mismatches": mismatches,
    })


# ---------------------------------------------------------------- parts

def _geomean(values: list[float]) -> float:
    if any(v <= 0 for v in values):
        return 0.0
    return math.exp(math.fsum(math.log(v) for v in values) / len(values))


def _scored(phases: Iterable[Io500Phase], rules: Rules) -> dict[str, Io500Phase]:
    out: dict[str, Io500Phase] = {}
    for phase in phases:
        if not phase.scored:
            continue
        kind = rules.kind_of(phase.name)
        if kind is None:
            raise ValueError(f"IO500 score: {phase.name} is not a phase of the {rules.name} score")
        if phase.kind != kind:
            raise ValueError(f"IO500 score: {phase.name} is a {kind} phase, not {phase.kind}")
        if phase.name in out:
            raise ValueError(f"IO500 score: {phase.name} is scored twice")
        out[phase.name] = phase
    return out


def _groups(phases: list[Io500Phase], rules: Rules) -> tuple[_Group, _Group] | None:
    scored = _scored(phases, rules)
    if missing(phases, rules):
        return None
    return (_group([scored[n] for n in rules.bw_phases], _BW_FACTORS, "GiB/s"),
            _group([scored[n] for n in rules.md_phases], _MD_FACTORS, "kIOPS"))


def _group(phases: list[Io500Phase], factors: dict[str, float], common: str) -> _Group:
    """The phases in their shared unit, or all converted to `common` when units differ."""
    units = {p.unit for p in phases}
    unit = units.pop() if len(units) == 1 else common
    values, errors = [], []
    for p in phases:
        scale = 1.0 if p.unit == unit else _factor(p.unit, unit, factors)
        values.append(p.value * scale)
        errors.append(_ulp(p.details.get("printed")) * scale)
    return _Group(unit, values, errors)


def _factor(unit: str, to: str, factors: dict[str, float]) -> float:
    if unit not in factors or to not in factors:
        raise ValueError(f"IO500 score: cannot convert {unit} to {to}")
    return factors[unit] / factors[to]


def _unit_of(phases: list[Io500Phase], kind: str, rules: Rules) -> str:
    units = {p.unit for p in phases if p.scored and p.kind == kind}
    if len(units) == 1:
        return units.pop()
    if rules.product:
        return "MB/s" if kind == "bw" else "IOPS"
    return "GiB/s" if kind == "bw" else "kIOPS"


def _ulp(printed: object) -> float:
    """One unit in the last digit of a printed figure ("4.430" -> 0.001); 0 without one."""
    if not isinstance(printed, str):
        return 0.0
    try:
        number = Decimal(printed.strip())
    except InvalidOperation:
        return 0.0
    if not number.is_finite():
        return 0.0
    return float(Decimal(1).scaleb(number.as_tuple().exponent))


def _printed(reported: Io500Score, figure: str) -> str:
    text = (reported.printed or {}).get(figure)
    return text if text is not None else f"{getattr(reported, figure):.7g}"


def _compare(phases: list[Io500Phase], rules: Rules, reported: Io500Score,
             computed: Io500Score) -> list[str]:
    groups = _groups(phases, rules)
    assert groups is not None  # computed is not None
    bw_group, md_group = groups
    out: list[str] = []
    ranges: dict[str, tuple[float, float]] = {}
    for figure, group, factors in (("bw", bw_group, _BW_FACTORS), ("md", md_group, _MD_FACTORS)):
        rep_unit = getattr(reported, f"{figure}_unit")
        try:
            scale = 1.0 if rep_unit == group.unit else _factor(rep_unit, group.unit, factors)
        except ValueError:
            out.append(f"{figure}: the file reports {rep_unit}, the phases {group.unit}: "
                       "not comparable")
            return out
        value = getattr(reported, figure) * scale
        ulp = _ulp(_printed(reported, figure)) * scale if reported.printed else 0.0
        low, high = group.bounds()
        line = _check(figure, _printed(reported, figure), rep_unit, value, ulp,
                      getattr(computed, figure), low, high, group.unit)
        if line:
            out.append(line)
        ranges[figure] = (max(low - ulp, 0.0), high + ulp)
    ulp = _ulp(_printed(reported, "total")) if reported.printed else 0.0
    (bw_low, bw_high), (md_low, md_high) = ranges["bw"], ranges["md"]
    line = _check("total", _printed(reported, "total"), "", reported.total, ulp, computed.total,
                  rules.total(bw_low, md_low), rules.total(bw_high, md_high), "")
    if line:
        out.append(line)
    return out


def _check(figure: str, printed: str, rep_unit: str, value: float, ulp: float,
           computed: float, low: float, high: float, unit: str) -> str | None:
    """A mismatch line when `value` (± its ulp) misses the range [low, high]."""
    slack = _FLOAT_SLACK * max(abs(value), abs(high))
    if value + ulp + slack >= low and value - ulp - slack <= high:
        return None
    name = {"bw": "bandwidth score (bw)", "md": "metadata score (md)",
            "total": "total score"}[figure]
    reported = f"{printed} {rep_unit}".strip()
    given = f"{computed:.7g} {unit}".strip()
    return (f"{name}: the file reports {reported}, the phases give {given} "
            f"(rounding allows {low:.7g} to {high:.7g})")
