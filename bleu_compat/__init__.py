"""bleu_compat: exactly specified BLEU, and why sacreBLEU and NLTK disagree.

The public surface: the core arithmetic (standard library only), the tool
layer over the cards (``execute``), and the errors. Adapters, the harness,
the CLI and the HTTP server live in submodules and are imported on demand.
"""

from __future__ import annotations

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
from .jsonio import dumps_js, loads_strict
from .ngrams import ngram_counts
from .rounding import js_number_str, to_fixed, to_fixed_str
from .smoothing import Smoothing, smooth
from .stats import SufficientStats, closest_ref_len, corpus_stats, corpus_stats_iter, segment_stats
from .tools import TOOL_IDS, card, cards, execute, validate_request

__version__ = "0.1.0"

__all__ = [
    "BleuCompatError",
    "BleuResult",
    "BrevityPenaltyResult",
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
