"""``score --compare``: the card's corpus BLEU beside each implementation's.

For one system (hypotheses plus their references, already tokens) this
builds a bleu-corpus-compute request, computes the card's output with the
core, runs the registered implementations asked for on the same tokens *as users call them*
(adapters in ``"as_called"`` mode), compares every output field (integers
exactly, floats in ULPs, SPEC.md §7) and asks the divergence catalog
(:func:`bleu_compat.catalog.classify`) which entries' models reproduce the
library's output bit for bit. A difference no set of entries reproduces is
UNEXPECTED.

The request is built directly and handed to :func:`run_adapter`; it does
not go through ``tools.execute``, whose card limits (1,000 segments) are
for the tools, not for the library functions (SPEC.md §3). No printing
here: the command line formats :class:`SystemComparison`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Sequence

from .bleu import bleu_from_stats
from .ngrams import Tokens
from .stats import SufficientStats, corpus_stats, per_segment_stats
from .ulp import ulp_distance

__all__ = [
    "CORPUS_TOOL",
    "build_request",
    "card_output",
    "segment_statistics",
    "Explanation",
    "FieldDifference",
    "LibraryComparison",
    "SystemComparison",
    "compare_system",
]

CORPUS_TOOL = "bleu-corpus-compute"
#: fields compared, in the card's output order
_FIELDS = (
    "bleu",
    "brevity_penalty",
    "candidate_length",
    "reference_length",
    "max_order",
    "matches",
    "totals",
)


def build_request(
    hypotheses: Sequence[Tokens], references: Sequence[Sequence[Tokens]], *, max_order: int
) -> dict[str, Any]:
    """A bleu-corpus-compute request from tokens (no card limits applied).

    Args:
        hypotheses: hypotheses[i] is the token list of segment i.
        references: references[i] holds every reference token list of segment i.
        max_order: N.

    Returns:
        ``{"hypotheses": [[str]], "references": [[[str]]], "max_order": N}``
        with fresh lists (the caller's lists are never shared).
    """
    return {
        "hypotheses": [list(h) for h in hypotheses],
        "references": [[list(r) for r in refs] for refs in references],
        "max_order": max_order,
    }


def card_output(stats: SufficientStats) -> dict[str, Any]:
    """The card's output object (0–1 scale, full doubles) for corpus statistics."""
    result = bleu_from_stats(stats)
    return {
        "bleu": result.bleu,
        "brevity_penalty": result.brevity_penalty,
        "candidate_length": stats.hyp_len,
        "reference_length": stats.ref_len,
        "max_order": stats.max_order,
        "matches": list(stats.matches),
        "totals": list(stats.totals),
    }


def segment_statistics(
    hypotheses: Sequence[Tokens], references: Sequence[Sequence[Tokens]], *, max_order: int
) -> list[SufficientStats]:
    """Per-segment sufficient statistics; their sum is the corpus statistics.

    Each is :func:`bleu_compat.stats.segment_stats` of that segment, computed
    with the vectorised kernel (:func:`bleu_compat.stats.per_segment_stats`).
    """
    return per_segment_stats(hypotheses, references, max_order=max_order)


@dataclass(frozen=True)
class Explanation:
    """One catalog entry explaining one field difference.

    Attributes:
        id: the entry's stable id.
        title: its one-line title.
        facts: the corpus-specific facts that trigger it (from the entry's
            ``facts`` function), or None.
    """

    id: str
    title: str
    facts: str | None


@dataclass(frozen=True)
class FieldDifference:
    """One output field where a library differs from the card.

    Attributes:
        field: the card's output field name (``"bleu"``, ``"totals"``, or
            ``"error"`` when the library raised).
        card_value: the card's value (0–1 scale for floats).
        library_value: the library's value in the card's units.
        ulps: for floats, the distance in ULPs (0–1 scale); else None.
        explanations: the catalog entries that explain it; empty = UNEXPECTED.
        catalog_error: why the catalog could not be asked, or None.
    """

    field: str
    card_value: Any
    library_value: Any
    ulps: int | None
    explanations: tuple[Explanation, ...]
    catalog_error: str | None = None

    @property
    def unexpected(self) -> bool:
        """True when no catalog entry explains the difference."""
        return not self.explanations


@dataclass(frozen=True)
class LibraryComparison:
    """One library, as users call it, against the card on one system.

    Attributes:
        library: the implementation's registered name.
        version: the installed version.
        output: the library's result in the card's output shape (0–1 scale), or None.
        score: the library's BLEU on the 0–100 scale as it reports it (its own
            number when that is on 0–100, else 100 × its card-units ``bleu``), or None.
        differences: every field that differs, with its explanations.
        error: the library's exception (``"Type: message"``), or None.
        not_representable: why the adapter could not run it, or None.
    """

    library: str
    version: str
    output: dict[str, Any] | None
    score: float | None
    differences: tuple[FieldDifference, ...]
    error: str | None = None
    not_representable: str | None = None

    @property
    def unexpected(self) -> bool:
        """True when some difference is not explained by the catalog."""
        return any(d.unexpected for d in self.differences)


@dataclass(frozen=True)
class SystemComparison:
    """The card and each implementation asked for on one system.

    Attributes:
        system: the system's name (its file as given).
        card: the card's output (0–1 scale).
        libraries: one :class:`LibraryComparison` per library.
    """

    system: str
    card: dict[str, Any]
    libraries: tuple[LibraryComparison, ...] = field(default_factory=tuple)

    @property
    def card_score(self) -> float:
        """The card's BLEU on the 0–100 scale (``100 * bleu``)."""
        return 100 * self.card["bleu"]

    @property
    def unexpected(self) -> bool:
        """True when some library differs in a way the catalog does not explain."""
        return any(lib.unexpected for lib in self.libraries)


def _is_float(value: Any) -> bool:
    return isinstance(value, float)


def _differs(card_value: Any, library_value: Any) -> tuple[bool, int | None]:
    """(differs?, ULPs) with integers exact and floats in ULPs."""
    if _is_float(card_value) or _is_float(library_value):
        if isinstance(card_value, (int, float)) and isinstance(library_value, (int, float)):
            ulps = ulp_distance(float(card_value), float(library_value))
            return ulps != 0, ulps
        return True, None
    if isinstance(card_value, (list, tuple)) and isinstance(library_value, (list, tuple)):
        return list(card_value) != list(library_value), None
    return card_value != library_value, None


def _explanations(request: dict[str, Any], rep: Any, name: str) -> tuple[Explanation, ...]:
    """The catalog entries whose models reproduce field ``name`` (empty: UNEXPECTED)."""
    from .catalog import entry

    if not rep.explained:
        return ()
    out = []
    for entry_id in rep.causes.get(name, rep.entries or ()):
        e = entry(entry_id)
        facts = e.facts(request) if e.facts is not None else None
        out.append(Explanation(e.id, e.title, facts))
    return tuple(out)


def _library_score(library: str, output: dict[str, Any] | None, raw: dict[str, Any]) -> float | None:
    from .libraries.registry import library as declared

    native = declared(library).native
    own = native.of(raw) if native.scale == "0-100" else None
    if own is not None:
        return float(own)
    if output is not None and isinstance(output.get("bleu"), (int, float)):
        return 100 * float(output["bleu"])
    return None


def compare_library(
    library: str, request: dict[str, Any], card: dict[str, Any]
) -> LibraryComparison:
    """Run ``library`` as users call it on ``request`` and compare with ``card``.

    Raises:
        OracleUnavailableError: the library is not installed.
    """
    from .libraries import run_adapter
    from .libraries.registry import library as declared

    # A library may log advice about tokenized input (sacreBLEU: "That's 100 lines
    # that end in a tokenized period"); the input is tokens by design, so it is noise.
    loggers = [logging.getLogger(name) for name in declared(library).loggers]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        result = run_adapter(library, "as_called", CORPUS_TOOL, request)
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)
    differences: list[FieldDifference] = []
    from .catalog import classify
    from .harness.truth import truth

    library_output = result.output if result.output is not None else {
        "error": result.error or result.not_representable or "no output"}
    rep = None
    if result.not_representable is None and any(
        _differs(card.get(name), library_output.get(name))[0] for name in library_output
    ):
        # Explained only when the library's dialect reproduces its output bit for
        # bit, from the independent truth's statistics (SPEC.md section 7).
        rep = classify(library, "as_called", CORPUS_TOOL, request,
                       truth(CORPUS_TOOL, request).expected, library_output)
    if result.output is None:
        value = library_output["error"]
        explanations = _explanations(request, rep, "error") if rep is not None else ()
        differences.append(FieldDifference("error", None, value, None, explanations))
    else:
        for name in _FIELDS:
            if name not in result.output:
                continue
            card_value, lib_value = card[name], result.output[name]
            differs, ulps = _differs(card_value, lib_value)
            if not differs:
                continue
            explanations = _explanations(request, rep, name) if rep is not None else ()
            differences.append(FieldDifference(name, card_value, lib_value, ulps, explanations))
    return LibraryComparison(
        library=library,
        version=result.version,
        output=result.output,
        score=_library_score(library, result.output, result.raw),
        differences=tuple(differences),
        error=result.error,
        not_representable=result.not_representable,
    )


def compare_system(
    system: str,
    hypotheses: Sequence[Tokens],
    references: Sequence[Sequence[Tokens]],
    *,
    max_order: int = 4,
    libraries: Sequence[str] | None = None,
) -> SystemComparison:
    """The card's corpus BLEU of one system beside each library's.

    Args:
        system: a name for the system (its file).
        hypotheses: hypotheses[i] is the token list of segment i.
        references: references[i] holds every reference token list of segment i.
        max_order: N.
        libraries: which libraries to run, in display order (default: the registered
            implementations that ``score --compare`` always runs, ``in_default_compare``).

    Returns:
        A :class:`SystemComparison`; its ``unexpected`` is True when a
        difference has no catalog entry.

    Raises:
        InvalidInputError: lengths differ or a segment has no reference.
        OracleUnavailableError: a library is not installed.
    """
    if libraries is None:
        from .libraries.registry import libraries as registered

        libraries = [lib.name for lib in registered() if lib.in_default_compare]
    request = build_request(hypotheses, references, max_order=max_order)
    card = card_output(corpus_stats(hypotheses, references, max_order=max_order))
    return SystemComparison(
        system, card, tuple(compare_library(lib, request, card) for lib in libraries)
    )
