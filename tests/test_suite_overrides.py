"""`--set KEY=VALUE` changes a suite from the command line, validated like its YAML; a fio
job file given where a suite is expected is a one-step suite; `plan --json` says what the
table says, in numbers."""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest

from conftest import STACKPROBE, run_cli
from stackprobe.errors import UserError
from stackprobe.plan.expand import expand
from stackprobe.suite.loader import load_suite, parse_suite
from stackprobe.suite.overrides import parse_override

# beside the one-at-a-time system tests (tests/run_tiers.py): what a run's overrides change: no level
pytestmark = pytest.mark.beside


def _step(loaded, name):
    return next(s for s in loaded.suite.steps if s.name == name)


def test_a_bare_key_sets_the_defaults_and_a_step_key_one_step():
    loaded = load_suite("quick", ["runtime=60", "size=4G", "randread-iops.iodepth=[1, 32]"])
    assert loaded.suite.defaults.runtime.seconds == 60
    assert loaded.suite.defaults.size.bytes == 4 * 2**30
    assert _step(loaded, "randread-iops").iodepth == [1, 32]
    assert _step(loaded, "randwrite-iops").iodepth == 128  # the others as shipped
    plan = expand(loaded.suite, loaded.base_dir, None)
    swept = [s for s in plan if s.name.startswith("randread-iops")]
    assert [s.params["iodepth"] for s in swept] == [1, 32]
    assert all(s.params["runtime"] == 60 for s in plan if s.kind == "fio")


def test_a_kind_name_sets_every_step_of_that_kind_when_no_step_has_that_name():
    loaded = load_suite("quick", ["metadata.files=100"])
    assert [s.files for s in loaded.suite.steps if s.kind == "metadata"] == [100]


def test_the_run_keeps_the_suite_as_it_ran_and_it_loads_to_the_same_steps():
    loaded = load_suite("quick", ["runtime=60", "lat-qd1.rw=read"])
    assert loaded.text.startswith("# builtin:quick with --set runtime=60 --set lat-qd1.rw=read\n")
    assert parse_suite(loaded.text, "suite.yaml") == loaded.suite  # what resume reads


@pytest.mark.parametrize("given, message", [
    ("runtime=abc", "quick.yaml: --set runtime=abc: defaults.runtime: not a duration: 'abc'"),
    ("randread-iops.iodepth=0",
     "quick.yaml: --set randread-iops.iodepth=0: steps[3].iodepth: must be a whole number >= 1"),
    ("randread-iops.depth=3",
     "quick.yaml: --set randread-iops.depth=3: steps[3].depth: Extra inputs are not permitted"),
    ("nosuch.x=1", "--set nosuch.x=1: no step named or of kind 'nosuch' (steps: 4m-throughput,"),
    ("runtime", "--set runtime: expected KEY=VALUE or STEP.KEY=VALUE"),
    ("lat-qd1.rw.x=1", "--set lat-qd1.rw.x=1: steps[6].rw is not a mapping"),
])
def test_a_bad_set_is_one_line_naming_it_and_the_field(given, message):
    with pytest.raises(UserError) as exc:
        load_suite("quick", [given])
    assert str(exc.value).startswith(message), str(exc.value)
    assert "\n" not in str(exc.value)


def test_a_value_is_one_yaml_value():
    assert parse_override("a.b=[1, 2]").value == [1, 2]
    assert parse_override("direct=true").value is True
    assert parse_override("title=4k: as typed").value == "4k: as typed"  # a mapping: the text
    assert parse_override("title=[a").value == "[a"  # not one YAML value: the text


def test_plan_and_run_take_set_from_the_command_line(tmp_path):
    proc = run_cli(["plan", "quick", "--json", "--set", "runtime=30", "--set",
                    "randread-iops.iodepth=[1,4]"], timeout=60, check=0)
    doc = json.loads(proc.stdout)
    swept = [s["params"]["iodepth"] for s in doc["steps"] if s["name"].startswith("randread-iops")]
    assert swept == [1, 4], doc["steps"]
    fio = [s for s in doc["steps"] if s["kind"] == "fio"]
    assert all(s["params"]["runtime"] == 30 for s in fio)
    assert doc["estimate_s"] == pytest.approx(sum(s["estimate_s"] for s in doc["steps"]))
    bad = run_cli(["run", "quick", "--set", "iodepth=-1", "--target", tmp_path, "--out",
                   tmp_path / "runs"], timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
    assert "--set iodepth=-1: defaults.iodepth" in bad.stderr
    assert not (tmp_path / "runs").exists()  # refused before any run directory


JOB = """\
; a job file as engineers keep them
[global]
ioengine=psync
size=4M
[rr]
rw=randread
bs=4k
"""


def test_a_fio_job_file_is_a_one_step_suite_by_suffix_or_by_its_section_header(tmp_path):
    for name in ("my job.fio", "randread.ini", "randread"):
        path = tmp_path / name
        path.write_text(JOB)
        loaded = load_suite(str(path))
        (step,) = loaded.suite.steps
        assert step.kind == "fio" and step.job_file == str(path.resolve())
        assert loaded.suite.name == path.stem.replace(" ", "-")
        assert parse_suite(loaded.text, "suite.yaml") == loaded.suite
    yaml_named = tmp_path / "job.yaml"
    yaml_named.write_text(JOB)
    with pytest.raises(UserError, match="job.yaml:1: a suite is a mapping"):
        load_suite(str(yaml_named))  # a .yaml file is read as a suite, whatever it holds


@pytest.mark.tools
def test_run_job_fio_runs_the_file_unchanged(tmp_path):
    job = tmp_path / "rr.fio"
    job.write_text(JOB + "runtime=1\ntime_based=1\n")
    work = tmp_path / "work"
    work.mkdir()
    proc = run_cli(["run", job, "--target", work, "--out", tmp_path / "runs", "--no-monitor",
                    "--no-health"], timeout=120, check=0)
    (run,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    results = json.loads((run / "results.json").read_text())
    (step,) = results["steps"]
    assert step["status"] == "ok" and step["kind"] == "fio"
    assert any(r.get("read", {}).get("iops", 0) > 0 for r in step["records"]), proc.stdout
    assert (run / "suite.yaml").read_text().startswith(f"# made from the fio job file {job}")


def test_shell_completion_offers_commands_options_and_built_in_suites():
    def complete(words: str, cword: int) -> list[str]:
        proc = run_cli([], env={"_STACKPROBE_COMPLETE": "complete_bash", "COMP_WORDS": words,
                                "COMP_CWORD": str(cword)}, timeout=120)
        assert proc.returncode == 0, (words, proc.stdout[-500:], proc.stderr[-1500:])
        return proc.stdout.split()

    assert complete("stackprobe ru", 1) == ["run", "runs"], "the commands starting with 'ru'"
    assert "--set" in complete("stackprobe plan --s", 2)
    assert complete("stackprobe run ceph-q", 2) == ["ceph-quick"]
    # the script for the shell it runs in (typer detects it from the parent process): bash
    line = " ".join(shlex.quote(a) for a in STACKPROBE) + " --show-completion; true"
    script = subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=60)
    assert "_STACKPROBE_COMPLETE=complete_bash" in script.stdout, script.stderr
