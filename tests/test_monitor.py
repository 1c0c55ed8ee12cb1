"""HostMonitor with the real LocalTransport, sadc, sadf and fio: samples during a real
write load, the load seen on the device holding the file, nothing left running, and every
failure returned as a one-line problem instead of an exception."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from child_run import run_to_end
from stackprobe.monitor import HostMonitor, summarise, write_samples_json
from stackprobe.monitor.sampler import SADC
from stackprobe.transport.base import CommandResult
from stackprobe.transport.local import LocalTransport

needs_sysstat = pytest.mark.skipif(not (Path(SADC).exists() and shutil.which("sadf")),
                                   reason="sysstat (sadc, sadf) not installed")


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture
def monitors():
    """Register a monitor; whatever a failing test left running is stopped (by PID)."""
    started: list[HostMonitor] = []

    def register(monitor: HostMonitor) -> HostMonitor:
        started.append(monitor)
        return monitor

    yield register
    for monitor in started:
        if monitor.pid is not None:
            monitor.stop()


def _wait_dead(pid: int, timeout: float = 5.0) -> None:
    """Until the process has exited (a zombie, not yet reaped, counts as exited)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return
        if state in ("Z", "X"):
            return
        time.sleep(0.05)
    raise AssertionError(f"PID {pid} still running after {timeout} s")


def _sys_block(major: int, minor: int) -> Path | None:
    path = Path(f"/sys/dev/block/{major}:{minor}")
    return path.resolve() if path.exists() else None


def _mount_source(major: int, minor: int) -> str | None:
    """The source of the mount with this (anonymous, e.g. btrfs) device number."""
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        if fields[2] == f"{major}:{minor}" and " - " in line:
            return line.split(" - ", 1)[1].split()[1]
    return None


def block_devices_of(path: Path) -> set[str]:
    """Names sadc may report the I/O to `path` under: the device holding its file system,
    the whole disk when that is a partition, and the disks under a dm/md device."""
    dev = os.stat(path).st_dev
    node = _sys_block(os.major(dev), os.minor(dev))
    if node is None:
        source = _mount_source(os.major(dev), os.minor(dev))
        if source and source.startswith("/dev/") and os.path.exists(source):
            rdev = os.stat(source).st_rdev
            node = _sys_block(os.major(rdev), os.minor(rdev))
    names: set[str] = set()
    todo = [node] if node is not None else []
    while todo:
        n = todo.pop()
        names.add(n.name)
        if (n / "partition").exists():
            todo.append(n.parent)
        slaves = n / "slaves"
        if slaves.is_dir():
            todo.extend(s.resolve() for s in slaves.iterdir())
    return names


@pytest.mark.tools
@needs_sysstat
@pytest.mark.skipif(shutil.which("fio") is None, reason="fio not installed")
def test_monitor_sees_a_real_fio_write_load(workdir, monitors):
    devices = block_devices_of(workdir)
    if not devices:
        pytest.skip(f"no block device found for {workdir}")
    mon_dir = workdir / "mon"
    mon_dir.mkdir()
    transport = LocalTransport()
    monitor = monitors(HostMonitor())
    monitor.start(transport, str(mon_dir))
    pid = monitor.pid
    assert pid is not None
    fio = transport.run(["fio", "--name=t", f"--filename={workdir}/f", "--size=64M",
                         "--rw=randwrite", "--bs=4k", "--direct=1", "--ioengine=libaio",
                         "--runtime=3", "--time_based", "--output-format=json"], timeout=120)
    assert fio.ok, fio.stderr
    result = monitor.stop()

    assert result.problem is None, result.problem
    assert _gone(pid), f"sadc (PID {pid}) still running"
    assert result.sadc_pid == pid
    assert (mon_dir / "monitor.sa").stat().st_size > 0
    assert result.raw_json.startswith('{"sysstat"')
    assert result.commands[-1].argv[:3] == ["sadf", "-j", str(mon_dir / "monitor.sa")]
    series = result.series
    assert series is not None and series.host == transport.host
    assert len(series.samples) >= 3  # fio alone ran 3 s
    assert series.samples[-1].t - series.samples[0].t >= 2
    assert sum(s.interval_s for s in series.samples) >= 3

    fio_iops = json.loads(fio.stdout)["jobs"][0]["write"]["iops"]
    seen = {name: max(s.disks[name].iops for s in series.samples if name in s.disks)
            for name in devices if any(name in s.disks for s in series.samples)}
    assert seen, f"none of {sorted(devices)} in sadc's disks"
    # the device saw at least half of fio's mean rate in its busiest second
    assert max(seen.values()) >= 0.5 * fio_iops, (seen, fio_iops)
    busiest = max(seen, key=seen.__getitem__)
    assert max(s.disks[busiest].write_bps for s in series.samples) >= 0.5 * fio_iops * 4096

    summary = summarise(series)
    assert busiest in summary["disks"]
    assert summary["cpu"]["busy_max_pct"] > 0
    doc = json.loads(write_samples_json(series))
    assert len(doc["samples"]) == len(series.samples)


@pytest.mark.tools
@needs_sysstat
def test_sadc_that_died_is_a_problem_not_an_exception(tmp_path, monitors):
    monitor = monitors(HostMonitor())
    monitor.start(LocalTransport(), str(tmp_path))
    pid = monitor.pid
    assert pid is not None
    time.sleep(1.5)
    os.kill(pid, signal.SIGKILL)  # the sadc this test started, by its PID
    _wait_dead(pid)
    result = monitor.stop()
    assert result.problem is not None and "\n" not in result.problem
    assert result.problem.startswith("sadc ended before the step did (exit status -9)")
    assert _gone(pid)
    assert result.series is not None  # what it wrote before dying is still read
    assert len(result.series.samples) == 1


@pytest.mark.tools
@needs_sysstat
def test_sadc_that_refuses_to_run(tmp_path, monitors):
    monitor = monitors(HostMonitor(interval_s=0))  # sadc: usage message, exit status 1
    monitor.start(LocalTransport(), str(tmp_path))
    pid = monitor.pid
    assert pid is not None
    _wait_dead(pid)
    result = monitor.stop()
    assert result.problem is not None and "\n" not in result.problem
    assert result.problem.startswith("sadc ended before the step did (exit status 1): Usage: ")
    assert result.problem.endswith("; sadf exit status 2: Cannot open "
                                   f"{tmp_path}/monitor.sa: No such file or directory")
    assert result.series is None
    assert "Options are:" in result.sadc_log
    assert [c.argv[0] for c in result.commands] == ["cat", "sadf"]


def test_missing_directory(tmp_path):
    """Locally the log cannot be opened in a missing directory: start fails, stop says so."""
    monitor = HostMonitor()
    monitor.start(LocalTransport(), str(tmp_path / "missing"))
    result = monitor.stop()
    assert result.problem is not None and result.problem.startswith("could not start sadc on ")
    assert "missing/monitor.sadc.log" in result.problem


def test_host_without_sadc(tmp_path):
    monitor = HostMonitor(sadc=str(tmp_path / "no-sadc"))
    monitor.start(LocalTransport(), str(tmp_path))
    assert monitor.pid is None
    result = monitor.stop()
    assert result.problem is not None
    assert result.problem.startswith("could not start sadc on ")
    assert "No such file or directory" in result.problem
    assert result.series is None and result.raw_json == ""


@needs_sysstat
def test_host_without_sadf(tmp_path, monitors):
    monitor = monitors(HostMonitor(sadf=str(tmp_path / "no-sadf")))
    monitor.start(LocalTransport(), str(tmp_path))
    pid = monitor.pid
    time.sleep(0.3)
    result = monitor.stop()
    assert result.problem is not None and result.problem.startswith("sadf did not start: ")
    assert pid is not None and _gone(pid)


@pytest.mark.tools
@needs_sysstat
def test_step_shorter_than_the_interval(tmp_path, monitors):
    monitor = monitors(HostMonitor())
    monitor.start(LocalTransport(), str(tmp_path))
    time.sleep(0.4)
    result = monitor.stop()
    assert result.series is not None and result.series.samples == []
    assert result.series.interval_s == 1.0
    assert result.problem is not None and result.problem.startswith("no samples")


def test_stop_without_start():
    assert HostMonitor().stop().problem == "monitor was not started"


class _BrokenTransport:
    """A host whose connection drops: every command raises (as an SSH transport could)."""

    host = "h1"

    def run(self, argv, **kwargs) -> CommandResult:
        raise OSError("ssh h1: connection lost")

    def start(self, argv, **kwargs):
        raise OSError("ssh h1: connection lost")


def test_connection_lost_is_a_problem():
    monitor = HostMonitor()
    monitor.start(_BrokenTransport(), "/scratch")
    result = monitor.stop()
    assert result.problem == "could not start sadc on h1: ssh h1: connection lost"
    assert result.host == "h1"


@pytest.mark.tools
@pytest.mark.root
@needs_sysstat
@pytest.mark.skipif(not Path("/usr/sbin/sshd").exists(), reason="no sshd")
def test_monitor_over_ssh(local_sshd, tmp_path, monitors):
    """The same through SshTransport to 127.0.0.1: sadc detached there, stopped by its
    PID there; a host without sadc is a problem line quoting the remote shell."""
    from stackprobe.transport.ssh import SshPool, SshTransport

    pool = SshPool()
    try:
        transport = SshTransport("loop", "127.0.0.1", local_sshd, pool)
        monitor = monitors(HostMonitor())
        monitor.start(transport, str(tmp_path))
        pid = monitor.pid
        assert pid is not None
        time.sleep(2.5)
        result = monitor.stop()
        assert result.problem is None, result.problem
        assert result.host == "loop" and result.sadc_pid == pid
        assert result.series is not None and len(result.series.samples) >= 2
        _wait_dead(pid)  # exited; its new parent (init) may not have reaped it yet

        missing = monitors(HostMonitor(sadc=str(tmp_path / "no-sadc")))
        missing.start(transport, str(tmp_path))
        time.sleep(0.5)
        result = missing.stop()
        assert result.problem is not None and "\n" not in result.problem
        # the remote shell names itself after its $0, the log path
        assert result.problem.startswith("sadc ended before the step did: ")
        assert f"exec: {tmp_path}/no-sadc: not found" in result.problem
        assert result.series is None  # the first run's monitor.sa was removed at start

        no_dir = monitors(HostMonitor())
        no_dir.start(transport, str(tmp_path / "missing"))  # the log cannot be written there
        time.sleep(0.5)
        result = no_dir.stop()
        assert result.problem is not None
        assert result.problem.startswith("sadc ended before the step did: no message (its log is ")
        assert "; sadf exit status 2: Cannot open " in result.problem
    finally:
        pool.close()


@pytest.mark.tools
def test_a_run_records_monitoring_and_hints_for_its_step(tmp_path):
    """A real one-step run: the step has the host's samples file, sadf's raw output, a
    summary in results.json, and the summary saw the fio load."""
    import json
    import sys

    suite = tmp_path / "m.yaml"
    suite.write_text("name: mon\nsteps:\n  - {kind: fio, name: w, rw: randwrite, bs: 4k, "
                     "iodepth: 8, size: 32M, runtime: 3, time_based: true, ioengine: libaio, "
                     "direct: 1}\n")
    proc = run_to_end([sys.executable, "-m", "stackprobe", "run", str(suite), "--target",
                       str(tmp_path), "--out", str(tmp_path / "runs")], timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    run = next((tmp_path / "runs").glob("*-mon"))
    step = json.loads((run / "results.json").read_text())["steps"][0]
    [(host, mon)] = step["monitor"].items()
    samples = json.loads((run / "steps" / step["id"] / mon["file"]).read_text())["samples"]
    assert len(samples) >= 2 and (run / "steps" / step["id"] / mon["raw"]).is_file()
    assert mon["summary"]["disks"], "fio's writes not seen on any device"
    assert mon["summary"]["cpu"]["busy_max_pct"] > 0
    off = run_to_end([sys.executable, "-m", "stackprobe", "run", str(suite), "--target",
                      str(tmp_path), "--out", str(tmp_path / "runs2"), "--no-monitor"],
                     timeout=300)
    assert off.returncode == 0
    step2 = json.loads(next((tmp_path / "runs2").glob("*-mon/results.json")).read_text())["steps"][0]
    assert step2["monitor"] == {} and not list((tmp_path / "runs2").glob("*/steps/*/monitor-*"))


@pytest.mark.tools
@needs_sysstat
def test_a_long_step_is_read_a_segment_at_a_time(tmp_path, monitors):
    """segment_s: a new sadc on a new file every segment, the old file read by sadf, handed
    over and removed from the host; the seconds come out contiguous, none counted twice."""
    from stackprobe.monitor.segments import HostFold

    host_dir = tmp_path / "host"
    host_dir.mkdir()
    fold = HostFold("local", tmp_path / "step" / "monitor-local.sadf.json.gz")
    monitor = monitors(HostMonitor(segment_s=3, on_segment=fold.add))
    monitor.start(LocalTransport(), str(host_dir))
    time.sleep(8.5)
    result = monitor.stop()
    assert result.problem is None, result.problem
    assert result.series is None and result.segments >= 3
    times = [s.t for s in fold.series().samples]
    assert 6 <= len(times) <= 10, times
    assert times == sorted(set(times)) and times[-1] - times[0] <= len(times)  # no gap, no twice
    assert fold.summary(None)["samples"] == len(times)
    assert not list(host_dir.glob("monitor-*.sa")), list(host_dir.iterdir())  # read, then removed
    raw = gzip_docs(tmp_path / "step" / "monitor-local.sadf.json.gz")
    assert result.segments - 1 <= len(raw) <= result.segments and all("sysstat" in d for d in raw)


def gzip_docs(path: Path) -> list[dict]:
    import gzip

    text = gzip.decompress(path.read_bytes()).decode()
    decoder, docs, at = json.JSONDecoder(), [], 0
    while text[at:].strip():
        while text[at].isspace():
            at += 1
        doc, at = decoder.raw_decode(text, at)
        docs.append(doc)
    return docs
