"""What the `net_soak` step shows and answers: its per-pair stability table in the report,
and the criterion 'stable network under load'. Both read the step's stored records
(analysis/soak.py judged them during the run); nothing is recomputed.

A pair passes the criterion when its verdict is `stable` and no error or drop counter of
its two hosts grew during the soak; slow alone does not fail it (that is the network
matrix's 'no flagged link'), it is shown beside the verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

from stackprobe.kinds.checks import Check, Outcome
from stackprobe.schema.results import StepResult
from stackprobe.schema.soak_records import NicCountersRecord, SoakPairRecord
from stackprobe.tables.rows import Row, base, status_row
from stackprobe.tables.text_table import TextTable

FLAG = "⚠"


def _mbit(bps: float | None) -> str:
    if bps is None:
        return "-"
    return f"{bps / 1e9:.2f} Gbit/s" if bps >= 1e9 else f"{bps / 1e6:.0f} Mbit/s"


def _counters(rec: SoakPairRecord, hosts: dict[str, NicCountersRecord]) -> str:
    parts = []
    for name in (rec.client, rec.server):
        h = hosts.get(name)
        if h is None or h.error:
            parts.append(f"{name} ?")
        elif h.deltas:
            parts.append(f"{name} " + ", ".join(f"{k.split(' ', 1)[-1]} +{v}"
                                                for k, v in sorted(h.deltas.items())))
    return "; ".join(parts) or "0"


def verdict_text(rec: SoakPairRecord) -> str:
    """'stable', 'stable (sharing)', '⚠ stable (sharing, slow)', '⚠ unstable': the mark
    for anything but a stable pair with nothing or only its sharing to say."""
    extra = [f for f in rec.flags if f not in ("fluctuating", "stalled")]
    text = rec.verdict + (f" ({', '.join(extra)})" if extra else "")
    worry = rec.verdict != "stable" or any(f != "sharing" for f in extra)
    return f"{FLAG} {text}" if worry else text


def soak_table(step: StepResult) -> TextTable | None:
    pairs = [r for r in step.records if isinstance(r, SoakPairRecord)]
    if not pairs:
        return None
    hosts = {r.host: r for r in step.records if isinstance(r, NicCountersRecord)}
    info = (step.findings or {}).get("net_soak") or {}
    # a soak longer than its period: how many of each pair's periods (hours) held
    periods = any(len(r.periods) > 1 for r in pairs)
    t = TextTable(f"Network soak: per-pair stability ({step.id}, {len(pairs)} pairs at once, "
                  f"{info.get('chunks', '?')} chunk(s) of {info.get('chunk_s', 0):g} s)",
                  ["pair", "mean", "min", "CoV", "stability"]
                  + (["stable periods"] if periods else [])
                  + ["retransmits", "counters", "verdict"],
                  left=(0, 4, 6 + periods, 7 + periods), layer="network")
    for r in pairs:
        held = [f"{sum(p.verdict == 'stable' for p in r.periods)}/{len(r.periods)}"]
        t.rows.append([f"{r.client}→{r.server}", _mbit(r.mean_bps), _mbit(r.min_bps),
                       "-" if r.cov is None else f"{r.cov * 100:.1f}%", r.stability or "-",
                       *(held if periods else []),
                       "-" if r.retransmits is None else str(r.retransmits),
                       _counters(r, hosts), verdict_text(r)])
    t.notes += [n for r in pairs for n in r.notes]
    t.notes += [f"{h.host}: counters not known: {h.error}" for h in hosts.values() if h.error]
    return t


def soak_rows(step: StepResult) -> list[Row]:
    """The summary's row: the rate of all pairs together (the load the fabric carried) and
    how many pairs held it steadily."""
    pairs = [r for r in step.records if isinstance(r, SoakPairRecord)]
    means = [r.mean_bps for r in pairs if r.mean_bps is not None]
    if not means:
        return [status_row(step, "")]
    counts = {v: sum(1 for r in pairs if r.verdict == v) for v in ("stable", "unstable", "failed")}
    note = f"{len(pairs)} pairs at once: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    return [Row(test=step.title, direction="all pairs", bw_bytes=sum(means) / 8, headline="bw",
                status=step.status, note=note if not step.error else f"{note}; {step.error}",
                **base(step, "all pairs at once"))]


def soak_tables(steps: Sequence[StepResult]) -> list[TextTable]:
    return [t for t in (soak_table(s) for s in steps) if t is not None]


class StableUnderLoad(Check):
    phrase = "stable network under load"
    aliases = ("stable under load", "no unstable pair")
    looks_at = "pairs under load"
    describes = ("every pair of a network soak steady (CoV, dips, stalls) with no error or "
                 "drop counter grown on its hosts")

    def outcomes(self, results, steps, argument=""):
        out = []
        for step in steps:
            for r in step.records:
                if not isinstance(r, SoakPairRecord):
                    continue
                bad = r.verdict != "stable" or "counters" in r.flags
                text = f"{r.client}→{r.server} {_mbit(r.mean_bps)} {verdict_text(r)}"
                out.append(Outcome(not bad, text, (step.id,), detail="; ".join(r.notes)))
        return out
