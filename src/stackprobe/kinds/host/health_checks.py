"""Health findings as criteria: 'no health counter rose' and 'healthy hardware'.

'no health counter rose' reads the run-level watch (RunResults.health,
engine/health_watch.py): one outcome per host and per BMC, failed by a counter that rose, a
device that disappeared, a new kernel-log error line or a new SEL entry. A run without the
watch (`--no-health`) or whose snapshots could not both be taken measured nothing: NOT
MEASURED, never a pass.

'healthy hardware' judges what is wrong from a value alone (SMART overall health FAILED,
an NVMe critical warning, uncorrected memory errors): one outcome per host snapshotted by
a `health` step, or by the watch's last snapshot when no step took one.
"""

from __future__ import annotations

from stackprobe.analysis.health_delta import absolute_findings
from stackprobe.kinds.checks import Check, Outcome


class NoHealthCounterRose(Check):
    phrase = "no health counter rose"
    aliases = ("no new hardware error", "no hardware error during the run",
               "health counters steady")
    looks_at = "hosts"
    describes = ("no EDAC, SMART/NVMe, NIC/InfiniBand error counter rose between the run's "
                 "first and last snapshot, no new kernel-log error, no new SEL entry")

    def all_well(self, outcomes):
        return f"{len(outcomes)} hosts and BMCs watched, no counter rose, no new error line"

    def outcomes(self, results, steps, argument=""):
        watch = results.health
        if watch is None or not watch.complete or not steps:
            return []
        out = []
        both = {r.host for r in watch.before} & {r.host for r in watch.after}
        for host in [h for h in watch.hosts if h in both] + [b for b in watch.bmcs
                                                            if b in watch.sel_new]:
            bad = [f for f in watch.findings if f.host == host and f.bad]
            sources = tuple(sorted({f.step for f in bad if f.step}))
            text = "; ".join(f.sentence for f in bad) if bad else f"{host}: nothing rose"
            out.append(Outcome(not bad, text, sources))
        return out


class HealthyHardware(Check):
    phrase = "healthy hardware"
    aliases = ("hardware ok", "no hardware fault")
    looks_at = "hosts"
    describes = ("no disk whose SMART overall health FAILED, no NVMe critical warning, no "
                 "uncorrected memory error (health step, or the run's last snapshot)")

    def all_well(self, outcomes):
        return f"{len(outcomes)} hosts, none with a failed disk or an uncorrected error"

    def outcomes(self, results, steps, argument=""):
        out = [_healthy(rec, (step.id,)) for step in steps for rec in step.records
               if getattr(rec, "type", None) == "health"]
        watch = results.health
        if not out and watch is not None and steps:
            out = [_healthy(rec) for rec in watch.after or watch.before]
        return out


def _healthy(rec, sources: tuple[str, ...] = ()) -> Outcome:
    """One host's snapshot: failed by what is wrong from a value alone."""
    bad = absolute_findings(rec)
    return Outcome(not bad, "; ".join(bad) or f"{rec.host}: healthy", sources)


CHECKS = (NoHealthCounterRose(), HealthyHardware())
