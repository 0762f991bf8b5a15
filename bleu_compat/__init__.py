"""bleu_compat: exactly specified BLEU, and why sacreBLEU and NLTK disagree.

The public surface: the core arithmetic (standard library only), the tool
layer over the cards (``execute``), and the errors. Adapters, the harness,
the CLI and the HTTP server live in submodules and are imported on demand.
"""

from __future__ import annotations

import importlib
# typing is not imported at run time (issue 34: 2 ms of every command's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

if TYPE_CHECKING:  # the names, for type checkers; at run time they load on first use
    from .bleu import (
        BleuResult,
        BrevityPenaltyResult,
        SmoothedBleuResult,
        bleu_from_stats,
        brevity_penalty,
        corpus_bleu,
        corpus_brevity_penalty,
        smoothed_bleu,
    )
    from .errors import (
        BleuCompatError,
        ConfigError,
        InvalidInputError,
        OracleError,
        OracleUnavailableError,
        ToolError,
    )
    from .decompose import CompareResult, Configuration, compare
    from .jsonio import dumps_js, loads_strict
    from .ngrams import ngram_counts
    from .rounding import js_number_str, to_fixed, to_fixed_str
    from .smoothing import Smoothing, smooth
    from .stats import (
        SufficientStats,
        closest_ref_len,
        corpus_stats,
        corpus_stats_iter,
        segment_stats,
    )
    from .tools import TOOL_IDS, card, cards, execute, validate_request

#: Where each public name lives. ``import bleu_compat`` imports none of these
#: modules (so neither jsonschema nor numpy): module-level ``__getattr__``
#: (PEP 562) imports a name's module on its first use.
_EXPORTS = {
    **dict.fromkeys(
        ["BleuResult", "BrevityPenaltyResult", "SmoothedBleuResult", "bleu_from_stats",
         "brevity_penalty", "corpus_bleu", "corpus_brevity_penalty", "smoothed_bleu"], "bleu"),
    **dict.fromkeys(
        ["BleuCompatError", "ConfigError", "InvalidInputError", "OracleError",
         "OracleUnavailableError", "ToolError"], "errors"),
    **dict.fromkeys(["compare", "CompareResult", "Configuration"], "decompose"),
    **dict.fromkeys(["dumps_js", "loads_strict"], "jsonio"),
    "ngram_counts": "ngrams",
    **dict.fromkeys(["js_number_str", "to_fixed", "to_fixed_str"], "rounding"),
    **dict.fromkeys(["Smoothing", "smooth"], "smoothing"),
    **dict.fromkeys(
        ["SufficientStats", "closest_ref_len", "corpus_stats", "corpus_stats_iter",
         "segment_stats"], "stats"),
    **dict.fromkeys(["TOOL_IDS", "card", "cards", "execute", "validate_request"], "tools"),
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'bleu_compat' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__version__ = "0.1.0"

__all__ = [
    "BleuCompatError",
    "BleuResult",
    "BrevityPenaltyResult",
    "CompareResult",
    "Configuration",
    "ConfigError",
    "InvalidInputError",
    "OracleError",
    "OracleUnavailableError",
    "SmoothedBleuResult",
    "Smoothing",
    "SufficientStats",
    "TOOL_IDS",
    "ToolError",
    "__version__",
    "bleu_from_stats",
    "brevity_penalty",
    "card",
    "cards",
    "closest_ref_len",
    "compare",
    "corpus_bleu",
    "corpus_brevity_penalty",
    "corpus_stats",
    "corpus_stats_iter",
    "dumps_js",
    "execute",
    "js_number_str",
    "loads_strict",
    "ngram_counts",
    "segment_stats",
    "smooth",
    "smoothed_bleu",
    "to_fixed",
    "to_fixed_str",
    "validate_request",
]
