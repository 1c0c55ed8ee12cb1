"""transport/replay.py: commands recorded through a real transport, answered again to other
hosts — matched with host, address, run id and root written out, outputs given the
replaying host's address, the recorded duration waited, nothing invented."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from stackprobe.spec.hosts import HostsFile
from stackprobe.transport.fleet import Fleet
from stackprobe.transport.local import LocalTransport
from stackprobe.transport.replay import (
    NOT_RECORDED,
    Exchange,
    Recording,
    RecordingTransport,
    ReplayTransport,
    command_key,
    normalise,
)

RUN = "20261125T061200Z-fleet-scale"


def test_normalise_writes_out_what_differs_between_hosts_and_runs():
    root = "/tmp/stackprobe-fleet-scale-abc/real-8"
    path = f"{root}/lab/h12/data/stackprobe-{RUN}-h12/02-null-fleet"
    assert normalise(path, root) == "{root}/lab/{host}/data/stackprobe-{run}-{host}/02-null-fleet"
    assert normalise("--client=ip:10.99.0.23,8765") == "--client=ip:{addr},8765"
    assert normalise("-B 127.1.3.250") == "-B {addr}"
    assert normalise(f"{root}/runs/{RUN}/steps", root) == "{root}/runs/{run}/steps"
    # words that merely contain an h and digits stay as they are
    assert normalise("sha256 th1s eth0") == "sha256 th1s eth0"
    assert command_key(["ls", "h3"], cwd="/x/h3") == "ls {host} @ /x/{host}"


def _record(tmp_path: Path) -> Recording:
    rec = Recording(root=str(tmp_path))
    for name, addr in (("h1", "10.99.0.11"), ("h2", "10.99.0.12")):
        t = RecordingTransport(LocalTransport(name), addr, rec)
        res = t.run([sys.executable, "-c", f"import time; time.sleep(0.2); print('inet {addr}/24 "
                     f"on {name}')"])
        assert res.ok
    return rec


def test_a_recorded_command_is_answered_to_another_host_after_its_recorded_time(tmp_path):
    rec = _record(tmp_path)
    assert len(rec.exchanges) == 2 and all(e.duration_s >= 0.2 for e in rec.exchanges)
    argv = [sys.executable, "-c", "import time; time.sleep(0.2); print('inet 127.1.0.8/24 on h7')"]
    replay = ReplayTransport("h7", "127.1.0.8", rec, index=1, root=str(tmp_path))
    t0 = time.monotonic()
    res = replay.run(argv)
    assert time.monotonic() - t0 >= 0.2
    assert res.ok and res.host == "h7"
    # the second recording (index 1: h2's), with h7's address where h2's stood
    assert res.stdout.strip() == "inet 127.1.0.8/24 on h2"
    assert replay.unanswered == []


def test_an_unrecorded_command_fails_and_is_listed(tmp_path):
    replay = ReplayTransport("h1", "127.1.0.2", _record(tmp_path))
    res = replay.run(["fio", "--version"])
    assert res.returncode == NOT_RECORDED and not res.ok
    assert "no recording of: fio --version" in res.stderr
    assert replay.unanswered == ["fio --version"]


def test_a_recording_survives_saving_and_a_bad_line_is_named(tmp_path):
    rec = _record(tmp_path)
    path = tmp_path / "rec.jsonl"
    rec.save(path)
    again = Recording.load(path)
    assert [e.key for e in again.exchanges] == [e.key for e in rec.exchanges]
    path.write_text(path.read_text() + '{"host": "h3"}\n')
    with pytest.raises(ValueError, match=r"rec\.jsonl:3: not a recorded exchange"):
        Recording.load(path)


def test_background_commands_start_and_stop_as_recorded(tmp_path):
    rec = Recording(exchanges=[
        Exchange("h1", "10.99.0.11", "iperf3 -s -B {addr}", 0, "", "", 0.05, "start"),
        Exchange("h1", "10.99.0.11", "iperf3 -s -B {addr}", None, "", "", 0.1, "stop")])
    replay = ReplayTransport("h9", "127.1.0.10", rec)
    bg = replay.start(["iperf3", "-s", "-B", "127.1.0.10"], log="/nowhere")
    assert bg.alive()
    t0 = time.monotonic()
    bg.stop()
    assert not bg.alive() and time.monotonic() - t0 >= 0.1
    with pytest.raises(OSError, match="could not start sadc"):
        replay.start(["sadc", "1"], log="/nowhere")


def test_an_interrupt_cuts_the_wait_short(tmp_path):
    rec = Recording(exchanges=[Exchange("h1", "", "sleep 30", 0, "", "", 30.0)])
    replay = ReplayTransport("h1", "127.1.0.2", rec)
    replay.interrupt()
    t0 = time.monotonic()
    res = replay.run(["sleep", "30"])
    # not the recorded 30 s (a generous bound: make test runs this tier at nice 19)
    assert res.interrupted and time.monotonic() - t0 < 5
    replay.clear_interrupt()
    res = replay.run(["sleep", "30"], timeout=0.1)
    assert res.timed_out


def test_a_fleet_reaches_its_hosts_through_what_it_is_given(tmp_path):
    hosts = HostsFile.model_validate({"hosts": [
        {"name": f"h{i}", "address": f"127.1.0.{i}"} for i in (1, 2, 3)]})
    rec = Recording(exchanges=[Exchange("h1", "10.99.0.11", "mkdir -p -- /tmp/stackprobe-{run}-{host}",
                                        0, "", "", 0.0)])
    fleet = Fleet(hosts, ["h1", "h2", "h3"], RUN,
                  through=lambda host, _t: ReplayTransport(host.name, host.address, rec))
    try:
        assert all(isinstance(h.transport, ReplayTransport) for h in fleet.handles.values())
        fleet.open()  # every host's mkdir answered from the one recording
    finally:
        fleet.pool.close()


def test_a_command_asked_again_gets_the_recorded_hosts_answers_in_order(tmp_path):
    """A wait that asks the same question until the answer changes (is the port free, is the
    server listening) must see the change on a replayed host too: each recorded host's
    answers in the order it got them, the last repeated — not one answer forever."""
    rec = Recording(root=str(tmp_path))
    for name, answers in (("h1", ["free", "free", "listening"]), ("h2", ["free", "listening"])):
        for out in answers:
            rec.add(Exchange(name, "", "ss -ltn", 1 if out == "free" else 0, out, "", 0.0))
    seen = {}
    for index in (0, 1, 2):
        replay = ReplayTransport(f"h{index + 7}", "127.1.0.8", rec, index=index)
        seen[index] = [replay.run(["ss", "-ltn"]).stdout for _ in range(4)]
    assert seen[0] == ["free", "free", "listening", "listening"]  # h1's answers
    assert seen[1] == ["free", "listening", "listening", "listening"]  # h2's
    assert seen[2] == seen[0]  # the third replayed host answers as the first recorded one
