"""Which host a figure's row names (report/figure_keys.py _host_in): the word-run lookup
that replaced a search per host must name the same host as that search, for host names
that are plain words, addresses, prefixes of each other, and names with other characters."""

from __future__ import annotations

import re
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from fuzz_support import FUZZ
from stackprobe.report.figure_keys import _host_in

HOSTS = ["h1", "h10", "a:b", "a", "node-1", "node-1.x", "10.99.0.2", "x y", "é1"]
PIECES = HOSTS + [" ", "-", ".", ":", "/", "(read)", "fio ", "h", "1", "0", "_", "all clients"]


def _searched(hosts: list[str], test: str) -> str:
    if "all clients" in test:  # the fleet's merged row names no host
        return ""
    for host in hosts:
        if re.search(rf"(?<![\w./-]){re.escape(host)}(?![\w./-])", test):
            return host
    return ""


@FUZZ
@given(st.lists(st.sampled_from(HOSTS), min_size=1, unique=True),
       st.lists(st.sampled_from(PIECES), max_size=8).map("".join))
def test_the_named_host_is_the_one_a_search_per_host_finds(hosts, test):
    assert _host_in(SimpleNamespace(hosts=hosts), test) == _searched(hosts, test)


def test_the_first_host_of_the_step_wins_when_a_row_names_two():
    step = SimpleNamespace(hosts=["h2", "h1"])
    assert _host_in(step, "h1 → h2 bandwidth") == "h2"
    assert _host_in(step, "h10 bandwidth") == ""
