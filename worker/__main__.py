"""`python -m worker`: one worker process, configured from the environment.

`nimbase.settings.Settings.from_env()` reads DATABASE_URL (unset: the embedded server under
NIMBASE_VAR_DIR), NIMBASE_LOG_LEVEL and the NIMBASE_WORKER_* variables. `--drain` exits once no job
is left to claim (tests, batch runs). SIGTERM and SIGINT stop it cleanly: a job in progress goes back
to the queue at its next step.
"""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from types import FrameType

from nimbase import collector


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m worker", description="Run one nimbase worker.")
    parser.add_argument("--drain", action="store_true", help="exit once no job is left to claim")
    args = parser.parse_args(argv)
    collector.pause_for_startup()  # until the worker is built, below: its imports run without it
    from nimbase.settings import InvalidSetting, Settings
    from storage.database import create_engine
    from storage.embedded import database_url
    from worker.runner import worker_from_settings

    try:
        settings = Settings.from_env()
    except InvalidSetting as exc:
        parser.error(str(exc))
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    engine = create_engine(database_url(settings.database_url, settings.var_dir))
    worker = worker_from_settings(engine, settings.worker)
    collector.freeze_startup()
    stop = threading.Event()

    def _on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    try:
        if args.drain:
            worker.run_until_idle(stop)
        else:
            worker.run_forever(stop)
    finally:
        engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
