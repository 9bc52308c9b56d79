"""One-parameter sequences from the cheapest place that holds them: formula, table, period, live.

`tables.SequenceTables` is the service's implementation of the engine's `Tables`: the hot path of every
heap-game lookup. A sequence is a game's family (`SequenceSource.game_id` and `.family`: "heap" for
single heaps). It composes one module per concern:

- `stored`: stored headers and chunks, cached in process (hot lookups never touch the database), and
  damaged chunks, never served and reported once;
- `live`: one in-memory prefix per sequence grown within the request's deadline, each step's cost
  predicted from the last, which also lets the kernel certify a period that then answers every larger
  heap;
- `modes`: memory-only and reads-only modes, in which a request is stopped before it would wait;
- `refusals`: why a value cannot be had now, naming the automatic job queued for it;
- `weights`: how the byte-bounded caches weigh their arrays; `names`: how messages name a sequence.

Chunks and live prefixes are cached within byte budgets (NIMBASE_CACHE_CHUNK_BYTES,
NIMBASE_CACHE_LIVE_BYTES), so memory stops growing once they are full. Locks are narrow: each cache's
small lock is never held while anything is read from the database or computed; a live prefix grows
under its own sequence's lock, so a long computation for one sequence never delays lookups that memory
answers (on the event loop, in memory-only mode).
"""
