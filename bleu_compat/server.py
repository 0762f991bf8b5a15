"""The tools over HTTP: an ASGI application (Starlette) at the cards' ``execute_url``.

Endpoints:

* ``POST /v1/tools/{id}/versions/{version}/execute`` — the body is the
  card's input (JSON, ``Content-Type: application/json``); the answer is the
  card's output written the JavaScript way (:func:`bleu_compat.jsonio.dumps_js`,
  ``1`` not ``1.0``), ``Content-Type: application/json``.
* ``GET /v1/tools`` — ``{"tools": [{"id", "version", "description", "execute_url"}, ...]}``.
* ``GET /v1/tools/{id}/versions/{version}`` — the whole card.
* ``GET /healthz`` — ``{"status": "ok"}``.
* ``GET /openapi.json`` — an OpenAPI 3.1 document built from the cards'
  schemas when the application is created (:func:`openapi_document`).

Every error is ``{"error": {"code", "message", "path"}}`` (``path`` a JSON
Pointer into the request where one applies, else ``""``):

====== ========================== =============================================
status code                       when
====== ========================== =============================================
400    ``invalid_input``          SPEC.md §2 checks 1, 3, 5 (strict JSON, the
                                  card's schema, cross-field rules)
413    ``limit_exceeded``         the card's limits (check 4), or a body larger
                                  than :data:`~bleu_compat.tools.MAX_REQUEST_BYTES`,
                                  refused before it is parsed: by its
                                  ``Content-Length``, or, for a chunked body,
                                  as soon as the bytes read exceed the cap; or
                                  one holding more ``,`` ``[`` ``{`` than any
                                  valid request (:func:`~bleu_compat.tools.max_separators`),
                                  refused before it is parsed
422    ``unsupported_input``      a request the card lists as unsupported (check 2)
404    ``not_found``              unknown tool, version or path
405    ``method_not_allowed``     wrong method (the ``Allow`` header lists the right ones)
415    ``unsupported_media_type`` the body is not ``application/json``, or it
                                  declares a charset other than UTF-8
400    ``bad_request``            malformed HTTP that uvicorn's parser (h11)
                                  refuses before the application: no ``Host``,
                                  a bad or doubled ``Content-Length``, a bad
                                  chunk size, bytes that are not HTTP
431    ``bad_request``            a request line and headers over 16 KiB
408    ``request_timeout``        the request head or body did not arrive in
                                  time (:class:`ServerLimits`); the connection
                                  is closed
503    ``service_unavailable``    more open connections than
                                  ``max_connections``, or no room in the body
                                  budget within ``admission_timeout``
                                  (``Retry-After`` is set)
400    ``internal_error``         an unexpected exception (a bug): the message
                                  says so without internals; the server never
                                  answers 500 and never sends a traceback
====== ========================== =============================================

Errors answered at the HTTP level (``bad_request``, a head's
``request_timeout``) are written by the protocol (:func:`uvicorn_config`)
with ``Connection: close``; the server then drains what the client still
sends for :data:`LINGER_SECONDS` before closing, so the client reads the
answer rather than a connection reset. Nothing else reaches a client in
plain text: uvicorn's own 500 is unreachable (:class:`_CatchAll`) and its
503 replaced (the connection cap is this module's).

Memory and time are bounded by :class:`ServerLimits`: request bodies are
admitted into a byte budget (24 MiB by default) before they are read, so
concurrent large bodies wait, unread, instead of being parsed at once.

Media type: ``application/json`` (case-insensitive) with no ``charset`` or
``charset=utf-8`` (``utf8`` and a quoted value are accepted too). JSON is
UTF-8 (RFC 8259 §8.1) and the body is parsed as UTF-8 bytes whatever the
header says, so any other declared charset (``latin-1``, ``utf-16``...) is
refused with 415 rather than silently misread. Other media-type parameters
are ignored. A request without ``Content-Type`` gets 415.

The HTTP layer holds no BLEU logic: it hands the raw body bytes to
:func:`bleu_compat.tools.execute` (which parses strictly and applies every
check of SPEC.md §2) in a worker thread
(:func:`starlette.concurrency.run_in_threadpool`), so a large request does
not block the event loop.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import http
import logging
import os
import select
import sys
from dataclasses import dataclass
from typing import Any, Mapping

import anyio

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import tools
from .errors import TOOL_ERROR_CODES, ToolError
from .jsonio import dumps_js

__all__ = [
    "ERROR_CODES",
    "STATUS_BY_TOOL_ERROR",
    "ServerLimits",
    "JSResponse",
    "create_app",
    "error_body",
    "openapi_document",
    "uvicorn_config",
]

logger = logging.getLogger("bleu_compat.server")

#: HTTP status of each card-level error code (SPEC.md §2).
STATUS_BY_TOOL_ERROR: Mapping[str, int] = {
    "invalid_input": 400,
    "unsupported_input": 422,
    "limit_exceeded": 413,
}

#: Error code of each HTTP-level refusal.
_CODE_BY_STATUS: Mapping[int, str] = {
    400: "invalid_input",
    404: "not_found",
    405: "method_not_allowed",
    413: "limit_exceeded",
    415: "unsupported_media_type",
    422: "unsupported_input",
}

#: Every ``error.code`` the server can send.
ERROR_CODES = (
    *TOOL_ERROR_CODES,
    "not_found",
    "method_not_allowed",
    "unsupported_media_type",
    "bad_request",
    "request_timeout",
    "service_unavailable",
    "internal_error",
)


@dataclass(frozen=True)
class ServerLimits:
    """Timeouts and caps of the server (issue 11). Seconds and bytes.

    Attributes:
        header_timeout: the request line and headers must be complete this
            long after the connection opens or the previous response ends
            (an absolute deadline: trickling bytes does not extend it); else
            408 ``request_timeout`` if a partial head arrived, or a silent
            close of an idle connection.
        keep_alive_timeout: an idle keep-alive connection is closed after
            this long (uvicorn's ``timeout_keep_alive``). Clients should expire
            idle connections sooner (oracle_tests/_server.py explains why).
        body_idle_timeout: the longest wait for the next piece of a body.
        body_timeout: the whole body must arrive within this long after the
            server starts reading it; either body timeout gives 408
            ``request_timeout`` and closes the connection.
        max_connections: open connections beyond this many get 503
            ``service_unavailable`` to their first request, then are closed.
        body_budget: the bytes of request bodies being read, parsed and
            computed at once (each request reserves its ``Content-Length``, a
            chunked one the whole :data:`~bleu_compat.tools.MAX_REQUEST_BYTES`);
            requests beyond it wait, unread (uvicorn then stops reading their
            sockets), in arrival order. This bounds the server's memory
            whatever the number of connections. The default, 24 MiB, runs one
            maximum-size (16 MiB) body at a time beside up to 8 MiB of smaller
            ones (oracle_tests/test_server_resources.py measures the peak).
        admission_timeout: the longest wait for the body budget before 503
            ``service_unavailable``.
    """

    header_timeout: float = 10.0
    keep_alive_timeout: float = 5.0
    body_idle_timeout: float = 10.0
    body_timeout: float = 60.0
    max_connections: int = 256
    body_budget: int = 24 * 1024 * 1024
    admission_timeout: float = 60.0

    def __post_init__(self) -> None:
        for name in ("header_timeout", "keep_alive_timeout", "body_idle_timeout",
                     "body_timeout", "admission_timeout"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name}={getattr(self, name)!r} must be > 0 seconds")
        if self.max_connections < 1:
            raise ValueError(f"max_connections={self.max_connections!r} must be >= 1")
        if self.body_budget < tools.MAX_REQUEST_BYTES:
            raise ValueError(
                f"body_budget={self.body_budget!r} must be >= MAX_REQUEST_BYTES="
                f"{tools.MAX_REQUEST_BYTES}, or a request of the largest size could never run"
            )

#: The status of an unexpected exception. Not 500 by design (issue 7): the
#: body's code ``internal_error`` says it is the server's fault.
INTERNAL_ERROR_STATUS = 400

_ACCEPTED_CHARSETS = frozenset({"utf-8", "utf8"})


class JSResponse(Response):
    """A JSON response written like JavaScript's ``JSON.stringify`` (``dumps_js``)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return dumps_js(content).encode("utf-8")


def error_body(code: str, message: str, path: str = "") -> dict[str, dict[str, str]]:
    """The error shape shared with the CLI: ``{"error": {"code", "message", "path"}}``."""
    return {"error": {"code": code, "message": message, "path": path}}


class _HttpError(Exception):
    """A refusal decided by the HTTP layer (404, 413, 415...)."""

    def __init__(
        self, status: int, code: str, message: str, path: str = "",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.path = path
        self.headers = dict(headers or {})


def _error_response(
    status: int, code: str, message: str, path: str = "", headers: Mapping[str, str] | None = None
) -> JSResponse:
    return JSResponse(error_body(code, message, path), status_code=status, headers=headers)


# --- lookups ---------------------------------------------------------------------

def _find_card(tool_id: str, version: str) -> tools.Card:
    the_card = tools.cards().get(tool_id)
    if the_card is None:
        raise _HttpError(
            404, "not_found",
            f"unknown tool {tool_id!r}; known tools: {', '.join(tools.TOOL_IDS)}",
        )
    if version != the_card.version:
        raise _HttpError(
            404, "not_found",
            f"unknown version {version!r} of {tool_id}; known versions: {the_card.version}",
        )
    return the_card


def _check_content_type(header: str | None) -> None:
    if header is None:
        raise _HttpError(
            415, "unsupported_media_type",
            "the request has no Content-Type; send the JSON body as application/json",
        )
    media_type, _, params = header.partition(";")
    media_type = media_type.strip().lower()
    if media_type != "application/json":
        raise _HttpError(
            415, "unsupported_media_type",
            f"Content-Type {media_type or header!r} is not supported; send application/json",
        )
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip('"').lower()
            if charset not in _ACCEPTED_CHARSETS:
                raise _HttpError(
                    415, "unsupported_media_type",
                    f"charset {charset!r} is not supported; JSON requests must be UTF-8 "
                    "(RFC 8259 section 8.1): send application/json or "
                    "application/json; charset=utf-8",
                )


def _too_large(what: str) -> _HttpError:
    return _HttpError(
        413, "limit_exceeded",
        f"request body {what} exceeds {tools.MAX_REQUEST_BYTES} bytes, more than any valid "
        "request; it was not parsed",
    )


class _ByteBudget:
    """A weighted, first-come first-served semaphore of body bytes (one event loop).

    ``reserve(n)`` waits until ``n`` bytes fit in the capacity and no earlier
    request is waiting, so a large request is not starved by small ones.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.used = 0
        self._waiters: collections.deque[list[Any]] = collections.deque()  # [n, event, granted]

    async def acquire(self, n: int, timeout: float) -> None:
        """Reserve ``n`` bytes; raises TimeoutError after ``timeout`` seconds."""
        if not self._waiters and self.used + n <= self.capacity:
            self.used += n
            return
        entry: list[Any] = [n, anyio.Event(), False]
        self._waiters.append(entry)
        try:
            with anyio.fail_after(timeout):
                await entry[1].wait()
        except BaseException:
            if entry[2]:  # granted as the wait ended: give it back
                self.release(n)
            else:
                self._waiters.remove(entry)
                self._grant()  # a smaller request behind this one may fit now
            raise

    def release(self, n: int) -> None:
        """Give back ``n`` reserved bytes and wake the waiters that now fit."""
        self.used -= n
        self._grant()

    def _grant(self) -> None:
        while self._waiters and self.used + self._waiters[0][0] <= self.capacity:
            entry = self._waiters.popleft()
            self.used += entry[0]
            entry[2] = True
            entry[1].set()


async def _read_body(request: Request, limits: ServerLimits) -> bytearray:
    """The body, at most ``MAX_REQUEST_BYTES``; refused unread when it is larger.

    Raises:
        _HttpError: 413 (too large), 408 (a body timeout), 400 (the client hung up).
    """
    cap = tools.MAX_REQUEST_BYTES
    body = bytearray()  # one growing buffer: no second copy of the body on joining
    deadline = anyio.current_time() + limits.body_timeout
    while True:
        wait = min(limits.body_idle_timeout, deadline - anyio.current_time())
        try:
            if wait <= 0:
                raise TimeoutError
            with anyio.fail_after(wait):
                message = await request.receive()
        except TimeoutError:
            raise _HttpError(
                408, "request_timeout",
                f"the request body did not arrive in time (at most {limits.body_idle_timeout:g} s "
                f"between pieces and {limits.body_timeout:g} s in all); {len(body)} bytes were read",
                headers={"connection": "close"},
            ) from None
        if message["type"] == "http.disconnect":
            raise _HttpError(
                400, "invalid_input",
                "the client disconnected before the request body was complete",
            )
        chunk = message.get("body", b"")
        if len(body) + len(chunk) > cap:  # a chunked (or lying) body: stop reading now
            raise _too_large("read so far")
        body += chunk
        if not message.get("more_body", False):
            return body


# --- endpoints ---------------------------------------------------------------------

def _check_content_encoding(headers: Any) -> None:
    # The body is read as it arrives: a compressed (or otherwise encoded) body
    # would be misread as JSON text, so only the identity encoding is accepted.
    encodings = [e.strip().lower() for v in headers.getlist("content-encoding") for e in v.split(",")]
    encodings = [e for e in encodings if e and e != "identity"]
    if encodings:
        raise _HttpError(
            415, "unsupported_media_type",
            f"Content-Encoding {', '.join(encodings)!r} is not supported; send the JSON body "
            "uncompressed",
        )
    if len(headers.getlist("content-type")) > 1:
        raise _HttpError(
            415, "unsupported_media_type", "the request has more than one Content-Type header"
        )


async def _execute(request: Request) -> Response:
    tool_id = request.path_params["tool_id"]
    _find_card(tool_id, request.path_params["version"])
    _check_content_encoding(request.headers)
    _check_content_type(request.headers.get("content-type"))
    cap = tools.MAX_REQUEST_BYTES
    declared = request.headers.get("content-length")  # h11 has checked it is one integer
    if declared is not None and declared.strip().isdigit() and int(declared) > cap:
        raise _too_large(f"of {int(declared)} bytes (Content-Length)")
    limits: ServerLimits = request.app.state.limits
    budget: _ByteBudget = request.app.state.body_budget
    # what reading, parsing and computing this request may hold in memory
    reserve = int(declared) if declared is not None and declared.strip().isdigit() else cap
    try:
        await budget.acquire(reserve, limits.admission_timeout)
    except TimeoutError:
        raise _HttpError(
            503, "service_unavailable",
            f"the server is busy with other large requests; waited {limits.admission_timeout:g} s. "
            "Retry later", headers={"retry-after": "5"},
        ) from None
    try:
        body = await _read_body(request, limits)
        if len(body) >= PROCESS_THRESHOLD:
            result, refusal = await _run_in_process(request.app, tool_id, body)
        else:
            result, refusal = await run_in_threadpool(_run_tool, tool_id, body)
        del body
    finally:
        budget.release(reserve)
    if refusal is not None:
        return _error_response(
            STATUS_BY_TOOL_ERROR[refusal.code], refusal.code, refusal.message, refusal.path
        )
    return JSResponse(result)


#: Bodies of at least this many bytes are parsed, checked and computed in a worker
#: process (:func:`_run_in_process`), where parsing cannot hold this process' GIL: json.loads
#: of a dense 16 MiB body holds it for a second or more, and the event loop (``/healthz``,
#: every other connection) would wait that long. Smaller bodies parse in a few
#: milliseconds and run in a thread, without the cost of sending them to a process.
PROCESS_THRESHOLD = 1 << 20


def _process_pool(app: Any) -> Any:
    """The application's worker processes (created on first use; spawned, so a worker never
    inherits the event loop's threads, and a child of this process, which it dies with)."""
    pool = getattr(app.state, "process_pool", None)
    if pool is None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        method = "spawn"  # not forkserver: its server process outlived ours
        workers = max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                             else (os.cpu_count() or 1)))
        pool = ProcessPoolExecutor(max_workers=workers,
                                   mp_context=multiprocessing.get_context(method),
                                   initializer=_worker_start)
        app.state.process_pool = pool
    return pool


def warm_up(app: Any) -> None:
    """Start the worker processes now (``bleu-compat serve`` does, before it listens), so the
    first large body does not wait for them."""
    pool = _process_pool(app)
    list(pool.map(_worker_ping, range(pool._max_workers)))


#: Niceness added to the worker processes: on a busy machine the event loop (which answers
#: /healthz and reads bodies) gets the processor first, the parsing of large bodies after.
WORKER_NICENESS = 10


def _worker_start() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    if sys.platform.startswith("linux"):  # killed when the server dies, however it dies
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except Exception:  # pragma: no cover - not glibc
            pass
    try:
        os.nice(WORKER_NICENESS)
    except OSError:  # not allowed here: the same priority as the server, still another process
        pass
    tools.cards()


def _worker_ping(_: int) -> int:
    return os.getpid()


def _run_tool_remote(tool_id: str, body: bytes) -> tuple[dict[str, Any] | None, tuple[str, str, str] | None]:
    # In a worker process: the refusal travels as (code, message, path).
    result, refusal = _run_tool(tool_id, body)
    return result, None if refusal is None else (refusal.code, refusal.message, refusal.path)


async def _run_in_process(app: Any, tool_id: str, body: bytearray) -> tuple[dict[str, Any] | None, ToolError | None]:
    import asyncio
    from concurrent.futures.process import BrokenProcessPool

    loop = asyncio.get_running_loop()
    try:
        result, refusal = await loop.run_in_executor(_process_pool(app), _run_tool_remote, tool_id,
                                                     bytes(body))
    except BrokenProcessPool:  # a worker died (the kernel's OOM killer): new ones next time
        app.state.process_pool = None
        raise
    return result, None if refusal is None else ToolError(*refusal)


def _run_tool(tool_id: str, body: bytearray) -> tuple[dict[str, Any] | None, ToolError | None]:
    # In the worker thread. A refusal comes back as a value, its traceback
    # dropped: the traceback's frames hold the parsed request (hundreds of MB
    # for a 16 MiB body) and must not outlive this call, or the next body the
    # budget admits would find that memory still taken.
    try:
        return tools.execute(tool_id, body), None
    except ToolError as exc:
        exc.__traceback__ = None
        return None, exc


async def _list_tools(request: Request) -> Response:
    return JSResponse({
        "tools": [
            {"id": c.id, "version": c.version, "description": c.description,
             "execute_url": c.execute_url}
            for c in tools.cards().values()
        ]
    })


async def _get_card(request: Request) -> Response:
    the_card = _find_card(request.path_params["tool_id"], request.path_params["version"])
    return JSResponse(the_card.data)


async def _healthz(request: Request) -> Response:
    return JSResponse({"status": "ok"})


async def _openapi(request: Request) -> Response:
    return JSResponse(openapi_document())


# --- errors --------------------------------------------------------------------------

async def _on_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, _HttpError)
    return _error_response(exc.status, exc.code, exc.message, exc.path, exc.headers)


async def _on_starlette_http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    status = exc.status_code
    if status == 404:
        message = f"no such resource: {request.url.path}; GET /v1/tools lists the tools"
    elif status == 405:
        message = f"method {request.method} is not allowed on {request.url.path}"
    else:
        message = str(exc.detail)
    if status >= 500:  # never answer 5xx (issue 7)
        return _error_response(
            INTERNAL_ERROR_STATUS, "internal_error",
            "the server could not process this request (internal error)",
        )
    return _error_response(
        status, _CODE_BY_STATUS.get(status, "invalid_input"), message, "", exc.headers
    )


class _CatchAll:
    """Turns any exception that escapes the app into a JSON error (never a 500).

    The traceback goes to the server's log (``bleu_compat.server``), never to
    the client. If the response had already started, nothing more can be sent;
    the exception is logged and swallowed so that the server keeps serving.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_tracking(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, send_tracking)
        except Exception:
            logger.exception("internal error on %s %s", scope.get("method"), scope.get("path"))
            if started:
                return
            response = _error_response(
                INTERNAL_ERROR_STATUS, "internal_error",
                "the server could not process this request because of an internal error; "
                "please report it",
            )
            try:
                await response(scope, receive, send)
            except Exception:  # the client is gone
                logger.warning("could not send the internal_error response")


# --- OpenAPI -------------------------------------------------------------------------

#: JSON Schema (2020-12) of every error body.
ERROR_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "additionalProperties": False,
            "required": ["code", "message", "path"],
            "properties": {
                "code": {"type": "string", "enum": list(ERROR_CODES)},
                "message": {"type": "string"},
                "path": {
                    "type": "string",
                    "description": "JSON Pointer (RFC 6901) into the request, '' for the whole request",
                },
            },
        }
    },
}

_ERROR_RESPONSES = {
    "400": "invalid_input: malformed or non-UTF-8 JSON, schema violation, cross-field rule",
    "404": "not_found: unknown tool or version",
    "405": "method_not_allowed",
    "413": "limit_exceeded: a card limit, or a body over the size cap",
    "415": "unsupported_media_type: the body is not application/json (UTF-8)",
    "422": "unsupported_input: an operation the card lists as unsupported",
    "408": "request_timeout: the request head or body did not arrive in time",
    "431": "bad_request: the request line and headers exceed 16 KiB (16,384 bytes)",
    "503": "service_unavailable: too many connections, or the body budget is full",
}


def _error_ref(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


@functools.cache
def openapi_document() -> dict[str, Any]:
    """An OpenAPI 3.1 document built from the cards (read at runtime, not hand-copied).

    One ``post`` path per card at its ``execute_url``, whose request body is
    ``#/components/schemas/<id>.input`` (the card's ``input_schema``) and whose
    200 response is ``#/components/schemas/<id>.output`` (its
    ``output_schema``); every error response refers to
    ``#/components/schemas/Error``. The card's examples are attached to the
    request body. OpenAPI 3.1 schema objects are JSON Schema 2020-12, the
    cards' dialect, so the schemas are embedded unchanged.

    Returns:
        The document as plain JSON data (cached; do not mutate).
    """
    from . import __version__

    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {"Error": ERROR_SCHEMA}
    for c in tools.cards().values():
        schemas[f"{c.id}.input"] = c.input_schema
        schemas[f"{c.id}.output"] = c.output_schema
        paths[c.execute_url] = {
            "post": {
                "operationId": f"execute_{c.id.replace('-', '_')}",
                "summary": c.description,
                "description": "\n\n".join(c.data.get("semantics", [])),
                "tags": ["tools"],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {"$ref": f"#/components/schemas/{c.id}.input"},
                            "examples": {
                                f"example{i + 1}": {"value": ex["input"]}
                                for i, ex in enumerate(c.examples)
                            },
                        }
                    },
                },
                "responses": {
                    "200": {
                        "description": f"the {c.id} result",
                        "content": {
                            "application/json": {
                                "schema": {"$ref": f"#/components/schemas/{c.id}.output"},
                                "examples": {
                                    f"example{i + 1}": {"value": ex["output"]}
                                    for i, ex in enumerate(c.examples)
                                },
                            }
                        },
                    },
                    **{status: _error_ref(text) for status, text in _ERROR_RESPONSES.items()},
                },
            }
        }
    paths["/v1/tools"] = {
        "get": {
            "operationId": "list_tools",
            "summary": "id, version, description and execute_url of every tool",
            "responses": {"200": {"description": "the tools", "content": {"application/json": {
                "schema": {
                    "type": "object",
                    "required": ["tools"],
                    "properties": {"tools": {"type": "array", "items": {
                        "type": "object",
                        "required": ["id", "version", "description", "execute_url"],
                        "properties": {k: {"type": "string"} for k in
                                       ("id", "version", "description", "execute_url")},
                    }}},
                }}}}},
        }
    }
    paths["/v1/tools/{id}/versions/{version}"] = {
        "get": {
            "operationId": "get_card",
            "summary": "the whole tool card",
            "parameters": [
                {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                {"name": "version", "in": "path", "required": True, "schema": {"type": "string"}},
            ],
            "responses": {
                "200": {"description": "the card", "content": {"application/json": {
                    "schema": {"type": "object"}}}},
                "404": _error_ref(_ERROR_RESPONSES["404"]),
            },
        }
    }
    paths["/healthz"] = {
        "get": {
            "operationId": "healthz",
            "summary": "liveness",
            "responses": {"200": {"description": "the server is serving", "content": {
                "application/json": {"schema": {
                    "type": "object", "required": ["status"],
                    "properties": {"status": {"const": "ok"}}}}}}},
        }
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "bleu_compat tools",
            "version": __version__,
            "description": "Exactly specified BLEU: the tools of the cards, over HTTP.",
        },
        "paths": paths,
        "components": {"schemas": schemas},
    }


# --- the application ------------------------------------------------------------------

@contextlib.asynccontextmanager
async def _lifespan(app: Any) -> Any:
    # At shutdown (SIGTERM, SIGINT) the worker processes are stopped and joined, so that
    # their queues' semaphores are released before the interpreter goes (otherwise
    # multiprocessing's resource tracker warns of "leaked semaphore objects").
    try:
        yield
    finally:
        pool = getattr(app.state, "process_pool", None)
        if pool is not None:
            app.state.process_pool = None
            pool.shutdown(wait=True, cancel_futures=True)


def create_app(limits: ServerLimits | None = None) -> Starlette:
    """The ASGI application (Starlette). Serve it with :func:`uvicorn_config`
    (``bleu-compat serve``), which adds the HTTP-level limits and JSON errors.

    Args:
        limits: timeouts and caps (the body budget and the body timeouts are
            enforced here; the others by the protocol of :func:`uvicorn_config`).

    The cards and the OpenAPI document are loaded here, so a broken card
    fails at start-up rather than on the first request.
    """
    limits = limits or ServerLimits()
    tools.cards()
    openapi_document()
    routes = [
        Route("/v1/tools/{tool_id}/versions/{version}/execute", _execute, methods=["POST"]),
        Route("/v1/tools/{tool_id}/versions/{version}", _get_card, methods=["GET"]),
        Route("/v1/tools", _list_tools, methods=["GET"]),
        Route("/healthz", _healthz, methods=["GET"]),
        Route("/openapi.json", _openapi, methods=["GET"]),
    ]
    app = Starlette(
        routes=routes,
        lifespan=_lifespan,
        middleware=[Middleware(_CatchAll)],
        exception_handlers={
            _HttpError: _on_http_error,
            HTTPException: _on_starlette_http_exception,
        },
    )
    app.router.redirect_slashes = False
    app.state.limits = limits
    app.state.body_budget = _ByteBudget(limits.body_budget)
    return app


# --- the HTTP protocol ------------------------------------------------------------------

def _raw_json_response(status: int, code: str, message: str, headers: Mapping[str, str]) -> bytes:
    # Written straight to the socket: these answers are sent where h11's state
    # machine has no request to answer (a malformed or incomplete head).
    body = dumps_js(error_body(code, message)).encode("utf-8")
    lines = [f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}",
             "content-type: application/json", f"content-length: {len(body)}",
             "connection: close", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body


#: After an error answered at the protocol level the server stops reading
#: requests but drains what the client still sends for this long before it
#: closes, so that the client reads the answer rather than a connection reset.
LINGER_SECONDS = 2.0


#: The most bytes of a request head (request line and headers) the server reads. h11 refuses
#: a head still incomplete past this many bytes (uvicorn's ``h11_max_incomplete_event_size``);
#: a head that arrives whole in one read is measured once parsed (:func:`_head_size`), so the
#: answer does not depend on how the client's bytes were split.
MAX_HEAD_BYTES = 16 * 1024


def _head_size(event: Any) -> int:
    """Bytes of a parsed request head as sent without optional whitespace: ``METHOD SP
    target SP HTTP/1.1 CRLF``, each ``name: value CRLF``, the final ``CRLF``."""
    size = len(event.method) + 1 + len(event.target) + 1 + len(b"HTTP/1.1") + 2 + 2
    return size + sum(len(name) + 2 + len(value) + 2 for name, value in event.headers.raw_items())


def _printable(reason: str) -> str:
    """h11's reasons quote the offending bytes as ``bytearray(b'...')``: show them as a quoted
    text (non-ASCII bytes stay escaped, ``\\xff``), at most 80 characters of it."""
    import re

    def text(match: Any) -> str:
        inner = next(g for g in match.groups() if g is not None).replace("\\'", "'")
        return '"' + inner[:80] + ('..."' if len(inner) > 80 else '"')

    quoted = r"b(?:'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\")"
    reason = re.sub(r"bytearray\(" + quoted + r"\)", text, reason)
    return re.sub(quoted, text, reason)


def _protocol_class(limits: ServerLimits) -> type:
    """uvicorn's h11 protocol with JSON errors, a request-head timeout and a connection cap.

    Where uvicorn answers before the application is reached (a request h11
    cannot parse: no ``Host``, a bad or doubled ``Content-Length``, a bad
    chunk size, a request line or headers over 16 KiB...), its answer is
    plain text; here it is ``{"error": {"code": "bad_request", ...}}`` with
    h11's reason and status (400, or 431 for an over-long head).
    """
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeadLimitedConnection(h11.Connection):
        def next_event(self) -> Any:
            event = super().next_event()
            if isinstance(event, h11.Request) and _head_size(event) > MAX_HEAD_BYTES:
                raise h11.RemoteProtocolError(
                    f"the request line and headers hold {_head_size(event)} bytes, more than "
                    f"{MAX_HEAD_BYTES}", error_status_hint=431)
            return event

    class JSONErrorH11Protocol(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.conn = HeadLimitedConnection(h11.SERVER, MAX_HEAD_BYTES)

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            self._head_timer: Any = None
            self._head_started = False
            self._lingering = False
            super().connection_made(transport)
            if len(self.connections) > limits.max_connections:
                self.app = _over_capacity  # every request on this connection gets 503
            self._arm_head_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_head_timer()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._lingering:
                return  # the answer is sent: drain, do not parse
            if self.conn.their_state is h11.IDLE:
                self._head_started = True
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:
                self._cancel_head_timer()  # a request head arrived (or h11 refused it)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                self._head_started = bool(self.conn.trailing_data[0])
                self._arm_head_timer()

        def send_400_response(self, msg: str) -> None:
            # Called by uvicorn inside its ``except h11.RemoteProtocolError``.
            exc = sys.exc_info()[1]
            status = getattr(exc, "error_status_hint", 400)
            reason = _printable(str(exc))[:200] if exc is not None and str(exc) else msg
            if status == 431 and "hold" not in reason:  # h11's max_incomplete_event_size
                reason = (f"the request line and headers were still incomplete after "
                          f"{MAX_HEAD_BYTES} bytes")
            self._reject(status if 400 <= status < 500 else 400, "bad_request",
                         f"malformed HTTP request: {reason}")

        def _reject(self, status: int, code: str, message: str,
                    headers: Mapping[str, str] | None = None) -> None:
            self._cancel_head_timer()
            if self.transport.is_closing() or self._lingering:
                return
            if self.cycle is None or not self.cycle.response_started:
                self.transport.write(_raw_json_response(status, code, message, headers or {}))
            self._lingering = True
            self.flow.resume_reading()
            if self.transport.can_write_eof():
                self.transport.write_eof()
            self.loop.call_later(LINGER_SECONDS, self.transport.close)

        def timeout_keep_alive_handler(self) -> None:
            # When the event loop was held up (a worker thread holding the GIL
            # in a long C call), the keep-alive deadline may pass with the next
            # request already in the socket: closing now would drop it (the
            # client sees a reset). Let the reader take it first.
            if self._pending_input():
                self.timeout_keep_alive_task = self.loop.call_later(
                    0.5, self.timeout_keep_alive_handler)
                return
            super().timeout_keep_alive_handler()

        def _pending_input(self) -> bool:
            sock = self.transport.get_extra_info("socket")
            if sock is None or self.transport.is_closing():
                return False
            try:
                return bool(select.select([sock.fileno()], [], [], 0)[0])
            except (OSError, ValueError):
                return False

        def _arm_head_timer(self) -> None:
            self._cancel_head_timer()
            self._head_timer = self.loop.call_later(limits.header_timeout, self._head_timeout)

        def _cancel_head_timer(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_timeout(self) -> None:
            self._head_timer = None
            if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
                return
            if self._pending_input() and not self._head_started:
                # bytes are waiting that the loop has not read yet (see above)
                self._head_timer = self.loop.call_later(0.5, self._head_timeout)
                return
            if self._head_started or self.conn.trailing_data[0]:
                self._reject(408, "request_timeout",
                             f"the request line and headers were not complete within "
                             f"{limits.header_timeout:g} s")
            else:  # an idle connection that never sent a byte of this request
                self.transport.close()

    return JSONErrorH11Protocol


async def _over_capacity(scope: Scope, receive: Receive, send: Send) -> None:
    if scope.get("type") == "http" and scope.get("path") == "/healthz" and scope.get("method") in ("GET", "HEAD"):
        # a health check is answered whatever the number of connections: a load balancer
        # must not take a busy server for a dead one
        await JSResponse({"status": "ok"})(scope, receive, send)
        return
    response = _error_response(
        503, "service_unavailable",
        "the server has too many open connections; retry later",
        headers={"connection": "close", "retry-after": "1"},
    )
    await response(scope, receive, send)


def uvicorn_config(
    app: Any, *, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info",
    access_log: bool = True, limits: ServerLimits | None = None,
) -> Any:
    """A ``uvicorn.Config`` serving ``app`` with :class:`ServerLimits` and JSON errors
    at the protocol level (h11; no WebSocket)."""
    import uvicorn

    limits = limits or ServerLimits()
    return uvicorn.Config(
        app, host=host, port=port, log_level=log_level, access_log=access_log,
        server_header=False, http=_protocol_class(limits), ws="none",
        timeout_keep_alive=limits.keep_alive_timeout, limit_concurrency=None,
    )
