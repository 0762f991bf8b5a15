"""The process the cached HF evaluate ``bleu`` module runs in, and the values it exchanges.

:mod:`bleu_compat.libraries.hf_bleu.process` starts this file as a program of its own
(``python -I -X utf8 _child.py REQUESTS ANSWERS MEMORY CPU``: isolated mode, so no
``PYTHON*`` variable, user site or working directory reaches it) in a session of its own. Before
it reads anything it limits its address space to ``MEMORY`` bytes (``RLIMIT_AS``) and its core
files to none, ignores Ctrl-C (the parent's to handle) and becomes the reaper of what it starts
(``PR_SET_CHILD_SUBREAPER``). Then it answers requests, one at a time, each framed as an
8-byte big-endian length and UTF-8 JSON:

- ``load``: the module's two files, as the bytes the parent read and hashed (base64), compiled
  and executed under private module names (their ``__file__`` the cached files' paths); the
  answer gives the SHA-256 of the bytes compiled, so the parent checks that what runs is what
  it hashed;
- ``tokenize``: the module's ``Tokenizer13a`` on each line;
- ``compute``: ``Bleu._compute``'s glue on strings with the module's tokenizer (references
  first, then predictions, as ``bleu.py`` does), then its ``compute_bleu``;
- ``call``: ``compute_bleu(*args, **kwargs)`` on values already tokenized.

Each request may use ``CPU`` seconds of processor time from its start (``RLIMIT_CPU``'s soft
limit, moved on before each request: the kernel ends the process with SIGXCPU past it). After
each request every process the module started is killed and reaped (it is this process's child,
or, orphaned, reparented to it), so nothing it started outlives its call. A ``MemoryError``
ends the process with :data:`MEMORY_EXIT`. What the module raises (``SystemExit`` included) is
an answer: its type, its arguments and its message.

Values cross as tagged JSON, exactly (:func:`to_wire`, :func:`from_wire`): a float as its
``float.hex`` (every bit, NaN, infinities and -0.0 included), a tuple apart from a list,
integers of any size JSON holds; nothing else (a value of another type is refused, never
pickled: the parent decodes what the module may have written, and a pickle would run code).

Standard library only: this file runs outside the package, and the parent imports it for
:func:`to_wire` and :func:`from_wire`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import os
import signal
import struct
import sys
import types
from typing import Any

__all__ = ["to_wire", "from_wire", "Unsendable", "HEADER", "MEMORY_EXIT", "encode", "decode"]

#: the frame header: the length of the JSON that follows
HEADER = struct.Struct(">Q")
#: the exit status of a process that ran out of its address space (a MemoryError)
MEMORY_EXIT = 86
#: the deepest value that crosses (the module's results are three levels deep)
MAX_DEPTH = 64


class Unsendable(TypeError):
    """A value of a type that does not cross the process boundary (its type's name)."""


def to_wire(value: Any, depth: int = 0) -> Any:
    """``value`` as tagged JSON data: None, bool, int, str and list as themselves; a float as
    ``{"f": float.hex()}``, a tuple as ``{"t": [...]}``, a dict with str keys as ``{"d": {...}}``.

    Raises:
        Unsendable: another type, or nesting deeper than :data:`MAX_DEPTH`.
    """
    if value is None or value is True or value is False:
        return value
    if depth > MAX_DEPTH:
        raise Unsendable(f"a value nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return {"f": float(value).hex()}
    if isinstance(value, list):
        return [to_wire(v, depth + 1) for v in value]
    if isinstance(value, tuple):
        return {"t": [to_wire(v, depth + 1) for v in value]}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"d": {str(k): to_wire(v, depth + 1) for k, v in value.items()}}
    raise Unsendable(type(value).__name__)


def from_wire(data: Any, depth: int = 0) -> Any:
    """The value :func:`to_wire` gave ``data`` for (floats bit for bit).

    Raises:
        ValueError: ``data`` is not such a value (a bare JSON float, an unknown tag, too deep).
    """
    if data is None or isinstance(data, (bool, str)):
        return data
    if isinstance(data, int):
        return data
    if depth > MAX_DEPTH:
        raise ValueError(f"a value nested more than {MAX_DEPTH} levels deep")
    if isinstance(data, list):
        return [from_wire(v, depth + 1) for v in data]
    if isinstance(data, dict) and len(data) == 1:
        ((tag, inner),) = data.items()
        if tag == "f" and isinstance(inner, str) and len(inner) <= 32:
            return float.fromhex(inner)
        if tag == "t" and isinstance(inner, list):
            return tuple(from_wire(v, depth + 1) for v in inner)
        if tag == "d" and isinstance(inner, dict):
            return {k: from_wire(v, depth + 1) for k, v in inner.items()}
    raise ValueError(f"not a value of the protocol: {type(data).__name__}")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a value of the protocol")


def encode(message: Any) -> bytes:
    """One frame: the header and ``message`` (JSON data) as UTF-8 (lone surrogates kept)."""
    body = json.dumps(message, ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")).encode("utf-8", "surrogatepass")
    return HEADER.pack(len(body)) + body


def decode(body: bytes) -> Any:
    """The JSON data of a frame's body (no NaN or Infinity literal: floats are tagged).

    Raises:
        ValueError: not UTF-8 JSON (RecursionError for JSON nested too deep).
    """
    return json.loads(body.decode("utf-8", "surrogatepass"), parse_constant=_no_constant)


# ------------------------------------------------------------------ the child's side


def _children() -> list[int]:
    """This process's children (its own and the orphans it reaps), by /proc."""
    pids: list[int] = []
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return pids
    listed = True
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/children", "rb") as f:
                pids += [int(p) for p in f.read().split()]
        except OSError:
            listed = False
    if listed:
        return pids
    me = os.getpid()  # no children file (a kernel without CONFIG_PROC_CHILDREN): every stat
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2:].split()
            if len(fields) > 1 and int(fields[1]) == me:
                pids.append(int(entry))
    return pids


def _end_descendants() -> None:
    """Kill and reap every process the module started (the orphans come to this process)."""
    for _ in range(10_000):
        pids = sorted(set(_children()))
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in pids:
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass


def _limit_cpu(seconds: int) -> None:
    """Let the next request use ``seconds`` of processor time from now (RLIMIT_CPU's soft limit
    is the process's total: it moves on with what was used)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime + seconds)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


class _Module:
    """The module's ``compute_bleu`` and ``Tokenizer13a()``, once loaded."""

    compute_bleu: Any = None
    tokenizer: Any = None


def _load(request: dict[str, Any], module: _Module) -> list[str]:
    digests = []
    loaded = []
    for name, filename, text in request["sources"]:
        source = base64.b64decode(text.encode("ascii"), validate=True)
        digests.append(hashlib.sha256(source).hexdigest())
        mod = types.ModuleType(f"{request['tag']}_{name}")
        mod.__file__ = filename
        sys.modules[mod.__name__] = mod
        loaded.append((mod, source, filename))
    for mod, source, filename in loaded:
        exec(compile(source, filename, "exec"), mod.__dict__)
    module.compute_bleu = loaded[0][0].compute_bleu
    module.tokenizer = loaded[1][0].Tokenizer13a()
    return digests


def _answer(request: dict[str, Any], module: _Module) -> Any:
    op = request["op"]
    if op == "load":
        return _load(request, module)
    if module.compute_bleu is None:
        raise RuntimeError("no module loaded")
    if op == "tokenize":
        return [module.tokenizer(line) for line in from_wire(request["lines"])]
    if op == "compute":
        tok = module.tokenizer
        refs = [[tok(r) for r in ref] for ref in from_wire(request["references"])]
        preds = [tok(p) for p in from_wire(request["predictions"])]
        result = module.compute_bleu(reference_corpus=refs, translation_corpus=preds,
                                     max_order=from_wire(request["max_order"]),
                                     smooth=from_wire(request["smooth"]))
        return {"result": result, "tokens": preds if request.get("tokens") else None}
    if op == "call":
        return module.compute_bleu(*from_wire(request["args"]), **from_wire(request["kwargs"]))
    raise RuntimeError(f"unknown request {op!r}")


def _raised(exc: BaseException) -> dict[str, Any]:
    cls = type(exc)
    try:
        args = to_wire(exc.args)
    except Exception:  # arguments that do not cross: the message alone
        args = None
    try:
        message = str(exc)
    except Exception as inner:  # a __str__ that raises
        message = f"<str() raised {type(inner).__name__}>"
    return {"raised": {"type": cls.__name__, "builtin": cls.__module__ == "builtins",
                       "args": args, "message": message}}


def _watch(lifeline: int) -> None:
    """Wait for the end of file on ``lifeline`` (the parent ended, or is done with this
    process), then kill this process's group: a call that sleeps never outlives the parent."""
    try:
        while os.read(lifeline, 1):
            pass
    except OSError:
        pass
    for pid in _children():  # those that left the group (setsid) first: they are ours to reap
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    os.kill(0, signal.SIGKILL)


def main(argv: list[str]) -> int:
    """Serve requests on the descriptors ``argv[0]`` (requests) and ``argv[1]`` (answers)
    under ``argv[2]`` bytes of address space and ``argv[3]`` CPU seconds per request, until the
    end of file on ``argv[4]`` (the parent's lifeline)."""
    import resource
    import threading

    requests_fd, answers_fd, memory, cpu, lifeline = (int(a) for a in argv[:5])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    for limit, value in ((resource.RLIMIT_CORE, 0), (resource.RLIMIT_AS, memory)):
        try:
            resource.setrlimit(limit, (value, value))
        except (ValueError, OSError):  # a lower hard limit already: it stays
            pass
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
        except Exception:  # pragma: no cover - not glibc
            pass
    threading.stack_size(1 << 18)
    threading.Thread(target=_watch, args=(lifeline,), name="lifeline", daemon=True).start()
    threading.stack_size(0)
    requests = os.fdopen(requests_fd, "rb")
    answers = os.fdopen(answers_fd, "wb")
    module = _Module()
    while True:
        head = requests.read(HEADER.size)
        if len(head) < HEADER.size:  # the parent closed its end (it ended, or is done)
            return 0
        (length,) = HEADER.unpack(head)
        try:
            request = decode(requests.read(length))
            _limit_cpu(cpu)
            try:
                answer: Any = {"ok": to_wire(_answer(request, module))}
            except Unsendable as exc:
                answer = {"unsendable": str(exc)}
            except MemoryError:
                raise
            except BaseException as exc:  # the module's: SystemExit and KeyboardInterrupt too
                answer = _raised(exc)
            _end_descendants()
            frame = encode(answer)
        except MemoryError:
            os._exit(MEMORY_EXIT)
        answers.write(frame)
        answers.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
