"""Running a user's Perl script: with arguments (never a shell), a timeout, and clear errors.

Shared by the adapters of the Perl script implementations (each a plug-in folder of
:mod:`bleu_compat.libraries`). Nothing here knows which script it runs:

* :func:`sha256_of` identifies a file by its bytes (the plug-ins keep the tables of
  known releases);
* :func:`run_perl` runs ``perl SCRIPT ARGS...`` in a directory, standard input from a
  file, with a limit on its processor time; it returns :class:`PerlRun`, or raises
  :class:`ScriptError` naming the script for what is not a result: no ``perl``, a run
  over its limit, a missing Perl module (named, with the Debian package that ships it
  where known), a script that does not compile.

The limit is the script's own CPU time (Linux ``RLIMIT_CPU``), not the wall clock: on
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
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from bleu_compat.errors import OracleUnavailableError

__all__ = ["ScriptError", "PerlRun", "sha256_of", "run_perl", "die_message", "TIMEOUT", "TIMEOUT_ENV",
           "DEBIAN_PACKAGES", "check_script_path"]

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
    """The script's path, checked: it exists, is a regular file, readable and of a
    script's size.

    Raises:
        ScriptError: naming the file and what is wrong.
    """
    p = Path(path)
    if not p.exists():
        raise ScriptError(f"{path}: no such file")
    if not p.is_file():
        raise ScriptError(f"{path}: not a regular file")
    try:
        size = p.stat().st_size
        with open(p, "rb"):
            pass
    except OSError as exc:
        raise ScriptError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    if size > MAX_SCRIPT_BYTES:
        raise ScriptError(f"{path}: {size} bytes: not a Perl BLEU script (they are under 50 kB)")
    return p


def sha256_of(path: str | Path) -> str:
    """The SHA-256 of the file's bytes, in hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


_DIE = re.compile(r"^(.*?) at \S.* line \d+(?:, <[^>]*> (?:line|chunk) \d+)?\.$")
_MISSING = re.compile(r"Can't locate (\S+)\.pm in @INC")


def _limit_cpu(pid: int, seconds: int) -> bool:
    """Limit the process ``pid`` to ``seconds`` of CPU time (SIGXCPU at the limit, SIGKILL a
    second later); False where the platform cannot (the caller falls back to wall time)."""
    try:
        import resource

        prlimit = resource.prlimit
    except (ImportError, AttributeError):  # not Linux
        return False
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


def run_perl(script: str | Path, args: Sequence[str], *, cwd: str | Path,
             stdin: str | Path | None = None, timeout: float | None = None) -> PerlRun:
    """``perl SCRIPT ARGS...`` in ``cwd`` (a list of arguments: no shell), standard input
    from the file ``stdin``, stopped after ``timeout`` seconds of its own CPU time
    (default :data:`TIMEOUT`), or :data:`WALL_FACTOR` times that of wall-clock time.

    Raises:
        ScriptError: no ``perl`` on PATH; the run used up its CPU time or its wall-clock
            bound; a Perl module is missing (the message names it and its Debian package);
            the script does not compile.
    """
    perl = shutil.which("perl")
    if perl is None:
        raise ScriptError(f"{script}: cannot run it: no `perl` on PATH (Debian: apt-get install perl)")
    limit = TIMEOUT if timeout is None else timeout
    if isinstance(limit, str) or not 0 < limit <= MAX_TIMEOUT:  # NaN fails the comparison too
        raise ScriptError(f"{script}: not run: {TIMEOUT_ENV}={limit!r} is not a number of seconds "
                          f"above 0 and at most {MAX_TIMEOUT:g}")
    cpu = max(1, math.ceil(limit))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERL5")}
    env.update(LC_ALL="C", LANG="C")
    try:
        with open(stdin, "rb") if stdin is not None else open(os.devnull, "rb") as fin:
            # the script's path as the caller meant it: perl runs in ``cwd``, not in ours
            proc = subprocess.Popen([perl, str(Path(script).absolute()), *args], stdin=fin,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, cwd=str(cwd), env=env)
    except OSError as exc:
        raise ScriptError(f"{script}: cannot run perl on it: {exc.strerror or exc}") from None
    # The CPU time the child used before this call counts too: there is no race to lose.
    cpu_limited = _limit_cpu(proc.pid, cpu)
    wall = limit * WALL_FACTOR if cpu_limited else limit
    try:
        stdout, stderr = proc.communicate(timeout=wall)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise ScriptError(f"{script}: still running after {wall:g} s of wall-clock time"
                          + (f" (having used less than its {cpu} s of CPU time)" if cpu_limited else "")
                          + ": stopped (BLEU_COMPAT_PERL_TIMEOUT sets the limit)") from None
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    if cpu_limited and proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        raise ScriptError(f"{script}: still running after {cpu} s of CPU time: stopped "
                          "(BLEU_COMPAT_PERL_TIMEOUT sets the limit)")
    proc = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    out = proc.stdout.decode("utf-8", "replace")
    err = proc.stderr.decode("utf-8", "replace")
    missing = _MISSING.search(err)
    if missing and proc.returncode != 0:
        module = missing.group(1).replace("/", "::")
        package = DEBIAN_PACKAGES.get(module)
        hint = f" (Debian: apt-get install {package})" if package else f" (cpan {module})"
        raise ScriptError(f"{script}: needs the Perl module {module}, which is not installed{hint}")
    if proc.returncode != 0 and re.search(r"(syntax error|Execution of .* aborted due to "
                                          r"compilation errors|BEGIN not safe)", err):
        first = next((line for line in err.splitlines() if line.strip()), "")
        raise ScriptError(f"{script}: perl cannot compile it: {first.strip()[:300]}")
    return PerlRun(proc.returncode, out, err)
