"""The divergence catalog: every known way sacreBLEU and NLTK differ from the cards.

The entries live with their library (``bleu_compat/libraries/<library>/entries.py``),
beside the adapter that calls the real library and the model that emulates it
(``model.py``). This module gathers them and answers the one question the
harness, ``score --compare`` and ``bleu-compat explain`` ask:

* :data:`ENTRIES` — every entry, in report order;
* :func:`entry` — one entry by id;
* :func:`classify` — is a library's output reproduced by its dialect (the card
  plus some of its entries' models), and by which smallest set of entries
  (SPEC.md §7: explained means reproduced; no tolerance anywhere).
"""

from __future__ import annotations

from typing import Any

from bleu_compat.harness.dialect import CatalogEntry, Model, Reproduction, reproduce
from bleu_compat.libraries.nltk.entries import ENTRIES as _NLTK_ENTRIES
from bleu_compat.libraries.nltk.model import evaluate as _nltk_evaluate
from bleu_compat.libraries.sacrebleu.entries import ENTRIES as _SACREBLEU_ENTRIES
from bleu_compat.libraries.sacrebleu.model import evaluate as _sacrebleu_evaluate

__all__ = ["CatalogEntry", "ENTRIES", "MODELS", "entry", "entries_for", "classify", "Reproduction"]

ENTRIES: tuple[CatalogEntry, ...] = _SACREBLEU_ENTRIES + _NLTK_ENTRIES

#: library -> its dialect (``evaluate(tool_id, mode, request, on, cache)``)
MODELS: dict[str, Model] = {
    "sacrebleu": _sacrebleu_evaluate,
    "nltk": _nltk_evaluate,
}


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


def classify(
    library: str,
    mode: str,
    tool_id: str,
    request: dict[str, Any],
    expected: dict[str, Any],
    library_output: dict[str, Any],
) -> Reproduction:
    """Whether ``library_output`` is the library's dialect on ``request``, and why.

    Args:
        library: ``"sacrebleu"`` or ``"nltk"``.
        mode: ``"as_called"`` or ``"mapped"``.
        tool_id: the card.
        request: the valid request the library was run on (not mutated).
        expected: the card's output on it (the harness' independent truth).
        library_output: the library's output in the card's shape (0–1 scale);
            an exception as ``{"error": "Type: message"}``.

    Returns:
        A :class:`~bleu_compat.harness.dialect.Reproduction`: the smallest entry
        set reproducing every field bit for bit, each differing field's cause, or
        (``entries`` None) UNEXPECTED with the nearest dialect's output.

    Raises:
        KeyError: unknown library.
    """
    return reproduce(entries_for(library), MODELS[library], tool_id, mode, request, expected,
                     library_output)
