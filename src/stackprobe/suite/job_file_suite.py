"""`stackprobe run job.fio` / `plan job.fio`: a fio job file as a one-step suite.

Engineers arrive with job files. One given where a suite is expected becomes the suite
`name: <file stem>` with one `fio` step running the file unchanged (`job_file:`), under
the same target guard as any job file (docs/safety.md). Recognised by the `.fio` or
`.job` suffix, or, whatever the name, by a first line that is an INI section header
(`[global]`, `[randread]`) in a file that is not `.yaml`/`.yml`: a suite is a mapping, so
such a line cannot start one.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

JOB_SUFFIXES = (".fio", ".job")
_SECTION = re.compile(r"^\[[^\[\]]+\]\s*(?:[;#].*)?$")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def is_job_file(path: Path, text: str) -> bool:
    if path.suffix.lower() in JOB_SUFFIXES:
        return True
    if path.suffix.lower() in (".yaml", ".yml"):
        return False
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", ";")):
            return bool(_SECTION.match(line))
    return False


def job_file_suite_text(path: Path) -> str:
    """The one-step suite's YAML (what the run directory keeps as its suite)."""
    name = _UNSAFE.sub("-", path.stem).strip("-.") or "job"
    if not name[0].isalnum():
        name = "job-" + name
    doc = {
        "name": name,
        "description": f"the fio job file {path} run unchanged",
        "steps": [{"kind": "fio", "name": name, "title": f"fio job file {path.name}",
                   "job_file": str(path.resolve())}],
    }
    return f"# made from the fio job file {path}\n" + yaml.safe_dump(doc, sort_keys=False)
