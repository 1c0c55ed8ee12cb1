"""The target guard: which paths a plan's fio jobs open, what a device holds, what is refused.

Pure tests read the outputs recorded from loop devices in fixtures/recorded/guard/ (see
RECORDED.md there: loop0 clean, loop1 ext4, loop2 GPT with an ext4 loop2p1, loop3 ext4
mounted, loop4 an LVM PV, loop5 a BlueStore OSD, loop6 a loop device on loop1). The slow
tests make their own loop devices on sparse files in a temp dir and always detach them.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import FIXTURES, run_cli
from stackprobe.engine.preflight import guard_targets, plan_guard_inputs
from stackprobe.errors import UserError
from stackprobe.plan.expand import one_step
from stackprobe.safety import device_probes as bd
from stackprobe.safety import guard as tg
from stackprobe.safety import job_paths as fjp
from stackprobe.spec.hosts import HostsFile
from stackprobe.spec.planned import PlannedStep
from stackprobe.transport.base import CommandResult
from stackprobe.transport.local import LocalTransport

# beside the one-at-a-time system tests (tests/run_tiers.py): loop devices and what the guard refuses: no figure
pytestmark = pytest.mark.beside

REC = FIXTURES / "recorded" / "guard"
UL = "util-linux-2.38.1"


def rec(name: str) -> str:
    return (REC / name).read_text()


# ------------------------------------------------------------------ job files and paths
def paths_of(text: str) -> list[tuple[str, str]]:
    jobs = fjp.parse_jobs(fjp.job_lines(text, "j.fio"))
    return [(u.path, fjp.place(u.path)) for j in jobs for u in fjp.job_paths(j)]


def test_global_sections_apply_to_the_jobs_after_them():
    text = "[global]\nrw=randwrite\n[a]\n[global]\nrw=read\n[b]\nrw = write \n[c]\n"
    jobs = fjp.parse_jobs(fjp.job_lines(text, "j.fio"))
    assert [(j.name, j.options["rw"].value) for j in jobs] == [
        ("a", "randwrite"), ("b", "write"), ("c", "read")]
    assert jobs[1].options["rw"].where == "job file j.fio line 7: rw = write"


def test_inline_comments_are_cut_as_fio_cuts_them():
    """fio 3.33 writes for `rw=write;c` and `rw=write # c`: the guard must read them alike."""
    job = fjp.parse_jobs(fjp.job_lines("[a] ; x\nrw=randwrite;note\nfilename=/dev/sdb # x\n",
                                     "j"))[0]
    assert fjp.write_reason(job.options) == "rw=randwrite"
    assert [u.path for u in fjp.job_paths(job)] == ["/dev/sdb"]


def test_filename_lists_split_on_colons_but_not_escaped_ones():
    assert fjp.split_list("a:/dev/loop3:b\\:c") == ["a", "/dev/loop3", "b:c"]


@pytest.mark.parametrize(("text", "expected"), [
    ("[a]\nfilename=data\n", [("data", "inside")]),
    ("[a]\nfilename=../../etc/passwd\n", [("../../etc/passwd", "outside")]),
    ("[a]\nfilename=sub/../x\n", [("sub/../x", "inside")]),
    ("[a]\nfilename=${STACKPROBE_DIR}/f\n", [("${STACKPROBE_DIR}/f", "inside")]),
    ("[a]\nfilename=${STACKPROBE_DIR}/../f\n", [("${STACKPROBE_DIR}/../f", "outside")]),
    ("[a]\nfilename=${STACKPROBE_DIR}x\n", [("${STACKPROBE_DIR}x", "unknown")]),
    ("[a]\nfilename=${HOME}/f\n", [("${HOME}/f", "unknown")]),
    ("[a]\nfilename=/dev/loop3\n", [("/dev/loop3", "absolute")]),
    # fio names files after the section when there is no filename: [../x] writes ../x.0.0
    ("[../esc]\nrw=write\n", [("../esc.0.0", "outside")]),
    ("[global]\ndirectory=../..\n[a]\n", [("../../a.0.0", "outside")]),
    ("[a]\ndirectory=d1:../d2\nfilename_format=f.$jobnum\n",
     [("d1/f.0", "inside"), ("../d2/f.0", "outside")]),
    # fio 3.33 puts directory before an absolute name; other versions may not: both checked
    ("[a]\ndirectory=${STACKPROBE_DIR}\nfilename=/dev/sdb\n",
     [("${STACKPROBE_DIR}//dev/sdb", "inside"), ("/dev/sdb", "absolute")]),
    ("[a]\nopendir=/etc\nwrite_bw_log=../../bw\n",
     [("a.0.0", "inside"), ("/etc", "absolute"), ("../../bw", "outside")]),
])
def test_paths_a_job_opens(text, expected):
    assert paths_of(text) == expected


@pytest.mark.parametrize(("options", "writes"), [
    ({}, None), ({"rw": "read"}, None), ({"rw": "randread:8"}, None),
    ({"rw": "randwrite"}, "rw=randwrite"), ({"rw": "trimwrite"}, "rw=trimwrite"),
    ({"rw": "randrw"}, "rw=randrw"), ({"rw": "rw"}, "rw=rw"), ({"rw": "randtrim"}, "rw=randtrim"),
    ({"rw": "randwrite,read"}, "rw=randwrite,read"),  # fio 3.33 writes for this one
    ({"rw": "something-new"}, "rw=something-new"),  # not plainly a read: counted as a write
    ({"rw": "read", "verify": "md5"}, None),  # verifying what is there only reads
    ({"rw": "read", "trim_percentage": "10"}, "trim_percentage=10"),
    ({"ioengine": "filedelete"}, "ioengine=filedelete"),
])
def test_write_workloads(options, writes):
    settings = {k: fjp.Setting(v, "x") for k, v in options.items()}
    assert fjp.write_reason(settings) == writes


def test_readwrite_is_an_alias_of_rw():
    job = fjp.parse_jobs(fjp.job_lines("[a]\nreadwrite=randwrite\n", "j"))[0]
    assert fjp.write_reason(job.options) == "rw=randwrite"


def test_includes_are_followed_when_absolute_and_refused_otherwise(tmp_path):
    inc = tmp_path / "inc.fio"
    inc.write_text("filename=../../x\n")
    lines = fjp.job_lines(f"[a]\ninclude {inc}\n", "j.fio", lambda p: Path(p).read_text())
    assert lines[-1] == ("filename=../../x", f"job file {inc} line 1")
    with pytest.raises(fjp.JobFileError, match="include inc.fio: only an absolute path"):
        fjp.job_lines("[a]\ninclude inc.fio\n", "j.fio", lambda p: "")


def step(index: int, params: dict, kind: str = "fio", hosts: tuple[str, ...] = ()) -> PlannedStep:
    return one_step({"kind": kind, "name": f"s{index}", **params}, index=index, hosts=hosts)


def test_stackprobe_built_jobs_stay_in_the_scratch_directory():
    uses, refusals = plan_guard_inputs([step(1, {"rw": "randwrite", "bs": "4k", "size": "1M"})], str)
    assert (uses, refusals) == ([], [])


def test_options_that_leave_the_scratch_directory_are_refused():
    """The suite models refuse `filename` outside the target, but not the other path options."""
    plan = [step(1, {"rw": "write", "options": {"filename_format": "../../x.$jobnum"}}),
            step(2, {"rw": "write", "options": {"write_bw_log": "/etc/bw"}})]
    uses, refusals = plan_guard_inputs(plan, str)
    assert refusals == ["step 01-s1: option: filename_format=../../x.$jobnum: leaves the step's "
                        "scratch directory (${STACKPROBE_DIR}/../../x.0) — use a relative path "
                        "below it or ${STACKPROBE_DIR}/..., or a raw device"]
    assert [(u.path, u.step) for u in uses] == [("/etc/bw", "02-s2")]
    # /etc/bw is a directory here: refused once probed
    assert "outside the step's scratch directory" in tg.other_refusal(uses[0], "directory", "/etc/bw")


def test_a_user_job_file_that_escapes_is_refused_line_by_line(tmp_path):
    job = tmp_path / "esc.fio"
    job.write_text("[global]\ndirectory=../..\n[a]\nrw=write\nfilename=f:../g\n")
    _, refusals = plan_guard_inputs([step(1, {"job_file": str(job)})], lambda p: Path(p).read_text())
    assert refusals == [f"step 01-s1: job file {job} line 2: directory=../.. + job file {job} "
                        "line 5: filename=f:../g: leaves the step's scratch directory "
                        "(../../f, ../../../g) — use a relative path below it or "
                        "${STACKPROBE_DIR}/..., or a raw device"]


def test_remote_steps_may_read_devices_but_not_write_them():
    read = fjp.Use("/dev/sdb", "01-r", fjp.PathUse("/dev/sdb", "a", "w", None), remote=True)
    write = fjp.Use("/dev/sdb", "02-w", fjp.PathUse("/dev/sdb", "a", "w", "rw=write"), remote=True)
    assert tg.other_refusal(read, "remote", "/dev/sdb") is None
    assert "cannot check paths on other hosts" in tg.other_refusal(write, "remote", "/dev/sdb")


def test_unlink_on_a_device_and_writes_to_character_devices_are_refused():
    def use(writes, unlink=None):
        return fjp.Use("/dev/x", "01-a", fjp.PathUse("/dev/x", "a", "w", writes, unlink), False)
    assert "delete the device node" in tg.other_refusal(use(None, "unlink=1"), "block", "/dev/x")
    assert tg.other_refusal(use(None), "char", "/dev/sg0") is None
    assert "character device" in tg.other_refusal(use("rw=write"), "char", "/dev/sg0")
    assert tg.other_refusal(use("rw=write"), "char", "/dev/null") is None
    assert "no such device" in tg.other_refusal(use("rw=write"), "missing", "/dev/sdz")


def test_disk_baseline_never_writes_devices():
    hosts = HostsFile.model_validate({"hosts": [{"name": "n1", "address": "192.0.2.1",
                                                 "devices": ["/dev/sdb"]}]})
    hand_made = step(3, {"rw": "read"}, "disk_baseline", ("n1",))  # rw=randrw: not in a suite
    plan = [step(1, {"rw": "write"}, "disk_baseline", ("n1",)),  # its runner skips devices
            step(2, {"rw": "read"}, "disk_baseline", ("n1",)),
            replace(hand_made, spec=hand_made.spec.model_copy(update={"rw": "randrw"}))]
    assert plan_guard_inputs(plan, str, hosts)[1] == [
        "step 03-s3: disk_baseline rw=randrw would write /dev/sdb — baselines only read devices"]


# ------------------------------------------------------------------ recorded tool outputs
def test_lsblk_device_and_partition_with_its_mount():
    nodes = bd.parse_lsblk(rec(f"{UL}_lsblk_gpt-p1-mounted.json"))
    assert [(n.name, n.majmin, n.type, n.depth) for n in nodes] == [
        ("loop2", "7:2", "loop", 0), ("loop2p1", "259:0", "part", 1)]
    assert nodes[1].mountpoints[0].endswith("/mnt-gpt-p1-mounted")
    assert nodes[0].mountpoints == ()
    clean = bd.parse_lsblk(rec(f"{UL}_lsblk_clean.json"))
    assert [(n.path, n.fstype, n.mountpoints) for n in clean] == [("/dev/loop0", None, ())]


@pytest.mark.parametrize(("tag", "described"), [
    ("clean", []),
    ("ext4", ["ext4 filesystem (UUID c20d62b3-3784-47e6-9c16-917e7928f62e)"]),
    ("gpt", ["gpt partition table (PTUUID b6741da6-f2d3-439b-b8fe-daa4878201b3)"]),
    ("lvm-pv", ["LVM physical volume (UUID Rx32iA-GXE9-8wgY-SioY-Qs4T-mxoY-AiOSJW)"]),
    ("bluestore", ["Ceph OSD (BlueStore)"]),
])
def test_blkid_signatures_described(tag, described):
    tags = bd.parse_blkid(rec(f"{UL}_blkid_{tag}.txt"))
    assert tg.describe_blkid(tags) == described


@pytest.mark.parametrize("tag", ["clean", "ext4", "gpt", "lvm-pv", "bluestore", "mounted"])
def test_wipefs_json_and_table_agree(tag):
    as_json = bd.parse_wipefs_json(rec(f"{UL}_wipefs-json_{tag}.json"))
    table = bd.parse_wipefs_table(rec(f"{UL}_wipefs_{tag}.txt"))
    assert [(s["type"], s["offset"]) for s in as_json] == [(s["type"], s["offset"]) for s in table]


def test_signatures_of_a_gpt_disk_name_its_partition_once():
    found = tg.signatures(bd.parse_blkid(rec(f"{UL}_blkid_gpt.txt")),
                          bd.parse_wipefs_json(rec(f"{UL}_wipefs-json_gpt.json")),
                          bd.parse_lsblk(rec(f"{UL}_lsblk_gpt.json"))[0],
                          {"loop2p1": bd.parse_blkid(rec(f"{UL}_blkid_gpt-p1.txt"))})
    assert found == ["gpt partition table (PTUUID b6741da6-f2d3-439b-b8fe-daa4878201b3)",
                     "partition loop2p1: ext4 filesystem "
                     "(UUID 946225ba-d1e9-4fd4-9a96-65596b8498fa)"]


def test_wipefs_finds_what_blkid_does_not_report():
    found = tg.signatures({"TYPE": "ext4", "USAGE": "filesystem"},
                          [{"type": "ext4", "offset": "0x438"},
                           {"type": "linux_raid_member", "offset": "0x1000"}], None, {})
    assert found == ["ext4 filesystem", "linux_raid_member signature at offset 0x1000"]


def test_proc_and_sys_outputs():
    pids = bd.parse_namespaces(rec("proc_ns-mnt_stat.txt"))
    assert pids == ["10", "10773", "11419", "25"]  # one per mount namespace
    mounts = bd.parse_mountinfo(rec("proc_mountinfo_mounted.txt"))
    loops = [(m.majmin, m.source) for m in mounts if m.source.startswith("/dev/loop")]
    assert loops == [("7:3", "/dev/loop3"), ("259:0", "/dev/loop2p1")]
    assert bd.parse_swaps(rec("proc_swaps.txt")) == []
    assert bd.parse_fd_scan(rec("proc_fd-scan_open.txt")) == [(12811, "7:0")]
    assert bd.parse_ps(rec("procps_ps_open.txt")) == {12811: "sleep"}
    assert ("loop6", "/dev/loop1") in bd.parse_backing(rec("sys_loop-backing.txt"))
    assert bd.parse_stat(rec("coreutils_stat_loop0.txt")) == ("block", "7:0")
    # no device-mapper in the recording kernel: holders lines in the script's own format
    assert bd.parse_holders("loop2 dm-0\nloop2p1 md127\n") == [("loop2", "dm-0"),
                                                               ("loop2p1", "md127")]


def test_mountinfo_unescapes_spaces():
    line = "52 27 7:3 / /mnt/a\\040b rw - ext4 /dev/loop3 rw\n"
    assert bd.parse_mountinfo(line) == [bd.Mount("7:3", "/mnt/a b", "/dev/loop3")]


def recorded_view(**only: str) -> tg.SystemView:
    view = tg.SystemView(mounts=bd.parse_mountinfo(rec("proc_mountinfo_mounted.txt")),
                         open_fds=bd.parse_fd_scan(rec("proc_fd-scan_open.txt")),
                         comms=bd.parse_ps(rec("procps_ps_open.txt")),
                         backing=bd.parse_backing(rec("sys_loop-backing.txt")))
    for key, value in only.items():
        setattr(view, key, value)
    return view


def test_usage_mounted_partition_open_and_backing():
    view = recorded_view()
    gpt = bd.parse_lsblk(rec(f"{UL}_lsblk_gpt-p1-mounted.json"))
    assert [u.split(" at ")[0] for u in tg.usage(gpt, view, [])] == ["loop2p1 mounted"]
    clean = bd.parse_lsblk(rec(f"{UL}_lsblk_clean.json"))
    assert tg.usage(clean, view, []) == ["open in PID 12811 (sleep)"]
    ext4 = bd.parse_lsblk(rec(f"{UL}_lsblk_ext4.json"))
    assert tg.usage(ext4, view, []) == ["backing /dev/loop6"]
    assert tg.usage(ext4, view, [("loop1", "dm-3")]) == ["held by dm-3", "backing /dev/loop6"]
    idle = recorded_view(open_fds=[], backing=[])
    assert tg.usage(clean, idle, []) == []


class RecordedTransport:
    """Answers the guard's probes from the recorded files (device paths as recorded)."""

    host = "localhost"
    devices = {"/dev/loop0": "clean", "/dev/loop1": "ext4", "/dev/loop2": "gpt",
               "/dev/loop3": "mounted", "/dev/loop5": "bluestore"}
    links = {"/dev/disk/by-id/disk-one": "/dev/loop1"}

    def __init__(self, *, idle: bool = False):
        self.idle = idle  # nothing mounted, no process holds loop0, nothing sits on loop1
        self.calls: list[list[str]] = []

    def run(self, argv, **_kw):
        self.calls.append(list(argv))
        rc, out = self.answer(list(argv))
        return CommandResult(list(argv), rc, out, "", 0.0, 0.0)

    def answer(self, argv: list[str]) -> tuple[int, str]:
        tool, last = argv[0], argv[-1]
        dev = self.links.get(last, last)
        if tool == "stat" and "-c" in argv and dev in self.devices:
            return 0, f"block special file|7|{dev[-1]}\n"
        if tool == "readlink" and dev in self.devices:
            return 0, dev + "\n"
        if tool in ("stat", "readlink"):
            return 1, ""
        if tool == "lsblk":
            return 0, rec(f"{UL}_lsblk_{self.devices[dev]}.json")
        if tool == "blkid":
            out = rec(f"{UL}_blkid_gpt-p1.txt") if dev == "/dev/loop2p1" else \
                rec(f"{UL}_blkid_{self.devices[dev]}.txt")
            return (0 if out else 2), out
        if tool == "wipefs":
            return 0, rec(f"{UL}_wipefs-json_{self.devices[dev]}.json")
        if tool == "grep":
            return 0, "" if self.idle else rec("proc_mountinfo_mounted.txt")
        if tool == "cat":
            return 0, rec("proc_swaps.txt")
        if tool == "ps":
            return 0, rec("procps_ps_open.txt")
        script = argv[2]
        if "ns/mnt" in script:
            return 0, rec("proc_ns-mnt_stat.txt")
        if "/fd" in script:
            return 0, "" if self.idle else rec("proc_fd-scan_open.txt")
        if "backing_file" in script:
            return 0, "" if self.idle else rec("sys_loop-backing.txt")
        return 0, ""  # holders: none in the recording kernel


def job_plan(tmp_path: Path, dev: str, rw: str = "randwrite", index: int = 1
             ) -> list[PlannedStep]:
    job = tmp_path / f"dev{index}.fio"
    job.write_text(f"[w]\nrw={rw}\nfilename={dev}\nsize=4M\n")
    return [step(index, {"job_file": str(job)})]


def refusal(plan, transport, destroy=()) -> str:
    with pytest.raises(UserError) as exc:
        guard_targets(plan, transport, destroy)
    assert "\n" not in str(exc.value)
    return str(exc.value)


def test_a_clean_device_is_refused_as_empty_then_allowed_by_name(tmp_path):
    plan = job_plan(tmp_path, "/dev/loop0")
    msg = refusal(plan, RecordedTransport(idle=True))
    assert msg == ("/dev/loop0: refusing to write (step 01-s1: rw=randwrite): it looks empty "
                   "(no filesystem, partition table or other signature; not mounted, not open), "
                   "but writing a raw device destroys whatever is on it — name it with "
                   "--destroy-data /dev/loop0 to allow")
    t = RecordedTransport(idle=True)
    warnings = guard_targets(plan, t, ["/dev/loop0", "/dev/loop5"])
    assert warnings == [
        "--destroy-data /dev/loop5: no step writes this device; nothing was destroyed on it",
        "/dev/loop0: written by step 01-s1: rw=randwrite as allowed by --destroy-data "
        "(it held: no recognisable signature)"]
    # probing never writes: wipefs only lists (-n), nothing runs with -a
    assert all("-a" not in argv for argv in t.calls if argv[0] == "wipefs")
    assert ["wipefs", "-n", "-J", "--", "/dev/loop0"] in t.calls


def test_an_open_device_is_refused_even_with_destroy_data(tmp_path):
    msg = refusal(job_plan(tmp_path, "/dev/loop0"), RecordedTransport(), ["/dev/loop0"])
    assert msg.startswith("/dev/loop0: refusing to write (step 01-s1: rw=randwrite): open in PID "
                          "12811 (sleep) — a device in use is never written, not even with "
                          "--destroy-data: unmount it or stop what holds it first")


class NoLsblk(RecordedTransport):
    def answer(self, argv):
        if argv[0] == "lsblk":
            return 1, ""
        return super().answer(argv)

    def run(self, argv, **kw):
        result = super().run(argv, **kw)
        if argv[0] == "lsblk":
            result.stderr = f"lsblk: unknown column: {argv[3].split(',')[-1]}\n"
        return result


def test_a_device_that_cannot_be_checked_is_refused_even_with_destroy_data(tmp_path):
    t = NoLsblk(idle=True)
    msg = refusal(job_plan(tmp_path, "/dev/loop0"), t, ["/dev/loop0"])
    assert msg == ("/dev/loop0: refusing to write (step 01-s1: rw=randwrite): could not check: "
                   "lsblk: unknown column: MOUNTPOINT — a device that cannot be checked is never "
                   "written, not even with --destroy-data")
    # util-linux < 2.37 has no MOUNTPOINTS: tried, then MOUNTPOINT
    assert [a[3].rsplit(",", 1)[-1] for a in t.calls if a[0] == "lsblk"] == [
        "MOUNTPOINTS", "MOUNTPOINT"]


def test_a_mounted_filesystem_is_named_with_its_mountpoint(tmp_path):
    msg = refusal(job_plan(tmp_path, "/dev/loop3"), RecordedTransport(), ["/dev/loop3"])
    uuid = bd.parse_blkid(rec(f"{UL}_blkid_mounted.txt"))["UUID"]
    assert msg.startswith(f"/dev/loop3: refusing to write (step 01-s1: rw=randwrite): ext4 "
                          f"filesystem (UUID {uuid}), mounted at /tmp/")
    assert "not even with --destroy-data" in msg


def test_a_symlink_is_resolved_and_partitions_are_listed(tmp_path):
    plan = job_plan(tmp_path, "/dev/loop2") + job_plan(tmp_path, "/dev/loop5", "trim", 2)
    msg = refusal(plan, RecordedTransport(idle=True))
    assert "/dev/loop2: refusing to write (step 01-s1: rw=randwrite): gpt partition table " \
           "(PTUUID b6741da6-f2d3-439b-b8fe-daa4878201b3), partition loop2p1: ext4 filesystem " \
           "(UUID 946225ba-d1e9-4fd4-9a96-65596b8498fa) — name it with --destroy-data " \
           "/dev/loop2 to allow; /dev/loop5: refusing to write (step 02-s2: rw=trim): Ceph OSD " \
           "(BlueStore) — name it with --destroy-data /dev/loop5 to allow" == msg
    linked = job_plan(tmp_path, "/dev/disk/by-id/disk-one")
    msg = refusal(linked, RecordedTransport())
    assert msg.startswith("/dev/disk/by-id/disk-one (/dev/loop1): refusing to write")
    assert "backing /dev/loop6" in msg


def test_reads_of_devices_need_no_permission(tmp_path):
    t = RecordedTransport()
    assert guard_targets(job_plan(tmp_path, "/dev/loop3", "randread"), t) == []
    assert not any(argv[0] in ("lsblk", "blkid", "wipefs") for argv in t.calls)


def test_a_plan_without_absolute_paths_probes_nothing():
    t = RecordedTransport()
    assert guard_targets([step(1, {"rw": "randwrite"})], t) == []
    assert t.calls == []


def test_destroy_data_must_be_a_path():
    msg = refusal([step(1, {"rw": "read"})], RecordedTransport(), ["loop0"])
    assert msg == "--destroy-data loop0: give the device's path (/dev/...)"


# ------------------------------------------------------------------ real loop devices
def sha_first_mib(dev: str) -> str:
    with open(dev, "rb") as f:
        return hashlib.sha256(f.read(1 << 20)).hexdigest()


class Loops:
    """Loop devices on sparse files in one temp dir; every mount, process and device this
    makes is undone by cleanup(), which the fixture runs whatever the test did."""

    def __init__(self, root: Path):
        self.root = root
        self.devices: list[str] = []
        self.files: list[Path] = []
        self.mounts: list[Path] = []
        self.procs: list[subprocess.Popen] = []

    def make(self, *extra: str) -> str:
        img = self.root / f"disk{len(self.files)}.img"
        img.write_bytes(b"")
        os.truncate(img, 64 * 1024**2)
        self.files.append(img)
        r = subprocess.run(["losetup", "--find", "--show", *extra, str(img)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip(f"losetup not permitted here: {r.stderr.strip()}")
        self.devices.append(r.stdout.strip())
        return self.devices[-1]

    def mount(self, dev: str) -> Path:
        """Read-only: mounted all the same, but ext4 then writes nothing of its own, so the
        device's hash can only change if the run wrote it."""
        mnt = self.root / f"mnt{len(self.mounts)}"
        mnt.mkdir()
        subprocess.run(["mount", "-o", "ro", dev, str(mnt)], check=True, capture_output=True)
        self.mounts.append(mnt)
        return mnt

    def hold(self, dev: str) -> subprocess.Popen:
        with open(dev, "rb") as f:
            proc = subprocess.Popen(["sleep", "300"], stdin=f)
        self.procs.append(proc)
        return proc

    def cleanup(self) -> None:
        for proc in self.procs:
            proc.terminate()  # by its PID, the one this test started
            proc.wait(timeout=10)
        for mnt in reversed(self.mounts):
            subprocess.run(["umount", str(mnt)], capture_output=True)
        for dev in reversed(self.devices):
            subprocess.run(["losetup", "-d", dev], capture_output=True)
        for img in self.files:
            img.unlink(missing_ok=True)


@pytest.fixture
def loops(tmp_path):
    if os.geteuid() != 0 or not shutil.which("losetup"):
        pytest.skip("loop devices need root and losetup")
    made = Loops(tmp_path)
    try:
        yield made
    finally:
        made.cleanup()


def mkfs_ext4(dev: str) -> None:
    subprocess.run(["mkfs.ext4", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", dev],
                   check=True)


def fio_suite(base: Path, dev: str, rw: str) -> Path:
    job = base / f"{rw}.fio"
    job.write_text(f"[global]\nioengine=libaio\ndirect=1\nbs=4k\niodepth=4\nsize=8M\nruntime=1\n"
                   f"time_based=1\n[dev-{rw}]\nrw={rw}\nfilename={dev}\n")
    suite = base / f"{rw}.yaml"
    suite.write_text(f"name: guard-{rw}\nsteps:\n  - kind: fio\n    job_file: {job.name}\n")
    return suite


def run_suite(base: Path, suite: Path, *extra: str, check: int):
    target, out = base / "target", base / "runs"
    target.mkdir(exist_ok=True)
    return run_cli(["run", suite, "--target", target, "--out", out, "--no-monitor", *extra],
                   cwd=base, check=check)


def assert_refused_untouched(base: Path, proc, dev: str, before: str) -> str:
    """Refused in one line, before any fio ran: no run directory, no command saved."""
    line = proc.stderr.strip()
    assert "\n" not in line and line.startswith("stackprobe: ")
    assert not list(base.rglob("*.cmd"))  # nothing ran: no command was saved
    assert sha_first_mib(dev) == before
    return line


@pytest.mark.slow
def test_real_ext4_device_refused_for_writes_allowed_for_reads(loops, tmp_path):
    dev = loops.make()
    mkfs_ext4(dev)
    before = sha_first_mib(dev)
    proc = run_suite(tmp_path, fio_suite(tmp_path, dev, "randwrite"), check=2)
    line = assert_refused_untouched(tmp_path, proc, dev, before)
    assert f"{dev}: refusing to write (step 01-randwrite: rw=randwrite): ext4 filesystem (UUID " \
           in line and f"name it with --destroy-data {dev} to allow" in line
    run_suite(tmp_path, fio_suite(tmp_path, dev, "randread"), check=0)
    assert sha_first_mib(dev) == before


@pytest.mark.slow
def test_real_partition_table_refused(loops, tmp_path):
    if not shutil.which("parted"):
        pytest.skip("parted not installed (Makefile APT_PACKAGES)")
    dev = loops.make("--partscan")
    subprocess.run(["parted", "-s", dev, "mklabel", "gpt", "mkpart", "p1", "1MiB", "100%"],
                   check=True, capture_output=True)
    before = sha_first_mib(dev)
    proc = run_suite(tmp_path, fio_suite(tmp_path, dev, "write"), check=2)
    line = assert_refused_untouched(tmp_path, proc, dev, before)
    assert "gpt partition table (PTUUID " in line and f"partition {Path(dev).name}p1" in line


@pytest.mark.slow
def test_real_mounted_device_refused_even_with_destroy_data(loops, tmp_path):
    dev = loops.make()
    mkfs_ext4(dev)
    mnt = loops.mount(dev)
    before = sha_first_mib(dev)
    proc = run_suite(tmp_path, fio_suite(tmp_path, dev, "randwrite"), "--destroy-data", dev,
                     check=2)
    line = assert_refused_untouched(tmp_path, proc, dev, before)
    assert f"mounted at {mnt}" in line and "not even with --destroy-data" in line


@pytest.mark.slow
def test_real_clean_device_refused_then_written_with_destroy_data(loops, tmp_path):
    dev = loops.make()
    before = sha_first_mib(dev)
    suite = fio_suite(tmp_path, dev, "randwrite")
    line = assert_refused_untouched(tmp_path, run_suite(tmp_path, suite, check=2), dev, before)
    assert "it looks empty" in line and f"--destroy-data {dev} to allow" in line
    run_suite(tmp_path, suite, "--destroy-data", dev, check=0)
    results = json.loads(next((tmp_path / "runs").rglob("results.json")).read_text())
    assert f"{dev}: written by step 01-randwrite: rw=randwrite as allowed by --destroy-data " \
           "(it held: no recognisable signature)" in results["run"]["warnings"]
    fio = results["steps"][0]
    assert fio["status"] == "ok" and fio["records"][0]["write"]["io_bytes"] > 0


@pytest.mark.slow
def test_real_device_held_open_by_a_process(loops, tmp_path):
    dev = loops.make()
    holder = loops.hold(dev)
    before = sha_first_mib(dev)
    proc = run_suite(tmp_path, fio_suite(tmp_path, dev, "write"), "--destroy-data", dev, check=2)
    line = assert_refused_untouched(tmp_path, proc, dev, before)
    assert f"open in PID {holder.pid} (sleep)" in line


@pytest.mark.slow
def test_real_symlink_to_a_device(loops, tmp_path):
    dev = loops.make()
    link = tmp_path / "by-id-disk"
    link.symlink_to(dev)
    plan = job_plan(tmp_path, str(link))
    with pytest.raises(UserError, match=rf"^{link} \({dev}\): refusing to write .* it looks empty"):
        guard_targets(plan, LocalTransport())
    for named in (dev, str(link)):  # the device by either name
        warnings = guard_targets(plan, LocalTransport(), [named])
        assert warnings == [f"{link} ({dev}): written by step 01-s1: rw=randwrite as allowed by "
                            "--destroy-data (it held: no recognisable signature)"]


@pytest.mark.slow
def test_real_suite_whose_job_escapes_its_directory(tmp_path):
    (tmp_path / "esc.fio").write_text("[global]\ndirectory=../..\n[w]\nrw=write\nsize=1M\n")
    suite = tmp_path / "esc.yaml"
    suite.write_text("name: esc\nsteps:\n  - kind: fio\n    job_file: esc.fio\n")
    proc = run_suite(tmp_path, suite, check=2)
    line = proc.stderr.strip()
    assert "\n" not in line and "esc.fio line 2: directory=../.. + job [w] (fio's default file " \
           "name): leaves the step's scratch directory (../../w.0.0)" in line
    assert not (tmp_path / "runs").exists() and not list(tmp_path.rglob("w.0.0"))
    # the suite models already refuse `filename` outside the target directory
    suite.write_text("name: esc\nsteps:\n  - kind: fio\n    rw: write\n    options:\n"
                     "      filename: ../x\n")
    assert "filename must be a relative path" in run_suite(tmp_path, suite, check=2).stderr
    suite.write_text("name: esc\nsteps:\n  - kind: fio\n    rw: write\n    options:\n"
                     "      filename_format: ../../x\n")
    assert "filename_format=../../x: leaves the step's scratch directory" in \
        run_suite(tmp_path, suite, check=2).stderr
