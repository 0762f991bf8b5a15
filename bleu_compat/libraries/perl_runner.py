"""Running a user's Perl script: with arguments (never a shell), a timeout, and clear errors.

Shared by the adapters of the Perl script implementations (each a plug-in folder of
:mod:`bleu_compat.libraries`). Nothing here knows which script it runs:

* :func:`sha256_of` identifies a file by its bytes (the plug-ins keep the tables of
  known releases);
* :func:`run_perl` runs ``perl SCRIPT ARGS...`` in a directory, standard input from a
  file, with a timeout; it returns :class:`PerlRun`, or raises :class:`ScriptError`
  naming the script for what is not a result: no ``perl``, a timeout, a missing Perl
  module (named, with the Debian package that ships it where known), a script that
  does not compile.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from bleu_compat.errors import OracleUnavailableError

__all__ = ["ScriptError", "PerlRun", "sha256_of", "run_perl", "die_message", "TIMEOUT",
           "DEBIAN_PACKAGES", "check_script_path"]

#: seconds a script may run before it is stopped (a WMT test set takes about a second)
TIMEOUT = float(os.environ.get("BLEU_COMPAT_PERL_TIMEOUT", "120"))
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
    from the file ``stdin``, stopped after ``timeout`` seconds.

    Raises:
        ScriptError: no ``perl`` on PATH; the run timed out; a Perl module is missing (the
            message names it and its Debian package); the script does not compile.
    """
    perl = shutil.which("perl")
    if perl is None:
        raise ScriptError(f"{script}: cannot run it: no `perl` on PATH (Debian: apt-get install perl)")
    limit = TIMEOUT if timeout is None else timeout
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERL5")}
    env.update(LC_ALL="C", LANG="C")
    try:
        with open(stdin, "rb") if stdin is not None else open(os.devnull, "rb") as fin:
            proc = subprocess.run([perl, str(script), *args], stdin=fin, capture_output=True,
                                  cwd=str(cwd), timeout=limit, env=env)
    except subprocess.TimeoutExpired:
        raise ScriptError(f"{script}: still running after {limit:g} s: stopped "
                          "(BLEU_COMPAT_PERL_TIMEOUT sets the limit)") from None
    except OSError as exc:
        raise ScriptError(f"{script}: cannot run perl on it: {exc.strerror or exc}") from None
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
