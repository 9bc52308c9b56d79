"""The compiled decoding of a format-5 block's planes (kinds.chess.kernels.planes) against block_codec's
numpy reference, on random planes of every form (dense or zigzag first codes, swapped, ranked, delta),
inconsistent codes included, and on every block of real tables."""

from __future__ import annotations

import numpy as np
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from kinds.chess import block_codec, blocks
from kinds.chess.block_codec import DENSE, RANKED, SWAPPED, BadBlock, decode_ranked_reference
from kinds.chess.blocks import BlockIndex, to_blocks
from kinds.chess.format import ChessValues
from kinds.chess.ranks import Ranks
from tests.kinds.chess.test_blocks import dtm_values


def block_of(raw: bytes, form: int) -> bytes:
    """A block's stored bytes holding the planes `raw` in `form`."""
    return bytes([form]) + zstandard.ZstdCompressor().compress(raw)


def decoded_both(data: bytes, k: int, delta: bool, ranks: Ranks) -> tuple[object, object]:
    """What the kernel and the reference give (the values, or the error's text)."""
    out: list[object] = []
    for decode in (block_codec._decode_ranked, decode_ranked_reference):
        try:
            dtm, dtz = decode(data, k, delta, ranks)
            out.append((dtm.tolist(), dtz.tolist()))
        except BadBlock as bad:
            out.append(str(bad))
    return out[0], out[1]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    squares=st.integers(1, 3),
    form=st.integers(0, DENSE | SWAPPED | RANKED),
    delta=st.booleans(),
    narrow=st.booleans(),
)
def test_random_planes_decode_as_the_reference_decodes_them(
    seed: int, squares: int, form: int, delta: bool, narrow: bool
) -> None:
    """Any planes (codes of any value, ranks past their pairs or DTM values the ranks lack when `narrow`
    draws small codes the ranks mostly hold) give the same values or the same refusal."""
    rng = np.random.default_rng(seed)
    k = squares * 64 * 64
    high = 4 if narrow else 256
    raw = rng.integers(0, high, 4 * k, dtype=np.uint8)
    if narrow:
        raw[k : 2 * k] = 0  # small first codes
        raw[3 * k :] = 0  # small ranks
    counts = rng.integers(1, 4, 8).astype(np.uint32)
    ranks = Ranks(
        int(rng.integers(-4, 1)), counts, rng.integers(0, 1 << 16, int(counts.sum())).astype(np.uint16)
    )
    kernel, reference = decoded_both(block_of(raw.tobytes(), form), k, delta, ranks)
    assert kernel == reference


def test_every_block_of_a_table_decodes_as_the_reference_decodes_it() -> None:
    """Blocks as a worker writes them (every form the writer picks), pawnless (delta) or not."""
    for delta, seed in ((True, 1), (False, 2)):
        values = ChessValues(dtm_values(3 * 4096 + 100, seed), dtm_values(3 * 4096 + 100, seed + 7), delta)
        values.dtz[:50] = values.dtm[:50]  # pairs the ranks hold often
        data = to_blocks(values, 12, 5)
        index = BlockIndex(data[: blocks.HEADER_BYTES], lambda a, b, data=data: data[a:b])
        assert index.ranks is not None
        for block in range(index.blocks):
            start, stop = index.base + int(index.offsets[block]), index.base + int(index.offsets[block + 1])
            k = min(1 << 12, len(values) - (block << 12))
            dtm, dtz = block_codec._decode_ranked(data[start:stop], k, delta, index.ranks)
            ref_dtm, ref_dtz = decode_ranked_reference(data[start:stop], k, delta, index.ranks)
            assert np.array_equal(dtm, ref_dtm) and np.array_equal(dtz, ref_dtz)
            lo = block << 12
            assert np.array_equal(dtm, values.dtm[lo : lo + k]) and np.array_equal(
                dtz, values.dtz[lo : lo + k]
            )


@pytest.mark.parametrize("bad", [b"", bytes([(DENSE | SWAPPED | RANKED) + 1])])
def test_a_block_of_no_form_is_refused_by_both(bad: bytes) -> None:
    ranks = Ranks(0, np.ones(1, np.uint32), np.zeros(1, np.uint16))
    kernel, reference = decoded_both(bad, 4096, True, ranks)
    assert kernel == reference and isinstance(kernel, str) and "no known form" in kernel
