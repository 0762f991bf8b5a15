"""The divergence catalog: every known way sacreBLEU and NLTK differ from the cards.

Each :class:`CatalogEntry` names one kind of divergence with a stable id, the
library and version range it holds for, the tool, modes and output fields it
affects, a one-paragraph explanation, a predicate that decides from a
(validated) card request whether it applies, and a minimal reproducer with
the card's value and the library's value.

Interface used by the harness (classification), ``score --compare`` and
``bleu-compat catalog``:

* :data:`ENTRIES` — every entry, in report order;
* :func:`explain` — the entries that explain one observed difference;
  an empty list means the difference is UNEXPECTED.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["CatalogEntry", "ENTRIES", "entry", "explain"]

Request = dict[str, Any]


@dataclass(frozen=True)
class CatalogEntry:
    """One kind of divergence between a library and a card.

    Attributes:
        id: stable id, e.g. ``"NLTK-DENOMINATOR-FLOOR"``.
        library: ``"sacrebleu"`` or ``"nltk"``.
        versions: PEP 440 specifier the entry was verified for, e.g. ``">=3.9,<4"``.
        tool_id: the card it concerns.
        fields: output fields it affects (``"error"`` when the library raises).
        modes: ``("as_called",)``, ``("mapped",)`` or both.
        title: one line.
        explanation: one paragraph in plain words.
        predicate: validated card request -> whether the entry applies.
        reproducer: a minimal card request showing it.
        reproducer_field: the output field the reproducer's values are for.
        card_value: the card's value of that field on the reproducer.
        library_value: the library's value (in the card's units) on the reproducer.
        facts: request -> a sentence of request-specific facts that trigger the
            entry (e.g. "5 hypotheses shorter than 4 tokens add 5 to the 4-gram
            total"), or None.
        max_ulps: for floating-point order-of-operations entries, the largest
            ULP distance the entry explains; None for semantic entries.
    """

    id: str
    library: str
    versions: str
    tool_id: str
    fields: tuple[str, ...]
    modes: tuple[str, ...]
    title: str
    explanation: str
    predicate: Callable[[Request], bool]
    reproducer: Request
    reproducer_field: str
    card_value: Any
    library_value: Any
    facts: Callable[[Request], str | None] | None = None
    max_ulps: int | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)


ENTRIES: tuple[CatalogEntry, ...] = ()


def entry(entry_id: str) -> CatalogEntry:
    """The entry with ``entry_id``.

    Raises:
        KeyError: no such entry.
    """
    for e in ENTRIES:
        if e.id == entry_id:
            return e
    raise KeyError(f"no catalog entry {entry_id!r}")


def explain(
    library: str,
    mode: str,
    tool_id: str,
    request: Request,
    field_name: str,
    card_value: Any,
    library_value: Any,
    *,
    library_version: str | None = None,
) -> list[CatalogEntry]:
    """The entries that explain ``library_value != card_value`` for one field.

    An entry explains the difference when its library, tool, mode and fields
    match, the installed ``library_version`` lies in its ``versions`` range,
    its predicate holds for ``request``, and (for entries with ``max_ulps``)
    both values are floats at most ``max_ulps`` ULPs apart.

    Returns:
        The matching entries in catalog order; empty means UNEXPECTED.
    """
    raise NotImplementedError("filled in by the adapters-and-catalog work")
