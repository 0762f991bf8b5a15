"""Commands ``tools``, ``run`` and ``bigram`` (``score`` lives in :mod:`bleu_compat.cli.score`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bleu_compat.bigram import BigramInputError, run_bigram_protocol
from bleu_compat.errors import ToolError
from bleu_compat.jsonio import dumps_js
from bleu_compat.tools import MAX_REQUEST_BYTES, TOOL_IDS, cards, execute

# summary_line and result_json moved with the score command; re-exported here.
from bleu_compat.cli.score import result_json, summary_line  # noqa: E402,F401

__all__ = ["register", "summary_line", "result_json"]


def register(subparsers: Any) -> None:
    """Add the ``tools``, ``run`` and ``bigram`` commands."""
    p = subparsers.add_parser(
        "tools", help="list the tools (id, version, description)",
        description="List the tools of the cards: id, version, description, execute_url.",
    )
    p.add_argument("--json", action="store_true", help="write the list as JSON")
    p.set_defaults(func=cmd_tools)

    p = subparsers.add_parser(
        "run", help="run a tool on a JSON request",
        description=(
            "Run TOOL on one JSON request read from FILE (or standard input) and write "
            "the result JSON on standard output (exit 0). A refused request writes "
            '{"error": {"code", "message", "path"}} on standard output and exits 2. '
            f"Requests larger than {MAX_REQUEST_BYTES} bytes are refused unread "
            "(limit_exceeded)."
        ),
    )
    p.add_argument("tool", metavar="TOOL", help="one of: " + ", ".join(TOOL_IDS))
    p.add_argument("file", metavar="FILE", nargs="?", help="request JSON (default: standard input)")
    p.set_defaults(func=cmd_run)

    p = subparsers.add_parser(
        "bigram", help="BLEU up to bigrams, text protocol on standard input",
        description=(
            "Read the candidate (line 1), the number of references R (line 2) and R "
            "reference lines from standard input; print BLEU with max_order 2 rounded to "
            "4 places (e.g. 0.7071). Bad input: a message on standard error, exit 2."
        ),
    )
    p.set_defaults(func=cmd_bigram)


def cmd_tools(args: argparse.Namespace) -> int:
    rows = [
        {"id": c.id, "version": c.version, "description": c.description, "execute_url": c.execute_url}
        for c in cards().values()
    ]
    if args.json:
        print(dumps_js(rows, indent=2))
        return 0
    for row in rows:
        print(f"{row['id']}\t{row['version']}\t{row['description']}")
    return 0


def _error(exc: ToolError) -> int:
    print(dumps_js(exc.to_dict()))
    return 2


def cmd_run(args: argparse.Namespace) -> int:
    if args.tool not in TOOL_IDS:
        print(
            f"bleu-compat run: unknown tool {args.tool!r}; known tools: {', '.join(TOOL_IDS)}",
            file=sys.stderr,
        )
        return 2
    try:
        if args.file is None or args.file == "-":
            data = sys.stdin.buffer.read(MAX_REQUEST_BYTES + 1)
        else:
            with open(args.file, "rb") as handle:
                data = handle.read(MAX_REQUEST_BYTES + 1)
    except OSError as exc:
        print(f"bleu-compat run: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if len(data) > MAX_REQUEST_BYTES:
        return _error(ToolError(
            "limit_exceeded",
            f"request is larger than {MAX_REQUEST_BYTES} bytes, more than any valid request",
        ))
    try:
        result = execute(args.tool, data)
    except ToolError as exc:
        return _error(exc)
    print(dumps_js(result))
    return 0


def cmd_bigram(args: argparse.Namespace) -> int:
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        print(f"bleu-compat bigram: input is not UTF-8 (byte offset {exc.start})", file=sys.stderr)
        return 2
    try:
        print(run_bigram_protocol(text))
    except BigramInputError as exc:
        print(f"bleu-compat bigram: {exc}", file=sys.stderr)
        return 2
    return 0
