"""bench/fleet_sim.py: the replayed fleet's pieces — the fio client run over N hosts built
from a recorded real one, read back by the product's own parser; the hosts file of N
replayed hosts; and the network step's pairs drawn without listing every pair."""

from __future__ import annotations

import itertools
import random
import sys
from pathlib import Path

from stackprobe.kinds.fio.fio_fleet import host_of_job, merge_clients, missing_clients
from stackprobe.kinds.network.pairs import choose_pairs
from stackprobe.parsers.fio.fio_json import parse_fio_json
from stackprobe.schema.sentinels import FIO_ALL_CLIENTS
from stackprobe.transport.replay import Exchange, Recording, command_key

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from fleet_sim import fio_clients, sim_address, sim_hosts  # noqa: E402

RECORDED = ROOT / "tests/fixtures/recorded/fio-3.33_client_jsonplus_2clients_randread.txt"


def _argv(names: list[str]) -> list[str]:
    out = ["fio", "--output-format=json+"]
    for i, n in enumerate(names, start=1):
        out += [f"--client=ip:{sim_address(i)},8765", f"/r/runs/x/steps/02-fleet/job-{n}.fio"]
    return out


def test_the_fio_client_run_over_many_hosts_is_the_recorded_one_per_host():
    recorded = ["fio", "--output-format=json+", "--client=ip:10.99.0.11,8765", "/r/job-h1.fio",
                "--client=ip:10.99.0.12,8765", "/r/job-h2.fio"]
    rec = Recording(exchanges=[Exchange("localhost", "", command_key(recorded), 0,
                                        RECORDED.read_text(), "", 3.2)])
    names = [f"h{i}" for i in range(1, 8)]
    rc, out, _err, delay = fio_clients(_argv(names), None, rec, "")
    assert rc == 0 and delay == 3.2
    records = parse_fio_json(out)
    own = [r for r in records if r.host != FIO_ALL_CLIENTS]
    for r in own:
        r.host = host_of_job(r.job, names)
    assert [r.host for r in own] == names and missing_clients(names, own) is None
    # the recorded clients (fleet@a2, fleet@a3) in turn: their figures, as fio printed them
    assert [r.read.total_ios for r in own[:2]] != [None, None]
    assert own[0].read.total_ios == own[2].read.total_ios != own[1].read.total_ios
    merged = merge_clients(own, "fleet")
    assert merged.read.total_ios == sum(r.read.total_ios for r in own)
    assert merged.read.clat_ns["p99"] > 0


def test_other_commands_are_not_the_fio_client_responder_s():
    rec = Recording()
    assert fio_clients(["fio", "--version"], None, rec, "") is None
    assert fio_clients(_argv(["h1"]), None, rec, "") is None  # nothing recorded to build from


def test_replayed_hosts_are_laid_out_like_the_lab_s_at_unreached_addresses(tmp_path):
    hosts = sim_hosts(1000, tmp_path / "lab")
    assert len(hosts.hosts) == 1000 and len({h.address for h in hosts.hosts}) == 1000
    assert all(h.address.startswith("127.1.") and h.roles == ["client"] for h in hosts.hosts)
    assert hosts.hosts[41].directories == [str(tmp_path / "lab" / "h42" / "data")]


def test_drawn_pairs_are_the_pairs_a_full_list_would_give():
    for n in (2, 3, 7, 40):
        names = [f"h{i}" for i in range(n)]
        every = list(itertools.permutations(names, 2))
        for k in (1, 5, 64, len(every), 10 * len(every)):
            want = every if k >= len(every) else sorted(random.Random("r").sample(every, k))
            assert choose_pairs(names, k, "r") == want
    big = choose_pairs([f"h{i}" for i in range(1000)], 64, "run")
    assert len(set(big)) == 64 and all(a != b for a, b in big)
