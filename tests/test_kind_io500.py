"""The io500 step: its config.ini, command lines, Lustre striping, and its runner run here.

IO500, IOR, mdtest and lfs are not installed on this machine: the runner must say so in one
line, and striping must be reported as not applied while the directories are still made.
The runs that do execute use real programs (cat, sh) replaying recorded public outputs
(tests/fixtures/public) through the runner's own command line.
"""

from __future__ import annotations

import configparser
import shutil

import pytest

from conftest import FIXTURES
from stackprobe.errors import UserError
from stackprobe.kinds.context import StepContext, TargetInfo
from stackprobe.kinds.hpc.io500 import CONFIG_FILE, Io500Runner, Io500Step, data_dir, result_dir
from stackprobe.kinds.hpc.io500_config import io500_argv, io500_config, tool_argv
from stackprobe.kinds.lustre import Stripe, apply_stripes, setstripe_argv
from stackprobe.plan.expand import one_step
from stackprobe.schema.records import MdtestRecord
from stackprobe.store.rundir import RunDir
from stackprobe.transport.local import LocalTransport

MPI = ["mpirun", "--allow-run-as-root", "-np", "4", "--hostfile", "hosts"]
MDTEST_OUT = FIXTURES / "public" / "mdtest" / "mdtest-4.1.0dev_io500-2025_hard-write_rate-and-time.txt"
IO500_SUMMARY = FIXTURES / "public" / "io500" / "io500-isc24_v3_result_summary.txt"


def params_of(**fields) -> Io500Step:
    """A step's spec as the planner hands it over: validated like a suite's."""
    return Io500Step(kind="io500", **fields)


def read_ini(text: str) -> configparser.ConfigParser:
    cp = configparser.ConfigParser(interpolation=None, inline_comment_prefixes=None)
    cp.optionxform = str  # keep io500's spelling (transferSize)
    cp.read_string(text)
    return cp


@pytest.fixture
def make_ctx(tmp_path):
    def make(**fields) -> StepContext:
        step = one_step({"kind": "io500", **fields})
        run_dir = RunDir.create(tmp_path / "runs", "io500-test")
        scratch = tmp_path / "scratch"
        scratch.mkdir(exist_ok=True)
        return StepContext(step, LocalTransport(), run_dir, TargetInfo(root=scratch), 60.0)
    return make


# ------------------------------------------------------------------ config.ini
def test_default_config_puts_data_and_results_where_the_runner_looks():
    text = io500_config(params_of(), "/lustre/bench", "/scratch/results")
    cp = read_ini(text)
    assert cp.sections() == ["global", "debug"]
    assert dict(cp["global"]) == {
        "datadir": "/lustre/bench", "timestamp-datadir": "FALSE",
        "resultdir": "/scratch/results", "timestamp-resultdir": "FALSE", "drop-caches": "FALSE",
    }
    assert cp["debug"]["stonewall-time"] == "300"


def test_stonewall_duration_becomes_whole_seconds():
    cp = read_ini(io500_config(params_of(stonewall="2m"), "/d", "/r"))
    assert cp["debug"]["stonewall-time"] == "120"
    cp = read_ini(io500_config(params_of(stonewall="30s"), "/d", "/r"))
    assert cp["debug"]["stonewall-time"] == "30"


def test_settings_are_merged_and_override_defaults():
    settings = {
        "ior-easy": {"API": "POSIX", "transferSize": "4m", "blockSize": "9920000m",
                     "filePerProc": True},
        "mdtest-easy": {"n": 1000000},
        "ior-hard": {"segmentCount": 10000000},
        "find": {"nproc": 16, "pfind-steal-next": False},
        "Global": {"Drop-Caches": True, "verbosity": 3},
        "debug": {"stonewall-time": 60},
    }
    cp = read_ini(io500_config(params_of(settings=settings), "/d", "/r"))
    assert cp.sections() == ["global", "debug", "ior-easy", "mdtest-easy", "ior-hard", "find"]
    # the user's key replaces the default in io500's case-blind matching: one key, its value
    glob = dict(cp["global"])
    assert "drop-caches" not in glob and glob["Drop-Caches"] == "TRUE"
    assert glob["verbosity"] == "3" and glob["datadir"] == "/d"
    assert dict(cp["debug"]) == {"stonewall-time": "60"}
    assert dict(cp["ior-easy"]) == {"API": "POSIX", "transferSize": "4m",
                                    "blockSize": "9920000m", "filePerProc": "TRUE"}
    assert cp["mdtest-easy"]["n"] == "1000000"
    assert dict(cp["find"]) == {"nproc": "16", "pfind-steal-next": "FALSE"}


@pytest.mark.parametrize(("settings", "named"), [
    ({"ior easy": {"API": "POSIX"}}, "'ior easy'"),
    ({"ior-easy]\n[x": {"API": "POSIX"}}, "ior-easy]"),
    ({"ior-easy": {"transfer size": "4m"}}, "'transfer size'"),
    ({"ior-easy": {"API": "POSIX; rm"}}, "[ior-easy] API"),
    ({"ior-easy": {"API": "POSIX\n[debug]"}}, "[ior-easy] API"),
    ({"global": {"datadir": "/elsewhere"}}, "datadir"),
    ({"GLOBAL": {"timestamp-resultdir": True}}, "timestamp-resultdir"),
])
def test_bad_settings_raise_a_user_error_naming_them(settings, named):
    with pytest.raises(UserError) as err:
        io500_config(params_of(settings=settings), "/d", "/r")
    assert named in str(err.value)


# ------------------------------------------------------------------ command lines
def test_io500_argv_runs_the_config_under_the_launcher():
    assert io500_argv(params_of(launcher=MPI), "/run/config.ini") == [*MPI, "io500", "/run/config.ini"]
    assert io500_argv(params_of(launcher=MPI, binary="/opt/io500/io500"), "c.ini") == [
        *MPI, "/opt/io500/io500", "c.ini"]
    assert io500_argv(params_of(launcher=[]), "c.ini") == ["io500", "c.ini"]


def test_ior_and_mdtest_argv():
    ior = params_of(tool="ior", launcher=MPI, args=["-a", "POSIX", "-t", "1m", "-b", "4g", "-F"])
    assert tool_argv(ior) == [*MPI, "ior", "-a", "POSIX", "-t", "1m", "-b", "4g", "-F"]
    md = params_of(tool="mdtest", launcher=MPI, binary="/opt/ior/bin/mdtest",
                   args=["-n", "1000", "-d", "md"])
    assert tool_argv(md) == [*MPI, "/opt/ior/bin/mdtest", "-n", "1000", "-d", "md"]


# ------------------------------------------------------------------ Lustre striping
def test_setstripe_argv():
    assert setstripe_argv("/l/d/ior-easy", Stripe(count=-1, size="1M", pool="flash")) == [
        "lfs", "setstripe", "-c", "-1", "-S", "1M", "-p", "flash", "/l/d/ior-easy"]
    assert setstripe_argv("/l/d/ior-hard", Stripe(count=4)) == [
        "lfs", "setstripe", "-c", "4", "/l/d/ior-hard"]
    # as a planned step carries it: a plain dict; a size lfs does not read becomes bytes
    assert setstripe_argv("/x", {"count": 2, "size": "4MiB", "pool": None}) == [
        "lfs", "setstripe", "-c", "2", "-S", str(4 << 20), "/x"]


def test_apply_stripes_without_lfs_makes_the_directories_and_warns(make_ctx, tmp_path):
    assert shutil.which("lfs") is None, "this test expects a host without Lustre tools"
    ctx = make_ctx()
    base = tmp_path / "lustre"
    warnings = apply_stripes(ctx, base, {"ior-easy": {"count": -1, "size": "1M", "pool": None},
                                         "mdtest-hard": Stripe(count=1)})
    assert warnings == ["lfs not found: striping for ior-easy not applied",
                        "lfs not found: striping for mdtest-hard not applied"]
    assert (base / "ior-easy").is_dir() and (base / "mdtest-hard").is_dir()
    assert apply_stripes(ctx, base, {}) == []
    with pytest.raises(UserError, match=r"'\.\./up'"):
        apply_stripes(ctx, base, {"../up": {"count": 1}})


# ------------------------------------------------------------------ the runner, here
def test_missing_io500_fails_in_one_line(make_ctx, tmp_path):
    assert shutil.which("io500") is None, "this test expects a host without IO500"
    ctx = make_ctx(launcher=MPI, stripe={"ior-easy": {"count": 4}})
    runner = Io500Runner()
    runner.prepare(ctx)
    config = read_ini((ctx.step_dir / CONFIG_FILE).read_text())
    assert config["global"]["datadir"] == str(data_dir(ctx))
    assert config["global"]["resultdir"] == str(result_dir(ctx))
    assert (data_dir(ctx) / "ior-easy").is_dir()
    outcome = runner.run(ctx)
    assert outcome.status == "failed"
    assert outcome.error == ("io500 not found on PATH: not packaged for Debian; build it "
                             "(github.com/IO500/io500) and set `binary:`")
    assert "\n" not in outcome.error
    assert outcome.warnings == ["lfs not found: striping for ior-easy not applied"]
    assert not ctx.commands  # nothing was run
    runner.cleanup(ctx)
    assert not ctx.work_dir.exists()


def test_missing_binary_path_and_launcher_are_named(make_ctx):
    ctx = make_ctx(tool="ior", binary="/nonexistent/ior")
    runner = Io500Runner()
    runner.prepare(ctx)
    out = runner.run(ctx)
    assert out.status == "failed"
    assert out.error.startswith("ior not found at /nonexistent/ior: not packaged for Debian")
    assert "github.com/hpc/ior" in out.error
    ctx = make_ctx(tool="mdtest", binary="cat", launcher=["no-such-mpirun", "-np", "2"])
    runner.prepare(ctx)
    out = runner.run(ctx)
    assert out.status == "failed" and out.error.startswith("no-such-mpirun not found on PATH")


def test_mdtest_output_is_parsed_from_the_run(make_ctx):
    """`cat` replays a recorded mdtest run: the runner's command line, its kept output and
    the parsed records."""
    ctx = make_ctx(tool="mdtest", binary="cat", launcher=[], args=[str(MDTEST_OUT)])
    runner = Io500Runner()
    runner.prepare(ctx)
    out = runner.run(ctx)
    assert out.status == "ok", out.error
    assert [r.operation for r in out.records] == ["file_create", "tree_create"]
    assert all(isinstance(r, MdtestRecord) for r in out.records)
    assert out.records[0].rate.mean == pytest.approx(3137.656)
    assert (ctx.step_dir / "mdtest.stdout").read_text() == MDTEST_OUT.read_text()
    assert ctx.commands[0].argv == ["cat", str(MDTEST_OUT)]
    assert ctx.commands[0].cwd == str(data_dir(ctx))  # relative paths land in the data dir


def test_tool_failure_keeps_records_and_the_last_stderr_line(make_ctx, tmp_path):
    user_dir = tmp_path / "user-data"
    user_dir.mkdir()
    (user_dir / "keep").write_text("mine")
    script = f"touch made-here; cat {MDTEST_OUT}; echo 'started' >&2; " \
             "echo 'ERROR: cannot remove tree' >&2; exit 3"
    ctx = make_ctx(tool="mdtest", binary="sh", launcher=[], args=["-c", script],
                   directory=str(user_dir))
    runner = Io500Runner()
    runner.prepare(ctx)
    out = runner.run(ctx)
    assert out.status == "failed"
    assert out.error == "mdtest: ERROR: cannot remove tree"
    assert len(out.records) == 2  # measured before the failure: kept
    assert (user_dir / "made-here").is_file()
    runner.cleanup(ctx)
    assert (user_dir / "keep").read_text() == "mine"  # a user's directory is left alone
    assert (user_dir / "made-here").is_file()


def test_no_output_is_a_failure(make_ctx):
    ctx = make_ctx(tool="mdtest", binary="true", launcher=[])
    runner = Io500Runner()
    runner.prepare(ctx)
    out = runner.run(ctx)
    assert out.status == "failed" and out.error == "mdtest printed no result"


def test_io500_results_are_copied_and_parsed(make_ctx):
    """A launcher that plays io500: reads resultdir from the generated config and leaves a
    recorded result_summary.txt there, as rank 0 would."""
    pytest.importorskip("stackprobe.parsers.hpc.io500_result")
    pytest.importorskip("stackprobe.analysis.io500_score")
    play = ("d=$(sed -n 's/^resultdir = //p' \"$2\"); "
            f"cp {IO500_SUMMARY} \"$d/result_summary.txt\"")
    ctx = make_ctx(binary="true", launcher=["sh", "-c", play, "sh"])
    runner = Io500Runner()
    runner.prepare(ctx)
    out = runner.run(ctx)
    assert out.status == "ok", out.error
    assert len(out.records) == 1
    rec = out.records[0]
    assert rec.type == "io500" and rec.score_computed is not None
    assert (ctx.step_dir / "results" / "result_summary.txt").read_text() == IO500_SUMMARY.read_text()
    runner.cleanup(ctx)
    assert not ctx.work_dir.exists()
