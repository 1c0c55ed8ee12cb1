"""Secrets never kept: the redactor on its own, the run directory's writers and its scrub,
then real runs with planted secrets, every file of the run grepped for them.

A planted secret must be gone from results.json, the saved commands, raw outputs, job
file copies and the reports — while the tools still ran with it (fio expanded it).
"""

from __future__ import annotations

import base64
import json
import os
import struct
import time
import uuid
from pathlib import Path

import pytest

from conftest import FIXTURES, run_cli
from stackprobe import redact
from stackprobe.kinds.ceph.keys import client_keys, conf_options, expand_meta, keys_in_keyring
from stackprobe.kinds.ceph.session import CephSession
from stackprobe.kinds.ceph.target import CephTarget
from stackprobe.redact import REDACTED, Redactor, redact_env, redact_patterns, secret_name
from stackprobe.schema.results import CommandRecord, RunInfo, RunResults, StepResult
from stackprobe.spec.ceph import CephSettings
from stackprobe.store.rundir import RunDir, load_results
from stackprobe.transport.base import CommandResult


def cephx_key() -> str:
    """A key shaped like ceph-authtool's: type 1, creation time, length 16, 16 random bytes."""
    raw = struct.pack("<HIIH", 1, int(time.time()), 0, 16) + os.urandom(16)
    return base64.b64encode(raw).decode()


def keyring_text(entity: str, key: str) -> str:
    return f'[{entity}]\n\tkey = {key}\n\tcaps mon = "allow *"\n\tcaps osd = "allow *"\n'


# ---------------------------------------------------------------------------- patterns
def test_cephx_key_shape():
    key = cephx_key()
    assert len(key) == 40 and key.startswith("AQ") and key.endswith("==")


def test_keyring_key_is_hidden_caps_and_names_stay():
    key = cephx_key()
    out = redact_patterns(keyring_text("client.admin", key))
    assert key not in out
    assert f"key = {REDACTED}" in out and '[client.admin]' in out and 'caps mon = "allow *"' in out


def test_cephx_key_anywhere_in_text():
    key = cephx_key()
    for text in (f"auth: got key {key} for client.x", f'{{"key": "{key}"}}', f"CEPH_ARGS=--key={key}",
                 f"#     key = {key}"):
        assert key not in redact_patterns(text), text


def test_key_line_hidden_whatever_the_value():
    assert redact_patterns("[client.bench]\n  key = notbase64butsecret\n") == \
        f"[client.bench]\n  key = {REDACTED}\n"


@pytest.mark.parametrize("text, kept", [
    ("rados --key=AbCdEf123456 -p x ls", "rados --key=<redacted> -p x ls"),
    ("rados --key AbCdEf123456 -p x ls", "rados --key <redacted> -p x ls"),
    ("s3cmd --secret 'p4ss w' ls", "s3cmd --secret '<redacted>' ls"),
    ('"password": "two words", "user": "x"', '"password": "<redacted>", "user": "x"'),
    ("x --password=hunter2 y", "x --password=<redacted> y"),
])
def test_secret_flags(text, kept):
    assert redact_patterns(text) == kept


@pytest.mark.parametrize("text, secret", [
    ("secret_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
    ("aws_secret_access_key: wJalrXUtnFEMI/K7MDENG", "wJalrXUtnFEMI"),
    ('{"password": "hunter2hunter2", "user": "bench"}', "hunter2"),
    ('"secret_key" : "abcdefgh12345678"', "abcdefgh"),
    ("rgw keystone admin password = s3cr3tpass", "s3cr3tpass"),
    ("https://bench:hunter2xyz@rgw.example:8443/bucket", "hunter2xyz"),
    ("s3://AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMI/K7MDENG+bPxRfi@bucket/obj", "wJalrXUtnFEMI"),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG fio job.fio", "wJalrXUtnFEMI"),
    ("MY_API_TOKEN='abc def ghi' run", "abc def"),
    ("GET /login?password=hunter2xyz&user=x", "hunter2xyz"),
])
def test_secret_settings_urls_and_assignments(text, secret):
    out = redact_patterns(text)
    assert secret not in out and REDACTED in out, out


def test_names_around_a_secret_stay():
    assert redact_patterns("aws_secret_access_key = abcdefgh1234") == \
        f"aws_secret_access_key = {REDACTED}"
    assert redact_patterns("s3://AKIAEXAMPLE:abc/def@bucket/x") == f"s3://AKIAEXAMPLE:{REDACTED}@bucket/x"
    assert redact_patterns("https://u:pw123456@h/p") == f"https://u:{REDACTED}@h/p"


def test_redacting_twice_changes_nothing_more():
    text = f"--key {cephx_key()} password = x1234567 s3://a:b@c AWS_SECRET_ACCESS_KEY=zz"
    once = redact_patterns(text)
    assert redact_patterns(once) == once


# ---------------------------------------------------------------------------- no false positives
ORDINARY = [
    "STACKPROBE_DIR=/tmp/target/stackprobe-20261122T033253Z-quick/01-seqread fio job.fio",
    "CEPH_CONF=/tmp/lab/ceph.conf fio --output-format=json+ job.fio",
    "ceph -c /etc/ceph/ceph.conf --id admin -k /etc/ceph/ceph.client.admin.keyring -s",
    "ceph-fuse --keyring /etc/ceph/keyring /mnt",
    "fsid 3e8f0b36-0b0c-4d9e-9a55-3c3c1b2e7d41 health HEALTH_OK",
    "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "sha1 a94a8fe5ccb19ba61c4c0873d391e987982fbbd3",  # 40 hex characters
    "AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",  # 40 base64 characters, no padding
    "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB==",  # padded, but not a cephx key's start
    "AQAAAAAAAAAAAAAAAAAA==",  # too short
    "Power-On Password Status: Disabled\nKeyboard Password Status: Not Implemented",
    "  key: 'read'  tokens 5  primary_key_id 3",
    '"job options" : {"rw" : "randread", "bs" : "4k", "description" : "plain words"}',
    "IOPS=25.3k, BW=98.9MiB/s (104MB/s)(5936MiB/60001msec)",
    "Total time run:         10.0121\nBandwidth (MB/sec):     941.3",
    "ssh://root@10.0.0.5:22/srv http://host:8080/a@b",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_output_is_left_alone(text):
    assert redact_patterns(text) == text


def test_recorded_tool_outputs_are_left_alone():
    """Every recorded and public fixture (fio in all formats, ceph, rados, rbd, iperf3,
    sadf, inventory, ...) passes through unchanged."""
    r = Redactor()
    files = [p for p in FIXTURES.rglob("*") if p.is_file()]
    assert len(files) > 50
    changed = [str(p) for p in files if r.data(p.read_bytes()) != p.read_bytes()]
    assert changed == []


# ---------------------------------------------------------------------------- registered values
def test_registered_values_are_hidden_wherever_they_appear():
    r = Redactor()
    secret = str(uuid.uuid4())
    assert r.register(secret)
    assert r.text(f"filename=/data-{secret}.bin") == f"filename=/data-{REDACTED}.bin"
    assert r.argv(["fio", f"--name={secret}"]) == ["fio", f"--name={REDACTED}"]


def test_values_too_short_or_paths_are_not_registered():
    r = Redactor()
    for value in ("", "1", "true", "abc123", "/tmp", "/etc/ceph/ceph.client.admin.keyring", "~/.ssh/x"):
        assert not r.register(value), value
    assert r.values == frozenset()
    assert r.text("true 1 /tmp abc123") == "true 1 /tmp abc123"


def test_longest_registered_value_wins():
    r = Redactor(["abcdefgh", "abcdefgh-ijkl"])
    assert r.text("x abcdefgh-ijkl y abcdefgh") == f"x {REDACTED} y {REDACTED}"


@pytest.mark.parametrize("name, secret", [
    ("MY_TEST_SECRET_KEY", True), ("AWS_SECRET_ACCESS_KEY", True), ("aws_session_token", True),
    ("DB_PASSWORD", True), ("LDAP_PASSWD", True), ("GOOGLE_APPLICATION_CREDENTIALS", True),
    ("CEPH_KEY", True), ("STACKPROBE_DIR", False), ("CEPH_CONF", False), ("PATH", False),
    ("HOME", False), ("COLUMNS", False),
])
def test_secret_names(name, secret):
    assert secret_name(name) is secret


def test_env_values_by_name():
    r = Redactor()
    r.register_env({"MY_TEST_SECRET_KEY": "s3cr3t-value-1", "STACKPROBE_DIR": "/tmp/x/y",
                    "HOME": "/root", "BENCH_TOKEN": "tok-123456789"})
    assert r.values == {"s3cr3t-value-1", "tok-123456789"}
    assert redact_env({"AWS_SECRET_ACCESS_KEY": "abc", "CEPH_CONF": "/c"}) == \
        {"AWS_SECRET_ACCESS_KEY": REDACTED, "CEPH_CONF": "/c"}


def test_command_line_hides_secret_named_variables():
    res = CommandResult(["rados", "--key", "AbCdEf123456", "lspools"], 0, "", "", 0.0, 1.0,
                        env={"CEPH_CONF": "/etc/ceph/c.conf", "CEPH_KEY": "AbCdEf123456"})
    line = res.command_line()
    assert line.startswith("CEPH_CONF=/etc/ceph/c.conf CEPH_KEY='<redacted>' rados")
    assert "AbCdEf123456" not in Redactor().text(line)
    assert Redactor().argv(res.argv) == ["rados", "--key", REDACTED, "lspools"]


def test_tree_redacts_strings_argv_and_secret_named_keys():
    secret = "planted-" + uuid.uuid4().hex
    r = Redactor([secret])
    tree = {"argv": ["ceph", "--key", "abcdefgh12345678", "-s"], "error": f"failed {secret}",
            "n": 3, "x": 1.5, "ok": True, "none": None,
            "env": {"MY_TEST_SECRET_KEY": "short", "PATH": "/bin"},
            "nested": [{"note": f"key = {secret}"}]}
    out = r.tree(tree)
    assert out["argv"] == ["ceph", "--key", REDACTED, "-s"]
    assert out["error"] == f"failed {REDACTED}"
    assert out["env"] == {"MY_TEST_SECRET_KEY": REDACTED, "PATH": "/bin"}
    assert (out["n"], out["x"], out["ok"], out["none"]) == (3, 1.5, True, None)
    assert secret not in json.dumps(out)


def test_binary_content_gets_registered_values_only():
    secret = "planted-" + uuid.uuid4().hex
    r = Redactor([secret])
    key = cephx_key()
    data = b"\x00\x01" + secret.encode() + b"\xff" + f"password=abcdefgh {key}".encode()
    out = r.data(data)
    assert secret.encode() not in out and out.startswith(b"\x00\x01") and b"\xff" in out
    assert key.encode() in out, "patterns are not applied to binary content"
    text = f"ok {key}\n".encode()
    assert r.data(text) == f"ok {REDACTED}\n".encode()
    assert r.data(b"\xff\xfeplain") == b"\xff\xfeplain"


def test_secrets_are_scoped_to_their_run():
    a, b = f"run-a-{uuid.uuid4().hex}", f"run-b-{uuid.uuid4().hex}"
    assert redact.for_run(a) is redact.for_run(a)
    redact.for_run(a).register("only-in-run-a-" + a)
    assert "only-in-run-a-" + a not in redact.for_run(b).values


# ---------------------------------------------------------------------------- Ceph keyrings
def test_keyring_paths_from_the_conf_with_metavariables(tmp_path):
    key, other = cephx_key(), cephx_key()
    (tmp_path / "ceph.client.bench.keyring").write_text(keyring_text("client.bench", key))
    (tmp_path / "extra.keyring").write_text(keyring_text("client.other", other))
    conf = tmp_path / "ceph.conf"
    conf.write_text(f"[global]\nfsid = x\n\n[client]\nkeyring = {tmp_path}/$cluster.$name.keyring"
                    f"  ; the default name\n[client.bench]\nkeyring file = {tmp_path}/none\n"
                    f"[osd]\nkeyring = {tmp_path}/extra.keyring\n")
    assert client_keys(conf, "bench") == [key], "the osd section is not the client's"
    assert client_keys(conf, "bench", keyring=tmp_path / "extra.keyring") == [other, key]
    assert expand_meta("/k/$cluster.$name.$id.keyring", "bench") == "/k/ceph.client.bench.bench.keyring"


def test_key_and_keyfile_options_and_unreadable_files(tmp_path):
    key, filed = cephx_key(), cephx_key()
    (tmp_path / "bench.key").write_text(filed + "\n")
    conf = tmp_path / "ceph.conf"
    conf.write_text(f"[client.bench]\nkey = {key}\nkeyfile = {tmp_path}/bench.key\n"
                    f"keyring = {tmp_path}/missing.keyring\n")
    assert client_keys(conf, "bench") == [key, filed]
    nothing = tmp_path / "nothing.conf"
    nothing.write_text(f"[client]\nkeyring = {tmp_path}/missing.keyring\n")
    assert client_keys(nothing, "bench", tmp_path / "missing") == []
    assert keys_in_keyring("[client.a]\n\tkey = A\n[client.b]\nkey=B ; comment\n") == ["A", "B"]
    assert conf_options("[client]\nKeyring-File = /x\n", ("client",)) == {"keyring_file": ["/x"]}


def test_the_ceph_session_registers_the_client_key_for_its_run(tmp_path):
    key = cephx_key()
    keyring = tmp_path / "bench.keyring"
    keyring.write_text(keyring_text("client.bench", key))
    conf = tmp_path / "ceph.conf"
    conf.write_text("[global]\nmon host = 127.0.0.1\n")
    run_id = f"20260101T000000Z-secrets-{uuid.uuid4().hex[:8]}"
    CephSession(CephTarget(conf, "bench", keyring), CephSettings(), transport=None,  # type: ignore[arg-type]
                run_id=run_id, scratch=tmp_path)
    assert key in redact.for_run(run_id).values
    run_dir = RunDir.create(tmp_path / "runs", run_id)
    res = CommandResult(["ceph", "-s"], 1, "", f"auth: bad key {key[:-2]}!!{key}\n", 0.0, 1.0)
    run_dir.save_command(run_dir.step_dir("ceph-session"), "01-ceph", res)
    assert all(key not in p.read_text() for p in run_dir.path.rglob("*") if p.is_file())


# ---------------------------------------------------------------------------- the run directory
def _results(run_id: str, secret: str) -> RunResults:
    step = StepResult(id="01-x", index=1, name="x", kind="fio", title="t", layer="disk",
                      params={"options": {"description": f"pw {secret}"}}, error=f"fio: {secret}",
                      warnings=[f"w {secret}"], notes=[f"n {secret}"],
                      commands=[CommandRecord(command=f"fio --key {secret}",
                                              argv=["fio", "--key", "whatever-it-is"], host="h",
                                              returncode=0, duration_s=1.0)])
    run = RunInfo(id=run_id, suite="s", suite_source="s.yaml", target="/t", host="h",
                  started="2026-01-01T00:00:00Z", stackprobe_version="0",
                  command_line=["stackprobe", "run", f"--note={secret}"])
    return RunResults(run=run, steps=[step])


def test_run_dir_writes_nothing_secret(tmp_path, monkeypatch):
    secret = "planted-" + uuid.uuid4().hex
    monkeypatch.setenv("MY_TEST_SECRET_KEY", secret)
    run_id = f"20260101T000000Z-rd-{uuid.uuid4().hex[:8]}"
    rd = RunDir.create(tmp_path, run_id)
    key = cephx_key()
    rd.write_suite(f"name: s\n# {secret}\nsteps: []\n# key = {key}\n")
    res = CommandResult(["fio", "j.fio"], 0, f"out {secret}\n", f"err {key}\n", 0.0, 1.0,
                        env={"STACKPROBE_DIR": "/t/x", "BENCH_PASSWORD": "added-for-this-command"})
    out, err = rd.save_command(rd.step_dir("01-x"), "fio", res)
    rd.save(_results(rd.run_id, secret))
    assert rd.write_text(rd.step_dir("01-x") / "job.fio", f"[j]\ndescription={secret}\n")
    assert not rd.write_text(rd.step_dir("01-x") / "clean.fio", "[j]\nrw=read\n")
    src = tmp_path / "user.fio"
    src.write_text(f"; {key}\n[j]\nrw=read\n")
    assert rd.copy_in(src, rd.step_dir("01-x") / "user.fio")
    assert (rd.path / "steps/01-x/fio.cmd").read_text() == \
        "STACKPROBE_DIR=/t/x BENCH_PASSWORD='<redacted>' fio j.fio\n"
    assert out.read_text() == f"out {REDACTED}\n" and err.read_text() == f"err {REDACTED}\n"
    data = json.loads((rd.path / "results.json").read_text())
    step = data["steps"][0]
    assert step["commands"][0]["argv"] == ["fio", "--key", REDACTED]
    assert step["error"] == f"fio: {REDACTED}" and step["warnings"] == [f"w {REDACTED}"]
    assert load_results(rd.path).run.command_line[-1] == f"--note={REDACTED}"
    for p in rd.path.rglob("*"):
        if p.is_file():
            text = p.read_text()
            assert secret not in text and key not in text and "added-for-this-command" not in text, p


def test_save_scrubs_files_written_behind_its_back(tmp_path, monkeypatch):
    """A runner's own write_text, shutil.copyfile of a log, a traceback in error.txt, a
    binary file: clean once the next save() has run."""
    secret = "planted-" + uuid.uuid4().hex
    monkeypatch.setenv("BENCH_SECRET", secret)
    rd = RunDir.create(tmp_path, f"20260101T000000Z-scrub-{uuid.uuid4().hex[:8]}")
    key = cephx_key()
    step = rd.step_dir("01-x")
    (step / "metadata.fio").write_text(f"[j]\ndescription={secret}\n")
    (step / "error.txt").write_text(f"Traceback...\nValueError: bad key {key}\n")
    (step / "blob.bin").write_bytes(b"\x00" + secret.encode() + b"\x00")
    big = step / "persec_lat.1.log"
    with open(big, "w") as f:
        for i in range(300_000):  # more than one scrub block
            f.write(f"{i}, 1234, 0, 4096, 0\n")
        f.write(f"note {secret}\n")
    (step / "clean.log").write_text("1, 2, 3\n")
    clean_mtime = (step / "clean.log").stat().st_mtime_ns
    rd.save(_results(rd.run_id, secret))
    for p in rd.path.rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            assert secret.encode() not in data and key.encode() not in data, p
    assert (step / "error.txt").read_text().endswith(f"bad key {REDACTED}\n")
    assert (step / "blob.bin").read_bytes() == b"\x00" + REDACTED.encode() + b"\x00"
    lines = big.read_text().splitlines()
    assert len(lines) == 300_001 and lines[-1] == f"note {REDACTED}" and lines[1234] == "1234, 1234, 0, 4096, 0"
    assert (step / "clean.log").stat().st_mtime_ns == clean_mtime, "clean files are not rewritten"
    assert rd.scrub() == [], "nothing new since the last scrub"
    (step / "late.txt").write_text(f"late {secret}")
    assert rd.scrub() == [step / "late.txt"]


def test_a_secret_registered_later_is_hidden_in_what_was_clean(tmp_path):
    """A finished step and a clean file are not looked at again — until a new secret is
    registered (an environment added for a later command): then everything is."""
    rd = RunDir.create(tmp_path, f"20260101T000000Z-later-{uuid.uuid4().hex[:8]}")
    late = "late-" + uuid.uuid4().hex
    results = _results(rd.run_id, "nothing-secret-yet")
    results.steps[0].status = "ok"
    results.steps[0].notes.append(f"printed {late}")
    (rd.step_dir("01-x") / "fio.stdout").write_text(f"printed {late}\n")
    rd.save(results)
    assert late in (rd.path / "results.json").read_text()
    res = CommandResult(["true"], 0, "", "", 0.0, 1.0, env={"BENCH_TOKEN": late})
    rd.save_command(rd.step_dir("02-y"), "true", res)
    rd.save(results)
    assert results.steps[0].notes[-1] == f"printed {REDACTED}"
    assert _files_holding(rd.path, [late]) == []


# ---------------------------------------------------------------------------- real runs
PLANTED_JOB = """\
; the bench client's keyring, pasted here by mistake:
; [client.bench]
;     key = {comment_key}
[planted]
name=planted-${{MY_TEST_SECRET_KEY}}
description=bench client key {option_key} for ${{MY_TEST_SECRET_KEY}}
filename=${{STACKPROBE_DIR}}/data
rw=write
bs=4k
size=1M
"""

# fio fails to load an engine of that name, and says so with the name: the secret
FAILING_JOB = """\
[fails]
ioengine=${MY_TEST_SECRET_KEY}
filename=${STACKPROBE_DIR}/data
rw=read
bs=4k
size=1M
"""

SUITE = """\
name: secrets
steps:
  - kind: fio
    job_file: planted.fio
  - kind: fio
    name: generated
    rw: read
    bs: 4k
    size: 1M
    runtime: 1
    options: {{description: "client key {suite_key}"}}
  - kind: fio
    job_file: failing.fio
"""


def _files_holding(root: Path, secrets: list[str]) -> list[str]:
    found = []
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink():
            data = p.read_bytes()
            found += [f"{p}: {s}" for s in secrets if s.encode() in data]
    return found


@pytest.fixture(scope="module")
def planted_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("secrets")
    env_secret = str(uuid.uuid4())
    keys = {"comment_key": cephx_key(), "option_key": cephx_key(), "suite_key": cephx_key()}
    (base / "planted.fio").write_text(PLANTED_JOB.format(**keys))
    (base / "failing.fio").write_text(FAILING_JOB)
    (base / "s.yaml").write_text(SUITE.format(**keys))
    target = base / "target"
    target.mkdir()
    proc = run_cli(["run", "s.yaml", "--target", target, "--out", base / "runs", "--no-monitor"],
                   cwd=base, env={"MY_TEST_SECRET_KEY": env_secret}, timeout=300)
    (run_dir,) = [p for p in (base / "runs").iterdir() if p.is_dir()]
    reports = []
    for fmt in ("md", "json", "csv", "html"):
        rep = run_cli(["report", run_dir, "--format", fmt], cwd=base, check=0)
        reports.append(Path(rep.stdout.strip()))
    return {"proc": proc, "run_dir": run_dir, "base": base, "target": target, "reports": reports,
            "secrets": [env_secret, *keys.values()], "env_secret": env_secret, "keys": keys}


@pytest.mark.tools
@pytest.mark.beside  # no figure judged: which files hold a secret
def test_planted_run_ran_with_the_secrets(planted_run):
    proc, run_dir = planted_run["proc"], planted_run["run_dir"]
    assert proc.returncode == 1, (proc.stdout[-3000:], proc.stderr[-3000:])  # the failing step
    results = load_results(run_dir)
    assert [s.status for s in results.steps] == ["ok", "ok", "failed"]
    planted, generated, failing = results.steps
    (rec,) = planted.records
    assert rec.job == f"planted-{REDACTED}", "fio expanded the secret"
    assert "description" in (run_dir / "steps" / planted.id / "fio.stdout").read_text()
    # the generated job file held a secret: fio read an unredacted copy beside its test files
    assert str(planted_run["target"]) in generated.commands[0].command
    kept = (run_dir / "steps" / generated.id / "job.fio").read_text()
    assert f"description=client key {REDACTED}" in kept
    assert f"engine {REDACTED} not loadable" in failing.error, failing.error
    assert list(planted_run["target"].iterdir()) == [], "scratch removed"


def test_planted_secrets_are_in_no_file_of_the_run(planted_run):
    assert all(p.is_file() and p.is_relative_to(planted_run["run_dir"]) for p in planted_run["reports"])
    user_copy = (planted_run["run_dir"] / "steps").glob("*/planted.fio")
    assert f"key = {REDACTED}" in next(user_copy).read_text()
    assert _files_holding(planted_run["base"] / "runs", planted_run["secrets"]) == []


def test_planted_secrets_not_printed(planted_run):
    proc = planted_run["proc"]
    assert not [s for s in planted_run["secrets"] if s in proc.stdout + proc.stderr]
