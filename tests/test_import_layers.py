"""The architecture as a contract: import-linter checks the layers in pyproject.toml
([tool.importlinter]) over the real import graph — a lower layer importing a higher one, or
two sibling modules importing each other, fails here.

The second test shows the check can fail: a copy of the package with one import a layer
may not make (a parser importing the report) is refused, naming the offending import.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
        "sys.exit(lint_imports_command())"]


def lint(src: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run([*LINT, "--config", str(cwd / "pyproject.toml"), "--no-cache"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_the_layers_and_acyclic_contracts_are_kept():
    proc = lint(ROOT / "src", ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "2 kept, 0 broken" in proc.stdout


def test_a_lower_layer_importing_a_higher_one_fails(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "stackprobe", src / "stackprobe",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    parser = src / "stackprobe" / "parsers" / "fio" / "fio_json.py"
    parser.write_text(parser.read_text() + "\nfrom stackprobe.report import table  # noqa\n")
    proc = lint(src, tmp_path)
    assert proc.returncode != 0
    assert "stackprobe.parsers.fio.fio_json -> stackprobe.report.table" in proc.stdout
    assert "BROKEN" in proc.stdout
