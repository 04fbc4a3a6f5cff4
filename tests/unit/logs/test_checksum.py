"""CRC-32 of large buffers on two threads: the same sum as zlib's of the whole (the cache's files say so)."""

from __future__ import annotations

import random
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rlmon.logs.checksum import PARALLEL_BYTES, crc32, crc32_combine


@pytest.mark.parametrize(
    "length", [0, 1, 4095, PARALLEL_BYTES - 1, PARALLEL_BYTES, PARALLEL_BYTES + 1, 3 * PARALLEL_BYTES + 7]
)
def test_the_sum_is_zlibs_at_every_length(length: int) -> None:
    data = random.Random(length).randbytes(length)
    assert crc32(data) == zlib.crc32(data)
    assert crc32(memoryview(data)) == zlib.crc32(data)
    assert crc32(bytearray(data)) == zlib.crc32(data)


def test_known_sums() -> None:
    # the CRC-32 check value of "123456789" (the polynomial's catalogue entry), and of no bytes
    assert crc32(b"123456789") == 0xCBF43926
    assert crc32(b"") == 0
    assert crc32_combine(0xCBF43926, 0, 0) == 0xCBF43926


@given(st.binary(max_size=3000), st.binary(max_size=3000))
def test_two_sums_join_into_the_sum_of_both(first: bytes, second: bytes) -> None:
    assert crc32_combine(zlib.crc32(first), zlib.crc32(second), len(second)) == zlib.crc32(first + second)
