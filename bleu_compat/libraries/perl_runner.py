"""Running a Perl script: the bytes checked, with arguments (never a shell), contained, with clear errors.

Shared by the adapters of the Perl script implementations (each a plug-in folder of
:mod:`bleu_compat.libraries`). Nothing here knows which script it runs:

* :func:`sha256_of` identifies a file by its bytes (the plug-ins keep the tables of
  known releases; :func:`known_script` asks them all);
* :func:`run_perl` runs ``perl SCRIPT ARGS...`` in a directory, standard input from a
  file; it returns :class:`PerlRun`, or raises :class:`ScriptError` naming the script for
  what is not a result: no ``perl``, a run over one of its bounds, a missing Perl module
  (named, with the Debian package that ships it where known), a script that does not
  compile. It raises :class:`bleu_compat.foreign.UnknownCodeError` for a file that is no
  known release, unless the user opted in (:mod:`bleu_compat.foreign`).

What runs is what was checked: the file is read once, its SHA-256 taken of those bytes, and
those bytes are perl's program (written into a pipe perl reads its program from), so a file
replaced after the check is not what runs. perl is the interpreter, whatever the file's
``#!`` line says (perl itself would exec another interpreter named there: such a file is
refused, and perl is started under a name that disables that exec). The process is
contained: a session of its own whose whole process group is killed when perl ends, at its
bound or past an output cap (a process it left behind holding a pipe never makes the run
wait); an allow-listed environment (no ``PERLLIB``, ``PERL5LIB``, ``PERL5OPT``...); a limit
on its address space (:data:`MEMORY_LIMIT`); at most :data:`MAX_OUTPUT` bytes read of each
output.

The time limit is the script's own CPU time (Linux ``RLIMIT_CPU``), not the wall clock: on
a loaded machine a run takes longer but uses the same processor time, so a report
never depends on what else the machine was doing (a 120 s wall-clock limit turned
mteval-v13a on the real corpora into UNEXPECTED beside two CI runs). A script that
waits without computing is stopped by the wall clock only, after
:data:`WALL_FACTOR` times the limit. Where ``RLIMIT_CPU`` cannot be set (not Linux),
the limit is wall-clock time.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from bleu_compat.errors import OracleUnavailableError

__all__ = ["ScriptError", "PerlRun", "sha256_of", "run_perl", "die_message", "TIMEOUT", "TIMEOUT_ENV",
           "DEBIAN_PACKAGES", "check_script_path", "load_script", "known_script",
           "foreign_interpreter", "child_environment", "MAX_OUTPUT", "MEMORY_LIMIT", "MEMORY_ENV"]

#: the environment variable that sets :data:`TIMEOUT`
TIMEOUT_ENV = "BLEU_COMPAT_PERL_TIMEOUT"
#: the largest limit taken, in seconds (a week)
MAX_TIMEOUT = 7 * 24 * 3600.0


def _timeout_from_environment() -> float | str:
    """:data:`TIMEOUT_ENV` as seconds (120 when unset), or its text when it is not a number of
    seconds above 0 (:func:`run_perl` then refuses to run; importing never fails on it)."""
    text = os.environ.get(TIMEOUT_ENV)
    if text is None:
        return 120.0
    try:
        value = float(text)
    except ValueError:
        return text
    return value if 0 < value <= MAX_TIMEOUT else text


#: CPU seconds a script may use before it is stopped (a WMT test set takes about a second;
#: whole seconds, rounded up, as the kernel counts them); a str: the environment's bad value
TIMEOUT: float | str = _timeout_from_environment()
#: a run that has used less than its CPU limit is stopped after this many times that limit
#: of wall-clock time (a script that sleeps or waits)
WALL_FACTOR = 10
#: Perl modules the scripts use -> the Debian package that ships them
DEBIAN_PACKAGES = {"XML::Twig": "libxml-twig-perl", "Sort::Naturally": "libsort-naturally-perl",
                   "XML::Parser": "libxml-parser-perl"}
#: a script larger than this is not one of the scripts (the largest is 42 kB)
MAX_SCRIPT_BYTES = 4 << 20


class ScriptError(OracleUnavailableError):
    """The script cannot give a number: the message names the file and why (exit 2 on the CLI)."""


@dataclass(frozen=True)
class PerlRun:
    """One run: the exit status and the two outputs (UTF-8, undecodable bytes replaced)."""

    status: int
    stdout: str
    stderr: str


def check_script_path(path: str) -> Path:
    """The script's path, checked: a regular file (not a directory, a pipe, a device, a
    file of /proc or /sys), readable, of a script's size (:func:`bleu_compat.foreign.read_once`).

    Raises:
        ScriptError: naming the file and what is wrong (never quoting its content).
    """
    from bleu_compat.foreign import ForeignFileError, read_once

    try:
        read_once(path, MAX_SCRIPT_BYTES)
    except ForeignFileError as exc:
        message = str(exc)
        if "bytes, more than" in message:
            message = message.split(", more than")[0] + ": not a Perl BLEU script (they are under 50 kB)"
        raise ScriptError(message) from None
    return Path(path)


def sha256_of(path: str | Path) -> str:
    """The SHA-256 of the file's bytes, in hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


_DIE = re.compile(r"^(.*?) at \S.* line \d+(?:, <[^>]*> (?:line|chunk) \d+)?\.$")
_MISSING = re.compile(r"Can't locate (\S+)\.pm in @INC")


def _limit(pid: int, seconds: int, memory: int) -> bool:
    """Limit the process ``pid`` to ``seconds`` of CPU time (SIGXCPU at the limit, SIGKILL a
    second later) and ``memory`` bytes of address space; False where the platform cannot
    limit CPU time (the caller falls back to wall time)."""
    try:
        import resource

        prlimit = resource.prlimit
    except (ImportError, AttributeError):  # not Linux
        return False
    try:
        prlimit(pid, resource.RLIMIT_AS, (memory, memory))
    except (OSError, ValueError):
        pass
    try:
        prlimit(pid, resource.RLIMIT_CPU, (seconds, seconds + 1))
    except (OSError, ValueError):  # the child already ended, or a limit the system refuses
        return False
    return True


def die_message(stderr: str) -> str | None:
    """The message of the ``die`` that ended a run (without `` at FILE line N.``), or None."""
    for line in reversed(stderr.splitlines()):
        m = _DIE.match(line.strip())
        if m and not line.startswith(("Use of ", "Argument ", "BEGIN failed", "Execution of",
                                      "Compilation failed")):
            return m.group(1)
    return None


#: the name perl is started under: it holds no "perl", so perl never hands the program to
#: another interpreter named on its ``#!`` line (perl does that only when its own argv[0]
#: names perl: toke.c), and :func:`foreign_interpreter` refuses such a file besides
ARGV0 = "bleu-compat-script"
#: bytes of standard output, and of standard error, a script may print (the scripts print a
#: few hundred; mteval's error for a bad file a few kB): past it the run is stopped
MAX_OUTPUT = 1 << 20
#: the environment variable that sets :data:`MEMORY_LIMIT` (MiB)
MEMORY_ENV = "BLEU_COMPAT_PERL_MEMORY"
#: the address space a script may use, in bytes (mteval-v13a on a WMT test set: ~40 MB)
MEMORY_LIMIT = 2 << 30
#: environment variables a script sees (with LC_ALL=LANG=C): nothing else reaches perl, so
#: no PERL5LIB, PERLLIB, PERL5OPT or PERL5DB names code for it to load
ENVIRONMENT_ALLOWED = ("PATH", "TMPDIR", "TZ")


def _memory_limit() -> int | str:
    text = os.environ.get(MEMORY_ENV)
    if text is None:
        return MEMORY_LIMIT
    try:
        mib = int(text)
    except ValueError:
        return text
    return mib << 20 if 64 <= mib <= 1 << 20 else text


def child_environment() -> dict[str, str]:
    """The environment a script runs in: :data:`ENVIRONMENT_ALLOWED` from ours, ``LC_ALL`` and
    ``LANG`` ``C`` (an allow-list: a variable perl or a module reads is not passed on)."""
    env = {k: os.environ[k] for k in ENVIRONMENT_ALLOWED if k in os.environ}
    env.setdefault("PATH", os.defpath)
    env.update(LC_ALL="C", LANG="C")
    return env


def known_script(sha: str) -> str | None:
    """``"<file> <release>"`` when ``sha`` is a release of a Perl BLEU script bleu-compat
    knows (the built-in tables and every registered plug-in's ``SCRIPT``), else None."""
    import importlib

    families = []
    for name in ("multi_bleu", "multi_bleu_detok", "mteval_v13a", "mteval_v14"):
        adapter = importlib.import_module(f"bleu_compat.libraries.{name}.adapter")
        families.append(adapter.SCRIPT)
    try:
        from bleu_compat.libraries.registry import libraries

        for lib in libraries():
            other = getattr(lib.adapter_module(), "SCRIPT", None)
            if other is not None and all(other is not f for f in families):
                families.append(other)
    except Exception:  # a registry that cannot load: the built-in tables still decide
        pass
    for family in families:
        rel = family.entries().by_sha256(sha)
        if rel is not None:
            return f"{family.filename} {rel.label}"
    # tokenizer.perl, the judge of our moses tokenization: the release our rules follow
    from bleu_compat.tokenizers.moses import MOSES_COMMIT, TOKENIZER_PERL_SHA256

    if sha == TOKENIZER_PERL_SHA256:
        return f"tokenizer.perl mosesdecoder {MOSES_COMMIT[:8]}"
    return None


def foreign_interpreter(data: bytes) -> str | None:
    """The interpreter a ``#!`` first line names when it is not perl (perl would run that
    program instead), else None."""
    first = data.split(b"\n", 1)[0]
    first = first[3:] if first.startswith(b"\xef\xbb\xbf") else first
    first = first.lstrip(b" \t\r\f\v:")
    if not first.startswith(b"#!") or b"perl" in first or b"indir" in first:
        return None
    words = first[2:].split()
    return words[0].decode("utf-8", "replace")[:100] if words else "(none)"


def load_script(script: str | Path) -> tuple[bytes, str]:
    """``(bytes, sha256)`` of the script, read once (:func:`bleu_compat.foreign.read_once`),
    refused unless it is a known release or the user opted in to unknown code.

    Raises:
        ScriptError: not a regular file, a /proc file, too large, unreadable; its first line
            names another interpreter.
        UnknownCodeError: an unknown file without both opt-ins.
    """
    from bleu_compat.foreign import ForeignFileError, read_once, refuse_unknown, sha256_hex

    try:
        data = read_once(script, MAX_SCRIPT_BYTES)
    except ForeignFileError as exc:
        raise ScriptError(str(exc)) from None
    sha = sha256_hex(data)
    if known_script(sha) is None:
        refuse_unknown(f"the Perl script {script}", sha,
                       "the releases of multi-bleu.perl, multi-bleu-detok.perl, mteval-v13a.pl, "
                       "mteval-v14.pl and tokenizer.perl bleu-compat knows")
    other = foreign_interpreter(data)
    if other is not None:
        raise ScriptError(f"{script}: its first line names another interpreter ({other}), which "
                          "perl would run instead: not run (bleu-compat runs scripts with perl only)")
    return data, sha


def _kill_group(proc: subprocess.Popen) -> None:  # type: ignore[type-arg]
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # its own session: the script and all it started
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except OSError:
        pass


def _collect(proc: subprocess.Popen, program: bytes, program_fd: int, wall: float,  # type: ignore[type-arg]
             script: str, max_output: int = MAX_OUTPUT) -> tuple[bytes, bytes, str | None]:
    """Feed the program to perl (``program_fd`` -1: it reads it from a file) and read its two
    outputs until it ends, each output capped at ``max_output``, everything within ``wall`` seconds; the process group is killed when
    perl has ended (what it left behind), at the bound, or past a cap. Returns ``(stdout,
    stderr, why stopped or None)``; never waits for an end of file that a process left
    behind would withhold."""
    import select

    assert proc.stdout is not None and proc.stderr is not None
    outputs = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}
    names = {proc.stdout.fileno(): "standard output", proc.stderr.fileno(): "standard error"}
    open_fds = set(outputs)
    for fd in open_fds:
        os.set_blocking(fd, False)
    to_write = memoryview(program)
    if program_fd >= 0:
        os.set_blocking(program_fd, False)
    writing = program_fd
    deadline = time.monotonic() + wall
    ended_at: float | None = None
    stopped: str | None = None
    try:
        while open_fds or writing >= 0:
            now = time.monotonic()
            if proc.poll() is not None and ended_at is None:
                ended_at = now
                _kill_group(proc)  # perl ended: nothing it started may hold the pipes open
            if ended_at is not None and now - ended_at > 2.0:
                break  # a process that escaped the group holds a pipe: what was read is all
            if now >= deadline:
                stopped = "wall"
                break
            wlist = [writing] if writing >= 0 else []
            try:
                readable, writable, _ = select.select(list(open_fds), wlist, [],
                                                      min(0.05, max(0.0, deadline - now)))
            except InterruptedError:  # pragma: no cover - PEP 475 retries
                continue
            if writable:
                try:
                    sent = os.write(writing, to_write[:1 << 16])
                    to_write = to_write[sent:]
                except BlockingIOError:
                    sent = 0
                except OSError:  # perl closed its end (it ended, or read no further)
                    to_write = to_write[:0]
                if not to_write:
                    os.close(writing)
                    writing = -1
            for fd in readable:
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    open_fds.discard(fd)
                    continue
                outputs[fd] += chunk
                if len(outputs[fd]) > max_output:
                    stopped = names[fd]
                    break
            if stopped:
                break
    finally:
        if writing >= 0:
            os.close(writing)
        if stopped or proc.poll() is None:
            _kill_group(proc)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process that ignores SIGKILL
            pass
    return bytes(outputs[proc.stdout.fileno()]), bytes(outputs[proc.stderr.fileno()]), stopped


def run_perl(script: str | Path, args: Sequence[str], *, cwd: str | Path,
             stdin: str | Path | None = None, timeout: float | None = None,
             beside: dict[str, Path] | None = None, max_output: int = MAX_OUTPUT) -> PerlRun:
    """``perl SCRIPT ARGS...`` in ``cwd`` (a list of arguments: no shell), standard input
    from the file ``stdin``, stopped after ``timeout`` seconds of its own CPU time
    (default :data:`TIMEOUT`), or :data:`WALL_FACTOR` times that of wall-clock time.

    The script is read once (:func:`load_script`: a known release, or an unknown file with
    both opt-ins of :mod:`bleu_compat.foreign`) and those bytes are perl's program, written
    into a pipe perl reads it from (so the file is not opened again, and perl starts
    nothing else: :data:`ARGV0`). The process runs in a session of its own, in an
    allow-listed environment (:func:`child_environment`), limited to :data:`MEMORY_LIMIT`
    bytes of address space; its outputs are capped at :data:`MAX_OUTPUT` bytes each; the
    whole process group is killed when perl ends, at the bound, or past a cap.

    ``beside``: for a script that finds its data next to itself (Perl's ``FindBin``:
    tokenizer.perl reads ``$RealBin/../share/nonbreaking_prefixes``), which a program read
    from a pipe cannot do. The verified bytes are then written to ``bin/<name>`` in a private
    temporary directory (mode 0700, ours), each key of ``beside`` is a symbolic link there to
    its value (data, not code: ``{"share": .../scripts/share}``), and perl runs that file: still
    the bytes that were hashed, in a file nobody else can write. ``max_output``: the cap on each
    output, in bytes (a tokenizer prints its input again: the caller sizes it).

    Raises:
        ScriptError: no ``perl`` on PATH; the file is not a script file; the run used up its
            CPU time or its wall-clock bound, its memory, or printed past a cap; a Perl
            module is missing (the message names it and its Debian package); the script
            does not compile.
        UnknownCodeError: the script is no known release and the opt-in is not complete.
    """
    perl = shutil.which("perl")
    if perl is None:
        raise ScriptError(f"{script}: cannot run it: no `perl` on PATH (Debian: apt-get install perl)")
    limit = TIMEOUT if timeout is None else timeout
    if isinstance(limit, str) or not 0 < limit <= MAX_TIMEOUT:  # NaN fails the comparison too
        raise ScriptError(f"{script}: not run: {TIMEOUT_ENV}={limit!r} is not a number of seconds "
                          f"above 0 and at most {MAX_TIMEOUT:g}")
    memory = _memory_limit()
    if isinstance(memory, str):
        raise ScriptError(f"{script}: not run: {MEMORY_ENV}={memory!r} is not a whole number of "
                          "MiB from 64 to 1048576")
    program, _ = load_script(script)
    cpu = max(1, math.ceil(limit))
    if beside is not None:
        with tempfile.TemporaryDirectory(prefix="bleu-compat-script-") as home:
            os.chmod(home, 0o700)
            os.mkdir(os.path.join(home, "bin"), 0o700)
            copy = os.path.join(home, "bin", Path(script).name)
            fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o500)
            with os.fdopen(fd, "wb") as f:
                f.write(program)
            for name, target in beside.items():
                os.symlink(os.path.realpath(target), os.path.join(home, Path(name).name))
            return _run(perl, script, [ARGV0, copy, *args], b"", -1, -1, cwd, stdin, cpu, limit,
                        memory, max_output)
    read_end, write_end = os.pipe()
    return _run(perl, script, [ARGV0, f"/dev/fd/{read_end}", *args], program, read_end,
                write_end, cwd, stdin, cpu, limit, memory, max_output)


def _run(perl: str, script: str | Path, argv: list[str], program: bytes, read_end: int,
         write_end: int, cwd: str | Path, stdin: str | Path | None, cpu: int, limit: float,
         memory: int, max_output: int) -> PerlRun:
    """:func:`run_perl`'s process: started, bounded, read; ``read_end``/``write_end`` the
    program's pipe (-1, -1 when perl reads the program from a file)."""
    try:
        with open(stdin, "rb") if stdin is not None else open(os.devnull, "rb") as fin:
            proc = subprocess.Popen(argv, executable=perl,
                                    stdin=fin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    cwd=str(cwd), env=child_environment(),
                                    pass_fds=(read_end,) if read_end >= 0 else (),
                                    close_fds=True, start_new_session=True)
    except OSError as exc:
        if write_end >= 0:
            os.close(write_end)
        raise ScriptError(f"{script}: cannot run perl on it: {exc.strerror or exc}") from None
    finally:
        if read_end >= 0:
            os.close(read_end)
    # Limits first, the program second: perl runs nothing of the script before reading it.
    cpu_limited = _limit(proc.pid, cpu, memory)
    wall = limit * WALL_FACTOR if cpu_limited else limit
    try:
        raw_out, raw_err, stopped = _collect(proc, program, write_end, wall, str(script),
                                             max_output)
    except BaseException:
        _kill_group(proc)
        raise
    finally:
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    if stopped == "wall":
        raise ScriptError(f"{script}: still running after {wall:g} s of wall-clock time"
                          + (f" (having used less than its {cpu} s of CPU time)" if cpu_limited else "")
                          + ": stopped with every process it started (BLEU_COMPAT_PERL_TIMEOUT "
                          "sets the limit)")
    if stopped is not None:
        raise ScriptError(f"{script}: printed more than {max_output} bytes on its {stopped}: "
                          "stopped (a BLEU script prints a few hundred bytes)")
    if cpu_limited and proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        raise ScriptError(f"{script}: still running after {cpu} s of CPU time: stopped "
                          "(BLEU_COMPAT_PERL_TIMEOUT sets the limit)")
    out = raw_out.decode("utf-8", "replace")
    err = raw_err.decode("utf-8", "replace")
    status = proc.returncode
    if status != 0 and "Out of memory" in err:
        raise ScriptError(f"{script}: ran out of its {memory >> 20} MiB of memory: stopped "
                          f"({MEMORY_ENV} sets the limit, in MiB)")
    missing = _MISSING.search(err)
    if missing and status != 0:
        module = missing.group(1).replace("/", "::")
        package = DEBIAN_PACKAGES.get(module)
        hint = f" (Debian: apt-get install {package})" if package else f" (cpan {module})"
        raise ScriptError(f"{script}: needs the Perl module {module}, which is not installed{hint}")
    if status != 0 and re.search(r"(syntax error|Execution of .* aborted due to "
                                 r"compilation errors|BEGIN not safe)", err):
        first = next((line for line in err.splitlines() if line.strip()), "")
        first = first.replace(argv[1], str(script))
        raise ScriptError(f"{script}: perl cannot compile it: {first.strip()[:300]}")
    return PerlRun(status, out, err)
