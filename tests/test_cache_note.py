"""A fio step says when a cache, not the disk, may have made its figures (kinds/fio/cache_note)."""

from __future__ import annotations

from stackprobe.kinds.fio.cache_note import DEVICE_CACHE_BYTES, note
from stackprobe.parsers.host.inventory import mem_total_bytes

GIB = 2**30


def test_buffered_data_that_fits_in_ram_names_the_page_cache_and_both_sizes():
    text = note(256 * 2**20, direct=False, ram_bytes=24 * GIB)
    assert text.startswith("256 MiB of test data, 24.0 GiB RAM, buffered I/O: reads may come "
                           "from the page cache"), text


def test_buffered_data_larger_than_ram_says_nothing_but_small_direct_data_names_device_caches():
    assert note(32 * GIB, direct=False, ram_bytes=24 * GIB) is None
    small = note(512 * 2**20, direct=True, ram_bytes=24 * GIB)
    assert small.startswith("512 MiB of test data with O_DIRECT: small enough for a drive's")
    assert note(DEVICE_CACHE_BYTES, direct=True, ram_bytes=None) is None
    assert note(10 * GIB, direct=True, ram_bytes=24 * GIB) is None


def test_unread_ram_is_said_and_counts_as_fitting():
    assert "RAM not read" in note(GIB, direct=False, ram_bytes=None)


def test_memtotal_is_read_in_kib():
    assert mem_total_bytes("MemTotal:       24563780 kB\nMemFree: 1 kB\n") == 24563780 * 1024
    assert mem_total_bytes("MemFree: 1 kB\n") is None
