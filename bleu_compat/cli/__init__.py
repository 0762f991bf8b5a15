"""The ``bleu-compat`` command line: ``main(argv=None) -> int``.

Each command lives in its own module under ``bleu_compat.cli`` and exposes
``register(subparsers)``, which adds its parser and sets ``func`` (a callable
taking the parsed arguments and returning the exit status). This package is
the only place that prints or exits.

Exit status: 0 success (tools agree); 1 discrepancies (crosscheck, gate,
score --compare); 2 usage or input error, or a library that is missing or
cannot be imported (the message names it and its version); 3 an internal
error (a bug: the message says so, without a traceback).
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import sys
# typing is not imported at run time (issue 34: 2 ms of every command's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Sequence

__all__ = ["main", "build_parser", "COMMANDS", "COMMAND_MODULES"]

#: Every command, in the order --help lists them: (name, module, help). The
#: help is repeated here so that the top-level parser can be built without
#: importing any command's module; the module imported is only the chosen
#: command's (a test checks that this table matches what each module registers).
COMMANDS = (
    ("tools", "bleu_compat.cli.tools", "list the tools (id, version, description)"),
    ("run", "bleu_compat.cli.run", "run a tool on a JSON request"),
    ("bigram", "bleu_compat.cli.bigram", "BLEU up to bigrams, text protocol on standard input"),
    ("catalog", "bleu_compat.cli.catalog", "render the divergence catalog to Markdown"),
    (
        "score", "bleu_compat.cli.score",
        "corpus BLEU of one or more systems (sacreBLEU's command line; optionally beside "
        "other BLEU implementations)",
    ),
    (
        "card-score", "bleu_compat.cli.score",
        "the card's corpus BLEU of HYP against REF [REF ...] (hypothesis first; tokens split on "
        "whitespace, no smoothing, multi-bleu.perl's line)",
    ),
    ("identify", "bleu_compat.cli.identify", "which configurations produce a given BLEU number"),
    ("audit", "bleu_compat.cli.audit", "which configuration gives each number of a results table"),
    ("serve", "bleu_compat.cli.serve", "serve the tools over HTTP (uvicorn)"),
    (
        "crosscheck", "bleu_compat.cli.crosscheck",
        "run ours and every registered BLEU implementation side by side and explain every difference",
    ),
    ("gate", "bleu_compat.cli.gate", "CI regression gate against a committed baseline"),
    (
        "explain", "bleu_compat.cli.explain",
        "explain one request: every implementation's output and why it differs",
    ),
    ("matrix", "bleu_compat.cli.matrix", "run the crosscheck against many releases of each implementation"),
)

#: Modules that register commands (each exposes ``register(subparsers)``).
COMMAND_MODULES = tuple(dict.fromkeys(module for _, module, _ in COMMANDS))

def _chosen_command(argv: Sequence[str]) -> str | None:
    # The top-level options (-h, --help, --version) take no value, so the
    # command is the first argument naming one; failing that, the first
    # argument that is not an option (an unknown command, refused later).
    names = {name for name, _, _ in COMMANDS}
    first = None
    for arg in argv:
        if arg == "--":
            break
        if not arg.startswith("-"):
            if arg in names:
                return arg
            first = arg if first is None else first
    return first


def build_parser(argv: Sequence[str] | None = None, *, full: bool = False) -> argparse.ArgumentParser:
    """The top-level parser.

    Only the module of the command that ``argv`` chooses is imported and
    registers its real parser (with ``full``, every module does); every other
    command gets a placeholder parser with its name and help from
    :data:`COMMANDS`, enough for ``--help`` and for usage errors.
    """
    from bleu_compat import __version__

    from bleu_compat.cli.usage import HelpFormatter

    parser = argparse.ArgumentParser(
        prog="bleu-compat", formatter_class=HelpFormatter,
        description="Exactly specified BLEU, and why BLEU implementations disagree.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"bleu-compat {__version__}")
    # prog given: argparse would otherwise format a usage line to find it, which imports
    # shutil (and zlib, bz2, lzma) on every run
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", prog="bleu-compat")
    subparsers.required = True
    words = list(sys.argv[1:] if argv is None else argv)
    chosen = None if full else _chosen_command(words)
    modules = {module for name, module, _ in COMMANDS if full or name == chosen}
    # a known command, no top-level option before it: only its parser is needed (the other
    # commands' placeholders serve --help and the refusal of an unknown command; each costs
    # a parser and argparse's message-catalogue look-ups, issue 34: start-up)
    alone = (chosen in {name for name, _, _ in COMMANDS}
             and not any(w.startswith("-") for w in words[:words.index(chosen)]))
    registered: set[str] = set()
    for name, module, help_text in COMMANDS:
        if name in registered:
            continue
        if module in modules:
            before = set(subparsers.choices)
            loaded = importlib.import_module(module)
            only = getattr(loaded, "register_only", None)
            if alone and only is not None:  # a module of several commands: the chosen one
                only(subparsers, chosen)
            else:
                loaded.register(subparsers)
            registered |= set(subparsers.choices) - before
            modules.discard(module)
        elif alone:
            continue
        else:
            subparsers.add_parser(name, help=help_text, allow_abbrev=False,
                                  formatter_class=HelpFormatter)
            registered.add(name)
    return parser


def _report_plugin_failures() -> None:
    """Name, on standard error, each entry-point plug-in the registry found but could not load
    (it is left out of the run; saying so is what keeps that from passing unnoticed)."""
    registry = sys.modules.get("bleu_compat.libraries.registry")
    if registry is None:
        return
    for failure in registry.load_failures():
        print(f"bleu-compat: warning: {failure}", file=sys.stderr)


def _single_thread_blas() -> None:
    """Ask OpenBLAS (loaded by ``import numpy``) for one thread, unless the user chose.

    No command does linear algebra (the statistics kernel sorts and counts
    integers), but OpenBLAS starts its thread pool when numpy is imported:
    measured on the project's 2-core machine, ``import numpy`` takes 0.125 s
    of CPU by default and 0.071 s with ``OPENBLAS_NUM_THREADS=1`` (paired
    whole-process runs; docs/performance.md "What users run"). The variable must be set
    before numpy is first imported, so this runs first in :func:`main`; a
    value already in the environment is kept, and numpy imported earlier
    (``main`` called from a program that uses it) is left as it is.
    """
    if "numpy" not in sys.modules:
        import os

        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


_TOP_LEVEL_OPTIONS = ("-h", "--help", "--version")


def _refuse_top_level_mistakes(parser: argparse.ArgumentParser, words: list[str]) -> None:
    """Answer an unknown command, or an unknown option before the command, in one clear message.

    argparse would print the top-level usage and, for ``bleu-compat --bogus
    run``, a misleading error of ``run`` (``TOOL`` required). An unknown
    option before a known command is reported by that command's parser, so in
    its format (``run`` answers JSON, :mod:`bleu_compat.cli.usage`); an
    unknown command is one line on standard error naming the nearest command.
    Raises SystemExit(2) after printing; returns when there is nothing to say.
    """
    from bleu_compat.cli.usage import refuse

    names = [name for name, _, _ in COMMANDS]
    chosen = _chosen_command(words)
    before = words[: words.index(chosen)] if chosen is not None else words
    if any(w in _TOP_LEVEL_OPTIONS for w in before):
        return  # --help / --version first: argparse answers (no abbreviations: allow_abbrev=False)
    stray = [w for w in before if w.startswith("-") and w != "--"]
    if not stray and before and chosen in names:  # a word that is no command, then a command
        chosen = before[0]
    if chosen is not None and chosen not in names and not stray:
        import difflib

        near = difflib.get_close_matches(chosen, names, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise SystemExit(refuse("bleu-compat", f"unknown command {chosen!r}{hint}; the commands are "
                                f"{', '.join(names)} (bleu-compat --help)"))
    if not stray:
        return
    if chosen is None or chosen not in names:
        raise SystemExit(refuse("bleu-compat", f"unknown option {stray[0]!r}; give a command first "
                                f"({', '.join(names)}; bleu-compat --help)"))
    command_parser = parser._subparsers._group_actions[0].choices[chosen]  # type: ignore[union-attr]
    command_parser.error(f"unknown option {stray[0]!r} before the command {chosen!r} (bleu-compat "
                         f"itself takes only -h/--help and --version; the command's options go "
                         f"after its name: bleu-compat {chosen} --help)")


class _WatchedStdout(io.RawIOBase):
    """Standard output's descriptor, remembering the error of a failed write (``error``), so
    that an OSError from writing the output (a full disk, /dev/full) is told apart from one of
    the command itself."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd
        self.error: OSError | None = None

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return os.isatty(self.fd)

    def write(self, data: Any) -> int:
        try:
            return os.write(self.fd, data)
        except OSError as exc:
            self.error = exc
            raise

    def close(self) -> None:  # never close the process' descriptor 1
        self.flush()
        super().close()


def _watch_stdout() -> _WatchedStdout | None:
    # Only the process' own standard output: a caller's replacement (pytest's capture, a
    # program calling main()) is left alone.
    if sys.stdout is None or sys.stdout is not sys.__stdout__:
        return None
    try:
        fd = sys.stdout.fileno()
        sys.stdout.flush()
    except (OSError, ValueError):
        return None
    raw = _WatchedStdout(fd)
    tty = raw.isatty()
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8", errors="strict",
                                  line_buffering=tty)
    return raw


def _silence_stdout() -> None:
    """Point descriptor 1 at /dev/null after its failure, so that the interpreter's flush at
    exit does not print a second error."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    except OSError:
        sys.stdout = None  # type: ignore[assignment]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (never raises, never a traceback)."""
    _single_thread_blas()
    for stream in (sys.stdout, sys.stderr):
        # JSON and reports are UTF-8 whatever the locale says (RFC 8259 section 8.1)
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and (getattr(stream, "encoding", "") or "").lower() != "utf-8":
            try:
                reconfigure(encoding="utf-8")
            except (ValueError, OSError):
                pass
    if os.environ.get("BLEU_COMPAT_LIBRARIES"):  # a restricted registry: checked before any parser
        from bleu_compat.libraries.registry import UnknownLibraryError, libraries

        try:
            libraries()
        except UnknownLibraryError as exc:
            print(f"bleu-compat: {exc}", file=sys.stderr)
            return 2
    watched = _watch_stdout()
    parser = build_parser(argv)
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        _refuse_top_level_mistakes(parser, words)
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help or --version (0), or a usage error (2)
        # the help text is buffered (its write error shows at this flush), or longer than the
        # buffer (argparse's _print_message then swallows the OSError: the watch saw it)
        failed: OSError | None = None
        try:
            if sys.stdout is not None:
                sys.stdout.flush()
        except OSError as write_error:
            failed = write_error
        if failed is None and watched is not None:
            failed = watched.error
        if isinstance(failed, BrokenPipeError):  # the reader went away (| head): as elsewhere
            _silence_stdout()
        elif failed is not None:
            _silence_stdout()
            print(f"bleu-compat: cannot write to standard output: {failed.strerror or failed}",
                  file=sys.stderr)
            return 2
        return int(exc.code or 0) if isinstance(exc.code, int) else 2
    if getattr(args, "allow_unknown_code", False):  # half of the opt-in (bleu_compat.foreign)
        from bleu_compat.foreign import allow_from_option

        allow_from_option()
    try:
        code = int(args.func(args))
        if sys.stdout is not None:
            sys.stdout.flush()  # a write error shows now (buffered output), not at exit
        _report_plugin_failures()
        return code
    except KeyboardInterrupt:
        print("bleu-compat: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = None  # type: ignore[assignment]
        finally:
            return 0
    except ImportError as exc:
        from bleu_compat.errors import OracleUnavailableError
        from bleu_compat.libraries.registry import UnknownLibraryError

        if not isinstance(exc, (OracleUnavailableError, UnknownLibraryError)):
            raise_internal = exc
        else:  # a library that is missing or cannot be used: the user's environment, not a bug
            print(f"bleu-compat: {exc}", file=sys.stderr)
            return 2
        print(f"bleu-compat: internal error ({type(raise_internal).__name__}: {raise_internal}); "
              "please report it", file=sys.stderr)
        return 3
    except OSError as exc:
        if watched is None or watched.error is None:
            print(f"bleu-compat: internal error ({type(exc).__name__}: {exc}); please report it",
                  file=sys.stderr)
            return 3
        # the output could not be written (a full disk, /dev/full): the user's environment,
        # not a bug; one line, exit 2, as for any other input error
        _silence_stdout()
        print(f"bleu-compat: cannot write to standard output: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    except Exception as exc:  # a bug: say so in one line, never a traceback
        print(
            f"bleu-compat: internal error ({type(exc).__name__}: {exc}); please report it",
            file=sys.stderr,
        )
        return 3
