"""The read-only Ceph commands of watching a step, through one librados client that stays
connected (the other side: kinds/ceph/shell.py).

Run as a script by the Python that runs the `ceph` CLI (its shebang: python3-rados is
there, not in stackprobe's own environment), so it imports nothing of stackprobe. Each
`ceph` CLI process starts Python and connects to the monitors: 0.3 s of CPU, three of them
every five seconds of every Ceph step. This connects once and answers a command in
milliseconds, the same bytes the CLI prints (the CLI prints what the monitor or the OSD
answers).

argv: conf, client id, keyring ('' for the conf's own), op timeout in seconds.
stdin: one JSON request a line, {"cmd": {...}} for a monitor or {"tell_osds": {...}} for
every OSD in turn; stdout: one JSON answer a line, {"rc", "out", "err"} (rc as the CLI's
exit status: 0 or a positive errno), or for tell_osds {"osds": {id: {...}}}. The first
line is {"ready": true} once connected, or {"ready": false, "err": ...} and the end.
"""

import json
import sys


def _answer(ret, out, err):
    return {"rc": -ret if ret < 0 else ret, "out": out.decode("utf-8", "replace"), "err": err}


def _osd_ids(cluster):
    ret, out, err = cluster.mon_command(json.dumps({"prefix": "osd ls", "format": "json"}), b"")
    if ret != 0:
        raise RuntimeError(err or f"osd ls failed ({ret})")
    return [int(i) for i in json.loads(out)]


def _failed(exc):
    return {"rc": 1, "out": "", "err": f"{type(exc).__name__}: {exc}"}


def _tell(cluster, osd, cmd):
    try:
        return _answer(*cluster.osd_command(osd, cmd, b""))
    except Exception as exc:  # rados.Error: an OSD down or timed out answers nothing
        return _failed(exc)


def _one(cluster, request):
    if "tell_osds" not in request:
        return _answer(*cluster.mon_command(json.dumps(request["cmd"]), b""))
    cmd = json.dumps(request["tell_osds"])
    return {"osds": {str(i): _tell(cluster, i, cmd) for i in _osd_ids(cluster)}}


def _serve(cluster, lines, say):
    for line in lines:
        try:
            say(_one(cluster, json.loads(line)))
        except Exception as exc:  # one command's trouble is its answer, not the end
            say(_failed(exc))


def main(argv):
    conf, client, keyring, timeout = argv

    def say(obj):
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    try:
        import rados

        options = {"rados_mon_op_timeout": timeout, "rados_osd_op_timeout": timeout}
        if keyring:
            options["keyring"] = keyring
        cluster = rados.Rados(conffile=conf, name=f"client.{client}", conf=options)
        cluster.connect(timeout=int(float(timeout)))
    except Exception as exc:  # no python3-rados, a wrong key, no monitor: the CLI then
        say({"ready": False, "err": f"{type(exc).__name__}: {exc}"})
        return 1
    say({"ready": True})
    try:
        _serve(cluster, sys.stdin, say)
    finally:
        cluster.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
