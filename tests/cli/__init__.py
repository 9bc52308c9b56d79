"""The console script, run as a subprocess from a directory of its own."""
