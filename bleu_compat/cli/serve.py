"""Command ``serve``: the tools over HTTP (uvicorn serving :mod:`bleu_compat.server`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register"]

_LOG_LEVELS = ("critical", "error", "warning", "info", "debug")


def register(subparsers: Any) -> None:
    """Add the ``serve`` command."""
    p = subparsers.add_parser(
        "serve", help="serve the tools over HTTP (uvicorn)",
        description=(
            "Serve the tools at their cards' execute_url: POST "
            "/v1/tools/{id}/versions/{version}/execute with a JSON body (Content-Type: "
            "application/json); GET /v1/tools, /v1/tools/{id}/versions/{version}, "
            "/healthz, /openapi.json. Errors are {\"error\": {\"code\", \"message\", "
            "\"path\"}} with status 400, 404, 405, 413, 415 or 422. Stop with Ctrl-C."
        ),
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000; 0 picks a free one)")
    p.add_argument(
        "--log-level", choices=_LOG_LEVELS, default="info",
        help="uvicorn log level (default info: one access line per request)",
    )
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        print(f"bleu-compat serve: --port={args.port} must be in 0..65535", file=sys.stderr)
        return 2
    import uvicorn

    from bleu_compat.server import create_app

    try:
        uvicorn.run(
            create_app(), host=args.host, port=args.port, log_level=args.log_level,
            access_log=args.log_level in ("info", "debug"), server_header=False,
        )
    except SystemExit as exc:  # uvicorn exits 1 when it cannot bind; it has logged why
        code = exc.code if isinstance(exc.code, int) else 1
        if code:
            print(f"bleu-compat serve: the server could not start on {args.host}:{args.port}",
                  file=sys.stderr)
            return 2
    return 0
