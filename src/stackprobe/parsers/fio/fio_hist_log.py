"""fio completion-latency histogram logs (`write_hist_log`) -> json+-style histograms.

Why: fio's JSON gives either every job's histogram (no group_reporting) or the group's
(group_reporting), never both from one run. The histogram logs are written per job whatever
the reporting, so they are the per-job half needed to check that summing job histograms
reproduces fio's group figures exactly (tests/test_fio_hist_merge.py).

What fio 3.33 writes (checked on its own output, tests/fixtures/recorded/fio-hist/), with
`write_hist_log=<prefix>`, `log_hist_msec=<ms>`, `log_hist_coarseness=0`, one file
`<prefix>_clat_hist.<job number>.log` per job:

    time_ms, direction, block_size, c0, c1, ..., c1855

- direction is 0 read, 1 write, 2 trim; one line per direction per interval;
- c0..c1855 are fio's raw latency bucket counts *for that interval only*: fio snapshots its
  cumulative histogram and prints the difference from the previous snapshot, so the file's
  lines add up to the cumulative histogram at the last snapshot;
- the histogram is the **completion** latency (clat), also with lat_percentiles=1;
- a snapshot is only taken when a completion arrives at least log_hist_msec after the last
  one, and fio takes none when the job ends: the I/Os after a direction's last snapshot are
  in fio's report but in no log line. The logs are complete only when each direction's last
  I/O completes after such a pause (see the recorded job files).

A coarseness above 0 sums 2^n neighbouring buckets into one column; such columns have no
single json+ bin value, so those files are refused (by their column count).
"""

from __future__ import annotations

from stackprobe.parsers.bad_input import guard

# fio's histogram geometry (stat.h): FIO_IO_U_PLAT_BITS = 6 -> 64 buckets per group,
# FIO_IO_U_PLAT_GROUP_NR = 29 groups.
PLAT_BITS = 6
PLAT_VAL = 1 << PLAT_BITS
PLAT_NR = 29 * PLAT_VAL  # 1856 buckets
_HEAD = 3  # time_ms, direction, block_size
DIRECTIONS = {0: "read", 1: "write", 2: "trim"}


def bucket_value(index: int) -> int:
    """The latency in ns that fio reports for bucket `index` (the json+ bin key).

    Mirrors fio's plat_idx_to_val(): the first two groups are exact (index = value); above
    them a group spans [2^(e+6), 2^(e+7)) in 64 buckets of width 2^e, and a bucket reports
    its middle, base + (k + 0.5) * 2^e. fio computes that in floating point and converts it
    to an integer; e >= 1 there, so the result is exact in integers: base + (2k + 1) * 2^(e-1).
    """
    if not 0 <= index < PLAT_NR:
        raise ValueError(f"fio histogram bucket index out of range 0..{PLAT_NR - 1}: {index}")
    if index < 2 * PLAT_VAL:
        return index
    error_bits = (index >> PLAT_BITS) - 1
    base = 1 << (error_bits + PLAT_BITS)
    k = index % PLAT_VAL
    return base + ((2 * k + 1) << (error_bits - 1))


def bucket_counts_to_bins(counts: list[int]) -> dict[int, int]:
    """Raw bucket counts (index order) -> {bin value ns: count}, non-zero bins only, like json+."""
    return {bucket_value(i): c for i, c in enumerate(counts) if c}


@guard("fio histogram log")
def parse_hist_log(text: str) -> dict[int, dict[int, int]]:
    """{direction: {bin value ns: count}} summed over every line of one job's histogram log.

    Lines hold per-interval counts (see the module docstring), so summing them gives the
    job's histogram up to its last snapshot. Directions without a line are absent. Blank
    lines are skipped; anything else that is not a well-formed line raises ValueError
    naming the line number (1-based), so a truncated or coarsened log is not half-read.
    """
    totals: dict[int, list[int]] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        direction, counts = _parse_line(line, lineno)
        total = totals.setdefault(direction, [0] * PLAT_NR)
        for index, count in enumerate(counts):
            total[index] += count
    return {d: bucket_counts_to_bins(total) for d, total in sorted(totals.items())}


def _parse_line(line: str, lineno: int) -> tuple[int, list[int]]:
    """(direction, 1856 bucket counts) of one log line; ValueError with the line number."""
    fields = line.split(",")
    if len(fields) != _HEAD + PLAT_NR:
        raise ValueError(
            f"line {lineno}: {len(fields)} columns, expected {_HEAD + PLAT_NR} "
            f"(time, direction, block size and {PLAT_NR} buckets; was the log written "
            "with log_hist_coarseness=0?)"
        )
    try:
        numbers = [int(f) for f in fields]
    except ValueError:
        raise ValueError(f"line {lineno}: a column is not an integer") from None
    direction = numbers[1]
    if direction not in DIRECTIONS:
        raise ValueError(f"line {lineno}: direction {direction} is not 0, 1 or 2")
    counts = numbers[_HEAD:]
    if any(c < 0 for c in counts) or numbers[0] < 0:
        raise ValueError(f"line {lineno}: negative time or count")
    return direction, counts
