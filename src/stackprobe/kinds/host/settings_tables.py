"""The settings step's judging as tables: the drift within roles, and the profile's
expectations against every host.

Why two tables: drift is read setting by setting (which role, what most hosts run, which
hosts differ); a profile is read as a checklist per host, expectation rows by host
columns. A fleet of hundreds of hosts does not fit in columns: past MAX_HOST_COLUMNS the
profile table counts PASS / FAIL / UNKNOWN and names the failing hosts instead.
"""

from __future__ import annotations

from stackprobe.analysis.settings_drift import hosts_text
from stackprobe.tables.text_table import TextTable, step_table_title

MAX_HOST_COLUMNS = 8


def drift_table(step) -> TextTable | None:
    found = step.findings.get("settings_drift")
    if not found:
        return None
    table = TextTable(step_table_title("Settings drift", step),
                      ["setting", "role", "majority", "odd hosts"], left=(0, 1, 2, 3),
                      layer="hardware")
    for drift in found.get("drifts") or []:
        values = drift.get("values") or []
        majority = drift.get("majority")
        count = next((len(v["hosts"]) for v in values if v.get("value") == majority), 0)
        table.rows.append([
            str(drift.get("setting")), ", ".join(drift.get("roles") or []),
            f"{majority} ({count} hosts)" if majority is not None else "none",
            "; ".join(f"{hosts_text(v.get('hosts') or [])}: {v.get('value')}"
                      for v in values if v.get("value") != majority)])
    table.notes.append(str(found.get("summary", "")))
    return table


def profile_table(step) -> TextTable | None:
    found = step.findings.get("profile")
    if not found:
        return None
    title = step_table_title(f"Settings profile {found.get('name') or found.get('ref')}", step)
    if found.get("error"):
        return TextTable(title, ["profile"], rows=[[str(found["error"])]], layer="hardware")
    hosts = list(found.get("hosts") or [])
    wide = len(hosts) <= MAX_HOST_COLUMNS
    headers = ["expectation", *(hosts if wide else ["pass", "fail", "unknown", "failing hosts"])]
    table = TextTable(title, headers, left=(0,) if wide else (0, 4), layer="hardware")
    for exp in found.get("expectations") or []:
        status = exp.get("hosts") or {}
        if wide:
            cells = [status.get(h, "-") for h in hosts]
        else:
            counts = [sum(1 for s in status.values() if s == k) for k in ("PASS", "FAIL", "UNKNOWN")]
            failing = [h for h, s in status.items() if s == "FAIL"]
            cells = [*(str(c) for c in counts), hosts_text(failing) or "-"]
        table.rows.append([str(exp.get("rule")), *cells])
        for problem in (exp.get("problems") or [])[:MAX_HOST_COLUMNS]:
            if problem.get("status") == "FAIL":
                table.notes.append(f"{exp.get('origin')}: {problem.get('host')}: "
                                   f"{problem.get('setting')} {problem.get('value')} (expected "
                                   f"{exp.get('rule')})")
    if found.get("description"):
        table.notes.insert(0, str(found["description"]))
    if wide:
        table.notes.append("'-': the host is not in the expectation's roles")
    return table


def settings_judging_tables(steps) -> list[TextTable]:
    return [t for step in steps for t in (drift_table(step), profile_table(step)) if t is not None]
