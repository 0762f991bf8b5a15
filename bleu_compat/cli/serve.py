"""Command ``serve``: the tools over HTTP (uvicorn serving :mod:`bleu_compat.server`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register"]

_LOG_LEVELS = ("critical", "error", "warning", "info", "debug")

#: (flag, type, metavar, help) of each ServerLimits field given on the command line.
_LIMIT_OPTIONS = (
    ("--header-timeout", float, "S",
     "request line and headers complete within S seconds of the connection opening or "
     "the previous response (default 10)"),
    ("--keep-alive-timeout", float, "S", "close idle keep-alive connections after S seconds (default 5)"),
    ("--body-idle-timeout", float, "S", "longest pause within a request body, seconds (default 10)"),
    ("--body-timeout", float, "S", "a whole request body within S seconds (default 60)"),
    ("--max-connections", int, "N", "open connections served; more get 503 (default 256)"),
    ("--admission-timeout", float, "S",
     "longest wait for room in the body budget before 503 (default 60)"),
    ("--body-budget-mib", int, "MIB",
     "MiB of request bodies read, parsed and computed at once; bounds memory (default 24, at least 16)"),
)


def register(subparsers: Any) -> None:
    """Add the ``serve`` command."""
    p = subparsers.add_parser(
        "serve", help="serve the tools over HTTP (uvicorn)",
        description=(
            "Serve the tools at their cards' execute_url: POST "
            "/v1/tools/{id}/versions/{version}/execute with a JSON body (Content-Type: "
            "application/json); GET /v1/tools, /v1/tools/{id}/versions/{version}, "
            "/healthz, /openapi.json. Errors are {\"error\": {\"code\", \"message\", "
            "\"path\"}} with status 400, 404, 405, 408, 413, 415, 422, 431 or 503, "
            "malformed HTTP included. Stop with Ctrl-C."
        ),
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000; 0 picks a free one)")
    p.add_argument(
        "--log-level", choices=_LOG_LEVELS, default="info",
        help="uvicorn log level (default info: one access line per request)",
    )
    # Defaults are bleu_compat.server.ServerLimits' (not imported here, to keep
    # start-up light; oracle_tests/test_server_resources.py checks the help text).
    for flag, kind, meta, text in _LIMIT_OPTIONS:
        p.add_argument(flag, type=kind, default=None, metavar=meta, help=text)
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        print(f"bleu-compat serve: --port={args.port} must be in 0..65535", file=sys.stderr)
        return 2
    from bleu_compat.server import ServerLimits, create_app, uvicorn_config

    given = {
        name: getattr(args, name) for name in
        ("header_timeout", "keep_alive_timeout", "body_idle_timeout", "body_timeout",
         "max_connections", "admission_timeout")
        if getattr(args, name) is not None
    }
    if args.body_budget_mib is not None:
        given["body_budget"] = args.body_budget_mib * 2**20
    try:
        limits = ServerLimits(**given)
    except ValueError as exc:
        print(f"bleu-compat serve: {exc}", file=sys.stderr)
        return 2
    import uvicorn

    config = uvicorn_config(
        create_app(limits), host=args.host, port=args.port, log_level=args.log_level,
        access_log=args.log_level in ("info", "debug"), limits=limits,
    )
    server = uvicorn.Server(config)
    try:
        server.run()
    except SystemExit as exc:  # uvicorn exits 1 when it cannot bind; it has logged why
        code = exc.code if isinstance(exc.code, int) else 1
    else:
        code = 0 if server.started else 1
    if code:
        print(f"bleu-compat serve: the server could not start on {args.host}:{args.port}",
              file=sys.stderr)
        return 2
    return 0
