"""The games shipped with nimbase, each a plugin of the rules interface (one module a game), registered
through the entry-point group `nimbase.games` like any other package's."""
