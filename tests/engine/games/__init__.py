"""The kinds (engine.games) called directly: values, moves and refusals against oracles and known results."""
