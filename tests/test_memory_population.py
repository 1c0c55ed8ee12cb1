"""DIMM population, channels and theoretical peak per node, and the missing DIMM found.

Seed report 004 found by hand that one MDS had a DIMM not seated: STREAM at 3 : 2. Here
the real dumps of public servers (tests/fixtures/public/dmidecode) and a copy of the full
Supermicro with one module taken out (tests/fixtures/synthetic/dmidecode) go through the
parser, the inventory record, the analysis, the executor's join of the hosts, the report
table and, marked `tools`, a real run on this machine.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURES, run_cli
from stackprobe.analysis.dimm_placement import place
from stackprobe.analysis.memory_channels import cpu_family
from stackprobe.analysis.memory_population import population_finding
from stackprobe.engine.per_node import combine_hosts
from stackprobe.kinds.context import StepOutcome
from stackprobe.kinds.host.memory_population_table import population_table
from stackprobe.parsers.host.inventory import parse_inventory
from stackprobe.plan.expand import one_step
from stackprobe.schema.hpc_records import HpccRecord
from stackprobe.schema.records import InventoryRecord
from stackprobe.schema.results import StepResult

# beside the one-at-a-time system tests (tests/run_tiers.py): the DIMMs beside a triad: no level
pytestmark = pytest.mark.beside

PUBLIC = FIXTURES / "public" / "dmidecode"
SUPERMICRO = PUBLIC / "dmidecode-3.3_supermicro-sys-6029p-wtrt_2x-gold-6226r_12-of-12.txt"
DERIVED = (FIXTURES / "synthetic" / "dmidecode"
           / "dmidecode-3.3_supermicro-sys-6029p-wtrt_11-of-12_P1-DIMMF1-empty.txt")
NO_SMBIOS = FIXTURES / "recorded" / "dmidecode" / "dmidecode-3.4_t-memory_no-smbios.stdout"
GOLD_6226R = "Intel(R) Xeon(R) Gold 6226R CPU @ 2.90GHz"
SEED_SENTENCE = "h2: 11 of 12 DIMM slots populated, channel F of socket 1 empty (P1-DIMMF1)"


def node(host: str, dump: Path | None, model: str, **cpu) -> InventoryRecord:
    """The inventory record of a host whose dmidecode printed `dump`."""
    inv = parse_inventory({"dmidecode": dump.read_text()} if dump else {}, host=host)
    inv.cpu = {"model": model, "sockets": 2, **cpu}
    return inv


def test_the_full_server_gives_no_finding_and_its_peak():
    found = population_finding([node("h1", SUPERMICRO, GOLD_6226R)])
    assert found["warnings"] == []
    h1 = found["nodes"]["h1"]
    assert (h1["board"], h1["populated"], h1["slots"]) == ("Supermicro P1-DIMMA1", 12, 12)
    assert h1["cpu_family"] == "Intel Xeon Scalable 2nd gen (Cascade Lake-SP)"
    assert [(c["socket"], c["channel"]) for c in h1["channels"]] == \
        [(s, c) for s in (1, 2) for c in "ABCDEF"]
    assert h1["empty_channels"] == []
    assert h1["peak_bps"] == 12 * 2934e6 * 8  # 12 channels x 2934 MT/s x 8 bytes
    assert "h1: theoretical memory peak 262 GiB/s (12 of 12 channels populated)" in found["notes"]


def test_a_twin_of_the_full_server_is_not_flagged():
    found = population_finding([node("h1", SUPERMICRO, GOLD_6226R),
                                node("h3", SUPERMICRO, GOLD_6226R)])
    assert found["warnings"] == [] and found["references"] == {"h1": "h1", "h3": "h1"}


def test_the_missing_dimm_names_its_socket_and_channel():
    found = population_finding([node("h2", DERIVED, GOLD_6226R)])
    assert found["warnings"] == [SEED_SENTENCE]
    h2 = found["nodes"]["h2"]
    assert [(c["socket"], c["channel"], c["slots"]) for c in h2["empty_channels"]] == \
        [(1, "F", ["P1-DIMMF1"])]
    assert h2["peak_bps"] == 11 * 2934e6 * 8


def test_seed_004_the_two_mds_with_their_triads():
    """'h2: 11 of 12 DIMM slots populated, channel F of socket 1 empty; triad 64% of h1's'."""
    mds = [node("h1", SUPERMICRO, GOLD_6226R), node("h2", DERIVED, GOLD_6226R)]
    found = population_finding(mds, triads={"h1": 150e9, "h2": 96e9})
    assert found["warnings"] == [SEED_SENTENCE + "; triad 64% of h1's"]
    assert found["nodes"]["h2"]["triad_share_of_peak"] == pytest.approx(96e9 / (11 * 2934e6 * 8))
    assert population_finding(mds)["warnings"] == [SEED_SENTENCE]  # no triads: no clause


def test_an_unrecognised_board_compares_counts_only():
    model = "Intel(R) Xeon(R) Gold 6242R CPU @ 3.10GHz"
    found = population_finding([
        node("w1", PUBLIC / "dmidecode-3.2_dell-precision-7820_2x-gold-6242r_12-of-12.txt", model),
        node("w2", PUBLIC / "dmidecode-3.3_dell-precision-7820_2x-gold-6242r_8-of-12.txt", model)])
    assert found["warnings"] == [
        "w2: 8 of 12 DIMM slots populated (board not recognised: channels not named)"]
    assert all(n["board"] is None and "channels" not in n for n in found["nodes"].values())
    assert "w1: board not recognised from its slot names: DIMM counts compared, channels not " \
           "named" in found["notes"]
    alone = population_finding([node("w2", PUBLIC / "dmidecode-3.3_dell-precision-7820_2x-gold-"
                                                    "6242r_8-of-12.txt", model)])
    assert alone["warnings"] == []  # no twin, no channel names: nothing to hold it to


def test_servers_of_different_boards_are_not_held_to_each_other():
    found = population_finding([
        node("dell", PUBLIC / "dmidecode-3.3_dell-r640_2x-gold-6230r_12-of-24.txt",
             "Intel(R) Xeon(R) Gold 6230R CPU @ 2.10GHz"),
        node("hpe", PUBLIC / "dmidecode-3.6_hpe-dl380-gen10_2x-gold-5120_24-of-24.txt",
             "Intel(R) Xeon(R) Gold 5120 CPU @ 2.20GHz")])
    assert found["warnings"] == [] and found["references"] == {}


def test_dell_hpe_and_amd_slot_names_give_channels():
    dell = population_finding([node("d", PUBLIC / "dmidecode-3.3_dell-r640_2x-gold-6230r_12-of-24"
                                               ".txt", "Intel(R) Xeon(R) Gold 6230R CPU @ 2.10GHz")])
    d = dell["nodes"]["d"]
    assert d["board"] == "Dell A1" and d["empty_channels"] == []  # one DIMM on every channel
    assert d["channels"][0]["slots"] == ["A1", "A7"] and d["channels"][6]["slots"] == ["B1", "B7"]
    assert d["peak_bps"] == 12 * 2933e6 * 8
    hpe = population_finding([node("p", PUBLIC / "dmidecode-3.6_hpe-dl380-gen10_2x-gold-5120_24-of"
                                              "-24.txt", "Intel(R) Xeon(R) Gold 5120 CPU @ 2.20GHz")])
    p = hpe["nodes"]["p"]
    assert p["board"] == "HPE PROC 1 DIMM 1" and len(p["channels"]) == 12
    assert p["channels"][2]["slots"] == ["PROC 1 DIMM 5", "PROC 1 DIMM 6"]
    assert p["peak_bps"] == 12 * 2400e6 * 8
    amd = population_finding([node("a", PUBLIC / "dmidecode-3.6_asrockrack-rome2d16-2t_2x-epyc-"
                                              "7402_16-of-16.txt", "AMD EPYC 7402 24-Core Processor")])
    a = amd["nodes"]["a"]
    assert a["board"] == "AMD bank P0 CHANNEL A" and a["cpu_channels"] == 8
    assert a["channels"][7] == {"socket": 1, "channel": "H", "slots": ["P0 CHANNEL H DIMM 0"],
                                "dimms": 1, "peak_bps": 2133 * 8 * 1_000_000}
    assert amd["warnings"] == ["a: mixed DIMM sizes (14 × 32 GiB, 2 × 16 GiB)"]


def test_dell_numbering_needs_the_cpu_channel_count():
    """'A7' is on channel 0 of a 6-channel socket, on channel 6 of an 8-channel one: with
    a CPU the table does not know, the Dell board is not recognised."""
    found = population_finding([node("d", PUBLIC / "dmidecode-3.3_dell-r640_2x-gold-6230r_12-of-24"
                                               ".txt", "Some Future CPU")])
    assert found["nodes"]["d"]["board"] is None


def test_a_dimm_missing_from_a_two_dimm_channel_is_named():
    inv = node("p", PUBLIC / "dmidecode-3.6_hpe-dl380-gen10_2x-gold-5120_24-of-24.txt",
               "Intel(R) Xeon(R) Gold 5120 CPU @ 2.20GHz")
    slot = inv.dmi_memory["slots"][17]  # PROC 2 DIMM 6
    inv.dmi_memory["slots"][17] = {k: slot[k] for k in ("locator", "form_factor", "array")} | \
        {"populated": False}
    found = population_finding([inv])
    assert found["warnings"] == ["p: 23 of 24 DIMM slots populated, fewer DIMMs on channel C of "
                                 "socket 2 than on the others (PROC 2 DIMM 5, PROC 2 DIMM 6)"]


def test_no_dimm_facts_are_said_and_only_sizes_are_compared():
    qemu = PUBLIC / "dmidecode-3.4_qemu-standard-pc_vm.txt"
    found = population_finding([
        node("vm1", qemu, "AMD EPYC", hypervisor="KVM"),
        node("vm2", NO_SMBIOS, "AMD EPYC", hypervisor="KVM"),
        node("vm3", None, "AMD EPYC", hypervisor="KVM")])
    assert found["warnings"] == [] and found["references"] == {}
    assert found["notes"] == [
        "vm1: a virtual machine (KVM): its DIMMs are what the hypervisor shows, not memory "
        "channels",
        "vm2: no DIMM facts: dmidecode lists no memory device (no SMBIOS memory table: a VM?)",
        "vm3: no DIMM facts: dmidecode gave no table (not root, not installed, or no SMBIOS "
        "table, as in many VMs)"]
    assert population_finding([object()]) is None  # no inventory among the records


@pytest.mark.parametrize(("model", "family", "channels", "ddr"), [
    ("Intel(R) Xeon(R) Gold 6226R CPU @ 2.90GHz", "Cascade Lake-SP", 6, "DDR4"),
    ("Intel(R) Xeon(R) Silver 4114 CPU @ 2.20GHz", "Skylake-SP", 6, "DDR4"),
    ("Intel(R) Xeon(R) Platinum 9282 CPU @ 2.60GHz", "Cascade Lake-AP", 12, "DDR4"),
    ("Intel(R) Xeon(R) Gold 6330H CPU @ 2.00GHz", "Cooper Lake", 6, "DDR4"),
    ("Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", "Ice Lake-SP", 8, "DDR4"),
    ("Intel(R) Xeon(R) Platinum 8480+", "Sapphire Rapids", 8, "DDR5"),
    ("INTEL(R) XEON(R) PLATINUM 8592+", "Emerald Rapids", 8, "DDR5"),
    ("Intel(R) Xeon(R) 6980P", "Granite Rapids-AP", 12, "DDR5"),
    ("Intel(R) Xeon(R) 6740E", "Sierra Forest-SP", 8, "DDR5"),
    ("Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz", "Broadwell-EP", 4, "DDR4"),
    ("Intel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz", "Sandy Bridge-EP", 4, "DDR3"),
    ("Intel(R) Xeon(R) CPU E5-2407 0 @ 2.20GHz", "Sandy Bridge-EN", 3, "DDR3"),
    ("AMD EPYC 7402 24-Core Processor", "Rome", 8, "DDR4"),
    ("AMD EPYC 7T83 64-Core Processor", "Milan", 8, "DDR4"),
    ("AMD EPYC 9654 96-Core Processor", "Genoa", 12, "DDR5"),
])
def test_cpu_families_from_the_model_lscpu_prints(model, family, channels, ddr):
    found = cpu_family(model)
    assert family in found.name and (found.channels, found.ddr) == (channels, ddr)


def test_unknown_cpus_have_no_family():
    assert cpu_family("AMD EPYC") is None and cpu_family(None) is None
    assert cpu_family("Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz") is None


def test_a_pattern_that_finds_more_channels_than_the_cpu_has_is_refused():
    slots = [{"locator": f"P1-DIMM{c}1", "populated": True} for c in "ABCDEFGH"]
    assert place(slots, 8)[0] == "Supermicro P1-DIMMA1"
    assert place(slots, 6) is None  # 8 channels on a socket of a 6-channel CPU
    assert place(slots, None)[0] == "Supermicro P1-DIMMA1"  # nothing to check it against


def test_a_pattern_that_puts_two_slots_in_one_place_is_refused():
    """'ChannelA-DIMM0' names no socket: the two sockets' slots would fall on each other."""
    slots = [{"locator": f"Channel{c}-DIMM0", "bank_locator": f"NODE {s}", "populated": True}
             for s in (0, 1) for c in "ABCDEFGH"]
    assert place(slots[:8], 8)[0] == "ChannelA-DIMM0"
    assert place(slots, 8) is None and place(slots, None) is None


def test_the_executor_join_adds_the_finding_and_its_sentences():
    step = one_step({"kind": "inventory", "hosts": ["h1", "h2"]}, hosts=("h1", "h2"))
    per_host = [(h, StepOutcome("ok", [node(h, dump, GOLD_6226R)]), [])
                for h, dump in (("h1", SUPERMICRO), ("h2", DERIVED))]
    outcome, _ = combine_hosts(step, per_host)
    assert SEED_SENTENCE in outcome.warnings
    finding = outcome.findings["memory_population"]
    assert finding["references"] == {"h1": "h1", "h2": "h1"}
    result = StepResult(id="01-inventory", index=1, name="inventory", kind="inventory",
                        title="Inventory", layer="hardware", params={}, findings=finding and
                        {"memory_population": json.loads(json.dumps(finding))})
    table = population_table(result)
    assert table.title == "Memory population (01-inventory)"
    assert table.rows == [
        ["h1", "12/12", "Supermicro P1-DIMMA1", "none", "2934 MT/s", "262 GiB/s", "ok"],
        ["h2", "11/12", "Supermicro P1-DIMMA1", "F of socket 1", "2934 MT/s", "240 GiB/s",
         "⚠ see warnings"]]
    assert table.notes[0] == SEED_SENTENCE


def test_a_stream_step_after_the_inventory_puts_each_triad_beside_the_dimms():
    """Seed 004's finding in one sentence: the run's inventory (an earlier step) gives the
    DIMMs, the stream step each node's triad (StarSTREAM's mean x processes)."""
    earlier = [node("h1", SUPERMICRO, GOLD_6226R), node("h2", DERIVED, GOLD_6226R)]
    step = one_step({"kind": "stream", "hosts": ["h1", "h2"]}, hosts=("h1", "h2"))
    per_host = [(h, StepOutcome("ok", [HpccRecord(host=h, procs=24, focus="stream",
                                                  stream_bw_bytes={"star_triad": bw / 24})]), [])
                for h, bw in (("h1", 150e9), ("h2", 96e9))]
    outcome, _ = combine_hosts(step, per_host, earlier=earlier)
    assert SEED_SENTENCE + "; triad 64% of h1's" in outcome.warnings
    assert outcome.findings["memory_population"]["nodes"]["h2"]["triad_share_of_peak"] == \
        pytest.approx(96e9 / (11 * 2934e6 * 8))
    alone, _ = combine_hosts(step, per_host)  # no inventory before it: no DIMM finding
    assert "memory_population" not in alone.findings
    assert not any("DIMM" in w for w in alone.warnings)


@pytest.mark.tools
def test_a_real_inventory_here_and_on_two_local_hosts(tmp_path):
    """This machine: dmidecode gives no table in this VM (or, as a stub or without root,
    nothing); on a server it would list slots. Either way the step stores the finding and
    the report draws its table."""
    hosts = {"hosts": [{"name": n, "access": "local", "address": a, "roles": ["mds"],
                        "directories": [str(tmp_path / "scratch")]}
                       for n, a in (("m1", "127.0.0.1"), ("m2", "127.0.0.2"))]}
    (tmp_path / "scratch").mkdir()
    (tmp_path / "hosts.yaml").write_text(json.dumps(hosts))
    (tmp_path / "s.yaml").write_text("name: population\nsteps:\n  - {kind: inventory}\n"
                                     "  - {kind: inventory, hosts: mds}\n")
    proc = run_cli(["run", "s.yaml", "--hosts", "hosts.yaml", "--target", tmp_path, "--out",
                    tmp_path / "runs", "--no-monitor"], cwd=tmp_path, check=0)
    [run_dir] = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    here, both = json.loads((run_dir / "results.json").read_text())["steps"]
    for step, names in ((here, None), (both, {"m1", "m2"})):
        finding = step["findings"]["memory_population"]
        assert names is None or set(finding["nodes"]) == names
        for n in finding["nodes"].values():
            assert n.get("no_facts") or n["slots"] >= 1
        assert f"Memory population ({step['id']})" in proc.stdout
