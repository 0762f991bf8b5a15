"""Foreign code: what bleu-compat runs that it does not ship, and the rule that lets it run.

Foreign code is code that reaches bleu-compat as data: a Perl script named by
``path=`` or found in ``$BLEU_COMPAT_MOSES_SCRIPTS`` (multi-bleu.perl,
multi-bleu-detok.perl, mteval-v13a.pl, mteval-v14.pl), the HF evaluate ``bleu``
module found in the Hugging Face modules cache. It runs by default only when
its SHA-256 is a release bleu-compat knows (the tables of each implementation's
``entries`` and :data:`bleu_compat.libraries.hf_bleu.cache.KNOWN`). Any other
file runs only when the user asked for it twice, on the command line
(:data:`OPTION`) *and* in the environment (:data:`ENV` ``=1``): a file planted
in a cache that a CI runner restores (a fork's pull request writing
``~/.cache``) can set neither, and a variable exported for a whole job does not
by itself turn an unknown file into a run. The refusal names both
(:class:`UnknownCodeError`, exit 2 on the command line).

What is run is what was hashed: :func:`read_once` reads the file once (a
regular file, at most ``max_bytes``, refused when it lives in ``/proc`` or
``/sys`` or its size is not what it reads), the digest is taken of those bytes
and those same bytes are executed (the Perl runner writes them into perl's
program pipe, the HF loader sends them to the module's own process, which
compiles them: :mod:`bleu_compat.libraries.hf_bleu.process`); the file is never
opened again, so a file swapped after the check is not what runs. Either runs
in a child process bounded in time, memory and output.

A user's ``--impl`` is not foreign in this sense: the user named it on the
command line; it runs in a child process of its own (:mod:`bleu_compat.isolation`).

Standard library only; imports nothing from the package but :mod:`bleu_compat.errors`.
"""

from __future__ import annotations

import errno
import os
import stat

# typing and hashlib are not imported at run time here: every command that runs
# implementations builds its parser with add_option (issue 34: score's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from bleu_compat.errors import OracleUnavailableError

__all__ = ["OPTION", "ENV", "UnknownCodeError", "ForeignFileError", "allow_from_option",
           "option_given", "unknown_allowed", "refuse_unknown", "read_once", "sha256_hex",
           "opt_in_hint", "add_option"]

#: the command line option that, with :data:`ENV`, lets an unknown file run
OPTION = "--allow-unknown-code"
#: the environment variable that, set to ``1`` with :data:`OPTION`, lets an unknown file run
ENV = "BLEU_COMPAT_ALLOW_UNKNOWN_CODE"

_option = False


class UnknownCodeError(OracleUnavailableError):
    """A file of foreign code whose SHA-256 is no known release, not run (the message names
    the file, its digest, and the two opt-ins)."""


class ForeignFileError(OracleUnavailableError):
    """A file of foreign code that cannot be read as one (not a regular file, a ``/proc``
    file, too large, unreadable): the message names it and why, never its content."""


def add_option(parser: Any) -> None:
    """Add :data:`OPTION` to an argparse parser (the commands that run implementations)."""
    parser.add_argument(
        OPTION, action="store_true", dest="allow_unknown_code",
        help=f"run a Perl script or a cached HF evaluate module whose SHA-256 is no release "
             f"bleu-compat knows (refused by default); needs {ENV}=1 in the environment too")


def allow_from_option(given: bool = True) -> None:
    """Record that this run's command line gave :data:`OPTION` (the CLI calls this; a
    program using the library calls it to take the same decision)."""
    global _option
    _option = bool(given)


def option_given() -> bool:
    """Whether :func:`allow_from_option` was called for this process."""
    return _option


def unknown_allowed() -> bool:
    """True when both opt-ins are given: :data:`OPTION` and :data:`ENV` ``=1``."""
    return _option and os.environ.get(ENV, "").strip() == "1"


def opt_in_hint() -> str:
    """The sentence a refusal ends with: how to run the file anyway, and which half is missing."""
    missing = [what for what, ok in ((f"the option {OPTION}", _option),
                                     (f"the environment variable {ENV}=1",
                                      os.environ.get(ENV, "").strip() == "1")) if not ok]
    return (f"to run it anyway, give {OPTION} and set {ENV}=1 (both; missing: "
            f"{' and '.join(missing)})")


def refuse_unknown(what: str, digest: str, known: str) -> None:
    """Raise :class:`UnknownCodeError` for ``what`` (a file's description) unless
    :func:`unknown_allowed`.

    ``known``: what it was compared with, for the message (e.g. "the 11 known releases of
    multi-bleu.perl").

    Raises:
        UnknownCodeError: the opt-in is not complete.
    """
    if unknown_allowed():
        return
    raise UnknownCodeError(f"{what} (sha256 {digest[:16]}...) is none of {known}: not run, "
                           f"since bleu-compat runs only code it knows; {opt_in_hint()}")


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data``, in hex."""
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _pseudo_devices() -> set[int]:
    devices = set()
    for root in ("/proc", "/sys"):
        try:
            devices.add(os.stat(root).st_dev)
        except OSError:
            pass
    return devices


def read_once(path: str | os.PathLike[str], max_bytes: int, what: str = "") -> bytes:
    """The bytes of the regular file ``path``, read once (the caller hashes and runs these).

    Refused, naming ``path`` (or ``what``) and never quoting the content: a path that does
    not exist or is not a regular file (a directory, a FIFO, a device), a file in ``/proc``
    or ``/sys`` (their files say they are regular and empty, then give the process's
    environment or memory), a file larger than ``max_bytes``, a file whose size is not
    what reading it gives.

    Raises:
        ForeignFileError: as above.
    """
    name = what or str(path)
    try:  # O_NONBLOCK: opening a FIFO never waits for a writer; regular files ignore it
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
                     | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise ForeignFileError(f"{name}: no such file") from None
        if exc.errno == errno.ELOOP:
            raise ForeignFileError(f"{name}: a loop of symbolic links") from None
        raise ForeignFileError(f"{name}: cannot read it: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a pipe" if stat.S_ISFIFO(st.st_mode)
                    else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
                    else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a file")
            raise ForeignFileError(f"{name}: not a regular file ({kind})")
        if st.st_dev in _pseudo_devices():
            raise ForeignFileError(f"{name}: a file of /proc or /sys, not a program file")
        if st.st_size > max_bytes:
            raise ForeignFileError(f"{name}: {st.st_size} bytes, more than the {max_bytes} "
                                   "such a file can have")
        chunks = []
        total = 0
        while total <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        raise ForeignFileError(f"{name}: cannot read it: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) != st.st_size:
        raise ForeignFileError(f"{name}: its size ({st.st_size} bytes) is not what reading it "
                               f"gave ({len(data)}): not a file bleu-compat runs (it changed, or "
                               "it is a file of a pseudo file system)")
    return data
