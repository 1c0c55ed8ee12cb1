"""The link probe: one POSIX sh script per host that prints every file a link's state is
read from, each under a marker line (parsers/network/link_probe.py reads it).

Why one script: a host behind SSH answers in one round trip, and the output is one file in
the step's directory, kept whole whatever the parser makes of it. Given a probe root, the
script reads `<root>/sys/class/...` and `<root>/proc/net/bonding/...` instead of the live
ones and the recorded command outputs under `<root>/commands/` (ethtool_<nic>.txt,
ethtool-i_<nic>.txt, ibstat.txt, ip_addr.txt) instead of running the commands — a recorded
tree is probed by the same code as a live host. ethtool and ibstat run only where they are
installed; without them sysfs alone tells the state and speed.
"""

from __future__ import annotations

SCRIPT = r"""
R=$1
if [ -n "$R" ] && [ ! -d "$R" ]; then echo "probe root $R: no such directory" >&2; exit 3; fi
mark() { printf '### %s\n' "$*"; }
value() { v=$(cat "$1" 2>/dev/null) || return 0; mark "$2"; printf '%s\n' "$v"; }
for d in "$R"/sys/class/net/*; do
  [ -e "$d" ] || [ -L "$d" ] || continue
  n=${d##*/}
  for f in operstate carrier speed duplex mtu; do value "$d/$f" "net $n $f"; done
  if [ -e "$d/device" ] || [ -L "$d/device" ]; then mark net "$n" device; echo 1; fi
  if [ -L "$d/device/driver" ]; then
    l=$(readlink "$d/device/driver"); mark net "$n" driver; printf '%s\n' "${l##*/}"
  fi
  if [ -L "$d/master" ]; then l=$(readlink "$d/master"); mark net "$n" master; printf '%s\n' "${l##*/}"; fi
done
for d in "$R"/sys/class/infiniband/*; do
  [ -e "$d" ] || continue
  n=${d##*/}
  value "$d/fw_ver" "ib $n fw_ver"
  for p in "$d"/ports/*; do
    [ -e "$p" ] || continue
    for f in rate state phys_state link_layer; do value "$p/$f" "ib $n/${p##*/} $f"; done
  done
done
for b in "$R"/proc/net/bonding/*; do
  [ -r "$b" ] || continue
  mark bond "${b##*/}"; cat "$b"; echo
done
if [ -n "$R" ]; then
  for f in "$R"/commands/*; do [ -r "$f" ] || continue; mark cmd "${f##*/}"; cat "$f"; echo; done
else
  if command -v ethtool >/dev/null 2>&1; then
    for d in /sys/class/net/*; do
      n=${d##*/}; [ "$n" = lo ] && continue
      mark cmd "ethtool_$n.txt"; ethtool "$n" 2>/dev/null
      mark cmd "ethtool-i_$n.txt"; ethtool -i "$n" 2>/dev/null
    done
  fi
  if command -v ibstat >/dev/null 2>&1; then mark cmd ibstat.txt; ibstat 2>/dev/null; fi
  if command -v ip >/dev/null 2>&1; then mark cmd ip_addr.txt; ip -o addr show 2>/dev/null; fi
fi
mark end
"""


def probe_argv(root: str | None) -> list[str]:
    """The probe's command line: the script and the probe root ('' for the live host)."""
    return ["sh", "-c", SCRIPT, "link-probe", root or ""]

