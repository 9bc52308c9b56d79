"""A chess table stored by blocks: a probe inflates the one block holding its slot, not the whole table.

Stored (`to_blocks`): a header (magic, format version, slot count, whether DTZ is written as DTM - DTZ,
log2 of the slots a block holds, the block count, CRC-32 of what follows up to the blocks), in format 6
the side to move stored and the material's name, in formats 5 and 6 the length of the material's ranks
and the ranks (kinds.chess.ranks), the index (each block's start within the blocks' bytes, and one past
the last; each block's CRC-32), then the blocks. A block holds `BLOCK_SLOTS` slots (the last fewer),
compressed on its own (kinds.chess.block_codec: formats 5 and 6 by zstd with the second metric ranked
beside DTM; format 4, zstd, and format 3, deflated, written before; all read).

Format 6 (written now, `to_side_blocks`) stores one side to move's slots alone (kinds.chess.sides: the
side whose blocks write smaller, from a sample), each block as format 5 writes it: 30-45 % of format
5's bytes over the 4-man set and KBNvKN and KQRvKR (bench.bench_chess_stored). A position of the other
side is valued by a one-ply search over its children (`BlockedValues.holds` says which slots are
stored; kinds.chess.tables searches the others, reading only the blocks their children need); a
whole-table reader rebuilds the other side (`whole`, given the sub-tables' values,
kinds.chess.sides.rebuild), which costs a solve reading a sub-table about five times format 5's
whole read (KQRvKR: 27 s of CPU against 5).

Read (`BlockedValues`): the header and the index once per material (`read_index`), then each block when
a probe first needs it, through a reader of byte ranges of the stored object (engine.stored_bytes'
`read_stored_range`: the storage's own chunk reads and cache) and kept in one byte-bounded cache per
process (the kind's keeper of blocks, engine.keep). A block whose bytes fail their checksum is refused
(`DamagedBlock`), never answered. Whole-table readers (a solve's sub-tables, statistics) read every
block in turn (`whole`).

Tables stored before blocks (format 2, one deflated stream) are still read: `is_blocked` tells them apart
by their magic, and they are read whole as before (`ChessValues.from_bytes`; `values_from_bytes` reads
either form whole).
"""

from __future__ import annotations

import logging
import struct
import zlib
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import cast

import chess
import numpy as np
from numpy.typing import NDArray

from engine.errors import NimbaseError
from engine.keep import Keeper
from kinds.chess import block_codec, sides
from kinds.chess.format import _MAGIC as WHOLE_MAGIC
from kinds.chess.format import ChessValues, CorruptTable, _zigzag
from kinds.chess.material import Material, parse_material
from kinds.chess.ranks import BadRanks, Ranks

log = logging.getLogger(__name__)

I16 = NDArray[np.int16]
I64 = NDArray[np.int64]

_MAGIC = b"NBCHBLK"
_VERSION = 5
#: One side to move stored (`to_side_blocks`).
SIDE_VERSION = 6
#: Formats read (3: deflated blocks, 4: zstd blocks, 5: both sides, written before).
_VERSIONS = (3, 4, 5, 6)
#: magic, version, slots, delta, log2 of a block's slots, blocks, CRC-32 of the index (and ranks).
_HEADER = struct.Struct("<7sBQBBII")
#: Format 5's length of the ranks, after the header.
_RANKS_LENGTH = struct.Struct("<I")
#: Format 6's side to move stored and material name (ASCII, NUL-padded), after the header.
_SIDE = struct.Struct("<B15s")
#: log2 of the slots a block holds: 32,768 slots, 128 KiB of values once inflated (a few hundred µs).
BLOCK_SHIFT = 15
BLOCK_SLOTS = 1 << BLOCK_SHIFT
#: Bytes read to tell a stored table's form and size its index: the header (in format 6 the side and
#: material, in formats 5 and 6 the ranks' length; any table of formats 3-5 is longer too).
HEADER_BYTES = _HEADER.size + _SIDE.size + _RANKS_LENGTH.size

#: A reader of the stored object's bytes start..stop (ValueError or a NimbaseError when it cannot).
ReadRange = Callable[[int, int], bytes]
#: A reader of several such ranges at once (one round trip to storage for all), each range's bytes.
ReadRanges = Callable[[Sequence[tuple[int, int]]], list[bytes]]


class NotStored(LookupError):
    """A slot of the side to move a table of one side (format 6) does not store: its values come from a
    one-ply search over its children (the caller's to do)."""


class SubTablesNeeded(LookupError):
    """A whole read of a table of one side to move (format 6) without its sub-tables' values."""


class DamagedBlock(NimbaseError):
    """A stored block that fails its checksum or does not inflate to its slots: the table's answers from
    it are refused (UNAVAILABLE), never given; the table must be stored again."""

    code = "UNAVAILABLE"


def is_blocked(head: bytes) -> bool:
    """Whether stored bytes beginning with `head` are a blocked table (else, by its magic, a whole one)."""
    return head[: len(_MAGIC)] == _MAGIC


def is_whole(head: bytes) -> bool:
    """Whether stored bytes beginning with `head` are a table of format 2 (one deflated stream)."""
    return head[: len(WHOLE_MAGIC)] == WHOLE_MAGIC


def to_blocks(values: ChessValues, shift: int = BLOCK_SHIFT, version: int = _VERSION) -> bytes:
    """The stored bytes of `values` (both sides to move) by blocks of 2**shift slots (`BlockedValues`
    reads them), in format `version` (3 and 4, as blocks were written before, only to compare with
    them)."""
    if version not in _VERSIONS[:3]:
        raise ValueError(f"no blocked chess table format {version} of both sides to move")
    return _blocks(values, shift, version, b"")


#: Blocks of each side written to choose the side stored (`smaller_side`): one in this many.
SAMPLE_EVERY = 8


def to_side_blocks(
    values: ChessValues, material: Material, side: int | None = None, shift: int = BLOCK_SHIFT
) -> bytes:
    """The stored bytes of `material`'s table `values` in format 6: side `side`'s slots alone
    (`smaller_side`'s when None), by blocks of 2**shift slots as format 5 writes them."""
    if side is None:
        side = smaller_side(values, material, shift)
    head = _SIDE.pack(side, material.name.encode("ascii"))
    return _blocks(sides.one_side(values, material.spec, side), shift, SIDE_VERSION, head)


def smaller_side(values: ChessValues, material: Material, shift: int = BLOCK_SHIFT) -> int:
    """The side to move whose values write in fewer bytes, from one block in SAMPLE_EVERY of each
    (every block of a small table): the write's cost is its compression, which this adds an eighth to."""
    sizes = [_sampled_bytes(sides.one_side(values, material.spec, side), shift) for side in (0, 1)]
    return 0 if sizes[0] <= sizes[1] else 1


def _sampled_bytes(values: ChessValues, shift: int) -> int:
    """Format 5's bytes of one block in SAMPLE_EVERY of `values` (every block when fewer than twice)."""
    size = 1 << shift
    starts = range(0, len(values), size)
    every = SAMPLE_EVERY if len(starts) >= 2 * SAMPLE_EVERY else 1
    ranks = Ranks.of_table(values.dtm, lambda lo, hi: second_codes(values, lo, hi))
    dtm, dtz = values.dtm, values.dtz
    encode = block_codec.encode_ranked
    return sum(
        len(encode(dtm[at : at + size], dtz[at : at + size], values.delta, ranks)) for at in starts[::every]
    )


def _blocks(values: ChessValues, shift: int, version: int, head: bytes) -> bytes:
    """The stored bytes of `values` in format `version`; `head` (format 6's side and material) follows
    the header."""
    n, size = len(values), 1 << shift
    ranked = b""
    if version >= 5:
        ranks = Ranks.of_table(values.dtm, lambda lo, hi: second_codes(values, lo, hi))

        def encode(dtm: I16, dtz: I16, delta: bool) -> bytes:
            return block_codec.encode_ranked(dtm, dtz, delta, ranks)

        ranked = ranks.to_bytes()
        ranked = _RANKS_LENGTH.pack(len(ranked)) + ranked
    else:
        encode = block_codec.encode if version == 4 else block_codec.encode_deflated
    blocks = [
        encode(values.dtm[at : at + size], values.dtz[at : at + size], values.delta)
        for at in range(0, n, size)
    ]
    if version >= 5 and not any(block[0] & block_codec.RANKED for block in blocks):
        ranked = Ranks.of_table(values.dtm[:0], lambda lo, hi: second_codes(values, lo, hi)).to_bytes()
        ranked = _RANKS_LENGTH.pack(len(ranked)) + ranked  # no block reads them: none stored
    offsets = np.zeros(len(blocks) + 1, dtype="<u8")
    np.cumsum([len(b) for b in blocks], out=offsets[1:])
    crcs = np.array([zlib.crc32(b) for b in blocks], dtype="<u4")
    index = ranked + offsets.tobytes() + crcs.tobytes()
    crc = zlib.crc32(index, zlib.crc32(head))
    header = _HEADER.pack(_MAGIC, version, n, int(values.delta), shift, len(blocks), crc)
    return header + head + index + b"".join(blocks)


def second_codes(values: ChessValues, lo: int, hi: int) -> NDArray[np.uint16]:
    """The zigzag codes of the second metric of slots lo..hi-1 as blocks write it (DTM - DTZ or DTZ)."""
    return _zigzag(block_codec._second(values.dtm[lo:hi], values.dtz[lo:hi], values.delta))


class BlockIndex:
    """A blocked table's header and index: where each block's bytes are and their checksums (and in
    format 6 the side to move stored and the material)."""

    __slots__ = (
        "base",
        "blocks",
        "crcs",
        "delta",
        "material",
        "offsets",
        "ranks",
        "shift",
        "side",
        "slots",
        "version",
    )

    def __init__(self, head: bytes, read: ReadRange) -> None:
        """From the stored header (`head`, HEADER_BYTES of it or the whole table when shorter) and `read`
        for the index after it; CorruptTable when they are not a blocked table this code wrote."""
        if len(head) < _HEADER.size:
            raise CorruptTable(f"a blocked chess table of {len(head)} bytes is shorter than its header")
        magic, version, n, delta, shift, blocks, crc = _HEADER.unpack_from(head)
        known = magic == _MAGIC and version in _VERSIONS
        if not known or not 0 < shift < 32 or blocks != -(-n // (1 << shift)):
            raise CorruptTable(f"not a blocked chess table of format 3-6 (header {bytes(head[:8])!r})")
        size = 8 * (blocks + 1) + 4 * blocks
        at, ranked, ranks_size = _HEADER.size, b"", 0
        #: Format 6's side to move stored (None: both) and material.
        self.side: int | None = None
        self.material: Material | None = None
        if version == SIDE_VERSION:
            if len(head) < HEADER_BYTES:
                raise CorruptTable(f"a blocked chess table of {n} slots is cut short before its side")
            side, name = _SIDE.unpack_from(head, at)
            ranked = bytes(head[at : at + _SIDE.size])
            at += _SIDE.size
            try:
                self.material = parse_material(name.rstrip(b"\0").decode("ascii"))
            except (UnicodeDecodeError, NimbaseError):
                raise CorruptTable(f"a blocked chess table names no material ({bytes(name)!r})") from None
            if side not in (0, 1) or 2 * n != self.material.slots:
                raise CorruptTable(f"a blocked chess table of {n} slots is no side of {self.material.name}")
            self.side = int(side)
        if version >= 5:  # the ranks' length comes with the header: the ranks and index, one more read
            if len(head) < at + _RANKS_LENGTH.size:
                raise CorruptTable(f"a blocked chess table of {n} slots is cut short before its ranks")
            length = bytes(head[at : at + _RANKS_LENGTH.size])
            ranked += length
            at, ranks_size = at + _RANKS_LENGTH.size, _RANKS_LENGTH.unpack(length)[0]
        index = read(at, at + ranks_size + size)
        if len(index) != ranks_size + size or zlib.crc32(index, zlib.crc32(ranked)) != crc:
            raise CorruptTable(f"a blocked chess table of {n} slots fails its index's checksum")
        self.ranks: Ranks | None = None
        if version >= 5:
            try:
                self.ranks = Ranks.from_bytes(index[:ranks_size])
            except BadRanks as bad:
                raise CorruptTable(f"a blocked chess table of {n} slots: {bad}") from None
            index = index[ranks_size:]
        #: The slots stored (in format 6 one side's: half the table's).
        self.slots = int(n)
        self.version = int(version)
        self.delta = bool(delta)
        self.shift = int(shift)
        self.blocks = int(blocks)
        self.offsets = np.frombuffer(index, dtype="<u8", count=blocks + 1).astype(np.int64)
        self.crcs = np.frombuffer(index, dtype="<u4", offset=8 * (blocks + 1)).astype(np.int64)
        #: Where the blocks' bytes begin in the stored object.
        self.base = at + ranks_size + size

    @property
    def table_slots(self) -> int:
        """The table's slots, either side to move."""
        return self.slots if self.side is None else 2 * self.slots

    @property
    def nbytes(self) -> int:
        ranks = 0 if self.ranks is None else self.ranks.nbytes
        return int(self.offsets.nbytes + self.crcs.nbytes) + ranks

    def decode(self, block: int, data: bytes, what: str) -> tuple[I16, I16]:
        """The DTM and DTZ of `block`'s slots from its stored bytes; DamagedBlock when they are not."""
        if zlib.crc32(data) != int(self.crcs[block]):
            raise DamagedBlock(_damaged(block, what, "fails its checksum"))
        first = block << self.shift
        k = min(self.slots - first, 1 << self.shift)
        try:
            return block_codec.decode(data, k, self.delta, min(self.version, 5), self.ranks)
        except block_codec.BadBlock as bad:
            raise DamagedBlock(_damaged(block, what, str(bad))) from None


def _damaged(block: int, what: str, why: str) -> str:
    return (
        f"block {block} of {what} {why}: its positions are never answered from it; the table must be "
        "stored again (its job run anew)"
    )


class BlockedValues:
    """A stored blocked table's values (the `ChessValues` lookups a served table needs), each block read
    and inflated when first probed and kept in `cache` under (`key`, block), weighing its values' bytes.
    Two requests missing the same block may both read it (harmless: the same values)."""

    def __init__(
        self,
        index: BlockIndex,
        read: ReadRange,
        cache: Keeper,
        key: Hashable,
        what: str,
        read_many: ReadRanges | None = None,
    ) -> None:
        self.index = index
        self._read = read
        #: Reads the blocks a lookup of many slots misses together (else one by one).
        self._read_many = read_many
        self._cache = cache
        self._key = key
        #: Names the table in errors ("the stored table of KRvK").
        self.what = what
        self._mask = (1 << index.shift) - 1
        #: Format 6: the side stored and the slots of one side in a pawn configuration (0: both sides).
        self._side = index.side
        self._half = 0 if index.material is None else sides.half(index.material.spec)

    def reading(self, read: ReadRange, read_many: ReadRanges | None = None) -> BlockedValues:
        """The same table read through `read` and `read_many` (a request's own readers), sharing the index
        and cache."""
        return BlockedValues(self.index, read, self._cache, self._key, self.what, read_many)

    def __len__(self) -> int:
        return self.index.table_slots

    @property
    def side(self) -> int | None:
        """The side to move stored (0: side A), None when both are."""
        return self._side

    def holds(self, slot: int) -> bool:
        """Whether `slot`'s values are stored (else a one-ply search over its children finds them)."""
        return not self._half or (slot // self._half) & 1 == self._side

    @property
    def nbytes(self) -> int:
        """What the table keeps in memory itself (its index; its blocks are the cache's)."""
        return self.index.nbytes

    @property
    def delta(self) -> bool:
        return self.index.delta

    def block(self, block: int) -> tuple[I16, I16]:
        """DTM and DTZ of a block's slots: cached, else read, checked and inflated now (and cached)."""
        key = (self._key, block)
        kept = self._cache.peek(key)
        if kept is not None:
            return cast("tuple[I16, I16]", kept.value)
        found = self._load(block)
        self._cache.keep(key, found, "table", int(found[0].nbytes + found[1].nbytes))
        return found

    def _load(self, block: int) -> tuple[I16, I16]:
        start, stop = self._span(block)
        return self._decoded(block, self._read(start, stop))

    def _span(self, block: int) -> tuple[int, int]:
        """Where a block's bytes are in the stored object."""
        base = self.index.base
        return base + int(self.index.offsets[block]), base + int(self.index.offsets[block + 1])

    def _decoded(self, block: int, data: bytes) -> tuple[I16, I16]:
        try:
            return self.index.decode(block, data, self.what)
        except DamagedBlock as damaged:
            log.error("%s", damaged)  # reported each time it is met: it is never kept, never answered
            raise

    def _blocks(self, blocks: list[int]) -> dict[int, tuple[I16, I16]]:
        """DTM and DTZ of each of `blocks`: those cached, the others read together (`read_many`, one round
        trip) and cached."""
        found: dict[int, tuple[I16, I16]] = {}
        missing: list[int] = []
        for block in blocks:
            kept = self._cache.peek((self._key, block))
            if kept is not None:
                found[block] = cast("tuple[I16, I16]", kept.value)
            else:
                missing.append(block)
        if len(missing) > 1 and self._read_many is not None:
            datas = self._read_many([self._span(block) for block in missing])
            for block, data in zip(missing, datas, strict=True):
                values = found[block] = self._decoded(block, data)
                self._cache.keep(
                    (self._key, block), values, "table", int(values[0].nbytes + values[1].nbytes)
                )
        else:
            for block in missing:
                found[block] = self.block(block)
        return found

    def lookup(self, slot: int) -> tuple[int, int]:
        """DTM and DTZ of a slot stored (`holds`; NotStored otherwise)."""
        half = self._half
        if half:
            q, r = divmod(slot, half)
            if q & 1 != self._side:
                raise NotStored(f"slot {slot} of {self.what} has the side to move not stored")
            slot = (q >> 1) * half + r
        dtm, dtz = self.block(slot >> self.index.shift)
        at = slot & self._mask
        return int(dtm[at]), int(dtz[at])

    def lookup_slots(self, slots: I64) -> tuple[I16, I16]:
        """DTM and DTZ of each slot of `slots` (in order, each stored: `holds`), reading each block they
        fall in once."""
        if self._half:
            slots = (slots // (2 * self._half)) * self._half + slots % self._half
        dtm, dtz = np.empty(len(slots), np.int16), np.empty(len(slots), np.int16)
        blocks = slots >> self.index.shift
        for block, (m, z) in self._blocks(np.unique(blocks).tolist()).items():
            where = blocks == block
            at = slots[where] & self._mask
            dtm[where], dtz[where] = m[at], z[at]
        return dtm, dtz

    def whole(self, tables: Mapping[str, ChessValues] | None = None) -> ChessValues:
        """Every slot's values, block after block (not kept in the cache: a whole-table reader); in
        format 6 the side not stored rebuilt by the one-ply search, reading the sub-tables' whole values
        from `tables` (SubTablesNeeded when not given)."""
        stored = self.stored()
        material, side = self.index.material, self._side
        if material is None or side is None:
            return stored
        if tables is None and material.sub_materials():
            raise SubTablesNeeded(
                f"{self.what} stores one side to move: its whole values need its sub-tables"
            )
        return sides.rebuild(material, stored, side, {} if tables is None else tables)

    def stored(self) -> ChessValues:
        """The values stored, block after block (in format 6 one side's alone)."""
        dtm, dtz = np.empty(self.index.slots, np.int16), np.empty(self.index.slots, np.int16)
        for block in range(self.index.blocks):
            first = block << self.index.shift
            kept = self._cache.peek((self._key, block))
            found = cast("tuple[I16, I16]", kept.value) if kept is not None else self._load(block)
            m, z = found
            dtm[first : first + len(m)], dtz[first : first + len(m)] = m, z
        return ChessValues(dtm, dtz, self.delta)


def values_from_bytes(
    data: bytes | memoryview, tables: Mapping[str, ChessValues] | None = None
) -> ChessValues:
    """The values of stored bytes of either form, read whole (a worker's sub-tables, old tables; a
    table of one side to move, format 6, rebuilt from `tables`, the sub-tables' whole values);
    CorruptTable (or DamagedBlock) when they are not a table, SubTablesNeeded when a table of one side
    comes without `tables`."""
    view = memoryview(data)
    if not is_blocked(bytes(view[: len(_MAGIC)])):
        return ChessValues.from_bytes(view)

    def read(start: int, stop: int) -> bytes:
        return bytes(view[start:stop])

    index = BlockIndex(bytes(view[:HEADER_BYTES]), read)
    return BlockedValues(index, read, Keeper(1), None, "a blocked chess table").whole(tables)


class WholeTables(Mapping[str, ChessValues]):
    """Stored tables (bytes by material name) read whole when asked for, a table of one side to move
    rebuilt from the others (the rebuild reads sub-tables, which may store one side too, down to the
    fewest men). Tables of up to `KEEP_MEN` men are kept once read (the rebuilds of several tables read
    them again); larger ones are not (a solve holds a five-man sub-table only while it reads it).

    Given the `reader` (the material whose solve or rebuild reads them) and the sides whose moves it
    values (`movers`), a table of one side is rebuilt only where those moves reach its side not stored:
    a capture or a promotion by one side leaves the other to move, so a sub-table is mostly read on one
    side alone, and where that is the side stored its other side is left zero, never read (`needed`)."""

    #: Most men of a table kept once read (every 4-man table together: about 130 MB).
    KEEP_MEN = 4

    def __init__(
        self,
        stored: Mapping[str, bytes],
        reader: Material | None = None,
        movers: frozenset[int] = frozenset((0, 1)),
        kept: dict[tuple[str, bool], ChessValues] | None = None,
    ) -> None:
        self._stored = stored
        self._reader = reader
        self._movers = movers
        #: By (name, whether whole): tables read, whole or their side stored alone.
        self._kept: dict[tuple[str, bool], ChessValues] = {} if kept is None else kept

    def reading(self, reader: Material, movers: frozenset[int]) -> WholeTables:
        """The same tables as `reader`'s moves by `movers` read them (sharing what is kept)."""
        return WholeTables(self._stored, reader, movers, self._kept)

    def __getitem__(self, name: str) -> ChessValues:
        material = parse_material(name)
        data = memoryview(self._stored[name])
        index = None
        if is_blocked(bytes(data[: len(_MAGIC)])):

            def read(start: int, stop: int) -> bytes:
                return bytes(data[start:stop])

            index = BlockIndex(bytes(data[:HEADER_BYTES]), read)
        whole = (
            index is None
            or index.side is None
            or not needed(self._reader, material, self._movers) <= {index.side}
        )
        found = self._kept.get((name, whole))
        if found is None:
            if index is None:
                found = ChessValues.from_bytes(data)
            else:
                values = BlockedValues(index, read, Keeper(1), None, f"the stored table of {name}")
                stored = values.stored()
                if index.side is None:
                    found = stored
                elif whole:  # its side not stored moves (and the other, where en passant may answer)
                    owners = {owner for kind, owner in material.pieces if kind == chess.PAWN}
                    movers = frozenset((0, 1)) if len(owners) == 2 else frozenset((1 - index.side,))
                    found = sides.rebuild(material, stored, index.side, self.reading(material, movers))
                else:
                    found = sides.with_side(stored, material.spec, index.side)  # the other side unread
            if material.men <= self.KEEP_MEN:
                self._kept[(name, whole)] = found
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._stored)

    def __len__(self) -> int:
        return len(self._stored)


def needed(reader: Material | None, sub: Material, movers: frozenset[int]) -> set[int]:
    """The sides to move of `sub`'s table that moves of `reader` by `movers` (0: its side A) reach: a
    capture of a man by its opponent, or a promotion by the pawn's owner, leaves the other side to move
    (in `sub`'s terms: its side A is `reader`'s B where the exit flips); both without a reader."""
    if reader is None:
        return {0, 1}
    pieces = reader.pieces
    found: set[int] = set()
    for c, pm, _promo, material, flip, _perm in reader.exits():
        if material != sub:
            continue
        mover = pieces[pm][1] if pm >= 0 else 1 - pieces[c][1]
        if mover in movers:
            found.add(mover if flip else 1 - mover)
    return found
