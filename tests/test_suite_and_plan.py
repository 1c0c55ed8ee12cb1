"""Suite validation (errors name file, line, field) and plan expansion (sweeps)."""

import pytest

from stackprobe.errors import UserError
from stackprobe.plan.expand import expand
from stackprobe.suite.loader import builtin_names, load_suite, parse_suite


def test_builtin_suites_load_and_expand():
    assert {"quick", "standard", "sweep", "ceph-quick", "ceph-standard"} <= set(builtin_names())
    for name in builtin_names():
        steps = expand(load_suite(name).suite)
        assert len({s.name for s in steps}) == len(steps), "step names must be unique"
        assert [s.index for s in steps] == list(range(1, len(steps) + 1))


def test_quick_contains_the_seed_tables():
    steps = expand(load_suite("quick").suite)
    kinds = [s.kind for s in steps]
    assert kinds[:2] == ["inventory", "memory"]
    fio = [(s.params["rw"], s.params["bs"], s.params["iodepth"]) for s in steps if s.kind == "fio"]
    # seed 002's 8-test table
    for want in [("randwrite", "4k", 128), ("randread", "4k", 128), ("write", "1M", 64),
                 ("read", "1M", 64), ("randwrite", "4k", 1), ("randread", "4k", 1),
                 ("write", "4k", 1), ("read", "4k", 1)]:
        assert want in fio
    # seed 000: 4M write/read/rw throughput and 4k randrw IOPS
    for want in [("write", "4M", 32), ("read", "4M", 32), ("rw", "4M", 32), ("randrw", "4k", 32)]:
        assert want in fio
    md = [s for s in steps if s.kind == "metadata"][0]
    assert md.params["operations"] == ["create", "stat", "delete"]
    assert sum(s.estimate_s for s in steps) < 300, "quick must fit in 5 minutes"


def test_standard_is_seed_sized():
    steps = expand(load_suite("standard").suite)
    fio = [s for s in steps if s.kind == "fio"]
    assert any(s.params["bs"] == "4M" and s.params["iodepth"] == 128 for s in fio)
    assert all(float(s.params["runtime"]) >= 120 for s in fio)
    assert max(float(s.params["runtime"]) for s in fio) == 300


SWEEP = """
name: sweep
defaults:
  size: 16M
  runtime: 1
steps:
  - kind: fio
    name: grid
    rw: [randread, randwrite]
    bs: 4k
    iodepth: [1, 8, 32]
    title: "{rw} at QD{iodepth}"
"""


def test_sweeps_expand_to_cartesian_product_in_yaml_order():
    steps = expand(parse_suite(SWEEP, "sweep.yaml"))
    assert [s.name for s in steps] == [
        "grid-randread-1", "grid-randread-8", "grid-randread-32",
        "grid-randwrite-1", "grid-randwrite-8", "grid-randwrite-32",
    ]
    assert steps[1].swept == {"rw": "randread", "iodepth": 8}
    assert steps[1].title == "randread at QD8"
    assert all(s.params["size"] == "16M" for s in steps), "defaults apply"
    assert steps[0].headline == "lat" and steps[2].headline == "iops"


def test_metadata_and_option_sweeps():
    text = """
name: s
steps:
  - kind: metadata
    files: [100, 1000]
    numjobs: [1, 2]
  - kind: fio
    rw: read
    options: {rate_iops: [100, 200]}
"""
    steps = expand(parse_suite(text, "s.yaml"))
    assert len(steps) == 6
    assert [s.params["files"] for s in steps[:4]] == [100, 100, 1000, 1000]
    assert steps[4].params["options"] == {"rate_iops": 100}
    assert steps[5].name == "read-200"


def _error(text: str) -> str:
    with pytest.raises(UserError) as info:
        parse_suite(text, "bad.yaml")
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message
    return message


def test_error_names_file_line_and_field():
    text = "name: x\nsteps:\n  - kind: fio\n    rw: randread\n    iodepth: deep\n"
    assert _error(text).startswith("bad.yaml:5: steps[0].iodepth:")


def test_error_for_unknown_key_points_at_it():
    text = "name: x\nsteps:\n  - kind: fio\n    rw: read\n    blocksize: 4k\n"
    msg = _error(text)
    assert msg.startswith("bad.yaml:5: steps[0].blocksize:"), msg
    assert "not permitted" in msg


def test_error_for_bad_rw_and_unknown_kind_and_yaml_syntax():
    assert "not a fio rw mode" in _error("name: x\nsteps:\n  - kind: fio\n    rw: sideways\n")
    assert _error("name: x\nsteps:\n  - kind: teleport\n").startswith("bad.yaml:3: steps[0]")
    assert _error("name: x\nsteps: [\n").startswith("bad.yaml:")
    assert "invalid YAML" in _error("name: x\nsteps:\n  - kind: fio\n  rw: : :\n")


def test_error_for_missing_steps_and_bad_sizes():
    assert "steps" in _error("name: x\n")
    msg = _error("name: x\nsteps:\n  - kind: fio\n    bs: [4k, huge]\n")
    assert msg.startswith("bad.yaml:4: steps[0].bs[1]: not a size"), msg


def test_job_file_runs_unchanged(tmp_path):
    (tmp_path / "mine.fio").write_text("[j]\nrw=read\nsize=1M\n")
    suite = tmp_path / "s.yaml"
    suite.write_text("name: s\nsteps:\n  - kind: fio\n    job_file: mine.fio\n")
    loaded = load_suite(str(suite))
    step = expand(loaded.suite, loaded.base_dir)[0]
    assert step.params == {"job_file": str(tmp_path / "mine.fio")}
    assert step.name == "mine"
    bad = "name: s\nsteps:\n  - kind: fio\n    job_file: mine.fio\n    bs: 4k\n"
    assert "job_file runs unchanged" in _error(bad)


def test_unsafe_filename_option_refused():
    msg = _error("name: s\nsteps:\n  - kind: fio\n    rw: write\n    options: {filename: /dev/sda}\n")
    assert "relative path inside the target" in msg


def test_missing_suite_file():
    with pytest.raises(UserError, match="no such suite file"):
        load_suite("/nonexistent/suite.yaml")
    with pytest.raises(UserError, match="not a suite file and not a built-in suite"):
        load_suite("nosuchsuite")


def test_repeat_and_slo_and_steady_validation():
    ok = parse_suite("name: s\nsteps:\n  - kind: fio\n    rw: read\n    repeat: {min: 2, max: 5}\n"
                     "    steady_state: {stop: true}\n  - kind: slo\n    rw: randread\n"
                     "    limit: 5ms\n", "s.yaml")
    steps = expand(ok)
    assert steps[0].repeat.min == 2 and steps[0].repeat.max == 5
    assert steps[0].params["steady_state"]["stop"] is True
    assert steps[1].params["vary"] == "numjobs" and steps[1].headline == "iops"
    assert "max" in _error("name: s\nsteps:\n  - kind: fio\n    repeat: {min: 5, max: 2}\n")
    msg = _error("name: s\nsteps:\n  - kind: slo\n    limit: 5ms\n    numjobs: 4\n")
    assert "set min and max instead" in msg
    assert "repeat" in _error("name: s\nsteps:\n  - kind: inventory\n    repeat: 3\n")
