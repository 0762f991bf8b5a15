"""Exception hierarchy of bleu_compat.

Library-level exceptions subclass a builtin so callers can catch them the
usual way; the tool layer (``tools.execute``) maps everything onto
:class:`ToolError`, whose ``code`` is one of the card-level codes of
SPEC.md §2: ``invalid_input``, ``unsupported_input``, ``limit_exceeded``;
an unknown tool id is :class:`UnknownToolError`, a ToolError with code
``not_found`` (the code the CLI and the HTTP server answer for it).

This module imports nothing from the package.
"""

from __future__ import annotations

__all__ = [
    "BleuCompatError",
    "InvalidInputError",
    "ConfigError",
    "ToolError",
    "OracleUnavailableError",
    "OracleError",
    "TOOL_ERROR_CODES",
    "NOT_FOUND",
    "UnknownToolError",
]

TOOL_ERROR_CODES = ("invalid_input", "unsupported_input", "limit_exceeded")
#: The code of a request to a tool that does not exist (not a fault of the request's content).
NOT_FOUND = "not_found"


class BleuCompatError(Exception):
    """Base class of every exception raised by bleu_compat."""


class InvalidInputError(BleuCompatError, ValueError):
    """Corpus shape is wrong: lengths differ, a segment has no reference,
    matches exceed totals, a count is negative."""


class ConfigError(BleuCompatError, ValueError):
    """An option is out of range: ``max_order < 1``, unknown smoothing,
    epsilon outside [0, 1]."""


class ToolError(BleuCompatError):
    """A tool request was refused (SPEC.md §2).

    Attributes:
        code: ``"invalid_input"``, ``"unsupported_input"`` or ``"limit_exceeded"``;
            ``"not_found"`` for an unknown tool (:class:`UnknownToolError`).
        message: a human-readable sentence naming the offending value.
        path: a JSON Pointer (RFC 6901) into the request, ``""`` for the whole
            request.
    """

    def __init__(self, code: str, message: str, path: str = "") -> None:
        if code not in TOOL_ERROR_CODES and code != NOT_FOUND:
            raise ValueError(f"code={code!r} must be one of {(*TOOL_ERROR_CODES, NOT_FOUND)}")
        super().__init__(code, message, path)
        self.code = code
        self.message = message
        self.path = path

    def __str__(self) -> str:
        where = f" at {self.path}" if self.path else ""
        return f"{self.code}{where}: {self.message}"

    def to_dict(self) -> dict[str, dict[str, str]]:
        """The structured error body ``{"error": {"code", "message", "path"}}``."""
        return {"error": {"code": self.code, "message": self.message, "path": self.path}}


class OracleUnavailableError(BleuCompatError, ImportError):
    """sacreBLEU or NLTK is not installed (or not in the supported range)."""


class OracleError(BleuCompatError):
    """sacreBLEU or NLTK raised while computing; the original is chained."""


class UnknownToolError(ToolError, KeyError):
    """No tool has this id: a :class:`ToolError` with code ``not_found`` and path ``""``.

    Also a ``KeyError`` (what an unknown id raised before), so a caller catching
    either keeps working.
    """

    def __init__(self, message: str) -> None:
        super().__init__(NOT_FOUND, message, "")
