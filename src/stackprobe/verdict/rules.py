"""Acceptance rules as a suite writes them, read into what the verdict compares.

    criteria:                                   # the whole run
      - fio:rw=randread,bs=4k,iodepth=128:iops >= 150k
      - node spread (memory bandwidth) <= 10%
      - no flagged link
    steps:
      - kind: fio
        criteria: [iops >= 150k, p99 <= 5 ms]   # this step's own figures

A rule is a comparison — SUBJECT OP THRESHOLD, OP one of >= > <= < — or the name of a
finding ('no flagged link', 'every host reported'). The subject is a figure (named by its
figure key, report/figure_keys.py; in a step's own criteria the key's workload may be left
out: 'iops', 'read.p99', 'p99 latency') or a finding that has a value ('node spread
(memory bandwidth)', 'efficiency vs ceiling'). Names, units and impossible thresholds are
refused when the suite is loaded (verdict/bind.py adds the file and line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackprobe.kinds.checks import Check
from stackprobe.report.figure_keys import FIGURES, UNITS, FigureKey, KeyError_, parse_key
from stackprobe.verdict.quantity import FIGURE_DIMENSIONS, Quantity, QuantityError, parse_quantity

OPS = {">=": lambda a, b: a >= b, ">": lambda a, b: a > b,
       "<=": lambda a, b: a <= b, "<": lambda a, b: a < b}
_COMPARISON = re.compile(r"^(?P<subject>.+?)\s*(?P<op>>=|<=|>|<|==|=)\s*(?P<threshold>[^<>=]+)$")
_WITH_ARGUMENT = re.compile(r"^(?P<phrase>[^()]+?)\s*\((?P<argument>[^()]*)\)$")
# what people call the figures, to the key's figure names
_FIGURE_WORDS = {"iops": "iops", "ops/s": "iops", "bw": "bw", "bandwidth": "bw",
                 "throughput": "bw", "lat": "lat", "latency": "lat", "mean latency": "lat",
                 "p99": "p99", "p99 latency": "p99"}
_DIRECTIONS = ("read", "write", "trim", "create", "stat", "delete")


class RuleError(ValueError):
    """A rule that cannot be judged; the message says what to write instead."""


@dataclass(frozen=True)
class Rule:
    text: str
    op: str | None = None  # None: a yes/no finding
    threshold: Quantity | None = None
    figure: FigureKey | None = None  # a figure rule; kind '' when the step's own figure
    check: Check | None = None  # a finding rule
    argument: str = ""  # the finding's argument ('memory bandwidth')

    def holds(self, value: float) -> bool:
        assert self.op is not None and self.threshold is not None
        return OPS[self.op](value, self.threshold.value)

    @property
    def unit(self) -> str | None:
        if self.figure is not None:
            return UNITS[self.figure.figure]
        return self.check.unit if self.check is not None else None


def parse_rule(text: str, checks, *, in_step: bool) -> Rule:
    """`text` as a Rule; `checks` is the registry of named findings; `in_step`: written
    under a step (its own figures may be named without a key)."""
    if not isinstance(text, str) or not text.strip():
        raise RuleError("a rule is a line of text, e.g. 'iops >= 150k' or 'no flagged link'")
    written = " ".join(text.split())
    m = _COMPARISON.match(written)
    if m is None:
        check = checks.find(written)
        if check is None:
            raise RuleError(f"'{written}': unknown rule; name a figure and a threshold "
                            f"('iops >= 150k') or a finding: {', '.join(checks.phrases())}")
        if check.unit is not None:
            raise RuleError(f"'{written}' needs a threshold, e.g. '{check.phrase} <= 10{check.unit}'")
        return Rule(written, check=check)
    subject, op, threshold = m["subject"].strip(), m["op"], m["threshold"].strip()
    if op in ("=", "=="):
        raise RuleError(f"'{written}': measured figures are never exactly equal; use >=, >, <= or <")
    check, argument = _finding(subject, checks)
    if check is not None:
        if check.unit is None:
            raise RuleError(f"'{written}': '{check.phrase}' is yes or no; write it alone")
        quantity = _quantity(written, threshold, "percent")
        _possible(written, op, quantity, upper=None)
        return Rule(written, op, quantity, check=check, argument=argument)
    figure = _figure(written, subject, in_step)
    quantity = _quantity(written, threshold, FIGURE_DIMENSIONS[figure.figure])
    _possible(written, op, quantity, upper=None)
    return Rule(written, op, quantity, figure=figure)


def _finding(subject: str, checks) -> tuple[Check | None, str]:
    m = _WITH_ARGUMENT.match(subject)
    if m is not None:
        check = checks.find(m["phrase"])
        if check is not None:
            if not check.argument:
                raise RuleError(f"'{subject}': '{check.phrase}' takes no argument")
            return check, m["argument"].strip()
    return checks.find(subject), ""


def _figure(written: str, subject: str, in_step: bool) -> FigureKey:
    if ":" in subject:
        try:
            return parse_key(subject)
        except KeyError_ as exc:
            raise RuleError(str(exc)) from None
    words = subject.lower().replace(".", " ").split()
    direction = words[0] if words and words[0] in _DIRECTIONS else ""
    name = _FIGURE_WORDS.get(" ".join(words[1:] if direction else words))
    if name is None:
        raise RuleError(f"'{written}': unknown figure '{subject}' (a figure key, "
                        f"or in a step: {', '.join(FIGURES)}, with read./write. before it)")
    if not in_step:
        raise RuleError(f"'{written}': name the figure by its key at suite level "
                        "(e.g. fio:rw=randread,bs=4k:iops), or put the rule under its step")
    return FigureKey(kind="", params=(), direction=direction, figure=name)


def _quantity(written: str, threshold: str, dimension: str) -> Quantity:
    try:
        return parse_quantity(threshold, dimension)
    except QuantityError as exc:
        raise RuleError(f"'{written}': {exc}") from None


def _possible(written: str, op: str, q: Quantity, upper: float | None) -> None:
    """Refuse what no measurement can satisfy, or what every one does (a typo)."""
    if q.value < 0:
        raise RuleError(f"'{written}': a figure is never negative")
    if op == "<" and q.value == 0 or op == "<=" and q.value == 0 and q.dimension != "percent":
        raise RuleError(f"'{written}': no measurement is below zero; this can never hold")
    if op == ">=" and q.value == 0:
        raise RuleError(f"'{written}': every measurement is >= 0; this rule cannot fail")
