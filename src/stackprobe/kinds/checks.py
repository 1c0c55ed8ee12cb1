"""Findings as acceptance criteria: the checks a suite's `criteria:` may name.

A criterion is either a comparison on a measured figure (verdict/rules.py) or one of these:
a yes/no question the analysis already answers ('no flagged link', 'every host reported')
or a figure the analysis derives ('node spread (memory bandwidth) <= 10%'). Each check
reads what the run stored (a step's findings, stability, records, status) and returns one
Outcome per thing it looked at; no outcome at all means the run did not measure it (NOT
MEASURED, never a pass).

The checks every kind shares live here; a kind adds its own in its module (`Kind.checks`,
e.g. the network kind's 'no flagged link'), and the registry gathers them all, so a rung
added later (MPI pairs, IPMI, health counters) becomes a criterion the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from stackprobe.analysis.consistency_text import subject
from stackprobe.schema.results import RunResults, StepResult


@dataclass(frozen=True)
class Outcome:
    """What a check found in one place: held or not, and the value behind it."""

    ok: bool  # for a thresholded check, the caller compares `value` instead
    measured: str  # 'h1→h2 0.19 Gbit/s (slow, asymmetric)', 'spread 80% (h3 0.22×)'
    sources: tuple[str, ...] = ()  # step ids
    value: float | None = None  # for thresholded checks, in the check's unit
    detail: str = ""


class Check:
    """One named finding. `phrase` is how a rule names it; `unit` is None for a yes/no
    check, else the unit its threshold is in ('%'); `argument` says whether it takes one
    in parentheses (the metric of 'node spread (memory bandwidth)')."""

    phrase: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    unit: ClassVar[str | None] = None
    argument: ClassVar[bool] = False
    describes: ClassVar[str] = ""
    looks_at: ClassVar[str] = "places"  # what one outcome is about: 'links', 'steps', 'nodes'

    def all_well(self, outcomes: Sequence[Outcome]) -> str:
        """The measured text when nothing was found wrong: '6 links, none flagged'."""
        return f"{len(outcomes)} {self.looks_at}, none flagged"

    def outcomes(self, results: RunResults, steps: Sequence[StepResult],
                 argument: str = "") -> list[Outcome]:
        raise NotImplementedError


class NoFailedStep(Check):
    phrase = "no failed step"
    describes = "every step ended ok"

    def all_well(self, outcomes):
        return f"{len(outcomes)} steps, all ok"

    def outcomes(self, results, steps, argument=""):
        return [Outcome(s.status == "ok" or nothing_to_measure(s), f"{s.id}: {s.status}" + (
            f" ({s.error})" if s.error and s.status != "ok" else ""), (s.id,)) for s in steps]


def nothing_to_measure(step) -> bool:
    """A step its kind skipped because what it measures is not there (no RDMA device, no
    OSD on these machines): not a failure. A step the run did not reach (after a failure
    with --fail-fast, Ceph gone HEALTH_ERR, Ctrl-C) has no reason of its own or one that
    starts 'not run:', and is one."""
    return step.status == "skipped" and bool(step.error) and not step.error.startswith("not run")


class EveryHostReported(Check):
    phrase = "every host reported"
    describes = "every host a step ran on has figures in it"

    def all_well(self, outcomes):
        return f"{len(outcomes)} steps on hosts, every host reported"

    def outcomes(self, results, steps, argument=""):
        out = []
        for step in steps:
            if not step.hosts or step.status == "skipped":  # not run: nothing to report
                continue
            reported = {getattr(r, "host", None) or getattr(r, "client", None) for r in step.records}
            reported |= set((step.findings.get("fleet") or {}).get("clients") or [])
            reported |= set(step.findings.get("reported_hosts") or [])  # one figure for them
            missing = [h for h in step.hosts if h not in reported]
            text = (f"{step.id}: {len(step.hosts) - len(missing)} of {len(step.hosts)} hosts"
                    + (f"; missing {', '.join(missing)}" if missing else ""))
            out.append(Outcome(not missing, text, (step.id,)))
        return out


def _consistency(steps: Sequence[StepResult]):
    for step in steps:
        for metric in step.findings.get("consistency") or []:
            yield step, metric


class NoFlaggedNode(Check):
    phrase = "no flagged node"
    aliases = ("no outlier node", "no slow node")
    describes = ("no node far from its peers' median (robust z-score), no pair of nodes "
                 "that differ")
    looks_at = "per-node figures"

    def outcomes(self, results, steps, argument=""):
        out = []
        for step, metric in _consistency(steps):
            bad = [f for f in metric.get("figures", []) if f.get("flagged")]
            pair = metric.get("pair")
            if bad and pair:  # neither of two is known to be the right one
                text = f"{pair['high']} : {pair['low']} = {pair['ratio_text']}, they differ"
            else:
                text = ", ".join(f"{f['node']} {f['ratio']:.2f}× the median" for f in bad)
            out.append(Outcome(not bad, f"{subject(metric)}: " + (text or "none flagged"),
                               (step.id,)))
        return out


class NodeSpread(Check):
    phrase = "node spread"
    unit = "%"
    argument = True
    describes = "(max - min) / median of a per-node figure, in %"

    def outcomes(self, results, steps, argument=""):
        want = argument.strip().lower()
        out = []
        for step, metric in _consistency(steps):
            name = str(metric.get("metric", ""))
            if want and want not in name.lower():
                continue
            spread = metric.get("spread_pct")
            if spread is None:
                continue
            out.append(Outcome(True, f"{subject(metric)}: spread {spread:.1f}% over "
                               f"{len(metric.get('figures', []))} nodes", (step.id,),
                               value=float(spread)))
        return out


class NoStall(Check):
    phrase = "stability: no stall"
    aliases = ("no stall",)
    describes = "no second without progress in the tools' per-second series"
    looks_at = "per-second series"

    def outcomes(self, results, steps, argument=""):
        out = []
        for step in steps:
            for part in (step.stability or {}).get("parts", []):
                stalls = part.get("stall_seconds") or 0
                text = f"{step.id} {part.get('label', '')}: " + (
                    f"{stalls} s stalled, first at {part.get('first_stall_s')} s" if stalls
                    else "no stall")
                out.append(Outcome(not stalls, text, (step.id,)))
        return out


@dataclass(frozen=True)
class CheckRegistry:
    checks: tuple[Check, ...] = field(default_factory=tuple)

    def find(self, phrase: str) -> Check | None:
        text = " ".join(phrase.lower().split())
        for check in self.checks:
            if text in (check.phrase, *check.aliases):
                return check
        return None

    def phrases(self) -> list[str]:
        return [c.phrase for c in self.checks]


COMMON: tuple[Check, ...] = (NoFailedStep(), EveryHostReported(), NoFlaggedNode(),
                             NodeSpread(), NoStall())
