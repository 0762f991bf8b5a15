"""Usage errors and bounded option values shared by the commands.

argparse reports a usage error as the usage text plus an ``error:`` line on
standard error, and an extra positional argument (``bleu-compat run a b``)
through the *top-level* parser, so a command cannot answer it in its own
format. :func:`report_usage_errors` makes a command's parser report every
usage error itself, extra arguments included, in one of two shapes:

* where the user asked for JSON (``run`` always; ``explain``/``gate``/
  ``catalog --format json``; ``tools --json``), the error object of SPEC.md
  section 2 on standard output, ``{"error": {"code": "usage_error",
  "message", "path": ""}}``;
* otherwise one line on standard error, ``bleu-compat CMD: MESSAGE``.

Both exit with status 2; ``--help`` is untouched. :func:`whole_number` and
:func:`seconds` are argparse ``type`` functions whose refusals name the
allowed range (argparse prefixes the flag: ``argument --port: ...``).

Standard library only: building a parser must stay light.
"""

from __future__ import annotations

import argparse
import math
import sys
# typing is not imported at run time (issue 34: 2 ms of every command's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, NoReturn, Sequence

__all__ = ["USAGE_ERROR", "report_usage_errors", "refuse", "asks_for", "whole_number", "seconds",
           "HelpFormatter"]


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, without importing ``shutil``.

    argparse makes a formatter for every ``add_argument`` (to check its metavar),
    and each asks ``shutil.get_terminal_size()``: importing ``shutil`` (with zlib,
    bz2 and lzma, 1.6 ms) on every run of every command. The width is the same:
    ``COLUMNS``, else the terminal's (``os.get_terminal_size`` on standard
    output), else 80, shutil's rule.
    """

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         _terminal_columns() if width is None else width)


def _terminal_columns() -> int:
    import os

    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80

#: The ``code`` of a usage error in the JSON error object (the tools' codes are
#: SPEC.md section 2's; this one says the command line, not the request, is wrong).
USAGE_ERROR = "usage_error"

#: A usage line longer than this is replaced by a pointer to ``--help``.
_SHORT_USAGE = 100


def asks_for(*flags: str, value: str | None = None) -> Callable[[Sequence[str]], bool]:
    """A test of a command line: does it give option ``flags`` (with ``value``, or as a switch)?

    It is read the way the commands' parsers read it (``-fjson``,
    ``--format=json``, no abbreviations; the last occurrence wins), ignoring every
    other argument and any error, so that a usage error can be answered in the
    format the user asked for even when the command line is otherwise wrong.
    """

    def check(args: Sequence[str]) -> bool:
        probe = argparse.ArgumentParser(add_help=False, exit_on_error=False, allow_abbrev=False)
        if value is None:
            probe.add_argument(*flags, dest="wanted", action="store_true")
        else:
            probe.add_argument(*flags, dest="wanted", default=None)

        def fail(message: str) -> NoReturn:
            raise argparse.ArgumentError(None, message)

        probe.error = fail  # type: ignore[method-assign]
        try:
            namespace, _ = probe.parse_known_args(list(args))
        except (argparse.ArgumentError, SystemExit):
            return False
        return bool(namespace.wanted) if value is None else namespace.wanted == value

    return check


def report_usage_errors(
    parser: argparse.ArgumentParser, *, json: bool | Callable[[Sequence[str]], bool] = False,
) -> None:
    """Make ``parser`` (a command's) answer every usage error itself, then exit 2.

    Args:
        parser: the command's parser, as ``subparsers.add_parser`` returned it.
        json: True for a command whose every answer is JSON (``run``), or a test
            of its arguments (:func:`asks_for`) saying whether this command line
            asked for JSON; otherwise the error is one line on standard error.

    Options may stand between positionals (argparse's intermixed parsing:
    ``explain TOOL --format json FILE``) and are never abbreviated
    (``allow_abbrev`` is switched off: ``-l`` is not ``-lc``). Leftover
    arguments (an extra positional, an unknown option) become this parser's
    error, ``unexpected argument 'b'``, instead of the top-level
    parser's. The message ends with the command's usage line, or a pointer to
    its ``--help`` when that line is long.
    """
    original_parse = parser.parse_known_args
    seen: list[str] = []
    parser.allow_abbrev = False  # `-l` is not `-lc`, `--form` is not `--format` (issue 23)
    intermixing = [False]

    def parse_known_args(args: Sequence[str] | None = None,
                         namespace: argparse.Namespace | None = None) -> Any:
        if intermixing[0]:  # the passes of parse_known_intermixed_args call back here
            return original_parse(args, namespace)
        seen[:] = list(sys.argv[1:] if args is None else args)
        intermixing[0] = True
        try:  # options between positionals: `explain TOOL --format json FILE`
            parsed, extras = parser.parse_known_intermixed_args(args, namespace)
        finally:
            intermixing[0] = False
        if extras:
            words = " ".join(repr(x) for x in extras)
            parser.error(f"unexpected argument{'s' if len(extras) > 1 else ''} {words}")
        return parsed, extras

    def error(message: str) -> NoReturn:
        usage = " ".join(parser.format_usage().split())
        hint = usage if len(usage) <= _SHORT_USAGE else f"see {parser.prog} --help"
        raise SystemExit(refuse(parser.prog, f"{message} ({hint})",
                                json=json(seen) if callable(json) else json))

    parser.parse_known_args = parse_known_args  # type: ignore[method-assign]
    parser.error = error  # type: ignore[method-assign]


def refuse(prog: str, message: str, *, json: bool = False) -> int:
    """Report a usage error found after parsing (a bad file, a value out of range); return 2.

    ``json``: the command was asked for JSON, so the error object (code
    :data:`USAGE_ERROR`, path ``""``) goes to standard output; otherwise one
    line ``PROG: MESSAGE`` goes to standard error.
    """
    if json:
        from bleu_compat.jsonio import dumps_js

        print(dumps_js({"error": {"code": USAGE_ERROR, "message": message, "path": ""}}))
    else:  # one line, whatever the message holds (an import error may span several)
        print(f"{prog}: {' '.join(message.splitlines())}", file=sys.stderr)
    return 2


def _range_text(low: int | None, high: int | None, unit: str) -> str:
    unit = f" {unit}" if unit else ""
    if high is None:
        return f"a whole number{unit}, at least {low:,}"
    return f"a whole number{unit} from {low:,} to {high:,}"


def whole_number(low: int, high: int | None = None, *, unit: str = "") -> Callable[[str], int]:
    """An argparse ``type``: an integer in ``[low, high]`` (``high`` None: no upper bound).

    Refusals name the range: ``argument --port: must be a whole number from 0
    to 65,535; got '70000'``. Digits only (an optional sign), at most 30 of them
    (``int()`` of a long digit string is slow, and no option needs more).
    """

    def parse(text: str) -> int:
        stripped = text.strip()
        digits = stripped.lstrip("+-")
        if not digits.isdigit() or not digits.isascii() or len(digits) > 30 \
                or len(stripped) - len(digits) > 1:
            raise argparse.ArgumentTypeError(f"must be {_range_text(low, high, unit)}; got {text!r}")
        value = int(stripped)
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {_range_text(low, high, unit)}; got {text!r}")
        return value

    parse.__name__ = "whole number"  # argparse's fallback message names the type
    return parse


def seconds(text: str) -> float:
    """An argparse ``type``: a finite number of seconds greater than 0 (``0.5``, ``10``, ``1e3``)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds greater than 0 (finite); got {text!r}")
    return value
