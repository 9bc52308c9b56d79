"""A live process's side of service.isolation: the loop answering the parent's calls, and how answers and
errors cross the pipe.

A live process is forked from the fork server of service.isolation, which has imported the service and
loaded its kernels (service.live_template), or, where there is none, spawned: it then imports the module
of its target before running it, at the server's priority. This module imports the standard library
alone, so the process lowers its priority (`NICENESS`) before anything else: under a hostile load a
process is killed and replaced every few seconds, and a spawned replacement's imports (seconds of CPU)
would otherwise compete with the server's cheap lookups and its answers at their deadlines.
"""

from __future__ import annotations

import logging
import os
import pickle
import resource
import signal
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from engine.deadline import Cancellation
    from nimbase.settings import Settings

log = logging.getLogger(__name__)

#: How much lower than the server's the live processes' scheduling priority is: busy with runaway work
#: on every core, they must not delay the lookups and health checks the server answers itself.
NICENESS = 10


def address_space(pid: int | str = "self") -> int:
    """Bytes of address space a process maps (VmSize); 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


@dataclass(slots=True)
class _Current:
    """The cancellation of the call a child is running, which SIGUSR1 sets."""

    cancellation: Cancellation | None = None

    def cancel(self, _signum: int, _frame: object) -> None:
        if self.cancellation is not None:
            self.cancellation.is_set = True


def pack_error(error: BaseException) -> tuple[type[BaseException], tuple[Any, ...], dict[str, Any]]:
    """An error as its class, arguments and attributes: errors whose constructor takes more than their
    message (service.jobs.Pending) do not survive pickle's own `cls(*args)`."""
    return type(error), error.args, dict(vars(error))


def unpack_error(packed: tuple[type[BaseException], tuple[Any, ...], dict[str, Any]]) -> BaseException:
    cls, args, attributes = packed
    error = cls.__new__(cls)
    error.args = args
    vars(error).update(attributes)
    return error


@dataclass(frozen=True, slots=True)
class _PackedError:
    """An error in a batch's slot, packed (`pack_error`) for the pipe."""

    packed: tuple[type[BaseException], tuple[Any, ...], dict[str, Any]]


def pack_answer(answer: object) -> object:
    """An answer for the pipe: the errors in a batch's slots packed as raised errors are."""
    if isinstance(answer, list) and any(isinstance(item, BaseException) for item in answer):
        return [_PackedError(pack_error(i)) if isinstance(i, BaseException) else i for i in answer]
    return answer


def unpack_answer(answer: object) -> object:
    if isinstance(answer, list) and any(isinstance(item, _PackedError) for item in answer):
        return [unpack_error(item.packed) if isinstance(item, _PackedError) else item for item in answer]
    return answer


def main(settings_pickled: bytes, database_url: str | None, conn: Connection, memory_bytes: int) -> None:
    """One live process (forked from the template, or spawned): lower its priority, build the service, ask
    its warm-up questions, cap the memory, answer calls. The settings come pickled, so nothing but the
    standard library is imported before the priority is lowered."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops it, also on a terminal's Ctrl-C
    os.nice(NICENESS)  # the server process, which answers cheap lookups, comes first for the cores
    from nimbase import collector

    collector.pause_for_startup()  # resumed once the service is built (spawned, it imports everything)
    from engine.deadline import Deadline
    from engine.errors import NimbaseError
    from service import learned
    from service.clients import CLIENT, WAITED
    from service.core import Nimbase
    from service.warm_up import Warmed, warm_up, warmed_from
    from storage.database import create_engine

    settings: Settings = pickle.loads(settings_pickled)
    logging.basicConfig(level=settings.log_level, format="%(asctime)s [live] %(name)s %(message)s")

    service = Nimbase(settings, create_engine(database_url) if database_url is not None else None)
    collector.resume()  # before the warm-up, which may compile (nimbase.collector)
    # Every kernel a computation may run, compiled (or loaded from numba's cache) before the process says
    # it is ready: never under a request's deadline; and its memory cap is measured with them loaded.
    # Forked from the template (service.live_template), the process has them, and the warm-up's objects.
    template = sys.modules.get("service.live_template")
    warmed = getattr(template, "WARMED", None)
    if isinstance(warmed, Warmed) and warmed.settings == settings:
        warmed_from(warmed, service)
        log.info("warm-up taken from the template: %d questions not asked again", len(warmed.questions))
    else:
        warm_up(settings, lambda done, total: conn.send(("warming", done)), service, adopt=False)
    base = address_space()
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = base + memory_bytes
    resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
    current = _Current()
    signal.signal(signal.SIGUSR1, current.cancel)
    conn.send(("ready", base))
    while True:
        try:
            request, at, client, asked = conn.recv()
        except EOFError:  # the parent closed the pipe, or is gone
            return
        reply: tuple[str, object]
        CLIENT.set(client)  # the request's client, for the automatic jobs it may queue (service.jobs)
        WAITED.set(max(0.0, time.monotonic() - asked))  # since its arrival (service.sequences.refusals)
        try:
            deadline = Deadline.cancellable(at)
            current.cancellation = deadline.cancelled
            with service.journal.recording() as gained:
                answer = service.answer(request.until(deadline))
            reply = ("ok", (pack_answer(answer), learned.pack(gained)))
        except MemoryError:
            reply = ("memory", None)
        except NimbaseError as exc:
            reply = ("error", pack_error(exc))
        except Exception:
            log.exception("unexpected error in a live computation (%s)", request.method)
            reply = ("internal", None)
        finally:
            current.cancellation = None
        try:
            conn.send(reply)
        except MemoryError:  # the answer itself did not fit
            reply = ("memory", None)
            conn.send(reply)
        except OSError:  # the parent is gone
            return
        except Exception:  # an answer that does not pickle
            log.exception("the answer of a live computation (%s) could not be sent", request.method)
            conn.send(("internal", None))
        if reply[0] == "memory":
            return  # its heap may be left fragmented and large: the parent starts another
