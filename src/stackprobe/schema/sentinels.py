"""Host names that are not hosts: what records say when a figure belongs to many clients.

Both are written into results.json (a record's `host`), so they are part of the schema.
"""

from __future__ import annotations

# A fleet's merged record, computed by stackprobe over every client (rates summed,
# histograms merged, exact percentiles): runners of fio and metadata fleets write it.
FLEET_HOST = "all clients"

# fio's own aggregate of a client/server run ("All clients": summed rates, merged means,
# no percentiles), as the fio JSON parser names its host; fleets keep it only as a
# cross-check, under FIO_ALL_KEPT.
FIO_ALL_CLIENTS = "all"
FIO_ALL_KEPT = "all clients (fio)"
