"""A hosts input with several problems names every one of them, not the first alone.

Why: an inventory with an unknown group, a host listed twice and a range past the limit
used to be refused at its first problem, so it took a run per problem to learn them all.
Each form (Ansible INI and YAML, MPI hostfiles, `--hosts` ranges) now notes every problem
it can read past and reports them together (spec/host_sources/book.py): one error line —
what the CLI prints for a UserError and what the fuzz targets require — holding one
`file:line: field: problem` per problem, in the file's order, joined by "; ". A host is
never loaded twice, whatever the input says.
"""

from __future__ import annotations

import re

import pytest

from conftest import run_cli
from stackprobe.spec.host_sources import MAX_HOSTS, parse_file, parse_hostlist
from stackprobe.spec.host_sources.book import MAX_PROBLEMS
from stackprobe.spec.host_sources.mpi_hostfile import parse_mpi_hostfile

INI = f"""\
[storage:children]
oss
ghost
[oss]
oss[1:3]
oss2
big[1:{MAX_HOSTS + 1}]
oss4 ansible_port=22x
[client]
n1 ansible_host=10.0.0.1
n2 ansible_host=10.0.0.1
[client:vars]
ansible_user=bench
[nobody:vars]
ansible_user=x
"""

YAML = f"""\
all:
  children:
    storage:
      hosts:
        oss1:
        oss1:
        big[1:{MAX_HOSTS + 1}]:
      children:
        ghost:
    client:
      hosts:
        n1: {{ansible_port: [22]}}
      colour: blue
"""


def problems(exc: pytest.ExceptionInfo, source: str) -> list[str]:
    """The problems of the one-line message: each starts with 'SOURCE:LINE: ' (a problem's
    own words may hold '; ')."""
    message = str(exc.value)
    assert "\n" not in message and "\r" not in message, message
    return re.split(rf"; (?={re.escape(source)}:\d+: |and \d+ more problems$)", message)


def test_an_ini_inventory_names_every_problem_in_the_files_order():
    with pytest.raises(ValueError) as err:
        parse_file(INI, "inv.ini")
    assert problems(err, "inv.ini") == [
        "inv.ini:3: ghost: no such group in the inventory",
        "inv.ini:6: oss2: listed twice in the group oss",
        f"inv.ini:7: big[1:{MAX_HOSTS + 1}]: expands to more than {MAX_HOSTS} hosts",
        "inv.ini:8: ansible_port: '22x' is not a port number",
        "inv.ini:11: address: n2: 10.0.0.1 is also the address of n1",
        "inv.ini:14: nobody: no such group in the inventory",
    ]


def test_a_yaml_inventory_names_every_problem():
    with pytest.raises(ValueError) as err:
        parse_file(YAML, "inv.yaml")
    assert problems(err, "inv.yaml") == [
        "inv.yaml:6: oss1: listed twice in the group storage",
        f"inv.yaml:7: big[1:{MAX_HOSTS + 1}]: expands to more than {MAX_HOSTS} hosts",
        "inv.yaml:9: ghost: no such group in the inventory",
        "inv.yaml:12: ansible_port: [] is not a single value",
        "inv.yaml:13: client.colour: a group holds hosts, children and vars",
    ]


def test_a_range_list_names_every_bad_item():
    with pytest.raises(ValueError) as err:
        parse_hostlist(f"n[1-3],n2,big[1-{MAX_HOSTS + 1}],storage:n2,x@grp,n3,,n2")
    assert problems(err, "--hosts") == [
        "--hosts:1: n2: listed twice under the role client",
        f"--hosts:1: big[1-{MAX_HOSTS + 1}]: expands to more than {MAX_HOSTS} hosts",
        "--hosts:1: x@grp: node groups (@name) are not read; name the hosts or their ranges",
        "--hosts:1: hosts: empty host name",
        "--hosts:1: n2: listed twice under the role storage",
    ]


def test_a_hostfile_names_every_problem():
    text = "node1 slots=4\nnode2 slots=0\nnode1 slots=2\nnode3 colour=red\nnode2\n"
    with pytest.raises(ValueError) as err:
        parse_mpi_hostfile(text, "h")  # parse_file would take 'colour=red' for Ansible's
    assert problems(err, "h") == [
        "h:2: slots: '0' is not a positive whole number",
        "h:3: node1: listed twice (first on line 1)",
        "h:4: colour: not an MPI hostfile key ('colour=red'); expected count, cpu, max-slots, "
        "max_slots, slot, slots",
        "h:5: node2: listed twice (first on line 2)",
    ]


def test_a_host_in_two_groups_is_one_host_with_both_roles():
    hosts = parse_file("[oss]\nn[1:2]\n[client]\nn2\nn3\n[storage:children]\noss\n", "inv.ini")
    assert [h.name for h in hosts.hosts] == ["n1", "n2", "n3"]
    assert {h.name: sorted(h.roles) for h in hosts.hosts} == {
        "n1": ["oss", "storage"], "n2": ["client", "oss", "storage"], "n3": ["client"]}


def test_a_cycle_ends_the_reading_with_the_problems_before_it():
    with pytest.raises(ValueError) as err:
        parse_file("[a]\nn1\nn1\n[a:children]\nb\n[b:children]\na\n", "inv.ini")
    found = problems(err, "inv.ini")
    assert found[0] == "inv.ini:3: n1: listed twice in the group a"
    assert len(found) == 2 and "a group inside itself" in found[1], found


def test_past_the_limit_the_rest_are_counted():
    text = "[g]\n" + "n1\n" * (MAX_PROBLEMS + 11)
    with pytest.raises(ValueError) as err:
        parse_file(text, "inv.ini")
    found = problems(err, "inv.ini")
    assert len(found) == MAX_PROBLEMS + 1 and found[-1] == "and 10 more problems"
    assert found[0] == "inv.ini:3: n1: listed twice in the group g"


def test_the_cli_prints_them_all_in_one_line(tmp_path):
    inv = tmp_path / "inv.ini"
    inv.write_text(INI)
    proc = run_cli(["plan", "quick", "--hosts", inv], cwd=tmp_path, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"stackprobe: {inv}:3: ghost: "), proc.stderr
    assert lines[0].count(f"{inv}:") == 6 and f"{inv}:14: nobody: no such group" in lines[0]
