import pytest

from stackprobe.units import (
    fmt_bw,
    fmt_iops,
    fmt_ns,
    fmt_seconds,
    parse_duration_s,
    parse_size,
)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("4k", 4096),
        ("4K", 4096),
        ("1M", 1024**2),
        ("1MiB", 1024**2),
        ("256M", 256 * 1024**2),
        ("2.5G", int(2.5 * 1024**3)),
        ("512", 512),
        (4096, 4096),
        ("10G", 10 * 1024**3),
    ],
)
def test_parse_size_binary_like_fio(text, expected):
    assert parse_size(text) == expected


def test_parse_size_decimal_figures():
    assert parse_size("54.2MB", decimal=True) == 54_200_000
    assert parse_size("51.7MiB", decimal=True) == int(round(51.7 * 1024**2))


@pytest.mark.parametrize("bad", ["", "four", "4x", "-1", True])
def test_parse_size_rejects(bad):
    with pytest.raises(ValueError):
        parse_size(bad)


def test_durations():
    assert parse_duration_s("30") == 30
    assert parse_duration_s("5m") == 300
    assert parse_duration_s("500ms") == 0.5
    assert parse_duration_s(2) == 2
    with pytest.raises(ValueError):
        parse_duration_s("soon")


def test_formats_people_read():
    assert fmt_bw(67.2 * 1024**2) == "67.2 MiB/s"
    assert fmt_bw(11.3 * 1024**3) == "11.3 GiB/s"
    assert fmt_bw(1744 * 1024) == "1.70 MiB/s"
    assert fmt_iops(13_200) == "13.2k"
    assert fmt_iops(436) == "436"
    assert fmt_iops(1_050_000) == "1.05M"
    assert fmt_ns(372_700) == "373 µs"
    assert fmt_ns(9_680_000) == "9.68 ms"
    assert fmt_ns(1_900_000_000) == "1.90 s"
    assert fmt_seconds(89) == "1 min 29 s"
    assert fmt_seconds(3600 + 300) == "1 h 05 min"
