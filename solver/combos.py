"""Digit combinations for every (sum, length): the Kakuro cheat sheet, as bitmasks."""
from __future__ import annotations

import itertools
from functools import lru_cache

__all__ = ["combinations", "allowed_digits_mask", "sum_range"]


def sum_range(length: int) -> tuple[int, int]:
    """Smallest and largest sum of ``length`` distinct digits 1..9."""
    return length * (length + 1) // 2, length * (19 - length) // 2


@lru_cache(maxsize=None)
def _table() -> dict[tuple[int, int], tuple[int, ...]]:
    table: dict[tuple[int, int], list[int]] = {}
    for length in range(1, 10):
        for combo in itertools.combinations(range(1, 10), length):
            mask = 0
            for d in combo:
                mask |= 1 << d
            table.setdefault((sum(combo), length), []).append(mask)
    return {k: tuple(v) for k, v in table.items()}


def combinations(total: int, length: int) -> list[tuple[int, ...]]:
    """Every set of ``length`` distinct digits summing to ``total``, ascending."""
    return [tuple(d for d in range(1, 10) if m >> d & 1) for m in _table().get((total, length), ())]


@lru_cache(maxsize=65536)
def allowed_digits_mask(total: int, length: int, exclude: int = 0) -> int:
    """Union (bits 1..9) of the digits in combinations that avoid the ``exclude`` digits."""
    union = 0
    for mask in _table().get((total, length), ()):
        if not mask & exclude:
            union |= mask
    return union
