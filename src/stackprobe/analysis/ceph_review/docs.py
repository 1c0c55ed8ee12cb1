"""The Ceph documentation sections the review's rules rest on (docs.ceph.com, latest)."""

from __future__ import annotations

from stackprobe.analysis.ceph_review.finding import Doc

_BASE = "https://docs.ceph.com/en/latest"

BLUESTORE_DEVICES = Doc("BlueStore Configuration Reference: Devices",
                        f"{_BASE}/rados/configuration/bluestore-config-ref/#devices")
BLUESTORE_SIZING = Doc("BlueStore Configuration Reference: Sizing",
                       f"{_BASE}/rados/configuration/bluestore-config-ref/#sizing")
BLUESTORE_CACHE = Doc("BlueStore Configuration Reference: Automatic Cache Sizing",
                      f"{_BASE}/rados/configuration/bluestore-config-ref/#automatic-cache-sizing")
HW_MEMORY = Doc("Hardware Recommendations: Memory",
                f"{_BASE}/start/hardware-recommendations/#memory")
PG_COUNT = Doc("Placement Groups: Choosing the number of PGs",
               f"{_BASE}/rados/operations/placement-groups/#choosing-the-number-of-pgs")
PG_AUTOSCALE = Doc("Placement Groups: Autoscaling placement groups",
                   f"{_BASE}/rados/operations/placement-groups/#autoscaling-placement-groups")
TOO_MANY_PGS = Doc("Health checks: TOO_MANY_PGS",
                   f"{_BASE}/rados/operations/health-checks/#too-many-pgs")
POOL_REPLICAS = Doc("Pools: Setting the Number of RADOS Object Replicas",
                    f"{_BASE}/rados/operations/pools/#setting-the-number-of-rados-object-replicas")
POOL_VALUES = Doc("Pools: Setting Pool Values (min_size)",
                  f"{_BASE}/rados/operations/pools/#setting-pool-values")
COMMON_SETTINGS = Doc("Common Settings (one type of daemon per node)",
                      f"{_BASE}/rados/configuration/common/")
FULL_RATIOS = Doc("Monitor Config Reference: Storage Capacity",
                  f"{_BASE}/rados/configuration/mon-config-ref/#storage-capacity")
OUT_OF_ORDER_FULL = Doc("Health checks: OSD_OUT_OF_ORDER_FULL",
                        f"{_BASE}/rados/operations/health-checks/#osd-out-of-order-full")
OLD_VERSION = Doc("Health checks: DAEMON_OLD_VERSION",
                  f"{_BASE}/rados/operations/health-checks/#daemon-old-version")
CLOCK_SKEW = Doc("Health checks: MON_CLOCK_SKEW",
                 f"{_BASE}/rados/operations/health-checks/#mon-clock-skew")
SCRUBBING = Doc("OSD Config Reference: Scrubbing",
                f"{_BASE}/rados/configuration/osd-config-ref/#scrubbing")
DEVICE_CLASSES = Doc("CRUSH Maps: Device classes",
                     f"{_BASE}/rados/operations/crush-map/#device-classes")
