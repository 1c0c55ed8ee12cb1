"""The verdict's checklist in every output: terminal, Markdown, CSV, JSON (and the HTML
report's section, report/html.py). It renders the stored Verdict (schema/verdict.py) and
judges nothing: what `run` decided is what `show`, the reports and JUnit say.
"""

from __future__ import annotations

import csv
import io
import json

from rich.console import Console
from rich.table import Table

from stackprobe.schema.verdict import CheckItem, Verdict

MARKS = {"pass": "PASS", "fail": "FAIL", "not measured": "NOT MEASURED", "warn": "WARN"}
STYLES = {"pass": "green", "fail": "bold red", "not measured": "yellow", "warn": "yellow"}
KIND_TITLES = {"criterion": "criterion", "regression": "regression gate", "finding": "finding"}
VERDICT_WORDS = {"pass": "PASS", "fail": "FAIL: a criterion failed",
                 "regression": "FAIL: a gated figure regressed",
                 "incomplete": "INCOMPLETE: the run itself did not finish well"}
CSV_FIELDS = ("kind", "status", "rule", "measured", "value", "unit", "origin", "sources", "detail")


def headline(verdict: Verdict) -> str:
    counts = verdict.counts()
    parts = [f"{counts[s]} {MARKS[s].lower()}" for s in MARKS if counts.get(s)]
    strict = ", strict" if verdict.strict else ""
    return (f"Verdict: {VERDICT_WORDS[verdict.status]} (exit {verdict.exit_code}{strict}; "
            f"{', '.join(parts) or 'no checks'})")


def print_checklist(verdict: Verdict, console: Console) -> None:
    style = "green" if verdict.status == "pass" else "bold red"
    differences = machine_differences(verdict)
    if differences:
        console.print(f"[yellow]{_baseline_title(verdict)}[/]")
        for line in differences:
            console.print(f"[yellow]  ≠ {line}[/]")
    if verdict.items:
        table = Table(title="Checklist", title_justify="left", header_style="bold")
        for name in ("Result", "Rule", "Measured", "From"):
            table.add_column(name, overflow="fold")
        for item in verdict.items:
            table.add_row(f"[{STYLES[item.status]}]{MARKS[item.status]}[/]",
                          _rule_cell(item), item.measured, _from(item))
        console.print(table)
    console.print(f"[{style}]{headline(verdict)}[/]")


def machine_differences(verdict: Verdict) -> list[str]:
    """What differs from the baseline's machine ('CPU: A: … · B: …'), said before any gate:
    a gate against a run on other hardware measures the hardware as much as the change.
    Empty when the machines are alike (a different suite or target is no such difference)."""
    base = verdict.baseline or {}
    if not base.get("other_machine"):
        return []
    return [f"{what}: {text}" for what, text in base.get("differences") or []]


def _baseline_title(verdict: Verdict) -> str:
    base = verdict.baseline or {}
    return f"Baseline {base.get('name')} ({base.get('run')}) is from a different machine:"


def _rule_cell(item: CheckItem) -> str:
    text = item.rule if item.kind == "criterion" else f"{item.rule} ({KIND_TITLES[item.kind]})"
    return text + (f"\n  {item.detail}" if item.detail and item.status != "pass" else "")


def _from(item: CheckItem) -> str:
    sources = ", ".join(item.sources[:3]) + (f" +{len(item.sources) - 3}" if len(item.sources) > 3 else "")
    return f"{item.origin}\n{sources}" if sources else item.origin


def checklist_markdown(verdict: Verdict) -> list[str]:
    lines = ["## Verdict", "", f"**{headline(verdict)}**", ""]
    differences = machine_differences(verdict)
    if differences:
        lines += [_baseline_title(verdict), "", *(f"- ≠ {line}" for line in differences), ""]
    if verdict.items:
        lines += ["| Result | Rule | Measured | From |", "|---|---|---|---|"]
        for item in verdict.items:
            cells = [MARKS[item.status], _rule_cell(item).replace("\n  ", " — "),
                     item.measured, _from(item).replace("\n", " ")]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return lines


def checklist_csv(verdict: Verdict) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for item in verdict.items:
        row = item.model_dump(include=set(CSV_FIELDS))
        row["status"] = MARKS[item.status]
        row["sources"] = " ".join(item.sources)
        writer.writerow(row)
    return buf.getvalue()


def checklist_json(verdict: Verdict) -> str:
    return json.dumps(verdict.model_dump(mode="json"), indent=1) + "\n"


def checklist_page(verdict: Verdict) -> dict:
    """What the HTML report's Verdict section shows (templates/report.html.j2)."""
    baseline = verdict.baseline or {}
    return {
        "headline": headline(verdict), "good": verdict.status == "pass",
        "word": VERDICT_WORDS[verdict.status].split(":")[0],
        "differences": machine_differences(verdict),
        "baseline": baseline.get("name"),
        "checks": [{"mark": MARKS[i.status], "status": i.status.replace(" ", "-"),
                   "rule": i.rule, "kind": KIND_TITLES[i.kind], "measured": i.measured,
                   "detail": i.detail, "origin": i.origin, "sources": i.sources}
                  for i in verdict.items],
    }
