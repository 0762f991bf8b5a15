"""Command ``run``: one JSON request through a tool (SPEC.md section 2)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bleu_compat.cli.usage import report_usage_errors
from bleu_compat.errors import ToolError
from bleu_compat.jsonio import dumps_js
from bleu_compat.tools import MAX_REQUEST_BYTES, TOOL_IDS, execute

__all__ = ["register", "cmd_run", "read_request"]


def register(subparsers: Any) -> None:
    """Add the ``run`` command."""
    p = subparsers.add_parser(
        "run", help="run a tool on a JSON request",
        description=(
            "Run TOOL on one JSON request read from FILE (or standard input) and write "
            "the result JSON on standard output (exit 0). A refused request writes "
            '{"error": {"code", "message", "path"}} on standard output and exits 2; '
            "so do an unknown TOOL (code not_found) and a FILE that cannot be read (a "
            "directory, a missing or unreadable file: code invalid_input). "
            f"Requests larger than {MAX_REQUEST_BYTES} bytes, or holding more ',' '[' '{{' "
            "bytes than any valid request, are refused unread "
            "(limit_exceeded). A usage error (an extra argument, an unknown option, no TOOL) "
            "is the same object with code usage_error, exit 2."
        ),
    )
    p.add_argument("tool", metavar="TOOL", help="one of: " + ", ".join(TOOL_IDS))
    p.add_argument("file", metavar="FILE", nargs="?", help="request JSON (default: standard input)")
    p.set_defaults(func=cmd_run)
    report_usage_errors(p, json=True)


def _error(exc: ToolError) -> int:
    print(dumps_js(exc.to_dict()))
    return 2


def _refusal(code: str, message: str) -> int:
    # Errors of the command rather than of the request, in the same shape (the
    # codes the HTTP server uses for the same faults: not_found for a tool).
    print(dumps_js({"error": {"code": code, "message": message, "path": ""}}))
    return 2


def read_request(tool: str, file: str | None) -> tuple[bytes | None, int | None]:
    """The request bytes of ``run``/``explain`` (FILE, or standard input for None or ``-``).

    Returns ``(data, None)``, or ``(None, 2)`` after printing the JSON refusal:
    an unknown tool (``not_found``), a FILE that cannot be read (``invalid_input``)
    or more bytes than any valid request (``limit_exceeded``).
    """
    if tool not in TOOL_IDS:
        return None, _refusal(
            "not_found", f"unknown tool {tool!r}; known tools: {', '.join(TOOL_IDS)}"
        )
    try:
        if file is None or file == "-":
            if sys.stdin is None:  # started with standard input closed (`<&-`)
                return None, _refusal("invalid_input", "cannot read standard input: it is closed; "
                                      "give FILE or send the request on standard input")
            data = sys.stdin.buffer.read(MAX_REQUEST_BYTES + 1)
        else:
            with open(file, "rb") as handle:
                data = handle.read(MAX_REQUEST_BYTES + 1)
    except OSError as exc:  # a directory, a missing or unreadable file, an I/O error
        where = "standard input" if file in (None, "-") else repr(file)
        return None, _refusal("invalid_input", f"cannot read {where}: {exc.strerror or exc}")
    if len(data) > MAX_REQUEST_BYTES:
        return None, _error(ToolError(
            "limit_exceeded",
            f"request is larger than {MAX_REQUEST_BYTES} bytes, more than any valid request",
        ))
    return data, None


def cmd_run(args: argparse.Namespace) -> int:
    data, refused = read_request(args.tool, args.file)
    if data is None:
        return refused or 2
    try:
        result = execute(args.tool, data)
    except ToolError as exc:
        return _error(exc)
    print(dumps_js(result))
    return 0
