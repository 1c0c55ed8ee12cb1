"""A run as OpenMetrics text: for node exporter's textfile collector or a Pushgateway.

Why this shape: Prometheus wants one metric family per quantity, named with its base
unit (`_seconds`, `_bytes_per_second`), and the rest said by labels — so a figure's key,
step and host are labels, and latency is one family in seconds with `stat="mean"|"p99"`
rather than a family per statistic. Every family is a gauge: each sample is a value
measured once, not a count that grows. Samples carry no timestamp (the textfile collector
refuses them; a run's start is its own gauge). The output also reads as Prometheus'
older text format (the `# UNIT` and `# EOF` lines are comments there), which is what the
textfile collector and the Pushgateway parse. See docs/export.md.
"""

from __future__ import annotations

from collections.abc import Iterable

from stackprobe.report.export_labels import exported, iso_to_ns
from stackprobe.schema.results import RunResults
from stackprobe.units import unit_to_ns

PREFIX = "stackprobe"
_NS_PER_S = unit_to_ns("s")


class _Family:
    """One metric family: its metadata lines, then its samples."""

    def __init__(self, name: str, help_text: str, unit: str = ""):
        self.name, self.help, self.unit = name, help_text, unit
        self.samples: list[tuple[dict[str, str], float]] = []
        self._seen: set[tuple[tuple[str, str], ...]] = set()

    def add(self, labels: dict[str, str], value: float) -> None:
        ident = tuple(labels.items())
        if ident in self._seen:  # one series once: a family may not repeat a label set
            return
        self._seen.add(ident)
        self.samples.append((labels, value))

    def lines(self) -> Iterable[str]:
        if not self.samples:
            return
        yield f"# TYPE {self.name} gauge"
        if self.unit:
            yield f"# UNIT {self.name} {self.unit}"
        yield f"# HELP {self.name} {_escape_help(self.help)}"
        for labels, value in self.samples:
            yield f"{self.name}{_label_set(labels)} {_number(value)}"


def to_openmetrics(results: RunResults) -> str:
    """Every figure of the run as a gauge sample, the verdict when it has one, `# EOF`."""
    iops = _Family(f"{PREFIX}_iops", "I/O operations per second a step measured.")
    bw = _Family(f"{PREFIX}_bandwidth_bytes_per_second",
                 "Bandwidth a step measured, in bytes per second.", "bytes_per_second")
    lat = _Family(f"{PREFIX}_latency_seconds",
                  "Latency a step measured: stat=mean the mean total latency, "
                  "stat=p99 the 99th percentile.", "seconds")
    for item in exported(results):
        figure = item.labels["figure"]
        if figure == "iops":
            iops.add(item.labels, item.value)
        elif figure == "bw":
            bw.add(item.labels, item.value)
        else:  # lat, p99: ns in results.json, seconds in Prometheus
            stat = "mean" if figure == "lat" else figure
            lat.add({**item.labels, "stat": stat}, item.value / _NS_PER_S)
    families = [iops, bw, lat, *_verdict_families(results), _start_family(results)]
    lines = [line for family in families for line in family.lines()]
    return "\n".join([*lines, "# EOF"]) + "\n"


def _verdict_families(results: RunResults) -> list[_Family]:
    verdict = results.verdict
    run = {"suite": results.run.suite, "run": results.run.id}
    check = _Family(f"{PREFIX}_check",
                    "A check of the run's verdict: 1 when it passed, 0 otherwise "
                    "(status says fail, not measured or warn).")
    code = _Family(f"{PREFIX}_verdict_exit_code",
                   "The exit code the run's verdict gives (0 pass, 1 step failed, "
                   "3 criteria failed, 4 regression, 130 interrupted).")
    if verdict is not None:
        for item in verdict.items:
            labels = {**run, "kind": item.kind, "rule": item.rule, "origin": item.origin,
                      "status": item.status}
            check.add(labels, 1.0 if item.status == "pass" else 0.0)
        code.add({**run, "status": verdict.status}, float(verdict.exit_code))
    return [check, code]


def _start_family(results: RunResults) -> _Family:
    start = _Family(f"{PREFIX}_run_start_timestamp_seconds",
                    "When the run started, in seconds since the epoch.", "seconds")
    ns = iso_to_ns(results.run.started)
    if ns is not None:
        start.add({"suite": results.run.suite, "run": results.run.id, "host": results.run.host},
                  ns / _NS_PER_S)
    return start


def _label_set(labels: dict[str, str]) -> str:
    return "{" + ",".join(f'{k}="{_escape_label(v)}"' for k, v in labels.items()) + "}"


def _escape_label(value: str) -> str:
    """OpenMetrics label values: backslash, double quote and line feed are escaped."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _number(value: float) -> str:
    """A float as both formats read it: integral values without the '.0' noise."""
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)

