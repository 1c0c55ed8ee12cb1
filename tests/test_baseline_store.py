"""Named baselines: `<runs>/baselines.json` (store/baselines.py) and how `--against`
finds the baseline's run (verdict/baseline.py).

What must hold: set, list and rm keep {name: {run, path, set_at}} in the file, written
atomically and under a lock (threads setting names at once lose none); a damaged file is
one line naming the file, the line and the field, whatever its content; a name is resolved
before a run id or directory, and a name whose run is gone is an error, never a fall back.
"""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FIXTURES
from fuzz_support import FUZZ
from stackprobe.errors import UserError
from stackprobe.store.baselines import (
    baselines_file,
    check_name,
    read_baselines,
    remove_baseline,
    set_baseline,
)
from stackprobe.verdict.baseline import find_baseline, load_baseline

QUICK = FIXTURES / "recorded" / "runs-after-kind-contract" / "20261124T053239Z-quick"


@pytest.fixture
def runs(tmp_path) -> Path:
    """A runs directory holding a copy of a recorded run."""
    out = tmp_path / "runs"
    out.mkdir()
    shutil.copytree(QUICK, out / QUICK.name)
    return out


def test_set_list_rm_round_trip(runs):
    entry = set_baseline(runs, "nightly", runs / QUICK.name, "run-1")
    assert entry.path == str((runs / QUICK.name).resolve()) and entry.exists
    data = json.loads(baselines_file(runs).read_text())
    assert data == {"nightly": {"run": "run-1", "path": entry.path, "set_at": entry.set_at}}
    assert entry.set_at.endswith("Z")
    set_baseline(runs, "alpha", runs / QUICK.name, "run-2")
    assert list(read_baselines(runs)) == ["alpha", "nightly"]
    moved = set_baseline(runs, "nightly", runs / QUICK.name, "run-3")
    assert read_baselines(runs)["nightly"].run == moved.run == "run-3"
    assert remove_baseline(runs, "nightly").run == "run-3"
    assert list(read_baselines(runs)) == ["alpha"]
    assert [p.name for p in runs.iterdir() if p.name.startswith(".")] == []  # no temp file left


def test_no_file_is_no_baselines(tmp_path):
    assert read_baselines(tmp_path) == {}
    with pytest.raises(UserError, match='no baseline named "x"'):
        remove_baseline(tmp_path, "x")


def test_threads_setting_names_at_once_lose_none(runs):
    names = [f"b{i}" for i in range(12)]
    threads = [threading.Thread(target=set_baseline, args=(runs, n, runs / QUICK.name, n))
               for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(read_baselines(runs)) == sorted(names)


@pytest.mark.parametrize("name", ["", "-x", "a b", "a/b", "x" * 65, "ä\n"])
def test_names_people_cannot_type_are_refused(name):
    with pytest.raises(UserError, match="baseline name"):
        check_name(name)


@pytest.mark.parametrize("name", ["quick", "ceph-quick", "v1.2+rc_3", "ärger"])
def test_names(name):
    assert check_name(name) == name


@pytest.mark.parametrize("text, where", [
    ('{"a": {"run": "r", "path": "/p", "set_at": "t"},\n "b": 3\n}', ':2: "b": expected an object'),
    ('{"a": {"run": "r", "path": "/p", "set_at": "t"},\n "b": {"run": "r"}\n}', ':2: "b": path: missing'),
    ('{"a": {"run": 1, "path": "/p", "set_at": "t"}}', ':1: "a": run: missing or not a string'),
    ('{"a\\nb": 3}', ':1: "a\\nb": expected an object'),  # a name with a newline: one line
    ('{\n"a": ', ":2: not valid JSON"),
    ("[1, 2]", ":1: expected an object of baselines by name, got list"),
])
def test_a_damaged_file_is_one_line_naming_file_line_and_field(tmp_path, text, where):
    baselines_file(tmp_path).write_text(text)
    with pytest.raises(UserError) as exc:
        read_baselines(tmp_path)
    message = str(exc.value)
    assert message.startswith(str(baselines_file(tmp_path))) and where in message, message
    assert "\n" not in message


@FUZZ
@given(st.one_of(st.text(), st.binary().map(lambda b: b.decode("latin-1")),
                 st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                              lambda inner: st.lists(inner, max_size=3)
                              | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                              max_leaves=12).map(json.dumps)))
def test_any_content_reads_or_is_one_line(tmp_path_factory, text):
    d = tmp_path_factory.mktemp("fuzz")
    baselines_file(d).write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        found = read_baselines(d)
    except UserError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(str(baselines_file(d)))
        return
    assert all(isinstance(b.run, str) and b.run for b in found.values())


def test_the_against_reference_is_a_name_then_a_directory_then_an_id(runs):
    set_baseline(runs, "nightly", runs / QUICK.name, "20261124T053239Z-quick")
    results, label = load_baseline("nightly", runs)
    assert label == "nightly" and results.run.id == "20261124T053239Z-quick"
    assert find_baseline("nightly", runs).path == (runs / QUICK.name).resolve()
    assert load_baseline(QUICK.name, runs)[1] == QUICK.name  # a run id under the runs dir
    assert load_baseline(str(QUICK), runs)[1] == QUICK.name  # a run directory
    # a name wins over a run id it shadows
    set_baseline(runs, QUICK.name, QUICK, "elsewhere")
    assert find_baseline(QUICK.name, runs).path == QUICK.resolve()


def test_a_name_whose_run_is_gone_is_one_line(runs):
    set_baseline(runs, "nightly", runs / QUICK.name, "20261124T053239Z-quick")
    shutil.rmtree(runs / QUICK.name)
    with pytest.raises(UserError) as exc:
        load_baseline("nightly", runs)
    assert "baseline 'nightly': its run 20261124T053239Z-quick is gone" in str(exc.value)
    assert "\n" not in str(exc.value)


def test_an_unknown_reference_is_one_line(runs):
    with pytest.raises(UserError, match="--against nope: no baseline of that name"):
        load_baseline("nope", runs)
