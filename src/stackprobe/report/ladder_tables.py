"""The ladder in the reports: each upper-rung result beside the ceiling its lower rungs allow.

The figures, the bottleneck and the sentences all come from analysis/ceilings.py
(`ladder`); this module only lays them out: a table for the terminal, Markdown and HTML,
and plain dicts for the JSON report. A run with no upper-rung result has neither.
"""

from __future__ import annotations

from typing import Any

from stackprobe.analysis.ceilings import Rung, Term, ladder
from stackprobe.kinds import registry
from stackprobe.schema.results import RunResults
from stackprobe.tables.text_table import TextTable

TITLE = "The ladder: measured against what the lower rungs allow"
CELL_MAX = 72  # characters of the "Ceiling from" cell
HEADERS = ["Rung", "Measured", "Ceiling", "Efficiency", "Bottleneck", "Ceiling from"]


def run_ladder(results: RunResults) -> list[Rung]:
    """The run's ladder, each step's kind saying whether (and how) it loads the cluster."""
    return ladder(results, lambda step: registry.kind(step.kind).cluster_io(step))


def ladder_table(results: RunResults) -> TextTable | None:
    rungs = run_ladder(results)
    if not rungs:
        return None
    table = TextTable(TITLE, list(HEADERS), left=(0, 4, 5), wide_only=(5,))
    for rung in rungs:
        table.rows.append(ladder_row(rung))
    table.notes += [rung.verdict for rung in rungs]
    table.notes += missing_sentences(rungs)
    table.notes += shared_notes(rungs)
    table.notes += [w for rung in rungs for w in rung.warnings]
    return table


def shared_notes(rungs: list[Rung]) -> list[str]:
    """Each note once: a note many rungs share ('the cluster runs on this host …') is said
    once for all of them, the others are prefixed with their rung."""
    by_note: dict[str, list[str]] = {}
    for rung in rungs:
        for note in rung.notes:
            by_note.setdefault(note, []).append(rung.name)
    return [f"{names[0]}: {note}" if len(names) == 1 else f"{note} ({len(names)} results)"
            for note, names in by_note.items()]


def ladder_row(rung: Rung) -> list[str]:
    """Short cells, so a row fits a terminal: the bottleneck without its list of suspects,
    the limiting term without the explanation after its dash and cut at CELL_MAX (the
    rung's sentence under the table has them whole)."""
    t, ceiling, eff = rung.limiting, rung.ceiling, rung.efficiency
    return [rung.name, rung.fmt(rung.measured),
            rung.fmt(ceiling) if ceiling is not None else "-",
            f"{eff:.0%}" if eff is not None else "-",
            bottleneck_text(rung) or "-",
            _cut(f"{t.layer}: {t.text.split(' — ')[0]}") if t else "-"]


def _cut(text: str) -> str:
    return text if len(text) <= CELL_MAX else text[:CELL_MAX - 1].rstrip(" ,;:") + "…"


def bottleneck_text(rung: Rung) -> str | None:
    """The layer named as the bottleneck, short, with the one component that sets the
    pace when the model names one: 'OSD layer (osd.2)'."""
    t, layer = rung.limiting, rung.bottleneck
    if layer is None:
        return None
    if t is not None and t.culprit and layer == t.layer:
        return f"{layer} ({t.culprit})"
    return short_layer(layer)


def short_layer(layer: str) -> str:
    """'network path h1→h2 (switch, cabling, shaping)' -> 'network path h1→h2'."""
    head, sep, _ = layer.partition(" (")
    return head if sep and layer.endswith(")") else layer


def missing_sentences(rungs: list[Rung]) -> list[str]:
    """What each rung with a ceiling lacks for a tighter one (a rung without a ceiling
    says what it misses in its own sentence)."""
    return [f"{r.name}: missing {'; '.join(r.missing)}" for r in rungs
            if r.missing and r.limiting is not None]


# -- the JSON report ------------------------------------------------------------------

def ladder_dicts(results: RunResults) -> list[dict[str, Any]]:
    """The report JSON's "ladder": one dict per rung (docs/results-schema.md)."""
    return [rung_dict(rung) for rung in run_ladder(results)]


def rung_dict(rung: Rung) -> dict[str, Any]:
    t = rung.limiting
    return {
        "name": rung.name, "step": rung.step, "layer": rung.layer, "metric": rung.metric,
        "measured": rung.measured, "ceiling": rung.ceiling, "efficiency": rung.efficiency,
        "bottleneck": rung.bottleneck, "verdict": rung.verdict,
        "limiting": term_dict(t) if t else None,
        "terms": [term_dict(x) for x in rung.terms],
        "missing": list(rung.missing), "notes": list(rung.notes), "warnings": rung.warnings,
    }


def term_dict(t: Term) -> dict[str, Any]:
    return {"layer": t.layer, "value": t.value, "text": t.text, "inputs": list(t.inputs),
            "culprit": t.culprit}
