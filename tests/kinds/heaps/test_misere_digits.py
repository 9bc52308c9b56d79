"""The batch pass's eight-bytes-at-a-time decimal reads and writes (kinds.heaps.misere.digits) against
their plain-Python references, and against Python's own int and str."""

from __future__ import annotations

import random

import numba
import numpy as np
from numpy.typing import NDArray

from kinds.heaps.misere import digits
from kinds.heaps.misere.digits import SLACK, SMALL

I64 = NDArray[np.int64]


@numba.njit(cache=False)
def _runs_and_values(data: NDArray[np.uint8], count: int) -> tuple[NDArray[np.uint64], I64, I64]:
    """For every position below `count`: its word, the digit run it starts with, and that run's value
    (0 for no run, or a run of eight)."""
    words = np.empty(count, np.uint64)
    runs = np.empty(count, np.int64)
    values = np.zeros(count, np.int64)
    for i in range(count):
        word = digits.load8(data, i)
        run = digits.digit_run(word)
        words[i] = word
        runs[i] = run
        if 0 < run < 8:
            values[i] = digits.digits_value(word, int(run))
    return words, runs, values


@numba.njit(cache=False)
def _written(xs: I64) -> NDArray[np.uint8]:
    """The numbers `xs` (each 1..SMALL) written one after the other, a comma after each."""
    out = np.zeros(len(xs) * 9 + SLACK, np.uint8)
    at = 0
    for x in xs:
        at = digits.write_small(out, at, x)
        out[at] = 44
        at += 1
    return out[:at]


@numba.njit(cache=False)
def _texts(xs: I64) -> tuple[NDArray[np.uint64], I64]:
    words = np.empty(len(xs), np.uint64)
    lengths = np.empty(len(xs), np.int64)
    for i in range(len(xs)):
        words[i], lengths[i] = digits.small_text(xs[i])
    return words, lengths


def test_reads_match_their_references() -> None:
    rng = random.Random(3)
    text = bytes(rng.choice(b"0123456789012345678 \t\n\r/:x-") for _ in range(20_000))
    data = np.frombuffer(text + b"\n" * SLACK, np.uint8)
    words, runs, values = _runs_and_values(data, len(text))
    for i in range(len(text)):
        word = digits.load8_reference(text + b"\n" * SLACK, i)
        assert int(words[i]) == word
        run = digits.digit_run_reference(word)
        assert int(runs[i]) == run, text[i : i + 8]
        if 0 < run < 8:
            assert int(values[i]) == digits.digits_value_reference(word, run) == int(text[i : i + run])


def test_every_eight_digit_run_is_read() -> None:
    """Every length from 1 to 7 digits with every digit in every place, and runs of 8 or more."""
    texts = [str(d) * n for d in range(10) for n in range(1, 12)] + ["1234567", "9876543", "0000001"]
    text = ("/".join(texts)).encode()
    data = np.frombuffer(text + b"\n" * SLACK, np.uint8)
    _, runs, values = _runs_and_values(data, len(text))
    at = 0
    for t in texts:
        assert int(runs[at]) == min(len(t), 8)
        if len(t) < 8:
            assert int(values[at]) == int(t)
        at += len(t) + 1


def test_writes_match_str() -> None:
    rng = np.random.default_rng(4)
    xs = np.concatenate(
        [np.arange(1, 20_000), rng.integers(1, SMALL + 1, 50_000), [SMALL, 10**7, 10**7 - 1, 10**6]]
    ).astype(np.int64)
    assert bytes(_written(xs)).decode() == "".join(f"{x}," for x in xs.tolist())
    words, lengths = _texts(xs[:5000])
    for x, word, length in zip(xs[:5000].tolist(), words.tolist(), lengths.tolist(), strict=True):
        reference, reference_length = digits.small_text_reference(x)
        assert length == reference_length
        assert word & ((1 << 8 * length) - 1) == reference
