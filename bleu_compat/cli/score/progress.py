"""Progress on standard error: a spinner that appears only when a step outlasts a delay."""

from __future__ import annotations

import sys
# typing is not imported at run time (issue 34: 2 ms of every command's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["PROGRESS_DELAY", "DelayedStatus", "progress_on_stderr"]


#: seconds a step runs before its spinner appears (quick runs stay silent)
PROGRESS_DELAY = 1.0


class DelayedStatus:
    """A rich spinner that appears only once the run has lasted ``delay`` seconds.

    Used as ``with DelayedStatus(console) as progress: progress("message")``;
    the message can change at any time, before or after the spinner shows. A
    timer thread starts the spinner; the lock keeps it from starting after exit.
    """

    def __init__(self, console: Any, delay: float = PROGRESS_DELAY) -> None:
        import threading

        self._console, self._delay = console, delay
        self._lock = threading.Lock()
        self._message = "scoring ..."
        self._status: Any = None
        self._done = False
        self._timer = threading.Timer(delay, self._start)
        self._timer.daemon = True

    def _start(self) -> None:
        with self._lock:
            if not self._done:
                self._status = self._console.status(self._message)
                self._status.start()

    def update(self, message: str) -> None:
        """Show ``message`` (now if the spinner is up, else when it appears)."""
        with self._lock:
            self._message = message
            if self._status is not None:
                self._status.update(message)

    def __enter__(self) -> Any:
        self._timer.start()
        return self.update

    def __exit__(self, *exc: Any) -> None:
        with self._lock:
            self._done = True
            self._timer.cancel()
            if self._status is not None:
                self._status.stop()


def progress_on_stderr(console: Any = None, delay: float = PROGRESS_DELAY) -> Any:
    """Progress on stderr: a rich spinner after ``delay`` seconds, only on a terminal.

    When stderr is not a terminal (a pipe, a file, a test's capture) this is a
    no-op context, so nothing but messages and warnings ever reaches stderr;
    standard output is never touched. ``console`` (a ``rich.console.Console``)
    is for tests.
    """
    import contextlib

    if console is None:
        if not sys.stderr.isatty():
            return contextlib.nullcontext(lambda message: None)
        from rich.console import Console

        console = Console(stderr=True)
    return DelayedStatus(console, delay)
