"""What changes the number: smoothing names, the largest n-gram order, and the signature."""

from __future__ import annotations

__all__ = ["SMOOTH_CARD", "MAX_ORDER", "signature"]

#: sacreBLEU's smoothing names (-s) and the card's methods (bleu-smoothing-compute)
SMOOTH_CARD = {"none": "none", "floor": "method1", "add-k": "method2", "exp": "method3"}


#: The largest --max-order: the cards' schema maximum (bleu-corpus-compute max_order <= 8).
MAX_ORDER = 8


def signature(n_refs: int, *, lowercase: bool, tokenize: str, smooth: str,
              smooth_value: float | None = None) -> str:
    """sacreBLEU's signature style (SPEC.md §8), ``...|bleu-compat:VERSION`` last.

    E.g. ``nrefs:4|case:mixed|eff:no|tok:13a|smooth:none|bleu-compat:0.1.0``.
    """
    from bleu_compat import __version__

    if smooth_value is not None and smooth in ("floor", "add-k"):
        smooth = f"{smooth}[{smooth_value:g}]"
    return (f"nrefs:{n_refs}|case:{'lc' if lowercase else 'mixed'}|eff:no|tok:{tokenize}"
            f"|smooth:{smooth}|bleu-compat:{__version__}")
