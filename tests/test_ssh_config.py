"""SSH settings as OpenSSH users expect them: the command line over the hosts file over the
ssh config over OpenSSH's defaults. Checked with asyncssh's own reading of the options and
of an ssh config file (what a connection would use), never with root's ~/.ssh: HOME is a
scratch directory and no agent is reachable."""

from __future__ import annotations

import getpass

import asyncssh
import pytest

from stackprobe.spec.host_sources import parse_hostlist
from stackprobe.spec.host_sources.ssh_options import with_ssh_options
from stackprobe.spec.hosts import HostsFile
from stackprobe.transport.ssh import connect_options


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    for name in ("config_key", "file_key"):
        key = asyncssh.generate_private_key("ssh-ed25519")
        key.write_private_key(str(tmp_path / name))
    (tmp_path / "known_hosts").write_text("")
    config = tmp_path / "ssh_config"
    config.write_text(
        "Host h1\n  HostName 10.99.0.11\n  Port 2201\n  User carol\n"
        "  ProxyJump jump@gw:2222\n"
        f"Host h*\n  IdentityFile {tmp_path / 'config_key'}\n"
        f"  UserKnownHostsFile {tmp_path / 'known_hosts'}\n")
    return tmp_path


def public(path) -> bytes:
    return asyncssh.read_private_key(str(path)).public_data


def keys(options) -> list[bytes]:
    return [k.public_data for k in options.client_keys]


def resolved(hosts: HostsFile, name: str) -> asyncssh.SSHClientConnectionOptions:
    host = next(h for h in hosts.hosts if h.name == name)
    return asyncssh.SSHClientConnectionOptions(host=host.address,
                                               **connect_options(hosts.ssh_for(host)))


def test_the_ssh_config_gives_what_the_hosts_leave_unset(home):
    hosts = with_ssh_options(parse_hostlist("h[1-2]"), config=str(home / "ssh_config"))
    one = resolved(hosts, "h1")
    assert (one.host, one.port, one.username) == ("10.99.0.11", 2201, "carol")
    assert one.tunnel == "jump@gw:2222"  # ProxyJump
    assert keys(one) == [public(home / "config_key")]  # its IdentityFile, no default key
    assert one.known_hosts == [str(home / "known_hosts")]
    two = resolved(hosts, "h2")  # not in `Host h1`: OpenSSH's defaults
    assert (two.host, two.port, two.username) == ("h2", 22, getpass.getuser())
    assert keys(two) == [public(home / "config_key")]  # `Host h*`
    assert not two.agent_path  # no SSH_AUTH_SOCK here: no agent


def test_the_hosts_file_beats_the_ssh_config_and_the_command_line_beats_both(home):
    data = {"ssh": {"user": "filewide", "identity": str(home / "file_key"),
                    "config": str(home / "ssh_config")},
            "hosts": [{"name": "h1", "address": "h1", "ssh": {"port": 2299}}]}
    hosts = HostsFile.model_validate(data)
    one = resolved(hosts, "h1")
    assert (one.host, one.port, one.username) == ("10.99.0.11", 2299, "filewide")
    assert keys(one) == [public(home / "file_key")]
    cli = resolved(with_ssh_options(hosts, user="dave", port=2022), "h1")
    assert (cli.host, cli.port, cli.username) == ("10.99.0.11", 2022, "dave")


def test_the_agent_is_offered_when_there_is_one(home, monkeypatch):
    monkeypatch.setenv("SSH_AUTH_SOCK", str(home / "agent.sock"))
    hosts = with_ssh_options(parse_hostlist("h1"), config=str(home / "ssh_config"))
    assert resolved(hosts, "h1").agent_path == str(home / "agent.sock")


def test_no_silent_root_and_known_hosts_none_still_means_any_key(home):
    plain = parse_hostlist("n1")
    assert connect_options(plain.ssh_for(plain.hosts[0])) == {"config": ()}  # OpenSSH's rules
    lab = HostsFile.model_validate({"ssh": {"user": "root", "known_hosts": "none"},
                                    "hosts": [{"name": "n1", "address": "127.0.0.1"}]})
    opts = connect_options(lab.ssh_for(lab.hosts[0]))
    assert opts == {"username": "root", "known_hosts": None, "config": ()}


def test_hosts_known_by_name_get_the_config_hostname_as_address(home):
    from stackprobe.cli.hosts_arg import SshOptions, load

    hosts = load("h[1-2]", SshOptions(config=home / "ssh_config"))
    by = {h.name: h for h in hosts.hosts}
    assert (by["h1"].address, by["h1"].ssh.destination) == ("10.99.0.11", "h1")
    assert (by["h2"].address, by["h2"].ssh.destination) == ("h2", None)  # no HostName for it
    one = asyncssh.SSHClientConnectionOptions(host=by["h1"].ssh.destination,
                                              **connect_options(hosts.ssh_for(by["h1"])))
    assert (one.host, one.username) == ("10.99.0.11", "carol")  # ssh still matches `Host h1`


def test_config_none_reads_no_ssh_config(home):
    (home / ".ssh").mkdir()
    (home / ".ssh" / "config").write_text("Host *\n  User eve\n")
    plain = parse_hostlist("n1")
    assert resolved(plain, "n1").username == "eve"  # ~/.ssh/config, as OpenSSH reads it
    assert resolved(with_ssh_options(plain, config="none"), "n1").username == getpass.getuser()
