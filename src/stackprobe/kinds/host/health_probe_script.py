"""The health probe: one POSIX sh script per host that prints every health counter it can
read, each part under a marker line (parsers/host/health_probe.py reads it).

Why one script: a host behind SSH answers in one round trip (the run-level watch takes one
before the first step and one after the last, on every host), and the output is one file
kept whole in the run directory whatever the parser makes of it. It prints:

- `### clock`: the wall clock and /proc/uptime together, so kernel-log times (microseconds
  since boot) become wall-clock times;
- `### edac`: EDAC counts, `grep -H` relative to /sys/devices/system/edac/mc;
- `### nic`: the error and drop counters of NICs backed by a device and of InfiniBand
  ports, in the dump form parsers/network/nic_counters.py reads;
- `### smart <disk>` / `### nvme <namespace>`: `smartctl -j -a -n standby` of each whole
  disk (`-n standby`: a sleeping disk is not woken, smartctl says so instead) and
  `nvme smart-log -o json` of each NVMe namespace, each only where the tool is installed;
- `### kmsg <source>`: kernel-log records after the cursor given (its sequence number):
  /dev/kmsg read without blocking; where it cannot be read, `dmesg --raw` (source
  'dmesg'); without a cursor only the last record, whose number is the next cursor.

Given a probe root, sysfs is read under it and the recorded outputs under `<root>/commands/`
(smartctl_<disk>.json, nvme_<ns>.json), `<root>/kmsg.txt` and `<root>/clock.txt` stand in
for the commands — a recorded tree is probed by the same code as a live host.
"""

from __future__ import annotations

NIC_COUNTERS = ("rx_errors tx_errors rx_dropped tx_dropped rx_crc_errors rx_missed_errors "
                "rx_frame_errors rx_fifo_errors tx_fifo_errors rx_over_errors "
                "rx_length_errors tx_aborted_errors tx_carrier_errors")
IB_COUNTERS = ("symbol_error link_downed link_error_recovery port_rcv_errors "
               "port_rcv_remote_physical_errors port_rcv_switch_relay_errors "
               "port_xmit_discards local_link_integrity_errors "
               "excessive_buffer_overrun_errors VL15_dropped")

SCRIPT = r"""
R=$1; C=$2
if [ -n "$R" ] && [ ! -d "$R" ]; then echo "probe root $R: no such directory" >&2; exit 3; fi
mark() { printf '### %s\n' "$*"; }
mark clock
if [ -n "$R" ] && [ -r "$R/clock.txt" ]; then cat "$R/clock.txt"
else printf '%s %s\n' "$(date +%s.%N)" "$(cut -d' ' -f1 /proc/uptime)"; fi
mark edac
( cd "$R/sys/devices/system/edac/mc" 2>/dev/null && grep -s -H . mc*/ce_count mc*/ue_count \
  mc*/csrow*/ce_count mc*/csrow*/ue_count mc*/dimm*/dimm_ce_count mc*/dimm*/dimm_ue_count )
mark nic
echo '## stackprobe nic counters'
files=""
for d in "$R"/sys/class/net/*; do
  [ -e "$d/device" ] || continue
  n=${d##*/}
  for f in $NICF; do [ -r "$d/statistics/$f" ] && files="$files sys/class/net/$n/statistics/$f"; done
done
for p in "$R"/sys/class/infiniband/*/ports/*; do
  [ -d "$p/counters" ] || continue
  q=${p#"$R"/}
  for f in $IBF; do [ -r "$p/counters/$f" ] && files="$files $q/counters/$f"; done
done
[ -n "$files" ] && ( cd "${R:-/}" && grep -s -H . $files ) | sed 's|^|/|'
echo '## end of nic counters'
if [ -n "$R" ]; then
  for f in "$R"/commands/smartctl_*.json; do
    [ -r "$f" ] || continue; b=${f##*/smartctl_}; mark smart "${b%.json}"; cat "$f"; echo; done
  for f in "$R"/commands/nvme_*.json; do
    [ -r "$f" ] || continue; b=${f##*/nvme_}; mark nvme "${b%.json}"; cat "$f"; echo; done
else
  for d in /sys/block/*; do
    n=${d##*/}
    case $n in loop*|ram*|zram*|dm-*|md*|sr*|nbd*|rbd*|fd*) continue;; esac
    case $n in
      nvme*n*) if command -v nvme >/dev/null 2>&1; then
                 mark nvme "$n"; nvme smart-log -o json "/dev/$n" 2>&1; echo; continue; fi;;
    esac
    if command -v smartctl >/dev/null 2>&1; then
      mark smart "$n"; smartctl -j -a -n standby "/dev/$n" 2>/dev/null; echo
    fi
  done
fi
keep() {
  if [ -n "$C" ]; then awk -F, -v c="$C" '/^ /{next} $2+0 > c+0'
  else awk '/^ /{next} {l=$0} END{if (l != "") print l}'; fi
}
if [ -n "$R" ]; then
  if [ -r "$R/kmsg.txt" ]; then mark kmsg kmsg; keep < "$R/kmsg.txt"; else mark kmsg none; fi
elif [ -r /dev/kmsg ] && dd if=/dev/kmsg of=/dev/null iflag=nonblock bs=64k count=1 2>/dev/null; then
  mark kmsg kmsg; dd if=/dev/kmsg iflag=nonblock bs=64k 2>/dev/null | keep
elif command -v dmesg >/dev/null 2>&1 && dmesg --raw >/dev/null 2>&1; then
  mark kmsg dmesg
  if [ -n "$C" ]; then dmesg --raw; else dmesg --raw | tail -n 1; fi
else
  mark kmsg none
fi
mark end
"""


def probe_argv(root: str | None, cursor: int | None = None) -> list[str]:
    """The probe's command line: the script, the probe root ('' for the live host) and the
    kernel-log cursor ('' for none: only the last record is printed)."""
    script = SCRIPT.replace("$NICF", NIC_COUNTERS).replace("$IBF", IB_COUNTERS)
    return ["sh", "-c", script, "health-probe", root or "", "" if cursor is None else str(cursor)]
