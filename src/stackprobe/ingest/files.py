"""Reading a file someone already has: its text, the tool and format that wrote it (from
the content, detect.py), and the records its parser makes of it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stackprobe.ingest.detect import detect


@dataclass(frozen=True)
class Ingested:
    path: Path
    format: str  # 'fio json', 'rados bench', ...
    records: list
    text: str = ""  # what was read: the parameters of a run are taken from it (workload.py)


def ingest_file(path: Path) -> Ingested:
    """OSError when the file cannot be read; ValueError, in one line, when no parser knows
    it or its parser refuses it."""
    return ingest_text(path.read_text(encoding="utf-8", errors="replace"), path)


def ingest_text(text: str, path: Path) -> Ingested:
    """The records of a text already read (standard input, a file of a directory);
    ValueError, in one line, when no parser knows it or its parser refuses it."""
    fmt = detect(text)
    return Ingested(path, fmt.name, list(fmt.parse(text)), text)
