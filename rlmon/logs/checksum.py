"""CRC-32 (zlib's) of large buffers, the two halves on two threads.

The cache checks every frame file it loads against the CRC-32 recorded when it was written, before parsing it;
for the frame of a 200 MB log (25 MB) that check took 12 ms of a 50 ms restart-and-refresh. ``zlib.crc32``
releases the GIL on large buffers, so each half is summed at once on its own thread, and the two are joined as
zlib's ``crc32_combine`` does (which Python's ``zlib`` does not expose): the result is ``zlib.crc32`` of the
whole, so files written before read the same.
"""

from __future__ import annotations

import functools
import zlib
from concurrent.futures import ThreadPoolExecutor

__all__ = ["PARALLEL_BYTES", "crc32", "crc32_combine"]

PARALLEL_BYTES = 8 << 20
"""Buffers at least this long are summed in two halves at once; shorter ones on the calling thread."""

_POLYNOMIAL = 0xEDB88320  # CRC-32 (reflected), as zlib
_HALVES = ThreadPoolExecutor(max_workers=2, thread_name_prefix="rlmon-crc")
"""Sums second halves (its threads start with the first one submitted)."""


def crc32(data: bytes | bytearray | memoryview) -> int:
    """``zlib.crc32(data)`` (unsigned); a buffer of :data:`PARALLEL_BYTES` or more in two halves at once.

    >>> crc32(b"rlmon") == zlib.crc32(b"rlmon")
    True
    """
    view = memoryview(data).cast("B")
    if len(view) < PARALLEL_BYTES:
        return zlib.crc32(view) & 0xFFFFFFFF
    half = len(view) // 2
    second = _HALVES.submit(zlib.crc32, view[half:])
    first = zlib.crc32(view[:half])
    return crc32_combine(first, second.result(), len(view) - half)


def crc32_combine(first: int, second: int, second_length: int) -> int:
    """The CRC-32 of ``A + B`` from ``first`` = crc32(A), ``second`` = crc32(B) and ``len(B)``.

    >>> crc32_combine(zlib.crc32(b"rl"), zlib.crc32(b"mon"), 3) == zlib.crc32(b"rlmon")
    True
    """
    # crc32(A + B) is crc32(A) carried through len(B) zero bytes, then xor crc32(B): the carrying is linear over
    # GF(2), a 32 x 32 bit matrix per power of two of zero bytes.
    crc = first & 0xFFFFFFFF
    power = 0
    length = second_length
    while length:
        if length & 1:
            crc = _times(_zero_bytes(power), crc)
        length >>= 1
        power += 1
    return (crc ^ second) & 0xFFFFFFFF


def _times(matrix: tuple[int, ...], vector: int) -> int:
    """``matrix`` (32 columns as ints) times the bit vector ``vector`` over GF(2)."""
    total = 0
    column = 0
    while vector:
        if vector & 1:
            total ^= matrix[column]
        vector >>= 1
        column += 1
    return total


def _square(matrix: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(_times(matrix, column) for column in matrix)


@functools.cache
def _zero_bits(power: int) -> tuple[int, ...]:
    """The operator that carries a CRC through ``2 ** power`` zero bits."""
    if power == 0:
        return (_POLYNOMIAL, *(1 << row for row in range(31)))
    return _square(_zero_bits(power - 1))


def _zero_bytes(power: int) -> tuple[int, ...]:
    """The operator that carries a CRC through ``2 ** power`` zero bytes (8 bits each)."""
    return _zero_bits(power + 3)
