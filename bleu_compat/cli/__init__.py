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
import sys
from typing import Sequence

__all__ = ["main", "COMMAND_MODULES"]

# Modules that register commands, in the order --help lists them.
COMMAND_MODULES = (
    "bleu_compat.cli.tools",
    "bleu_compat.cli.run",
    "bleu_compat.cli.bigram",
    "bleu_compat.cli.catalog",
    "bleu_compat.cli.score",
    "bleu_compat.cli.serve",
    "bleu_compat.cli.crosscheck",
    "bleu_compat.cli.gate",
    "bleu_compat.cli.explain",
    "bleu_compat.cli.matrix",
)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every registered command."""
    from bleu_compat import __version__

    parser = argparse.ArgumentParser(
        prog="bleu-compat",
        description="Exactly specified BLEU, and why sacreBLEU and NLTK disagree.",
    )
    parser.add_argument("--version", action="version", version=f"bleu-compat {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (never raises, never a traceback)."""
    for stream in (sys.stdout, sys.stderr):
        # JSON and reports are UTF-8 whatever the locale says (RFC 8259 section 8.1)
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and (getattr(stream, "encoding", "") or "").lower() != "utf-8":
            try:
                reconfigure(encoding="utf-8")
            except (ValueError, OSError):
                pass
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code or 0) if isinstance(exc.code, int) else 2
    try:
        return int(args.func(args))
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

        if not isinstance(exc, OracleUnavailableError):
            raise_internal = exc
        else:  # a library that is missing or cannot be used: the user's environment, not a bug
            print(f"bleu-compat: {exc}", file=sys.stderr)
            return 2
        print(f"bleu-compat: internal error ({type(raise_internal).__name__}: {raise_internal}); "
              "please report it", file=sys.stderr)
        return 3
    except Exception as exc:  # a bug: say so in one line, never a traceback
        print(
            f"bleu-compat: internal error ({type(exc).__name__}: {exc}); please report it",
            file=sys.stderr,
        )
        return 3
