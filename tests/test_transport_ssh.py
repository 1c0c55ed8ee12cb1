"""SshTransport against a real sshd on 127.0.0.1: quoting, exit status, timeouts, live
stdout, interrupts and background processes — every stop by the remote PID."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cephlab import pid_alive
from stackprobe.transport.pid_tag import split_pid
from stackprobe.transport.ssh import SshPool, SshTransport, remote_command

# beside the one-at-a-time system tests (tests/run_tiers.py): SSH to 127.0.0.1; its time limits bound a timeout or an interrupt, which a slower run only makes harder to meet
pytestmark = [pytest.mark.tools, pytest.mark.root, pytest.mark.beside]


@pytest.fixture(scope="module")
def ssh(local_sshd):
    pool = SshPool()
    t = SshTransport("loop", "127.0.0.1", local_sshd, pool)
    yield t
    pool.close()


def test_remote_command_quotes_everything():
    line = remote_command(["printf", "%s", "a; touch /tmp/x $(id)"], cwd="/tmp/a b", env={"K": "v w"})
    assert "'a; touch /tmp/x $(id)'" in line and "cd '/tmp/a b'" in line and "'K=v w'" in line
    assert split_pid("__stackprobe_pid__42\nrest") == (42, "rest")


@pytest.mark.parametrize("nasty", ["a;b", "$(touch {m})", "`touch {m}`", "x && touch {m}",
                                   "two words", "'quoted'", '"dq"', "new\nline", "*", "~"])
def test_arguments_run_nothing_extra(ssh, tmp_path, nasty):
    marker = tmp_path / "marker"
    arg = nasty.format(m=marker)
    res = ssh.run(["printf", "%s", arg])
    assert res.ok, res.stderr
    assert res.stdout == arg, "passed as one literal argument"
    assert not marker.exists(), "nothing extra ran"


def test_cwd_env_and_exit_status(ssh, tmp_path):
    d = tmp_path / "with space; and $(x)"
    d.mkdir()
    res = ssh.run(["sh", "-c", 'pwd; echo "$K"; echo err >&2; exit 7'], cwd=str(d), env={"K": "v;w"})
    assert res.returncode == 7 and res.stdout == f"{d}\nv;w\n" and res.stderr == "err\n"
    assert res.host == "loop" and res.pid


def test_timeout_stops_the_remote_process_by_pid(ssh):
    t0 = time.monotonic()
    res = ssh.run(["sleep", "60"], timeout=2)
    assert res.timed_out and time.monotonic() - t0 < 20
    assert res.pid and not pid_alive(res.pid)  # the same kernel: the PID is visible here


def test_live_stdout_can_end_the_command(ssh):
    seen = []

    def on_stdout(text):
        seen.append(text)
        return "tick 3" in "".join(seen)

    res = ssh.run(["sh", "-c", "for i in 1 2 3 4 5 6 7 8 9; do echo tick $i; sleep 0.5; done"],
                  on_stdout=on_stdout, timeout=30)
    assert res.stopped_early and "tick 3" in res.stdout and "tick 9" not in res.stdout


def test_interrupt_reaches_the_remote_process(ssh):
    import threading

    timer = threading.Timer(1.5, ssh.interrupt)
    timer.start()
    t0 = time.monotonic()
    res = ssh.run(["sleep", "30"])
    assert res.interrupted and time.monotonic() - t0 < 10
    ssh.clear_interrupt()
    assert ssh.run(["true"]).ok


def test_background_process(ssh, tmp_path):
    log = tmp_path / "bg.log"
    bg = ssh.start(["sh", "-c", "echo started; sleep 60"], log=str(log))
    time.sleep(0.5)
    assert bg.alive() and pid_alive(bg.pid)
    assert log.read_text() == "started\n"
    bg.stop(grace_s=2)
    assert not bg.alive() and not pid_alive(bg.pid)


def test_many_commands_in_parallel_share_one_connection(ssh):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(16) as ex:
        results = list(ex.map(lambda i: ssh.run(["echo", str(i)]), range(40)))
    assert [r.stdout for r in results] == [f"{i}\n" for i in range(40)]
    assert len(ssh.pool._conns) == 1


def test_unreachable_host_is_a_result(local_sshd):
    pool = SshPool()
    try:
        bad = SshTransport("nobody", "127.0.0.1", local_sshd.model_copy(update={"port": 1}), pool)
        res = bad.run(["true"])
        assert res.returncode is None and res.stderr.startswith("ssh nobody:")
    finally:
        pool.close()


# What a login shell's start-up files print on a busy host (seen in the lab: root's .bashrc
# runs `eval "$(pyenv init -)"`, whose rehash races with the other sessions' and fails).
STARTUP_NOISE = ("rm: cannot remove '/root/.pyenv/shims/tmp.X': No such file or directory\n"
                 "pyenv: cannot rehash: /root/.pyenv/shims isn't writable\n") * 3


@pytest.fixture(scope="module")
def noisy(local_sshd, tmp_path_factory):
    """The same sshd reached with a second key whose login prints STARTUP_NOISE on stderr
    before running the command, as a noisy shell start-up does."""
    import subprocess

    d = tmp_path_factory.mktemp("noisy")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / "key")], check=True)
    (d / "noise").write_text(STARTUP_NOISE)
    login = d / "login.sh"  # the forced command: start-up text, then the command asked for
    login.write_text(f'#!/bin/sh\ncat {d / "noise"} >&2\nexec sh -c "$SSH_ORIGINAL_COMMAND"\n')
    login.chmod(0o755)
    keys = Path(local_sshd.identity).parent / "authorized_keys"
    keys.write_text(keys.read_text() + f'command="{login}" ' + (d / "key.pub").read_text())
    pool = SshPool()
    yield SshTransport("noisy", "127.0.0.1", local_sshd.model_copy(update={"identity": str(d / "key")}),
                       pool)
    pool.close()


def test_a_noisy_login_shell_leaves_the_tools_stderr_and_the_pid(noisy):
    res = noisy.run(["sh", "-c", "echo out; echo err >&2"])
    assert res.ok and res.stdout == "out\n" and res.stderr == "err\n", res.stderr
    assert res.pid


def test_a_noisy_login_shell_can_still_be_interrupted(noisy):
    """The PID comes after the start-up text: Ctrl-C still reaches the command."""
    import threading

    timer = threading.Timer(1.5, noisy.interrupt)
    timer.start()
    t0 = time.monotonic()
    res = noisy.run(["sleep", "30"])
    assert res.interrupted and time.monotonic() - t0 < 10 and not pid_alive(res.pid)
    noisy.clear_interrupt()


def test_a_noisy_login_shell_starts_background_processes(noisy, tmp_path):
    bg = noisy.start(["sleep", "60"], log=str(tmp_path / "bg.log"))
    assert bg.alive()
    bg.stop(grace_s=2)
    assert not pid_alive(bg.pid)
