"""Bottleneck hints from monitoring summaries, and NIC link speeds from sysfs lines."""

from stackprobe.analysis.bottleneck import hints
from stackprobe.engine.step_monitor import parse_link_speeds


def _summary(**kw):
    base = {"cpu": {"busy_mean_pct": 20.0, "iowait_mean_pct": 1.0,
                    "core_busy_max_pct": {"0": 30.0, "1": 25.0}},
            "disks": {}, "nics": {}, "ncpu": 2}
    base.update(kw)
    return base


def test_quiet_host_gives_no_hint():
    assert hints({"h1": _summary()}) == []
    assert hints({}) == []


def test_busy_device_full_link_and_errors():
    s = _summary(disks={"vda": {"util_max_pct": 99.0, "await_ms_mean": 4.2},
                        "vdb": {"util_max_pct": 40.0}},
                 nics={"eth0": {"tx_max_pct_of_link": 93.0, "rx_max_pct_of_link": 10.0,
                                "speed_mbps": 10000.0, "rx_drop": 12, "tx_errs": 0}})
    out = hints({"h1": s})
    assert out[0] == "h1: vda 99% busy, mean await 4.2 ms — the device is the limit"
    assert "h1: eth0 transmit at 93% of its 10000 Mb/s link — the network is the limit" in out
    assert "h1: eth0 counted 12 rx drop during the step" in out
    assert not any("vdb" in h for h in out)


def test_cpu_bound_single_thread_and_iowait():
    bound = hints({"h1": _summary(cpu={"busy_mean_pct": 96.0, "iowait_mean_pct": 0.0,
                                       "core_busy_max_pct": {"0": 100.0, "1": 100.0}})})
    assert bound == ["h1: CPUs 96% busy on average — CPU-bound"]
    pinned = hints({"h1": _summary(cpu={"busy_mean_pct": 52.0, "iowait_mean_pct": 0.0,
                                        "core_busy_max_pct": {"0": 100.0, "1": 9.0}})})
    assert pinned == ["h1: core 0 reached 100% while the host averaged 52% — one thread "
                      "may be the limit"]
    waiting = hints({"h2": _summary(cpu={"busy_mean_pct": 50.0, "iowait_mean_pct": 41.0,
                                         "core_busy_max_pct": {}})})
    assert waiting == ["h2: iowait 41% on average — CPUs waiting on storage"]


def test_hosts_in_name_order():
    busy = _summary(cpu={"busy_mean_pct": 95.0, "core_busy_max_pct": {}})
    assert [h.split(":")[0] for h in hints({"h3": busy, "h1": busy})] == ["h1", "h3"]


def test_link_speeds_from_sysfs_lines():
    text = ("/sys/class/net/eth0/speed:10000\n/sys/class/net/ifb0/speed:-1\n"
            "/sys/class/net/sp-h1/speed:25000\ngarbage\n")
    assert parse_link_speeds(text) == {"eth0": 10000.0, "sp-h1": 25000.0}


def test_a_virtual_nic_beyond_its_nominal_speed_is_not_called_the_limit():
    s = _summary(nics={"eth0": {"rx_max_pct_of_link": 159.0, "speed_mbps": 10000.0}})
    assert hints({"h1": s}) == ["h1: eth0 receive at 159% of its 10000 Mb/s: the speed is "
                                "nominal (a virtual NIC), not a limit"]
