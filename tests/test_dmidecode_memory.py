"""dmidecode's memory records, slot by slot, on real servers' dumps and this VM's.

The public dumps (tests/fixtures/public/dmidecode, SOURCES.md) are whole `dmidecode`
outputs of four vendors' servers; the recorded one is what dmidecode prints as root on
the development VM, which has no SMBIOS table.
"""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from stackprobe.parsers.host.dmidecode_memory import DimmSlot, parse_dmidecode_memory
from stackprobe.parsers.host.inventory import parse_inventory

PUBLIC = FIXTURES / "public" / "dmidecode"
RECORDED = FIXTURES / "recorded" / "dmidecode"
SUPERMICRO = PUBLIC / "dmidecode-3.3_supermicro-sys-6029p-wtrt_2x-gold-6226r_12-of-12.txt"
DERIVED = (FIXTURES / "synthetic" / "dmidecode"
           / "dmidecode-3.3_supermicro-sys-6029p-wtrt_11-of-12_P1-DIMMF1-empty.txt")
GB = 2**30


def parse(name: str):
    return parse_dmidecode_memory((PUBLIC / name).read_text())


def test_full_supermicro_every_slot_in_order_with_its_module():
    mem = parse_dmidecode_memory(SUPERMICRO.read_text())
    assert [(a.use, a.devices, a.max_capacity_bytes) for a in mem.arrays] == \
        [("System Memory", 3, 2304 * GB)] * 4
    assert [s.locator for s in mem.slots] == [f"P{p}-DIMM{c}1" for p in (1, 2) for c in "ABCDEF"]
    assert mem.slots[5].bank_locator == "P0_Node1_Channel2_Dimm0"
    assert mem.slots[0] == DimmSlot(
        locator="P1-DIMMA1", bank_locator="P0_Node0_Channel0_Dimm0", populated=True,
        size_bytes=64 * GB, type="DDR4", form_factor="DIMM", speed_mts=2933,
        configured_mts=2934, rank=2, manufacturer="Samsung", part_number="M393A8G40MB2-CVF",
        technology="DRAM", array=0)
    assert [s.array for s in mem.slots] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]


def test_an_empty_slot_keeps_its_names_and_nothing_of_a_module():
    mem = parse_dmidecode_memory(DERIVED.read_text())
    assert sum(1 for s in mem.slots if s.populated) == 11
    f1 = mem.slots[5]
    assert f1 == DimmSlot(locator="P1-DIMMF1", bank_locator="P0_Node1_Channel2_Dimm0",
                          populated=False, form_factor="DIMM", array=1)


def test_dell_empty_second_slots_and_configured_speed_below_rated():
    mem = parse("dmidecode-3.3_dell-r640_2x-gold-6230r_12-of-24.txt")
    assert len(mem.slots) == 24 and mem.arrays[0].devices == 24
    assert [s.locator for s in mem.slots if s.populated] == \
        [f"{x}{n}" for x in "AB" for n in range(1, 7)]
    assert {(s.speed_mts, s.configured_mts) for s in mem.slots if s.populated} == {(3200, 2933)}
    assert all(s.bank_locator is None for s in mem.slots)  # 'Not Specified'


def test_hpe_and_amd_boards():
    hpe = parse("dmidecode-3.6_hpe-dl380-gen10_2x-gold-5120_24-of-24.txt")
    assert [a.devices for a in hpe.arrays] == [12, 12]
    assert hpe.slots[13].locator == "PROC 2 DIMM 2" and hpe.slots[13].array == 1
    amd = parse("dmidecode-3.6_asrockrack-rome2d16-2t_2x-epyc-7402_16-of-16.txt")
    assert {s.locator for s in amd.slots} == {"DIMM 0"}
    assert [s.bank_locator for s in amd.slots][:2] == ["P0 CHANNEL A", "P0 CHANNEL B"]
    assert sorted({s.size_bytes for s in amd.slots}) == [16 * GB, 32 * GB]


def test_a_qemu_vm_lists_a_dimm_with_a_size_and_no_speed():
    mem = parse("dmidecode-3.4_qemu-standard-pc_vm.txt")
    [slot] = mem.slots
    assert (slot.locator, slot.populated, slot.size_bytes, slot.manufacturer) == \
        ("DIMM 0", True, 4 * GB, "QEMU")
    assert slot.speed_mts is None and slot.configured_mts is None and slot.rank is None


def test_this_vm_without_smbios_gives_no_slot():
    text = (RECORDED / "dmidecode-3.4_t-memory_no-smbios.stdout").read_text()
    assert text.startswith("# dmidecode 3.4")
    mem = parse_dmidecode_memory(text)
    assert mem.arrays == [] and mem.slots == []


def test_quiet_output_without_handles_and_older_field_names():
    text = ("Physical Memory Array\n\tUse: System Memory\n\tNumber Of Devices: 2\n\n"
            "Memory Device\n\tSize: 8192 MB\n\tLocator: DIMM_A1\n\tSpeed: 1600 MHz\n"
            "\tConfigured Clock Speed: 1333 MHz\n\tRank: Unknown\n\n"
            "Memory Device\n\tSize: No Module Installed\n\tLocator: DIMM_A2\n\n"
            "Memory Device Mapped Address\n\tStarting Address: 0x00000000000\n")
    mem = parse_dmidecode_memory(text)
    assert mem.arrays[0].devices == 2 and mem.arrays[0].handle is None
    assert [(s.locator, s.populated, s.size_bytes, s.speed_mts, s.configured_mts, s.array)
            for s in mem.slots] == [("DIMM_A1", True, 8 * GB, 1600, 1333, None),
                                    ("DIMM_A2", False, None, None, None, None)]


def test_slots_of_a_flash_array_are_not_system_memory():
    text = ("Handle 0x0010, DMI type 16, 23 bytes\nPhysical Memory Array\n\tUse: Flash Memory\n\n"
            "Handle 0x0011, DMI type 17, 40 bytes\nMemory Device\n\tArray Handle: 0x0010\n"
            "\tSize: 16 MB\n\tLocator: SYSTEM ROM\n\n"
            "Handle 0x0020, DMI type 16, 23 bytes\nPhysical Memory Array\n\tUse: System Memory\n\n"
            "Handle 0x0021, DMI type 17, 40 bytes\nMemory Device\n\tArray Handle: 0x0020\n"
            "\tSize: 32 GB\n\tLocator: A1\n")
    mem = parse_dmidecode_memory(text)
    assert [s.locator for s in mem.slots] == ["SYSTEM ROM", "A1"]
    assert [s.locator for s in mem.system_slots()] == ["A1"]


@pytest.mark.parametrize(("text", "message"), [
    ("Handle 0x0011, DMI type 17, 40 bytes\nMemory Device\n\tSize: lots\n",
     "dmidecode: line 3: Size: not a size: 'lots'"),
    ("total 0\ndrwxr-xr-x 2 root root 40 .\n", "dmidecode: no 'Handle 0x…, DMI type' record"),
])
def test_what_is_not_dmidecode_output_is_one_line_naming_the_line(text, message):
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(")):
        parse_dmidecode_memory(text)


def test_the_inventory_summary_comes_from_the_same_slots():
    """parse_inventory keeps the summary it always had and adds every slot."""
    inv = parse_inventory({"dmidecode": DERIVED.read_text()}, host="h2")
    assert inv.memory == {"dimm_slots": 12, "dimms_populated": 11, "dimm_bytes": 11 * 64 * GB,
                          "dimm_speed_mts": 2934, "dimm_type": "DDR4"}
    slots = inv.dmi_memory["slots"]
    assert len(slots) == 12 and len(inv.dmi_memory["arrays"]) == 4
    assert slots[5] == {"locator": "P1-DIMMF1", "bank_locator": "P0_Node1_Channel2_Dimm0",
                        "populated": False, "form_factor": "DIMM", "array": 1}
    assert parse_inventory({}, host="h").dmi_memory is None  # dmidecode not read
