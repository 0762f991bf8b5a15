"""A user's implementation (``--impl``) in a process of its own, with a timeout per call.

The code ``--impl`` names is the user's: it may call ``sys.exit`` or
``os._exit``, crash the interpreter, loop forever, print to standard output
or read standard input. None of that may take the command with it: a CI gate
must never pass because the code under test ended the process with status 0,
and ``explain --format json`` must print JSON only. So the module is imported
and the callable called in a child process (``python -m bleu_compat.isolation``)
that this module starts and talks to over two pipes of its own:

- the child's standard input is ``/dev/null``; its standard output and error
  go to a pipe that a thread here drains, keeping the last
  :data:`OUTPUT_TAIL` bytes (never written anywhere, never mixed into ours;
  the tail is quoted when the child fails);
- each call is one request sent and one answer read within ``timeout``
  seconds (:data:`DEFAULT_TIMEOUT`; ``--impl-timeout``);
- the child's address space is limited (``RLIMIT_AS``, :data:`DEFAULT_MEMORY`;
  :data:`MEMORY_ENV` in MiB), set before the implementation is imported: a call that
  needs more fails with ``MemoryError``, that call's finding;
- what the callable raises, ``SystemExit`` and ``KeyboardInterrupt``
  included, comes back as an error value: a finding of that call
  (``"SystemExit: 0"``), as any exception is;
- a child that ends during a call (``os._exit``, a signal, a crash) is that
  call's finding too (:class:`ImplementationCrashed`, reported as the field
  ``error``); the next call starts a new child;
- a child that does not answer in time is killed with its process group and
  :class:`ImplementationHung` is raised: the harness does not turn it into a
  case result (every further call would wait as long), the command stops and
  says so (exit 1: the implementation was not judged, so nothing passes).

Values cross as JSON: a NaN or ±infinity is already the marker
``{"non_finite": ...}`` (:func:`bleu_compat.implementations.non_finite`) and is
made the marker object again here; anything JSON cannot hold (bytes, a
complex number, an object) arrives as ``{"python_type": NAME, "repr": TEXT}``,
a wrong type reported as such.

The child asks the kernel to kill it when this process dies (Linux
``PR_SET_PDEATHSIG``) and runs in a session of its own, so a Ctrl-C at the
terminal is this process's to handle; every child still running is killed
at exit. A process forked from this one (a crosscheck worker) starts its own
child on its first call and never touches its parent's.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from typing import Any, Mapping

__all__ = [
    "DEFAULT_TIMEOUT", "TIMEOUT_ENV", "IsolatedImplementation", "ImplementationHung",
    "ImplementationCrashed", "isolated", "default_timeout", "memory_limit", "MEMORY_ENV",
    "DEFAULT_MEMORY",
]

#: Seconds a call (and the import of the implementation) may take by default.
DEFAULT_TIMEOUT = 60.0
#: Environment variable carrying ``--impl-timeout`` to processes that are not forked from
#: this one (Dask workers); a forked worker inherits the implementation object itself.
TIMEOUT_ENV = "BLEU_COMPAT_IMPL_TIMEOUT"
#: Environment variable setting the address space an implementation's process may use, in MiB.
MEMORY_ENV = "BLEU_COMPAT_IMPL_MEMORY"
#: The address space an implementation's process may use by default (bytes): room for numpy
#: and a WMT test set; a call that needs more fails with MemoryError (a finding of that call).
DEFAULT_MEMORY = 4 << 30
#: Bytes of the child's standard output and error kept (the rest is counted, then dropped).
OUTPUT_TAIL = 4096
#: The largest answer read from a child; a longer one is a failure of that call.
MAX_ANSWER = 256 * 2**20

_HEADER = struct.Struct(">Q")


class ImplementationHung(Exception):
    """The implementation did not answer within its timeout; its process was killed.

    Not a result of the case: the command stops and reports it (exit 1).
    """


class ImplementationCrashed(Exception):
    """The implementation's process ended (or broke the protocol) during a call: that call's finding."""


def default_timeout() -> float:
    """:data:`TIMEOUT_ENV` when it is a positive number of seconds, else :data:`DEFAULT_TIMEOUT`."""
    try:
        value = float(os.environ.get(TIMEOUT_ENV, ""))
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 and value == value and value != float("inf") else DEFAULT_TIMEOUT


def memory_limit() -> int:
    """:data:`MEMORY_ENV` (MiB, 256 to 1048576) in bytes, else :data:`DEFAULT_MEMORY`."""
    try:
        mib = int(os.environ.get(MEMORY_ENV, ""))
    except ValueError:
        return DEFAULT_MEMORY
    return mib << 20 if 256 <= mib <= 1 << 20 else DEFAULT_MEMORY


# ------------------------------------------------------------------ the parent's side

_LIVE: "set[_Child]" = set()


def _reap_all() -> None:
    for child in list(_LIVE):
        child.kill()


atexit.register(_reap_all)


def _forget_after_fork() -> None:
    # In a forked process (a crosscheck worker) the parent's children are not ours:
    # close our copies of their pipes, never signal them.
    for child in list(_LIVE):
        child.abandon()
    _LIVE.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(code).name
    except ValueError:
        return f"signal {code}"


class _Child:
    """One child process serving one implementation spec."""

    def __init__(self, spec: str, timeout: float) -> None:
        self.spec = spec
        self.timeout = timeout
        self.pid_owner = os.getpid()
        req_r, self._req_w = os.pipe()
        self._resp_r, resp_w = os.pipe()
        out_r, out_w = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "bleu_compat.isolation", str(req_r), str(resp_w),
                 str(os.getpid())],
                stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w, pass_fds=(req_r, resp_w),
                close_fds=True, start_new_session=True,
                env=_child_environment(),
            )
        except BaseException:
            for fd in (req_r, resp_w, out_r, out_w, self._req_w, self._resp_r):
                _close(fd)
            raise
        for fd in (req_r, resp_w, out_w):
            os.close(fd)
        os.set_blocking(self._req_w, False)
        self._tail = bytearray()
        self._out_bytes = 0
        self._out_r = out_r
        self._drain = threading.Thread(target=self._drain_output, name="impl-output", daemon=True)
        self._drain.start()
        _LIVE.add(self)

    def _drain_output(self) -> None:
        while True:
            try:
                chunk = os.read(self._out_r, 65536)
            except OSError:
                return
            if not chunk:
                return
            self._out_bytes += len(chunk)
            self._tail += chunk
            if len(self._tail) > OUTPUT_TAIL:
                del self._tail[:-OUTPUT_TAIL]

    def last_output(self) -> str:
        """The last line the child printed (stdout and stderr), shortened, or ''."""
        self._drain.join(timeout=0.5)
        lines = [line.strip() for line in bytes(self._tail).decode("utf-8", "replace").splitlines()]
        lines = [line for line in lines if line]
        if not lines:
            return ""
        last = lines[-1]
        return last if len(last) <= 200 else last[:197] + "..."

    # -- messages

    def send(self, message: Mapping[str, Any], deadline: float) -> None:
        data = json.dumps(message, separators=(",", ":"), allow_nan=False).encode("utf-8")
        view = memoryview(_HEADER.pack(len(data)) + data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            _, writable, _ = select.select([], [self._req_w], [], remaining)
            if not writable:
                continue
            try:
                sent = os.write(self._req_w, view[:1 << 20])
            except BlockingIOError:
                continue
            except (BrokenPipeError, OSError) as exc:
                raise EOFError from exc
            view = view[sent:]

    def _read_exactly(self, n: int, deadline: float) -> bytes:
        parts = bytearray()
        while len(parts) < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            readable, _, _ = select.select([self._resp_r], [], [], remaining)
            if not readable:
                continue
            chunk = os.read(self._resp_r, min(n - len(parts), 1 << 20))
            if not chunk:
                raise EOFError
            parts += chunk
        return bytes(parts)

    def receive(self, deadline: float) -> Any:
        (length,) = _HEADER.unpack(self._read_exactly(_HEADER.size, deadline))
        if length > MAX_ANSWER:
            raise ImplementationCrashed(f"its answer is {length} bytes, more than {MAX_ANSWER}")
        return json.loads(self._read_exactly(length, deadline).decode("utf-8"))

    # -- ending

    def ended(self) -> str:
        """Why the child ended, in words (after EOF on its answers), waiting for it briefly."""
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            return "its process closed the answer pipe and was stopped"
        self.close()
        if code < 0:
            what = f"its process was killed by {_signal_name(-code)}"
        else:
            what = f"its process exited with status {code}"
        last = self.last_output()
        return what + (f"; its last output: {last}" if last else "")

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # its own session: it and what it started
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover - a process that ignores SIGKILL
                pass
        self.close()

    def close(self) -> None:
        _LIVE.discard(self)
        for name in ("_req_w", "_resp_r", "_out_r"):
            fd = getattr(self, name, -1)
            if fd >= 0:
                _close(fd)
                setattr(self, name, -1)

    def abandon(self) -> None:
        """In a forked copy of the owner: close the copied pipe ends, leave the process alone."""
        for name in ("_req_w", "_resp_r"):
            fd = getattr(self, name, -1)
            if fd >= 0:
                _close(fd)
                setattr(self, name, -1)
        self.pid_owner = -1


def _child_environment() -> dict[str, str]:
    # -m would put the working directory first on the child's path before it has read
    # the parent's (a json.py there would shadow the standard library's): PYTHONSAFEPATH
    # keeps it off (Python 3.11+), and PYTHONPATH finds this package wherever the parent did.
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONSAFEPATH": "1",
            "PYTHONPATH": package_parent + (os.pathsep + path if path else "")}


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


class IsolatedImplementation:
    """A user's implementation run in a child process: the :class:`~bleu_compat.implementations.Implementation`
    interface the harness uses (``name``, ``signature``, ``scale``, ``accepts``, ``tool_id``,
    :meth:`call`, :meth:`to_card_units`), each call answered by the child within ``timeout`` seconds.

    Built by :func:`isolated`, which loads the spec in a child first (so a spec that does
    not load is an :class:`~bleu_compat.implementations.ImplementationError` before
    anything runs).
    """

    def __init__(self, spec: str, name: str, signature: str, scale: str, accepts: frozenset[str],
                 timeout: float, target: str | None = None, allow: tuple[str, ...] = ()) -> None:
        self.spec = spec
        self.name = name
        self.signature = signature
        self.scale = scale
        self.accepts = accepts
        self.timeout = timeout
        self.target = target  # its declared target and allowances (issue 36)
        self.allow = allow
        self._child: _Child | None = None

    def __repr__(self) -> str:
        return f"IsolatedImplementation({self.name!r}, {self.signature!r}, timeout={self.timeout:g})"

    def __getstate__(self) -> dict[str, Any]:  # sent to a Dask worker: without the child
        return {k: v for k, v in self.__dict__.items() if k != "_child"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._child = None

    @property
    def tool_id(self) -> str:
        """The card whose requests this implementation answers."""
        from bleu_compat.implementations import _TOOL_OF

        return _TOOL_OF[self.signature]

    def to_card_units(self, output: dict[str, Any], expected_bleu: Any = None) -> dict[str, Any]:
        """As :meth:`bleu_compat.implementations.Implementation.to_card_units`."""
        from bleu_compat.implementations import to_card_units

        return to_card_units(self.scale, output, expected_bleu)

    def _started(self, deadline: float) -> _Child:
        child = self._child
        if child is not None and child.pid_owner == os.getpid() and child.proc.poll() is None:
            return child
        if child is not None and child.pid_owner == os.getpid():
            child.kill()
        self._child = None
        child, _ = _start(self.spec, self.timeout, deadline)
        self._child = child
        return child

    def call(self, tool_id: str, request: Mapping[str, Any]) -> dict[str, Any]:
        """Run the callable (in the child) on a card ``request``; its answer as card output fields.

        Raises:
            NotRepresentableForImpl: the request needs what the callable does not take.
            ImplementationError: the child's import failed this time (a flaky import).
            ImplementationCrashed: the child ended during the call.
            ImplementationHung: no answer within ``timeout`` seconds (the child is killed).
            RuntimeError: what the callable raised, as ``"Type: message"`` (any exception,
                ``SystemExit`` included, is a finding of the call).
        """
        from bleu_compat.implementations import NotRepresentableForImpl

        deadline = time.monotonic() + self.timeout
        child = self._started(deadline)
        try:
            child.send({"tool_id": tool_id, "request": request}, deadline)
            answer = child.receive(deadline)
        except TimeoutError:
            child.kill()
            self._child = None
            raise ImplementationHung(
                f"{self.name} did not answer within {self.timeout:g} s (--impl-timeout); its "
                "process was stopped") from None
        except (EOFError, ValueError, ImplementationCrashed) as exc:
            why = child.ended() if isinstance(exc, EOFError) else f"{exc}; its process was stopped"
            if not isinstance(exc, EOFError):
                child.kill()
            self._child = None
            raise ImplementationCrashed(why) from None
        if not isinstance(answer, dict):
            child.kill()
            self._child = None
            raise ImplementationCrashed("its process broke the protocol; it was stopped")
        if "not_representable" in answer:
            raise NotRepresentableForImpl(answer["not_representable"])
        if "error" in answer:
            raise _Raised(answer["error"])
        from bleu_compat.implementations import revive_markers

        return {k: revive_markers(v) for k, v in answer["output"].items()}


class _Raised(Exception):
    """What the user's callable raised, carried as its ``"Type: message"`` text
    (``as_reported``: the harness reports that text, not this class's name)."""

    @property
    def as_reported(self) -> str:
        return str(self.args[0])

    def __str__(self) -> str:
        return str(self.args[0])


def _start(spec: str, timeout: float, deadline: float) -> tuple[_Child, dict[str, Any]]:
    """A child that has loaded ``spec``, and what it says of the implementation.

    Raises:
        ImplementationError: the spec does not load (the child's reason), or the import
            did not finish within ``timeout``, or the child ended while importing.
    """
    from bleu_compat.implementations import ImplementationError

    child = _Child(spec, timeout)
    try:
        child.send({"spec": spec, "sys_path": list(sys.path), "memory": memory_limit()}, deadline)
        answer = child.receive(deadline)
    except TimeoutError:
        child.kill()
        raise ImplementationError(
            f"loading {spec} did not finish within {timeout:g} s (--impl-timeout); its process "
            "was stopped") from None
    except (EOFError, ValueError, ImplementationCrashed):
        raise ImplementationError(f"loading {spec} failed: {child.ended()}") from None
    if not isinstance(answer, dict) or "load_error" in answer or "loaded" not in answer:
        child.kill()
        reason = answer.get("load_error") if isinstance(answer, dict) else None
        raise ImplementationError(str(reason or f"loading {spec} failed"))
    return child, answer["loaded"]


_CACHE: dict[tuple[str, float, int], IsolatedImplementation] = {}


def isolated(spec: str, timeout: float | None = None) -> IsolatedImplementation:
    """The implementation a spec names (:func:`bleu_compat.implementations.load`'s specs),
    loaded and run in a child process; one per spec, timeout and process.

    Args:
        spec: ``MODULE:CALLABLE``, ``FILE.py:CALLABLE`` or an entry-point name (with or
            without the ``impl:`` prefix).
        timeout: seconds per call and for the import (default :func:`default_timeout`).

    Raises:
        ImplementationError: the spec does not name a usable implementation (the reason,
            as :func:`~bleu_compat.implementations.load` gives it), or its import hung or
            ended the child process.
    """
    from bleu_compat.implementations import PREFIX, impl_id

    bare = spec[len(PREFIX):] if spec.startswith(PREFIX) else spec
    seconds = default_timeout() if timeout is None else float(timeout)
    key = (bare, seconds, os.getpid())
    found = _CACHE.get(key)
    if found is not None:
        return found
    child, meta = _start(bare, seconds, time.monotonic() + seconds)
    target = meta.get("target")
    allow = meta.get("allow") or ()
    impl = IsolatedImplementation(bare, impl_id(bare), meta["signature"], meta["scale"],
                                  frozenset(meta["accepts"]), seconds,
                                  target if isinstance(target, str) else None,
                                  tuple(a for a in allow if isinstance(a, str)))
    impl._child = child
    _CACHE[key] = impl
    return impl


# ------------------------------------------------------------------ the child's side


def _jsonable(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON data: markers and plain values as they are, a non-finite float as its
    marker, anything else ``{"python_type", "repr"}``."""
    import math

    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return float(value)
        from bleu_compat.implementations import non_finite

        return dict(non_finite(value))
    if depth < 32 and isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _jsonable(v, depth + 1) for k, v in value.items()}
    if depth < 32 and isinstance(value, (list, tuple)):
        return [_jsonable(v, depth + 1) for v in value]
    try:
        text = repr(value)
    except Exception as exc:  # a __repr__ that raises
        text = f"<repr raised {type(exc).__name__}>"
    return {"python_type": type(value).__name__, "repr": text if len(text) <= 200 else text[:197] + "..."}


def _child_main(argv: list[str]) -> int:
    req_fd, resp_fd, parent = int(argv[0]), int(argv[1]), int(argv[2])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except Exception:  # pragma: no cover - not glibc
            pass
    if os.getppid() != parent:  # the parent died before the request above took effect
        return 0
    requests = os.fdopen(req_fd, "rb")
    answers = os.fdopen(resp_fd, "wb")

    def read() -> Any:
        head = requests.read(_HEADER.size)
        if len(head) < _HEADER.size:
            return None
        (length,) = _HEADER.unpack(head)
        return json.loads(requests.read(length).decode("utf-8"))

    def write(message: Any) -> None:
        try:
            data = json.dumps(message, separators=(",", ":"), allow_nan=False).encode("utf-8")
        except (TypeError, ValueError, RecursionError) as exc:  # pragma: no cover - _jsonable's job
            data = json.dumps({"error": f"the answer could not be sent: {exc}"}).encode("utf-8")
        answers.write(_HEADER.pack(len(data)) + data)
        answers.flush()

    hello = read()
    if not isinstance(hello, dict):
        return 0
    sys.path[:] = [p for p in hello.get("sys_path", sys.path) if isinstance(p, str)]
    memory = hello.get("memory")
    if isinstance(memory, int) and memory > 0:  # before the user's code is imported
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        except (ImportError, ValueError, OSError):  # pragma: no cover - not Linux
            pass
    memory_note = (f" (its process may use {memory >> 20} MiB of address space; {MEMORY_ENV} sets "
                   "it, in MiB)") if isinstance(memory, int) else ""
    from bleu_compat.implementations import ImplementationError, NotRepresentableForImpl, load

    try:
        impl = load(hello["spec"])
    except ImplementationError as exc:
        write({"load_error": str(exc)})
        return 0
    except BaseException as exc:  # SystemExit, KeyboardInterrupt... raised by the import
        write({"load_error": f"loading {hello['spec']} raised {type(exc).__name__}: {exc}"})
        return 0
    write({"loaded": {"signature": impl.signature, "scale": impl.scale,
                      "accepts": sorted(impl.accepts), "target": impl.target,
                      "allow": list(impl.allow)}})
    while True:
        message = read()
        if message is None:
            return 0
        try:
            output = impl.call(message["tool_id"], message["request"])
        except NotRepresentableForImpl as exc:
            write({"not_representable": str(exc)})
            continue
        except MemoryError as exc:
            write({"error": f"MemoryError: {exc}{memory_note}"})
            continue
        except BaseException as exc:  # the user's code: SystemExit and KeyboardInterrupt too
            write({"error": f"{type(exc).__name__}: {exc}"})
            continue
        write({"output": {k: _jsonable(v) for k, v in output.items()}})


if __name__ == "__main__":
    sys.exit(_child_main(sys.argv[1:]))
