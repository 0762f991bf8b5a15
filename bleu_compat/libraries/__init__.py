"""Adapters: run each registered BLEU implementation on a card request (SPEC.md §7).

Each implementation is a plug-in folder under ``bleu_compat/libraries/``
(:mod:`bleu_compat.libraries.plugin` says what it declares;
:mod:`bleu_compat.libraries.registry` lists them). Interface shared by the
harness, ``score --compare`` and the catalog:

* :class:`AdapterResult` — one library's answer to one request in one mode;
* :func:`run_adapter(library, mode, tool_id, request)` — the only entry point
  callers use; it imports the library lazily (the core never imports one) and
  never mutates ``request``;
* :func:`dispatch` — the part every adapter's ``run`` shares.

Modes: ``"as_called"`` is what a user gets calling the library the usual
way; ``"mapped"`` is everything the adapter can honestly do to make the
library compute the card's semantics. Where a library cannot express the
card's semantics, ``output`` is None and ``not_representable`` says why.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
import warnings
from typing import Any, Callable

__all__ = [
    "MODES", "AdapterResult", "NotRepresentable", "dispatch", "run_adapter",
    "library_version", "check_importable", "check_versions", "dialect_of_installed",
]

#: every adapter mode there is (an implementation declares which of them it has)
MODES = ("as_called", "mapped")


@dataclass(frozen=True)
class AdapterResult:
    """One library's result for one card request.

    Attributes:
        library: the implementation's registered name.
        version: the installed version of that library, e.g. ``"2.6.0"``.
        mode: ``"as_called"`` or ``"mapped"``.
        tool_id: the card the request is for.
        output: the result in the card's output shape (0–1 scale, full doubles,
            ``decimals`` applied as the card says), or None when not representable
            or the library raised.
        raw: the library's own values, JSON-serialisable (its own number under
            the keys its declaration's ``native`` names, on its own scale).
        not_representable: why the library cannot express the request in this
            mode, or None.
        error: ``"ExceptionType: message"`` when the library raised, or None.
    """

    library: str
    version: str
    mode: str
    tool_id: str
    output: dict[str, Any] | None
    raw: dict[str, Any] = field(default_factory=dict)
    not_representable: str | None = None
    error: str | None = None


class NotRepresentable(Exception):
    """Raised by an adapter's handler: the library cannot express this request (the reason)."""


Handler = Callable[[str, dict[str, Any], dict[str, Any]], dict[str, Any]]


def dispatch(
    library: str,
    mode: str,
    tool_id: str,
    request: dict[str, Any],
    handlers: dict[str, Handler],
    *,
    count_warnings: bool = False,
) -> AdapterResult:
    """Run ``handlers[tool_id](mode, request, raw)`` and wrap what happens in an AdapterResult.

    The shared part of every adapter's ``run``: argument checks, the library
    version, ``raw`` for the library's own values, a library exception as
    ``error`` (data, not a crash), :class:`NotRepresentable` as
    ``not_representable``, and (``count_warnings``) the number of warnings
    the library issued as ``raw["warnings"]``.

    Raises:
        ValueError: unknown mode or tool.
        OracleUnavailableError: the library is not installed; its code is no known release
            and the user did not opt in (:class:`bleu_compat.foreign.UnknownCodeError`).
    """
    from bleu_compat.foreign import UnknownCodeError

    if mode not in MODES:
        raise ValueError(f"mode={mode!r} must be 'as_called' or 'mapped'")
    if tool_id not in handlers:
        raise ValueError(f"tool_id={tool_id!r} must be one of {tuple(handlers)}")
    version = library_version(library)
    raw: dict[str, Any] = {}
    caught: list[warnings.WarningMessage] = []
    try:
        if count_warnings:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                output = handlers[tool_id](mode, request, raw)
        else:
            output = handlers[tool_id](mode, request, raw)
    except NotRepresentable as exc:
        return AdapterResult(library, version, mode, tool_id, None, raw, not_representable=str(exc))
    except UnknownCodeError:  # foreign code refused (bleu_compat.foreign): unavailable, not a result
        raise
    except Exception as exc:  # a library failure is data, not a crash
        return AdapterResult(library, version, mode, tool_id, None, raw,
                             error=f"{type(exc).__name__}: {exc}")
    if caught:
        raw["warnings"] = len(caught)
    if any(isinstance(v, float) and v != v or v in (float("inf"), float("-inf"))
           for v in output.values() if isinstance(v, float)):
        # a NaN or infinity the library returned: the JSON-safe marker (never a crash in the
        # comparison; no model gives it, so it is UNEXPECTED unless a catalog entry says so)
        from bleu_compat.implementations import _mark_non_finite

        output = {k: _mark_non_finite(v) for k, v in output.items()}
    return AdapterResult(library, version, mode, tool_id, output, raw)


def library_version(library: str) -> str:
    """The installed version of the registered implementation ``library``.

    Read once per process from its distribution's metadata (package metadata
    lookups cost about a millisecond, a fifth of a brevity-penalty cross-check);
    an implementation that declares ``version_each_call`` (a script the user
    gives, whose release is its file's) is asked each time.

    Raises:
        OracleUnavailableError: the library is not installed.
        UnknownLibraryError: no implementation of that name is registered.
    """
    from bleu_compat.libraries.registry import library as declared

    lib = declared(library)
    if lib.version_each_call:
        return lib.installed_version()
    return _distribution_version(library)


@functools.lru_cache(maxsize=None)
def _distribution_version(library: str) -> str:
    from importlib import metadata

    from bleu_compat.errors import OracleUnavailableError
    from bleu_compat.libraries.registry import library as declared

    lib = declared(library)
    try:
        return lib.installed_version()
    except metadata.PackageNotFoundError:
        hint = f" ({lib.install})" if lib.install else ""
        raise OracleUnavailableError(f"{library} is not installed{hint}") from None


def run_adapter(library: str, mode: str, tool_id: str, request: dict[str, Any]) -> AdapterResult:
    """Run ``library`` in ``mode`` on a validated card ``request``.

    Raises:
        ValueError: unknown library or mode.
        OracleUnavailableError: the library is not installed.
    """
    from bleu_compat.libraries.registry import libraries

    lib = next((x for x in libraries() if x.name == library), None)
    if lib is None:
        raise ValueError(f"library={library!r} must be one of {tuple(x.name for x in libraries())}")
    if mode not in lib.modes:
        raise ValueError(f"mode={mode!r} must be one of {lib.modes}")
    return lib.adapter_module().run(mode, tool_id, request)


def check_importable(library: str) -> str:
    """The installed version of ``library`` after checking that the adapter can use it.

    Imports the modules the adapter needs and asks the adapter whether it speaks
    this release (its ``check_release(version)``, when it has one).

    Raises:
        OracleUnavailableError: not installed, cannot be imported (the message
            names the library, its version and the import error), or no adapter
            for this release.
    """
    import importlib

    from bleu_compat.errors import OracleUnavailableError
    from bleu_compat.libraries.registry import library as declared

    version = library_version(library)
    lib = declared(library)
    check = getattr(lib.adapter_module(), "check_release", None)
    if check is not None:  # a release the adapter does not speak, before importing it
        check(version)
    for name in lib.import_modules:
        try:
            importlib.import_module(name)
        except Exception as exc:  # any failure to import is "unusable", with the reason
            raise OracleUnavailableError(
                f"{library} {version} is installed but cannot be imported "
                f"({name}: {type(exc).__name__}: {exc})") from exc
    return version


def dialect_of_installed(library: str) -> dict[str, Any]:
    """``{"version", "measured", "dialect"}`` for the installed ``library`` (JSON-ready).

    ``dialect`` labels the dialect that judges its outputs: its own measured one,
    or ``"matched against known dialects"`` for an unmeasured release.

    Raises:
        OracleUnavailableError: the library is not installed.
    """
    from bleu_compat.catalog import dialect_label, is_measured, known_dialects

    version = library_version(library)
    if is_measured(library, version):
        label = next(dialect_label(library, vs) for vs, _ in known_dialects(library) if version in vs)
    else:
        label = "matched against known dialects"
    return {"version": version, "measured": is_measured(library, version), "dialect": label}


def check_versions(libraries: tuple[str, ...] | None = None) -> list[str]:
    """The start-of-run version check (SPEC.md §7): the announcements to print, once.

    ``libraries`` default to every registered implementation.

    A release with a measured dialect is silent; an unmeasured one gives
    :func:`version_notice`'s line. A library that is not installed is skipped
    (the harness counts it as unavailable).

    Raises:
        OracleUnavailableError: a library is installed but cannot be imported,
            or the adapter does not speak its release (the message names both).
    """
    from bleu_compat.errors import OracleUnavailableError
    from bleu_compat.libraries.registry import names

    notices = []
    for library in (names() if libraries is None else libraries):
        try:
            library_version(library)
        except OracleUnavailableError:
            continue
        version = check_importable(library)
        from bleu_compat.catalog import version_notice

        notice = version_notice(library, version)
        if notice:
            notices.append(notice)
    return notices
