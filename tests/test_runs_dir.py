"""Where runs live (cli/runs_dir.py): --runs-dir/--out, STACKPROBE_RUNS, the config file,
./runs — in that order; a config file that cannot be used is one line naming file, line
and field, whatever is in it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import run_cli
from fuzz_support import FUZZ
from stackprobe.cli.runs_dir import DEFAULT, ENV, config_file, read_config, runs_dir
from stackprobe.errors import UserError
from test_history import FACTORS, build_history


def write_config(home: Path, text: str) -> Path:
    f = home / "stackprobe" / "config.yaml"
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(text)
    return f


def test_order_option_environment_config_default(tmp_path):
    conf = tmp_path / "xdg"
    env = {"XDG_CONFIG_HOME": str(conf), "HOME": str(tmp_path / "home")}
    assert runs_dir(None, env) == DEFAULT == Path("runs")
    write_config(conf, "runs_dir: /srv/stackprobe/runs\n")
    assert runs_dir(None, env) == Path("/srv/stackprobe/runs")
    assert runs_dir(None, {**env, ENV: "/data/runs"}) == Path("/data/runs")
    assert runs_dir(Path("mine"), {**env, ENV: "/data/runs"}) == Path("mine")
    assert runs_dir(None, {**env, ENV: ""}) == Path("/srv/stackprobe/runs")  # empty: not set


def test_config_file_place(tmp_path):
    assert config_file({"XDG_CONFIG_HOME": "/x"}) == Path("/x/stackprobe/config.yaml")
    assert config_file({"HOME": "/home/u"}) == Path("/home/u/.config/stackprobe/config.yaml")


def test_relative_and_home_paths_in_the_config(tmp_path):
    f = write_config(tmp_path, "# where runs go\nruns_dir: ../measurements\n")
    assert read_config(f) == f.parent / "../measurements"
    write_config(tmp_path, "runs_dir: ~/runs\n")
    assert read_config(f) == Path.home() / "runs"
    write_config(tmp_path, "# nothing set yet\n")
    assert read_config(f) is None
    assert read_config(tmp_path / "absent.yaml") is None


@pytest.mark.parametrize("text, line, words", [
    ("runs_dir: [a, b]\n", 1, "runs_dir: expected a directory path"),
    ("# c\n\nruns_dir:\n", 3, "runs_dir: expected a directory path, got nothing"),
    ("runs_dir: 12\n", 1, "runs_dir: expected a directory path, got 12"),
    ("runs_dir: /r\nrun_dir: /s\n", 2, "run_dir: Extra inputs are not permitted"),
    ("runs_dir: /r\n  bad: [\n", 2, "invalid YAML"),
    ("runs_dir: !0\n", 1, "invalid YAML"),
    ("runs_dir: ~nosuchuser-here/r\n", 1, "no such home directory"),
    ("- runs_dir: /r\n", 1, "expected settings as 'name: value' lines"),
])
def test_bad_config_is_one_line_with_file_line_field(tmp_path, text, line, words):
    f = write_config(tmp_path, text)
    with pytest.raises(UserError) as err:
        read_config(f)
    msg = str(err.value)
    assert msg.startswith(f"{f}:{line}: ") and words in msg and "\n" not in msg


def test_bad_config_through_the_cli(tmp_path):
    write_config(tmp_path / "xdg", "runs_dir: {a: 1}\n")
    proc = run_cli(["runs"], cwd=tmp_path, env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")}, check=2)
    assert proc.stderr.strip().splitlines() == [
        f"stackprobe: {tmp_path}/xdg/stackprobe/config.yaml:1: runs_dir: expected a directory path, "
        "got {'a': 1}"]


@FUZZ
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
                 st.builds(lambda k, v: f"{k}: {v}\n", st.sampled_from(["runs_dir", "x", "- a"]),
                           st.text(max_size=40))))
def test_any_config_text_is_a_path_nothing_or_one_line(tmp_path_factory, text):
    f = tmp_path_factory.mktemp("conf") / "config.yaml"
    f.write_text(text, encoding="utf-8", errors="surrogateescape")
    try:
        got = read_config(f)
    except UserError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(str(f))
    else:
        assert got is None or isinstance(got, Path)


def test_every_command_reads_runs_from_config_and_environment(tmp_path):
    runs = tmp_path / "measured"
    build_history(runs, FACTORS[:3])
    newest = json.loads(run_cli(["runs", "--json", "--runs-dir", runs], check=0).stdout)[0]["id"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    xdg = tmp_path / "xdg"
    write_config(xdg, f"runs_dir: {runs}\n")
    by_config = {"XDG_CONFIG_HOME": str(xdg)}
    by_env = {"XDG_CONFIG_HOME": str(tmp_path / "none"), ENV: str(runs)}
    for env in (by_config, by_env):
        assert newest in run_cli(["show"], cwd=elsewhere, env=env, check=0).stdout
        assert newest in run_cli(["runs"], cwd=elsewhere, env=env, check=0).stdout
    # the older spelling still works, and wins over the environment like --runs-dir
    empty = tmp_path / "empty"
    proc = run_cli(["show", "--out", empty], cwd=elsewhere, env=by_env, check=2)
    assert f"no runs in {empty}" in proc.stderr
    proc = run_cli(["show", "-o", empty], cwd=elsewhere, env=by_env, check=2)
    assert f"no runs in {empty}" in proc.stderr


def test_config_not_utf8_is_one_line(tmp_path):
    f = write_config(tmp_path, "")
    f.write_bytes(b"runs_dir: /r\xff\xfe\n")
    with pytest.raises(UserError, match=rf"^{f}: not UTF-8 text \(byte 12\)$"):
        read_config(f)
