"""Command ``serve``: the tools over HTTP (uvicorn serving :mod:`bleu_compat.server`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bleu_compat.cli.usage import report_usage_errors, seconds, whole_number
from bleu_compat.tools import MAX_REQUEST_BYTES

__all__ = ["register"]

_LOG_LEVELS = ("critical", "error", "warning", "info", "debug")

#: The least --body-budget-mib: room for one request of the largest size
#: (ServerLimits refuses a smaller budget, in bytes).
MIN_BUDGET_MIB = -(-MAX_REQUEST_BYTES // 2**20)

#: (flag, type, metavar, help) of each ServerLimits field given on the command line.
#: Each type refuses a value out of range with a message naming the range; the
#: flag is named by argparse (``argument --body-budget-mib: ...``).
_LIMIT_OPTIONS = (
    ("--header-timeout", seconds, "S",
     "request line and headers complete within S seconds of the connection opening or "
     "the previous response (default 10; S > 0)"),
    ("--keep-alive-timeout", seconds, "S",
     "close idle keep-alive connections after S seconds (default 5; S > 0)"),
    ("--body-idle-timeout", seconds, "S",
     "longest pause within a request body, seconds (default 10; S > 0)"),
    ("--body-timeout", seconds, "S", "a whole request body within S seconds (default 60; S > 0)"),
    ("--max-connections", whole_number(1), "N",
     "open connections served, N >= 1; more get 503 (default 256)"),
    ("--admission-timeout", seconds, "S",
     "longest wait for room in the body budget before 503 (default 60; S > 0)"),
    ("--body-budget-mib", whole_number(MIN_BUDGET_MIB, unit="of MiB"), "MIB",
     "MiB of request bodies read, parsed and computed at once; bounds memory "
     f"(default 24, at least {MIN_BUDGET_MIB})"),
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
    p.add_argument("--port", type=whole_number(0, 65535), default=8000,
                   help="TCP port, 0 to 65535 (default 8000; 0 picks a free one)")
    p.add_argument(
        "--log-level", choices=_LOG_LEVELS, default="info",
        help="uvicorn log level (default info: one access line per request)",
    )
    # Defaults are bleu_compat.server.ServerLimits' (not imported here, to keep
    # start-up light; oracle_tests/test_server_resources.py checks the help text).
    for flag, kind, meta, text in _LIMIT_OPTIONS:
        p.add_argument(flag, type=kind, default=None, metavar=meta, help=text)
    p.set_defaults(func=cmd_serve)
    report_usage_errors(p)


def cmd_serve(args: argparse.Namespace) -> int:
    from bleu_compat.server import ServerLimits, create_app, uvicorn_config, warm_up

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

    # Bound here, before uvicorn starts: a busy port or an unknown host is one line from us,
    # not uvicorn's start-up and shutdown log around its own error.
    try:
        sock = listening_socket(args.host, args.port)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        print(f"bleu-compat serve: the server could not start on {args.host}:{args.port}: "
              f"{reason[:1].lower() + reason[1:]}", file=sys.stderr)
        return 2
    app = create_app(limits)
    warm_up(app)  # the worker processes for large bodies, started before the first one arrives
    config = uvicorn_config(
        app, host=args.host, port=args.port, log_level=args.log_level,
        access_log=args.log_level in ("info", "debug"), limits=limits,
    )
    server = uvicorn.Server(config)
    import logging

    host, port = sock.getsockname()[:2]  # the port itself when --port 0 let the system choose
    logging.getLogger("uvicorn.error").info(  # what uvicorn says when it binds by itself
        "Uvicorn running on %s (Press CTRL+C to quit)",
        f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}")
    try:
        server.run(sockets=[sock])
    except SystemExit as exc:  # uvicorn exits 1 when its start-up fails; it has logged why
        code = exc.code if isinstance(exc.code, int) else 1
    else:
        code = 0 if server.started else 1
    finally:
        sock.close()
        pool = getattr(app.state, "process_pool", None)
        if pool is not None:  # its workers finish the body in hand (a few seconds at most)
            pool.shutdown(wait=True, cancel_futures=True)
    if code:
        print(f"bleu-compat serve: the server could not start on {args.host}:{args.port}",
              file=sys.stderr)
        return 2
    return 0


def listening_socket(host: str, port: int) -> Any:
    """A TCP socket bound to ``host``:``port`` and listening (as uvicorn binds one:
    ``SO_REUSEADDR``, the first address ``host`` resolves to; an IPv6 address is
    IPv6 only).

    Raises:
        OSError: the host does not resolve, the port is taken or not allowed.
    """
    import socket

    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
        sock.listen(2048)
        sock.set_inheritable(True)
    except BaseException:
        sock.close()
        raise
    return sock
