"""`stackprobe show` of a recorded run: `--json` is the report's JSON document, and the
summary printed to a pipe is not squeezed into 80 columns.

Why: `show --json` is what scripts read, and it had no test; and piped or in a CI log rich
assumes 80 columns, which folded a summary row over two lines and cut the ladder's
sentences mid-word. cli/console.py gives a pipe the width the content needs (unless
COLUMNS says otherwise); here a real process writes to a real pipe with COLUMNS unset.
The run is a recorded three-host run (tests/fixtures/recorded/runs-after-kind-contract),
whose network row and ladder sentences are far wider than 80 columns.
"""

from __future__ import annotations

import json
import os
import subprocess

from conftest import FIXTURES, STACKPROBE, run_cli

RUN = FIXTURES / "recorded" / "runs-after-kind-contract" / "20261124T053020Z-multi-host-test"


def show_piped(*args: str, columns: str | None = None) -> str:
    """`stackprobe show` in a process of its own, stdout a pipe, COLUMNS as given or unset."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    if columns is not None:
        env["COLUMNS"] = columns
    proc = subprocess.run([*STACKPROBE, "show", *args], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def whole_on_one_line(out: str, doc: dict) -> list[str]:
    """What of the summary and the ladder is not on one line of `out`: each row's test with
    its status cell (status and note), each ladder sentence."""
    lines = out.splitlines()
    broken = []
    for row in doc["rows"]:
        status = f"{row['status']}: {row['note']}" if row["note"] else row["status"]
        if not any(ln.startswith(f"│ {row['test']} ") and f" {status} " in ln for ln in lines):
            broken.append(row["test"])
    broken += [r["verdict"] for r in doc["ladder"] if not any(r["verdict"] in ln for ln in lines)]
    return broken


def test_show_json_is_the_reports_json_document(tmp_path):
    shown = run_cli(["show", RUN, "--json"], check=0).stdout
    doc = json.loads(shown)  # one document and nothing else on stdout
    written = tmp_path / "report.json"
    run_cli(["report", RUN, "--format", "json", "--output", written], check=0)
    assert shown == written.read_text()
    assert doc["run"]["id"] == RUN.name and doc["run"]["status"] == "ok"
    assert [h["name"] for h in doc["run"]["hosts"]] == ["h1", "h2", "h3"]
    network = next(r for r in doc["rows"] if r["step"] == "02-network")
    assert network["headline"] == "bw" and network["bw_bytes"] > 0  # the network row is filled
    assert len(doc["rows"]) == 32 and doc["ladder"] and doc["warnings"]


def test_show_json_of_a_missing_run_is_one_line(tmp_path):
    proc = run_cli(["show", tmp_path / "no-such-run", "--json"])
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("stackprobe: ") and "no such run directory" in proc.stderr
    assert len(proc.stderr.splitlines()) == 1


def test_a_piped_summary_takes_the_width_its_content_needs():
    doc = json.loads(run_cli(["show", RUN, "--json"], check=0).stdout)
    out = show_piped(str(RUN))
    assert max(len(ln) for ln in out.splitlines()) > 200  # not 80 columns
    assert whole_on_one_line(out, doc) == []
    # every row of the table is one line: its borders open and close it
    rows = [ln for ln in out.splitlines() if ln.startswith("│")]
    assert rows and all(ln.endswith("│") for ln in rows)


def test_columns_still_sets_the_width_of_a_pipe():
    """COLUMNS is obeyed (the check above would catch an 80-column fold: here it does)."""
    doc = json.loads(run_cli(["show", RUN, "--json"], check=0).stdout)
    out = show_piped(str(RUN), columns="80")
    assert max(len(ln) for ln in out.splitlines()) <= 80
    broken = whole_on_one_line(out, doc)
    assert "Network matrix (iperf3, 1 stream(s), 2 s)" in broken
    assert len(broken) > len(doc["ladder"])  # rows folded, sentences cut
