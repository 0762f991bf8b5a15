"""The divergence catalog: every known way a registered implementation differs from the cards.

The entries live with their library (``bleu_compat/libraries/<library>/entries.py``),
beside the adapter that calls the real library and the model that emulates it
(``model.py``); the registry (:mod:`bleu_compat.libraries.registry`) says
which libraries there are, in report order. This module gathers them and
answers the one question the harness, ``score --compare`` and ``bleu-compat
explain`` ask:

* :data:`ENTRIES` — every entry, in report order;
* :func:`entry` — one entry by id;
* :func:`classify` — is a library's output reproduced by its dialect (the card
  plus some of its entries' models), and by which smallest set of entries
  (SPEC.md §7: explained means reproduced; no tolerance anywhere).

Library versions (SPEC.md §7): every entry records the versions its model was
verified on (``CatalogEntry.verified``); the *dialect of a version* is the set
of entries verified on it, and :data:`MEASURED` lists the versions whose
dialect was measured (by ``bleu-compat matrix``). :func:`classify` uses the
dialect of the installed version; a version never measured is matched against
every known dialect of its library, newest first (:func:`known_dialects`), so
an unchanged release explains everything and a changed one shows only its new
behaviour as UNEXPECTED. :func:`version_notice` is the one-line announcement.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import os
from typing import Any

from bleu_compat.harness.dialect import CatalogEntry, Model, Reproduction, reproduce
from bleu_compat.libraries.registry import libraries as _libraries

__all__ = [
    "CatalogEntry", "ENTRIES", "TOKENIZER_ENTRIES", "MODELS", "MEASURED", "LIBRARY_NAMES", "entry", "entries_for",
    "classify", "Reproduction", "dialect_entries", "known_dialects", "dialect_label",
    "is_measured", "version_notice", "version_key", "installed_version",
]

#: every entry of every registered library, in registry order, then each library's order
ENTRIES: tuple[CatalogEntry, ...] = tuple(e for lib in _libraries() for e in lib.catalog_entries)

#: how a release's tokenizer differs from the newest measured release's (issue 20): each
#: library's ``TOKENIZER_ENTRIES`` (sacreBLEU's ``TokenizerEntry``); not card differences, so
#: not in :data:`ENTRIES`
TOKENIZER_ENTRIES: tuple[Any, ...] = tuple(
    e for lib in _libraries()
    for e in getattr(importlib.import_module(lib.entries), "TOKENIZER_ENTRIES", ()))

#: library -> its dialect (``evaluate(tool_id, mode, request, on, cache)``)
MODELS: dict[str, Model] = {lib.name: lib.evaluate for lib in _libraries()}

#: library -> the versions whose dialect was measured, oldest first
MEASURED: dict[str, tuple[str, ...]] = {lib.name: lib.verified for lib in _libraries()}

#: how each library spells its name
LIBRARY_NAMES: dict[str, str] = {lib.name: lib.display_name for lib in _libraries()}


def version_key(version: str) -> tuple[Any, ...]:
    """A sort key for a release number ``"2.3.1"`` (numeric parts compared as numbers;
    a non-numeric part sorts after the numbers, as text)."""
    parts: list[tuple[int, Any]] = []
    for part in version.split("."):
        parts.append((0, int(part)) if part.isdigit() else (1, part))
    return tuple(parts)


@functools.lru_cache(maxsize=None)
def installed_version(library: str) -> str:
    """The installed release of ``library`` from its distribution's metadata ("" when not
    installed; read once per process)."""
    from importlib import metadata

    lib = next((x for x in _libraries() if x.name == library), None)
    try:
        return lib.installed_version() if lib is not None else metadata.version(library)
    except ImportError:  # not installed, or a script the environment does not name
        return ""


def entry(entry_id: str) -> CatalogEntry:
    """The entry with ``entry_id``.

    Raises:
        KeyError: no such entry.
    """
    for e in ENTRIES:
        if e.id == entry_id:
            return e
    raise KeyError(f"no catalog entry {entry_id!r}")


def entries_for(library: str, tool_id: str | None = None, mode: str | None = None) -> list[CatalogEntry]:
    """The entries of ``library`` (optionally only those for ``tool_id`` and ``mode``)."""
    return [e for e in ENTRIES if e.library == library
            and (tool_id is None or e.tool_id == tool_id)
            and (mode is None or mode in e.modes)]


def is_measured(library: str, version: str) -> bool:
    """True when ``version`` of ``library`` has a measured dialect (:data:`MEASURED`)."""
    return version in MEASURED.get(library, ())


def dialect_entries(library: str, version: str) -> list[CatalogEntry]:
    """The dialect of a measured ``version``: the entries of ``library`` verified on it."""
    return [e for e in ENTRIES if e.library == library and version in e.verified]


def known_dialects(library: str) -> list[tuple[tuple[str, ...], list[CatalogEntry]]]:
    """The distinct dialects of ``library``: (the measured versions that speak it, its entries).

    Versions with the same set of entries share one dialect. Newest dialect first
    (by its newest version); versions within a dialect oldest first.
    """
    groups: dict[tuple[str, ...], list[str]] = {}
    for version in MEASURED.get(library, ()):
        ids = tuple(e.id for e in dialect_entries(library, version))
        groups.setdefault(ids, []).append(version)
    out = []
    for ids, versions in groups.items():
        versions.sort(key=version_key)
        out.append((tuple(versions), [entry(i) for i in ids]))
    out.sort(key=lambda d: version_key(d[0][-1]), reverse=True)
    return out


def dialect_label(library: str, versions: tuple[str, ...] | list[str]) -> str:
    """``"sacreBLEU 2.2.1–2.6.0"`` (or one version) for a dialect's measured versions."""
    name = LIBRARY_NAMES.get(library, library)
    vs = sorted(versions, key=version_key)
    if not vs:
        return f"{name} (no measured version)"
    return f"{name} {vs[0]}" if len(vs) == 1 else f"{name} {vs[0]}–{vs[-1]}"


def version_notice(library: str, version: str) -> str | None:
    """The one-line announcement for an unmeasured version (None when it is measured)."""
    if is_measured(library, version):
        return None
    name = LIBRARY_NAMES.get(library, library)
    labels = "; ".join(dialect_label(library, v) for v, _ in known_dialects(library))
    return (f"{name} {version} has no measured dialect; matching against known ones "
            f"({labels or 'none'})")


def classify(
    library: str,
    mode: str,
    tool_id: str,
    request: dict[str, Any],
    expected: dict[str, Any],
    library_output: dict[str, Any],
    *,
    version: str | None = None,
) -> Reproduction:
    """Whether ``library_output`` is the library's dialect on ``request``, and why.

    Args:
        library: a registered implementation's name.
        mode: ``"as_called"`` or ``"mapped"``.
        tool_id: the card.
        request: the valid request the library was run on (not mutated).
        expected: the card's output on it (the harness' independent truth).
        library_output: the library's output in the card's shape (0–1 scale);
            an exception as ``{"error": "Type: message"}``. Only the fields it has
            are compared (torchmetrics returns no brevity penalty).
        version: the library version that produced the output (default: the
            installed one). A measured version is judged by its own dialect; any
            other by each known dialect in turn, newest first: the first that
            reproduces the output explains it; when none does, the newest
            dialect's UNEXPECTED verdict is returned. With the environment
            variable ``BLEU_COMPAT_DIALECT=any`` (``bleu-compat matrix --measure``)
            every entry of the library takes part, whatever its versions.

    Returns:
        A :class:`~bleu_compat.harness.dialect.Reproduction`: the smallest entry
        set reproducing every field bit for bit, each differing field's cause, or
        (``entries`` None) UNEXPECTED with the nearest dialect's output;
        ``dialect`` names the dialect that judged it (e.g. ``"sacreBLEU 2.2.1–2.6.0"``).

    Raises:
        KeyError: unknown library.
    """
    if "error" not in library_output:  # a field the library does not return is not compared
        expected = {k: v for k, v in expected.items() if k in library_output}
    if os.environ.get("BLEU_COMPAT_DIALECT") == "any":  # measuring a release: every model
        rep = reproduce(entries_for(library), MODELS[library], tool_id, mode, request, expected,
                        library_output)
        return dataclasses.replace(rep, dialect=f"all {LIBRARY_NAMES.get(library, library)} entries")
    if version is None:
        version = installed_version(library)
    model = MODELS[library]
    if is_measured(library, version):
        rep = reproduce(dialect_entries(library, version), model, tool_id, mode, request,
                        expected, library_output)
        label = next((dialect_label(library, vs) for vs, _ in known_dialects(library)
                      if version in vs), dialect_label(library, (version,)))
        return dataclasses.replace(rep, dialect=label)
    first: Reproduction | None = None
    for versions, entries in known_dialects(library):
        rep = dataclasses.replace(
            reproduce(entries, model, tool_id, mode, request, expected, library_output),
            dialect=dialect_label(library, versions))
        if rep.explained:
            return rep
        if first is None:
            first = rep
    if first is None:  # no measured version at all: the whole catalog of the library
        first = reproduce(entries_for(library), model, tool_id, mode, request, expected,
                          library_output)
    return first
