"""The cached HF evaluate ``bleu`` module, run in a child process bounded in time, memory and output.

The module is foreign code (it reaches bleu-compat as files of the Hugging Face modules cache,
:mod:`bleu_compat.foreign`): once :mod:`~bleu_compat.libraries.hf_bleu.cache` has let it run (a
known release, or both opt-ins), it runs here, never in bleu-compat's own process. One child per
run and module (a crosscheck calls it thousands of times), started on the first call
(``python -I`` on :mod:`~bleu_compat.libraries.hf_bleu._child`, which the module's code cannot
shadow) and contained as a Perl script is (:mod:`bleu_compat.libraries.perl_runner`):

- the bytes run are the bytes hashed: the parent sends the bytes it read for the digests, the
  child compiles those and answers with their SHA-256, which must be the digests checked;
- a session of its own, killed as a group (what the module started with it) at a bound, when
  the child ends, and when this process exits; after each call the child itself kills and
  reaps everything the module started, a process that left the group (``setsid``) included;
- an allow-listed environment (:func:`~bleu_compat.libraries.perl_runner.child_environment`:
  ``PATH``, ``TMPDIR``, ``TZ``, ``LC_ALL=C``; isolated mode ignores every ``PYTHON*``
  variable), standard input ``/dev/null``, the working directory ``/``;
- time: each call may use :data:`TIMEOUT` seconds of the child's processor time
  (``RLIMIT_CPU``, :data:`TIMEOUT_ENV`), so a verdict never depends on the machine's load; a
  call that waits without computing is stopped after :data:`WALL_FACTOR` times that of wall-clock
  time;
- memory: :data:`MEMORY_LIMIT` bytes of address space (``RLIMIT_AS``, :data:`MEMORY_ENV`), set
  before the module's code runs;
- output: the module prints nothing; its standard output and error share one pipe of which at
  most :data:`MAX_OUTPUT` bytes are read per call (past it the call is stopped), the last
  lines quoted when the child ends; an answer is at most :data:`MAX_ANSWER` bytes.

A call stopped at a bound, or during which the child ended, raises :class:`ModuleRunError`
(an :class:`~bleu_compat.errors.OracleUnavailableError`: exit 2 on the command line, a
library error in a crosscheck, as a Perl script's :class:`~bleu_compat.libraries.perl_runner.
ScriptError`); the next call starts a new child. What the module raises reaches the caller as
the same exception: a built-in type is raised again with the same arguments
(``ZeroDivisionError: float division by zero``), another type as an exception of that name and
message. Results cross exactly (floats as ``float.hex``, tuples as tuples:
:func:`~bleu_compat.libraries.hf_bleu._child.to_wire`), never as a pickle.

A process forked from this one (a crosscheck worker) starts its own child on its first call
and never touches its parent's.
"""

from __future__ import annotations

import atexit
import base64
import builtins
import math
import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bleu_compat.errors import OracleUnavailableError
from bleu_compat.isolation import _close, _signal_name  # --impl's child process: the same needs
from bleu_compat.libraries.hf_bleu import _child
from bleu_compat.libraries.perl_runner import _kill_group, child_environment  # a script's containment

if TYPE_CHECKING:
    from bleu_compat.libraries.hf_bleu.cache import CachedModule

__all__ = ["ModuleRunError", "ModuleException", "call", "limits", "TIMEOUT_ENV", "MEMORY_ENV",
           "DEFAULT_TIMEOUT", "MEMORY_LIMIT", "MAX_OUTPUT", "MAX_ANSWER", "WALL_FACTOR"]

#: the environment variable that sets the CPU seconds a call may use
TIMEOUT_ENV = "BLEU_COMPAT_HF_TIMEOUT"
#: CPU seconds a call may use (compute_bleu on a WMT test set takes well under a second)
DEFAULT_TIMEOUT = 120.0
#: the largest limit taken, in seconds (a week)
MAX_TIMEOUT = 7 * 24 * 3600.0
#: a call that has used less than its CPU limit is stopped after this many times that limit of
#: wall-clock time (a module that sleeps or waits)
WALL_FACTOR = 10
#: the environment variable that sets :data:`MEMORY_LIMIT` (MiB)
MEMORY_ENV = "BLEU_COMPAT_HF_MEMORY"
#: the address space the child may use, in bytes (Python and a WMT test set's n-grams: ~100 MB)
MEMORY_LIMIT = 2 << 30
#: bytes the module may print in one call (standard output and error together): it prints none
MAX_OUTPUT = 1 << 20
#: the largest answer read (the tokens of a large corpus)
MAX_ANSWER = 1 << 30
#: bytes of the child's last output kept, to quote when it ends
OUTPUT_TAIL = 4096
#: the program the child runs
CHILD = Path(_child.__file__).resolve()


class ModuleRunError(OracleUnavailableError):
    """The module's process gave no answer: stopped at a bound (CPU time, wall-clock time,
    memory, output), ended during the call, broke the protocol, or could not start; or a limit's
    variable is not a valid value. The message names the module's folder and why."""


class ModuleException(Exception):
    """Base of the exceptions the module raised whose type is not a built-in one: raised again
    as a class of the same name (``type(exc).__name__``), with the same message."""


def _what(found: CachedModule) -> str:
    return f"the HF evaluate bleu module cached in {found.folder}"


def limits() -> tuple[float, int]:
    """``(CPU seconds per call, bytes of address space)`` from :data:`TIMEOUT_ENV` and
    :data:`MEMORY_ENV` (defaults :data:`DEFAULT_TIMEOUT`, :data:`MEMORY_LIMIT`).

    Raises:
        ModuleRunError: a variable that is not a number of seconds above 0 (at most a week), or a
            whole number of MiB from 128 to 1048576; nothing runs.
    """
    text = os.environ.get(TIMEOUT_ENV)
    seconds = DEFAULT_TIMEOUT
    if text is not None:
        try:
            seconds = float(text)
        except ValueError:
            seconds = math.nan
        if not 0 < seconds <= MAX_TIMEOUT:  # NaN fails the comparison too
            raise ModuleRunError(f"hf-bleu: not run: {TIMEOUT_ENV}={text!r} is not a number of "
                                 f"seconds above 0 and at most {MAX_TIMEOUT:g}")
    text = os.environ.get(MEMORY_ENV)
    memory = MEMORY_LIMIT
    if text is not None:
        try:
            mib = int(text)
        except ValueError:
            mib = 0
        if not 128 <= mib <= 1 << 20:
            raise ModuleRunError(f"hf-bleu: not run: {MEMORY_ENV}={text!r} is not a whole number "
                                 "of MiB from 128 to 1048576")
        memory = mib << 20
    return seconds, memory


class _Stopped(Exception):
    """Why a call ended without an answer (the message, for ModuleRunError)."""


class _Child:
    """One child process serving one module (its folder, digests and limits)."""

    def __init__(self, found: CachedModule, seconds: float, memory: int) -> None:
        self.found = found
        self.key = (found.folder, found.digests, seconds, memory)
        self.cpu = max(1, math.ceil(seconds))
        self.wall = seconds * WALL_FACTOR
        self.memory = memory
        self.owner = os.getpid()
        self._tail = bytearray()
        req_r, self._req_w = os.pipe()
        self._resp_r, resp_w = os.pipe()
        self._out_r, out_w = os.pipe()
        life_r, self._life_w = os.pipe()  # never written: its end of file says this process ended
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-X", "utf8", str(CHILD), str(req_r), str(resp_w),
                 str(memory), str(self.cpu), str(life_r)],
                stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w,
                pass_fds=(req_r, resp_w, life_r), close_fds=True, start_new_session=True,
                env=child_environment(), cwd="/")
        except OSError as exc:
            for fd in (req_r, resp_w, out_w, life_r, self._req_w, self._resp_r, self._out_r,
                       self._life_w):
                _close(fd)
            raise ModuleRunError(f"{_what(found)}: cannot start a process for it: "
                                 f"{exc.strerror or exc}") from None
        for fd in (req_r, resp_w, out_w, life_r):
            os.close(fd)
        for fd in (self._req_w, self._resp_r, self._out_r):
            os.set_blocking(fd, False)

    # -- one request, one answer

    def exchange(self, message: dict[str, Any]) -> Any:
        """Send ``message``, return the decoded answer.

        Raises:
            _Stopped: a bound was reached, the child ended or broke the protocol (it is killed).
        """
        to_send = memoryview(_child.encode(message))
        answer = bytearray()
        length = -1  # the answer's length, once its header is read
        printed = 0
        deadline = time.monotonic() + self.wall
        while True:
            now = time.monotonic()
            if now >= deadline:
                raise _Stopped(self._stop(
                    f"still running after {self.wall:g} s of wall-clock time (having used less "
                    f"than its {self.cpu} s of CPU time): stopped with every process it started "
                    f"({TIMEOUT_ENV} sets the limit)"))
            readable, writable = self._wait(bool(to_send), min(1.0, deadline - now))
            if writable:
                try:
                    sent = os.write(self._req_w, to_send[:1 << 20])
                    to_send = to_send[sent:]
                except BlockingIOError:
                    pass
                except OSError:  # it closed its end: it ended (its answer pipe says how)
                    to_send = to_send[:0]
            chunk = self._read(self._out_r) if self._out_r in readable else None
            if chunk == b"":  # it closed its outputs: nothing more to read there
                _close(self._out_r)
                self._out_r = -1
            elif chunk:
                printed += len(chunk)
                self._tail += chunk
                del self._tail[:-OUTPUT_TAIL]
                if printed > MAX_OUTPUT:
                    raise _Stopped(self._stop(
                        f"printed more than {MAX_OUTPUT} bytes on its standard output and error in "
                        "one call: stopped with every process it started (the module prints "
                        "nothing)"))
            chunk = self._read(self._resp_r) if self._resp_r in readable else None
            if chunk == b"":
                raise _Stopped(self._ended())
            if not chunk:
                continue
            answer += chunk
            if length < 0 and len(answer) >= _child.HEADER.size:
                (length,) = _child.HEADER.unpack(answer[:_child.HEADER.size])
                del answer[:_child.HEADER.size]
                if length > MAX_ANSWER:
                    raise _Stopped(self._stop(f"its answer is {length} bytes, more than "
                                              f"{MAX_ANSWER}: stopped"))
            if length < 0 or len(answer) < length:
                continue
            if len(answer) > length:
                raise _Stopped(self._stop("it broke the protocol (more than one answer): stopped"))
            try:
                return _child.decode(bytes(answer))
            except (ValueError, RecursionError):
                raise _Stopped(self._stop("it broke the protocol (an answer that is not JSON): "
                                          "stopped")) from None

    def _wait(self, sending: bool, seconds: float) -> tuple[set[int], bool]:
        """The pipes ready to read (answers, output; a closed one counts) and whether the
        request pipe takes more, within ``seconds`` (poll: any descriptor number, where select
        stops at 1024: a server with many connections)."""
        poller = select.poll()
        poller.register(self._resp_r, select.POLLIN)
        if self._out_r >= 0:
            poller.register(self._out_r, select.POLLIN)
        if sending:
            poller.register(self._req_w, select.POLLOUT)
        readable, writable = set(), False
        for fd, event in poller.poll(max(0, int(seconds * 1000))):
            if fd == self._req_w:
                writable = True
            else:
                readable.add(fd)
        return readable, writable

    @staticmethod
    def _read(fd: int) -> bytes | None:
        """What ``fd`` holds now: b"" at its end, None when it holds nothing yet."""
        try:
            return os.read(fd, 1 << 20)
        except BlockingIOError:
            return None
        except OSError:
            return b""

    # -- ending

    def _ended(self) -> str:
        """Why the child ended during a call (its answer pipe closed), in words."""
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return self._stop("it closed its answer pipe: stopped")
        _kill_group(self.proc)  # what it started, before its output is read
        self._drain()
        self.kill()
        if code == -signal.SIGXCPU:
            return (f"still running after {self.cpu} s of CPU time: stopped with every process it "
                    f"started ({TIMEOUT_ENV} sets the limit)")
        if code == _child.MEMORY_EXIT:
            return (f"ran out of its {self.memory >> 20} MiB of memory: stopped ({MEMORY_ENV} "
                    "sets the limit, in MiB)")
        what = (f"its process was killed by {_signal_name(-code)}" if code < 0
                else f"its process exited with status {code}")
        last = self.last_output()
        return what + (f"; its last output: {last}" if last else "")

    def _drain(self) -> None:
        """Keep the tail of what the ended child left in its output pipe (at most
        :data:`MAX_OUTPUT` bytes read)."""
        read = 0
        while self._out_r >= 0 and read <= MAX_OUTPUT:
            chunk = self._read(self._out_r)
            if not chunk:
                return
            read += len(chunk)
            self._tail += chunk
            del self._tail[:-OUTPUT_TAIL]

    def _stop(self, why: str) -> str:
        self.kill()
        return why

    def last_output(self) -> str:
        """The last line the child printed, shortened, or ''."""
        lines = [x.strip() for x in bytes(self._tail).decode("utf-8", "replace").splitlines()]
        lines = [x for x in lines if x]
        if not lines:
            return ""
        return lines[-1] if len(lines[-1]) <= 200 else lines[-1][:197] + "..."

    def alive(self) -> bool:
        return self.owner == os.getpid() and self._req_w >= 0 and self.proc.poll() is None

    def kill(self) -> None:
        """Kill the child's process group (the child and what it started) and close the pipes."""
        if self.owner != os.getpid():
            self.abandon()
            return
        _close(self._life_w)  # the child's own watch kills what it started, the session's
        self._life_w = -1     # leavers included, and its group; then the group is killed here
        try:
            self.proc.wait(timeout=0.2)
        except subprocess.TimeoutExpired:  # busy in C code: the group is killed from here
            pass
        _kill_group(self.proc)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process that ignores SIGKILL
            pass
        self.abandon()

    def abandon(self) -> None:
        """Close this process's ends of the pipes (in a forked copy: never signal the child)."""
        for name in ("_req_w", "_resp_r", "_out_r", "_life_w"):
            fd = getattr(self, name, -1)
            if fd >= 0:
                _close(fd)
                setattr(self, name, -1)


_lock = threading.Lock()
_current: _Child | None = None


def _reap() -> None:
    global _current
    child, _current = _current, None
    if child is not None:
        child.kill()


atexit.register(_reap)


def _after_fork() -> None:
    global _current, _lock
    _lock = threading.Lock()
    child, _current = _current, None
    if child is not None:
        child.abandon()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def _raised_again(info: Any) -> BaseException:
    """The exception the module raised, rebuilt from its answer."""
    if not isinstance(info, dict):
        return ModuleException("the module raised an exception that did not cross")
    name = info.get("type") if isinstance(info.get("type"), str) else "Exception"
    message = info.get("message") if isinstance(info.get("message"), str) else ""
    cls = getattr(builtins, name, None) if info.get("builtin") is True else None
    if isinstance(cls, type) and issubclass(cls, BaseException) and not issubclass(cls, Exception):
        # SystemExit, KeyboardInterrupt: the module tried to end its process (as os._exit
        # does, which ends the child): the module's run failed, not an answer about the input
        return ModuleRunError(f"hf-bleu: the module tried to end its process ({name}"
                              f"{': ' + message if message else ''}): no number from it")
    if isinstance(cls, type) and issubclass(cls, Exception) and info.get("args") is not None:
        try:
            args = _child.from_wire(info["args"])
            exc = cls(*args) if isinstance(args, tuple) else None
        except Exception:
            exc = None
        if exc is not None and str(exc) == message:
            return exc
    if not (name.isidentifier() and len(name) <= 100):
        name = "ModuleException"
    return type(name, (ModuleException,), {"__module__": "hf_bleu_module"})(message)


def call(found: CachedModule, op: str, **fields: Any) -> Any:
    """The module's answer to one request ``op`` (``tokenize``, ``compute``, ``call``: see
    :mod:`~bleu_compat.libraries.hf_bleu._child`), in this run's child for ``found`` (started and
    loaded with ``found``'s verified bytes when there is none for it yet).

    Raises:
        ModuleRunError: the call was stopped at a bound, or the child ended or could not start.
        Exception: what the module raised, as that type (or a :class:`ModuleException` of
            its name).
    """
    global _current
    seconds, memory = limits()
    with _lock:
        child = _current
        if child is None or not child.alive() or child.key != (found.folder, found.digests,
                                                                seconds, memory):
            if child is not None:
                child.kill()
            _current = None
            child = _start(found, seconds, memory)
            _current = child
        try:
            answer = child.exchange({"op": op, **fields})
        except _Stopped as stop:
            if _current is child:
                _current = None
            raise ModuleRunError(f"{_what(found)}: {stop}") from None
        except BaseException:  # Ctrl-C during the call: its answer must never answer the next
            child.kill()
            _current = None
            raise
    return _result(found, answer)


def _result(found: CachedModule, answer: Any) -> Any:
    if isinstance(answer, dict) and "ok" in answer:
        try:
            return _child.from_wire(answer["ok"])
        except ValueError as exc:
            raise ModuleRunError(f"{_what(found)}: it broke the protocol ({exc})") from None
    if isinstance(answer, dict) and "raised" in answer:
        raise _raised_again(answer["raised"])
    if isinstance(answer, dict) and isinstance(answer.get("unsendable"), str):
        raise ModuleRunError(f"{_what(found)}: it returned a value of type "
                             f"{answer['unsendable'][:100]}, which does not leave its process "
                             "(only None, bool, int, float, str, list, tuple and dict do)")
    raise ModuleRunError(f"{_what(found)}: it broke the protocol (an answer of no known kind)")


def _start(found: CachedModule, seconds: float, memory: int) -> _Child:
    """A child that has compiled and run ``found``'s verified bytes.

    Raises:
        ModuleRunError: it could not start, was stopped while loading, or compiled other bytes.
        Exception: what the module's code raised while loading.
    """
    child = _Child(found, seconds, memory)
    tag = "_bleu_compat_hf_bleu_" + found.digests[1][:8] + found.digests[2][:8]
    sources = [[name, str(found.folder / f"{name}.py"), base64.b64encode(data).decode("ascii")]
               for name, data in zip(("nmt_bleu", "tokenizer_13a"), found.sources[1:])]
    try:
        answer = child.exchange({"op": "load", "tag": tag, "sources": sources})
    except _Stopped as stop:
        raise ModuleRunError(f"{_what(found)}: while loading: {stop}") from None
    try:
        digests = _result(found, answer)
    except BaseException:
        child.kill()
        raise
    if digests != list(found.digests[1:]):
        child.kill()
        raise ModuleRunError(f"{_what(found)}: its process compiled other bytes than those "
                             "hashed: stopped")
    return child
