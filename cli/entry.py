"""The console script's entry point, which imports nothing until it runs.

Processes started by "spawn" (the service's live processes, the worker's computing child) import the
script that started their parent again; the `nimbase` script imports its entry point's module. Kept
empty, it costs them nothing before they lower their priority, whereas `cli.main` loads the whole
command line (about a second and a half of CPU on a loaded machine, for every process started).
"""

from __future__ import annotations


def main() -> int:
    """`nimbase`: see cli.main."""
    from nimbase.collector import pause_for_startup

    pause_for_startup()  # cli.main resumes it, or the command once what it starts is built
    from cli.main import main as run

    return run()
