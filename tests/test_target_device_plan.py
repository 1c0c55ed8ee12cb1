"""`--target DEVICE` planned without touching /dev: the typed target (spec/target.py) makes
fio steps address the device (size bounded by it), skips the steps that need files, and
hands the target guard the generated jobs exactly as it reads a user's job file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from stackprobe.engine.preflight import check_target_of, plan_guard_inputs
from stackprobe.engine.target import target_of
from stackprobe.errors import UserError
from stackprobe.kinds.fio.fio_job import build_job, job_place
from stackprobe.plan.expand import expand, one_step
from stackprobe.spec.target import DeviceTarget, DirTarget
from stackprobe.suite.loader import load_suite
from stackprobe.suite.models import Suite

MIB = 1024**2
SMALL = DeviceTarget("/dev/sdz", "/dev/disk/by-id/wwn-0x5000", 64 * MIB)
LARGE = DeviceTarget("/dev/nvme9n1", "/dev/nvme9n1", 4 * 1024**4)
FILE_STEPS = {"metadata"}  # of quick and standard: the kinds that lay out files


@pytest.mark.parametrize("suite", ["quick", "standard"])
def test_builtin_suites_on_a_device(suite):
    plan = expand(load_suite(suite).suite, device=SMALL)
    skipped = {s.kind: s.skip for s in plan if s.skip}
    assert set(skipped) == FILE_STEPS
    assert skipped["metadata"] == ("works on files in a directory: give --target a directory "
                                   "for it")
    for s in plan:
        io = s.kind in ("fio", "slo")
        assert (s.device == SMALL) is io, s.id  # inventory, memory: not the target's
        assert s.space_bytes == 0  # a device has no free space to need
        if io:  # 256M (quick) and 10G (standard) are more than the device: all of it
            assert s.spec.size.bytes == 64 * MIB and s.params["size"] == 64 * MIB
            assert s.estimate_s > 0
        elif s.skip:
            assert s.estimate_s == 0 and s.device is None


def test_a_step_smaller_than_the_device_keeps_its_size():
    fio = [s for s in expand(load_suite("quick").suite, device=LARGE) if s.kind == "fio"]
    assert {s.spec.size.bytes for s in fio} == {256 * MIB}
    assert {s.params["size"] for s in fio} == {"256M"}  # as the suite wrote it
    assert LARGE.extent_text(256 * MIB) == "its first 256 MiB"
    assert SMALL.extent_text(None) == SMALL.extent_text(1 << 40) == "the whole device (64.0 MiB)"
    assert SMALL.label == "/dev/disk/by-id/wwn-0x5000 (/dev/sdz), block device of 64.0 MiB"


def _suite(*steps: dict) -> Suite:
    return Suite.model_validate({"name": "s", "steps": list(steps)})


def test_fio_steps_that_need_files_are_skipped_saying_which_option():
    plan = expand(_suite(
        {"kind": "fio", "name": "many", "rw": "write", "options": {"nrfiles": 4}},
        {"kind": "fio", "name": "fmt", "rw": "read", "options": {"filename_format": "f.$jobnum"}},
        {"kind": "fio", "name": "named", "rw": "read", "options": {"filename": "data"}},
        {"kind": "fio", "name": "rbd", "rw": "read", "target": "rbd"},
        {"kind": "fio", "name": "plain", "rw": "randread", "numjobs": 4},
        {"kind": "slo", "name": "slo", "rw": "randread", "limit": "5ms", "vary": "numjobs",
         "min": 1, "max": 8},
    ), device=SMALL)
    why = {s.name: s.skip for s in plan}
    assert why["many"].startswith("fio option nrfiles works on files in a directory")
    assert why["fmt"].startswith("fio option filename_format works on files")
    assert why["named"].startswith("fio option filename works on files")
    assert why["rbd"] is why["plain"] is why["slo"] is None
    by = {s.name: s for s in plan}
    assert by["rbd"].device is None and by["rbd"].spec.size is None  # on Ceph, not the target
    assert by["plain"].device == by["slo"].device == SMALL
    assert by["plain"].spec.size.bytes == 64 * MIB  # no size: fio's whole device, said so


def test_a_job_file_step_is_skipped_and_a_step_on_hosts_is_untouched(tmp_path):
    job = tmp_path / "j.fio"
    job.write_text("[a]\nrw=write\nsize=1M\n")
    plan = expand(_suite({"kind": "fio", "job_file": str(job)},
                         {"kind": "fio", "name": "far", "rw": "write", "hosts": "all"}),
                  device=SMALL)
    assert plan[0].skip.startswith("a job file names its own files")
    assert plan[1].skip is None and plan[1].device is None and plan[1].hosts == ("all",)


def test_job_lines_address_the_device_and_nothing_else():
    plan = expand(load_suite("quick").suite, device=SMALL)
    for s in (p for p in plan if p.kind == "fio"):
        lines = build_job(s.name, s.spec, **job_place(s, "/scratch", None)).splitlines()
        assert "filename=/dev/sdz" in lines and f"size={64 * MIB}" in lines, s.id
        assert not [ln for ln in lines if ln.startswith("directory=")]
        assert not [ln for ln in lines if ln.startswith("bs=") and "," in ln]  # no layout
    directory = [s for s in expand(load_suite("quick").suite) if s.kind == "fio"][0]
    assert directory.device is None
    assert "directory=/scratch" in build_job(directory.name, directory.spec,
                                             **job_place(directory, "/scratch", None))


def test_the_guard_reads_a_device_plan_as_it_reads_a_users_job_file(tmp_path):
    """The same uses (path, write reason) from a planned step and from a hand-written job
    naming the device: the guard has one way in, whatever wrote the job."""
    plan = expand(load_suite("quick").suite, device=SMALL)
    uses, refusals = plan_guard_inputs(plan, str)
    assert refusals == []
    planned = {(u.step, u.path, u.use.writes) for u in uses}
    fio = [s for s in plan if s.kind == "fio"]
    assert planned == {(s.id, "/dev/sdz", None if s.spec.rw in ("read", "randread")
                        else f"rw={s.spec.rw}") for s in fio}
    for s in fio:
        job = tmp_path / f"{s.name}.fio"
        job.write_text(build_job(s.name, s.spec, **job_place(s, "${STACKPROBE_DIR}", None)))
        hand = one_step({"kind": "fio", "job_file": str(job)}, index=s.index)
        user, _ = plan_guard_inputs([hand], lambda p: Path(p).read_text())
        assert {(u.path, u.use.writes) for u in user} == \
               {(u.path, u.use.writes) for u in uses if u.step == s.id}


def test_target_of_a_directory_a_missing_path_and_a_character_device(tmp_path):
    assert target_of(tmp_path) == DirTarget(tmp_path.resolve())
    assert target_of(tmp_path / "nope") == DirTarget((tmp_path / "nope").resolve())
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    with pytest.raises(UserError, match="target /dev/null: a character device"):
        target_of(Path("/dev/null"))


def test_a_plan_made_for_a_directory_is_refused_on_a_device(tmp_path):
    readable = tmp_path / "stands-for-a-device"
    readable.write_bytes(b"")  # check_device reads access(2) only: a file will do here
    device = DeviceTarget(str(readable), str(readable), 64 * MIB)
    for_dir = expand(load_suite("quick").suite)
    with pytest.raises(UserError, match=r"step 03-randwrite-iops was planned for a directory"):
        check_target_of(device, [s for s in for_dir if s.skip is None])
    for_dev = expand(load_suite("quick").suite, device=device)
    assert check_target_of(device, [s for s in for_dev if s.skip is None]).is_dir()
