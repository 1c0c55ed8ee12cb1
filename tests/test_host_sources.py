"""--hosts the way clusters list their hosts: ranges with roles, MPI hostfiles, Ansible
inventories (INI and YAML) — each read into the same HostsFile hosts.yaml gives, and every
problem refused in one line naming the file, the line and the field."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from stackprobe.errors import UserError
from stackprobe.spec.host_sources import MAX_HOSTS, Form, form_of, parse_file, parse_hostlist
from stackprobe.suite.hosts_value import load_hosts_value, stored

SOURCES = FIXTURES / "synthetic" / "host_sources"


def roles(hosts) -> dict[str, list[str]]:
    return {h.name: sorted(h.roles) for h in hosts.hosts}


def test_ranges_expand_with_padding_and_default_role():
    hosts = parse_hostlist("node[01-03],gw1")
    assert roles(hosts) == {"node01": ["client"], "node02": ["client"], "node03": ["client"],
                            "gw1": ["client"]}
    assert all(h.address == h.name for h in hosts.hosts)  # an ssh config may map HostName


def test_roles_hold_until_the_next_and_a_host_under_two_roles_has_both():
    hosts = parse_hostlist("storage:oss[1-2],mds1,client:node[1-2],oss1")
    assert roles(hosts) == {"oss1": ["client", "storage"], "oss2": ["storage"],
                            "mds1": ["storage"], "node1": ["client"], "node2": ["client"]}
    assert hosts.select("storage") and [h.name for h in hosts.select("client")] == \
        ["oss1", "node1", "node2"]


@pytest.mark.parametrize(("value", "words"), [
    (f"n[1-{MAX_HOSTS + 1}]", f"more than {MAX_HOSTS} hosts"),
    ("r[1-100]n[1-100]", f"more than {MAX_HOSTS} hosts"),  # counted before expanding
    ("n[1-99999999999999999999]", f"more than {MAX_HOSTS} hosts"),
    ("n[1-", "missing bracket"),
    ("n[1-3],n2", "n2: listed twice under the role client"),
    ("a b", "name"),
    ("x@grp", "node groups"),
    ("", "empty host list"),
])
def test_bad_ranges_are_one_line(value, words):
    with pytest.raises(ValueError) as err:
        parse_hostlist(value)
    message = str(err.value)
    assert message.startswith("--hosts:1: ") and words in message and "\n" not in message


def test_open_mpi_and_mpich_hostfiles_give_their_hosts_in_one_role():
    for name in ("openmpi.hosts", "mpich.hosts"):
        text = (SOURCES / name).read_text()
        assert form_of(text, name) is Form.HOSTFILE
        assert roles(parse_file(text, name)) == {f"node{i}": ["client"] for i in (1, 2, 3)}
    storage = load_hosts_value(f"storage:{SOURCES / 'mpich.hosts'}")
    assert {r for rs in roles(storage).values() for r in rs} == {"storage"}


@pytest.mark.parametrize(("text", "where"), [
    ("node1 slots=4\nnode1 slots=2\n", "h:2: node1: listed twice (first on line 1)"),
    ("node1 slots=0\n", "h:1: slots: '0'"),
    ("node1:x\n", "h:1: processes: 'x'"),
    ("node1 slots=4 colour\n", "h:1: colour: not an MPI hostfile key"),
])
def test_bad_hostfiles_name_line_and_field(text, where):
    with pytest.raises(ValueError, match=None) as err:
        parse_file(text, "h")
    assert str(err.value).startswith(where), str(err.value)


def test_ansible_ini_groups_become_roles_and_variables_map_to_ssh():
    path = SOURCES / "cluster.ini"
    hosts = load_hosts_value(path)
    by = {h.name: h for h in hosts.hosts}
    assert len(hosts.hosts) == 1 + 5 + 16 + 1
    assert sorted(by["oss3"].roles) == ["oss", "storage"]  # storage: a parent of oss
    assert by["oss3"].ssh.user == "lustre"  # its own variable over its group's
    assert by["mds1"].ssh.user == "admin"  # storage:vars
    assert (by["mds1"].address, by["mds1"].ssh.port, by["mds1"].ssh.identity) == \
        ("10.20.0.9", 2222, "~/.ssh/lustre_ed25519")
    assert by["gw1"].address == "10.20.0.1" and by["gw1"].roles == ["client"]  # ungrouped
    assert by["node16"].ssh.port == 22  # all:vars
    assert by["login1"].access == "local"


def test_ansible_ini_host_port_form():
    hosts = parse_file("[oss]\nbw.example.com:5309\noss[1:2]:2200\n", "inv.ini")
    assert {h.name: h.ssh.port for h in hosts.hosts} == {"bw.example.com": 5309, "oss1": 2200,
                                                          "oss2": 2200}


def test_ansible_yaml_inventory():
    hosts = load_hosts_value(SOURCES / "cluster.yaml")
    by = {h.name: h for h in hosts.hosts}
    assert roles(hosts)["oss1"] == ["lustre", "storage"]
    assert roles(hosts)["node02"] == ["client"]
    assert by["mds1"].address == "10.20.0.5" and by["mds1"].ssh.port == 2222
    assert all(h.ssh.user == "bench" for h in hosts.hosts)


@pytest.mark.parametrize(("text", "name", "where"), [
    ("[storage:children]\noss\n", "inv.ini", "inv.ini:2: oss: no such group"),
    ("[oss:vars]\nansible_user=x\n", "inv.ini", "inv.ini:1: oss: no such group"),
    ("[oss]\nn1\nn1\n", "inv.ini", "inv.ini:3: n1: listed twice in the group oss"),
    ("[a]\nn1 ansible_host=10.0.0.1\n[b]\nn1 ansible_host=10.0.0.2\n", "inv.ini",
     "inv.ini:4: address: n1: '10.0.0.2' here, '10.0.0.1' on line 2"),
    ("[a]\nn1 ansible_host=10.0.0.1\nn2 ansible_host=10.0.0.1\n", "inv.ini",
     "inv.ini:3: address: n2: 10.0.0.1 is also the address of n1"),
    ("[a]\nn1 ansible_port=22x\n", "inv.ini", "inv.ini:2: ansible_port:"),
    ("[a]\nn[a:f]\n", "inv.ini", "inv.ini:2: n[a:f]: only numeric ranges"),
    (f"[a]\nn[1:{MAX_HOSTS + 1}]\n", "inv.ini", f"inv.ini:2: n[1:{MAX_HOSTS + 1}]: expands"),
    ("[a:children]\nb\n[b:children]\na\n", "inv.ini", "inv.ini:"),
    ("all:\n  children:\n    ghost:\n", "inv.yaml", "inv.yaml:3: ghost: no such group"),
    ("all:\n  hosts:\n    n1:\n    n1:\n", "inv.yaml", "inv.yaml:4: n1: listed twice"),
    ("all:\n  hosts: [n1]\n", "inv.yaml", "inv.yaml:2: all.hosts: expected a mapping"),
    ("all:\n  hosts:\n    n1: {ansible_port: [1]}\n", "inv.yaml", "inv.yaml:3: ansible_port"),
])
def test_bad_inventories_name_line_and_field(text, name, where):
    with pytest.raises(ValueError) as err:
        parse_file(text, name)
    assert str(err.value).startswith(where) and "\n" not in str(err.value), str(err.value)


def test_forms_are_told_apart_by_content(tmp_path):
    assert form_of("hosts:\n  - name: a\n    address: 10.0.0.1\n", "x") is Form.HOSTS_YAML
    assert form_of("all:\n  hosts:\n    a:\n", "x") is Form.ANSIBLE_YAML
    assert form_of("a ansible_host=10.0.0.1\n", "x") is Form.ANSIBLE_INI
    assert form_of("[g]\na\n", "x") is Form.ANSIBLE_INI
    assert form_of("a slots=2\nb\n", "x") is Form.HOSTFILE
    hosts_yaml = tmp_path / "hosts.yaml"
    hosts_yaml.write_text("ssh: {user: bench}\nhosts:\n  - {name: a, address: 10.0.0.1}\n")
    assert load_hosts_value(hosts_yaml).ssh.user == "bench"  # the full form, as before


def test_values_are_files_ranges_or_missing_files(tmp_path):
    with pytest.raises(UserError, match="hosts.yaml: no such hosts file"):
        load_hosts_value("hosts.yaml")
    with pytest.raises(UserError, match="no such hosts file"):
        load_hosts_value(str(tmp_path / "nodes"))
    with pytest.raises(UserError, match="only a hostfile takes a role"):
        load_hosts_value(f"storage:{SOURCES / 'cluster.ini'}")
    assert stored("n[1-3]") == "n[1-3]"  # resume reads the same value again
    assert stored(SOURCES / "cluster.ini") == str((SOURCES / "cluster.ini").resolve())
    assert stored(f"oss:{SOURCES / 'mpich.hosts'}") == f"oss:{(SOURCES / 'mpich.hosts').resolve()}"
