"""Model consistency (issue 25): every claimed catalog entry held against its library.

A catalog entry's model is only ever *used* when it reproduces a library's
output, so a model that also fires where the library does not behave so (a
model *too broad*), or an entry claimed for a release or mode where the
library does not behave so (a *widened claim*), would never change a verdict.
This module makes both fail.

The rule (SPEC.md §7, "a model must be consistent"): on a request where the
library's output is reproduced by the entry set R (R empty when the library
agrees with the card), every other entry E that the catalog *claims* for the
installed release and the mode (``version in E.verified and mode in
E.modes``) must leave the reproduction alone: the dialect with R ∪ {E}
switched on must still give the library's output bit for bit, on every field
the library returns; checked at once by switching on every claimed entry
together with R. Where that dialect does not reproduce the library, each
claimed entry whose model, added to R alone, changes the output is reported
*too broad* (a finding of its own, failing the run): its model changes the
output on a request where the real library shows no such change. Checked on every generated
case and real corpus, for every installed library whose release is measured.

Each entry also has a *negative reproducer* (:func:`negative_request`): a
request where its model, switched on alone, must give the card's output
(:func:`check_negative_models`); the installed libraries are run on it too,
so the rule above holds there as well.

This module imports only the judge (the catalog, the dialects, the truth):
nothing of the core or of the adapters.
"""

from __future__ import annotations

import os
from typing import Any

from bleu_compat.harness.dialect import CatalogEntry, same_value

__all__ = ["claimed_entries", "too_broad", "negative_request", "check_negative_models",
           "NEGATIVE_DEFAULTS", "unreachable"]

Request = dict[str, Any]

#: the tool's plain request where every library computes the card's value (no zero count,
#: no short hypothesis, equal lengths): the negative reproducer of an entry without its own
NEGATIVE_DEFAULTS: dict[str, Request] = {
    "bleu-corpus-compute": {
        "hypotheses": [["the", "cat", "sat", "on", "the", "mat"]],
        "references": [[["the", "cat", "sat", "on", "the", "mat"]]]},
    "bleu-smoothing-compute": {
        "matches": [6, 5, 4, 3], "totals": [6, 5, 4, 3], "candidate_length": 6,
        "reference_length": 6, "smoothing": "none"},
    "bleu-brevity-penalty": {
        "segments": [{"candidate_length": 6, "reference_lengths": [6]}]},
}

def unreachable() -> dict[str, str]:
    """Entry id -> why the default run's generators never reproduce it (each entry's own
    ``unreached``); the crosscheck report lists these beside the claimed entries it never saw."""
    from bleu_compat import catalog

    return {e.id: e.unreached for e in catalog.ENTRIES if e.unreached}


def negative_request(entry: CatalogEntry) -> Request:
    """The entry's negative reproducer: its own, or its tool's :data:`NEGATIVE_DEFAULTS`."""
    return entry.negative if entry.negative is not None else NEGATIVE_DEFAULTS[entry.tool_id]


def _dialect_any() -> bool:
    return os.environ.get("BLEU_COMPAT_DIALECT") == "any"


def claimed_entries(library: str, version: str, tool_id: str, mode: str) -> list[CatalogEntry]:
    """The entries the catalog claims for ``library`` release ``version`` in ``mode`` on
    ``tool_id`` (empty when the release has no measured dialect: nothing is claimed)."""
    from bleu_compat import catalog

    if not catalog.is_measured(library, version):
        return []
    return [e for e in catalog.dialect_entries(library, version)
            if e.tool_id == tool_id and mode in e.modes]


def too_broad(library: str, mode: str, version: str, tool_id: str, request: Request,
              library_output: dict[str, Any], reproduced_by: tuple[str, ...],
              case_id: str) -> list[dict[str, Any]]:
    """The claimed entries whose models change the library's reproduced output on ``request``.

    Args:
        library, mode, version: the library that ran, its mode and installed release.
        tool_id, request: what it ran on (a valid card request).
        library_output: its output in the card's shape (``{"error": ...}`` when it raised).
        reproduced_by: the entry set whose dialect reproduces that output (empty when the
            library agrees with the card).
        case_id: the case, for the finding.

    Returns:
        One finding per entry E claimed for (``version``, ``mode``, ``tool_id``), not in
        ``reproduced_by``, whose dialect with ``reproduced_by`` + E gives another value
        for some field the library returns: ``{"tool", "implementation", "entry",
        "release", "case_id", "request", "with", "fields", "library", "model"}``.
        Empty under ``BLEU_COMPAT_DIALECT=any`` (a release being measured claims nothing).
    """
    from bleu_compat import catalog

    if _dialect_any():
        return []
    claimed = [e for e in claimed_entries(library, version, tool_id, mode)
               if e.id not in reproduced_by]
    if not claimed:
        return []
    model = catalog.MODELS[library]
    cache: dict[Any, Any] = {}

    def run(on: frozenset[str]) -> dict[str, Any]:
        try:
            return model(tool_id, mode, request, on, cache)
        except Exception as exc:  # a model that cannot run on a valid request is inconsistent
            return {"model_error": f"{type(exc).__name__}: {exc}"}

    def wrong(out: dict[str, Any]) -> list[str]:
        return [f for f in library_output if f not in out or not same_value(out[f], library_output[f])]

    base = frozenset(reproduced_by)
    # The release's whole claimed dialect must reproduce the library (one model run per case).
    if not wrong(run(base | {e.id for e in claimed})):
        return []
    # It does not: the culprits are the claimed entries that, added alone to the reproducing
    # set, change its output (two entries whose changes cancel each other, e.g. bleuscore's
    # retokenizing and shortest reference on one request, are consistent together).
    outs = {e.id: run(base | {e.id}) for e in claimed}
    culprits = [e for e in claimed if wrong(outs[e.id])] or claimed
    findings = []
    for e in culprits:
        out = outs[e.id]
        bad = wrong(out) or wrong(run(base | {x.id for x in claimed}))
        findings.append({
            "tool": tool_id, "implementation": f"{library}/{mode}", "entry": e.id,
            "release": version, "case_id": case_id, "request": request,
            "with": [*reproduced_by, e.id], "fields": bad,
            "library": {f: library_output.get(f) for f in bad},
            "model": {f: out.get(f, out.get("model_error")) for f in bad},
        })
    return findings


def check_negative_models(entries: tuple[CatalogEntry, ...] | list[CatalogEntry],
                          libraries: set[str] | None = None) -> list[dict[str, Any]]:
    """Each entry's model, alone, on its negative reproducer, in each of its modes: it must
    give the card's dialect's output (the models with nothing switched on) on every field.

    ``libraries``: only these libraries' entries (default: every entry). A model that needs a
    package that is not installed (torch's float32 primitives) is left out.

    Returns:
        One finding per (entry, mode) whose model changes the card's output there, in the
        shape of :func:`too_broad`'s (``implementation`` ``"<library>/<mode>"``, ``release``
        ``"model"``, ``library`` the card dialect's values).
    """
    from bleu_compat import catalog

    findings = []
    for e in entries:
        if libraries is not None and e.library not in libraries:
            continue
        request = negative_request(e)
        model = catalog.MODELS[e.library]
        for mode in e.modes:
            cache: dict[Any, Any] = {}
            try:
                card = model(e.tool_id, mode, request, frozenset(), cache)
            except ImportError:
                continue
            try:
                out = model(e.tool_id, mode, request, frozenset({e.id}), cache)
            except ImportError:  # the model's primitives (torch) are not installed here
                continue
            except Exception as exc:
                out = {"model_error": f"{type(exc).__name__}: {exc}"}
            # a field left out or None: one the library does not return (fast-bleu's counts),
            # not a change, unless the model raised instead
            raised = "error" in out or "model_error" in out
            wrong = [f for f in card if (f not in out and raised) or (
                out.get(f) is not None and not same_value(out[f], card[f]))]
            if wrong:
                findings.append({
                    "tool": e.tool_id, "implementation": f"{e.library}/{mode}", "entry": e.id,
                    "release": "model", "case_id": f"negative:{e.id}", "request": request,
                    "with": [e.id], "fields": wrong,
                    "library": {f: card.get(f) for f in wrong},
                    "model": {f: out.get(f, out.get("model_error")) for f in wrong},
                })
    return findings
