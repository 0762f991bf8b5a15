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
                                  as soon as the bytes read exceed the cap
422    ``unsupported_input``      a request the card lists as unsupported (check 2)
404    ``not_found``              unknown tool, version or path
405    ``method_not_allowed``     wrong method (the ``Allow`` header lists the right ones)
415    ``unsupported_media_type`` the body is not ``application/json``, or it
                                  declares a charset other than UTF-8
400    ``internal_error``         an unexpected exception (a bug): the message
                                  says so without internals; the server never
                                  answers 500 and never sends a traceback
====== ========================== =============================================

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

import functools
import logging
from typing import Any, Mapping

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import tools
from .errors import TOOL_ERROR_CODES, ToolError
from .jsonio import dumps_js

__all__ = [
    "ERROR_CODES",
    "STATUS_BY_TOOL_ERROR",
    "JSResponse",
    "create_app",
    "error_body",
    "openapi_document",
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
    "internal_error",
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


async def _read_body(request: Request) -> bytes:
    """The body, at most ``MAX_REQUEST_BYTES``; refused unread when it is larger."""
    cap = tools.MAX_REQUEST_BYTES
    declared = request.headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > cap:
        raise _too_large(f"of {int(declared)} bytes (Content-Length)")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > cap:  # a chunked (or lying) body: stop reading now
                raise _too_large("read so far")
            chunks.append(chunk)
    except ClientDisconnect:
        raise _HttpError(
            400, "invalid_input", "the client disconnected before the request body was complete"
        ) from None
    return b"".join(chunks)


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
    body = await _read_body(request)
    try:
        result = await run_in_threadpool(tools.execute, tool_id, body)
    except ToolError as exc:
        return _error_response(STATUS_BY_TOOL_ERROR[exc.code], exc.code, exc.message, exc.path)
    return JSResponse(result)


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

def create_app() -> Starlette:
    """The ASGI application (Starlette). Serve it with uvicorn (``bleu-compat serve``).

    The cards and the OpenAPI document are loaded here, so a broken card
    fails at start-up rather than on the first request.
    """
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
        middleware=[Middleware(_CatchAll)],
        exception_handlers={
            _HttpError: _on_http_error,
            HTTPException: _on_starlette_http_exception,
        },
    )
    app.router.redirect_slashes = False
    return app
