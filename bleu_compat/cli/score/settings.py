"""What changes the number: smoothing names, the largest n-gram order, and the signature."""

from __future__ import annotations

__all__ = ["SMOOTH_CARD", "MAX_ORDER", "signature"]

#: sacreBLEU's smoothing names (-s) and the card's methods (bleu-smoothing-compute)
SMOOTH_CARD = {"none": "none", "floor": "method1", "add-k": "method2", "exp": "method3"}


#: The largest --max-order: the cards' schema maximum (bleu-corpus-compute max_order <= 8).
MAX_ORDER = 8


#: sacreBLEU's default smoothing values, written into the signature when none is given
_SMOOTH_DEFAULT_VALUES = {"floor": 0.1, "add-k": 1.0}


def signature(n_refs: int, *, lowercase: bool, tokenize: str, smooth: str,
              smooth_value: float | None = None, max_order: int = 4,
              effective_order: bool = False) -> str:
    """The card's signature in sacreBLEU's style (SPEC.md §8), ``...|bleu-compat:VERSION`` last.

    E.g. ``nrefs:4|case:mixed|eff:no|tok:13a|smooth:none|bleu-compat:0.1.0``. Every
    setting that changes the number is there: floor's and add-k's value as
    sacreBLEU writes it (``floor[0.10]``, ``add-k[1.00]``, the default when none
    is given) and ``order:N`` when the largest n-gram order is not 4.
    """
    from bleu_compat import __version__

    if smooth in _SMOOTH_DEFAULT_VALUES:
        value = _SMOOTH_DEFAULT_VALUES[smooth] if smooth_value is None else smooth_value
        smooth = f"{smooth}[{value:.2f}]"
    from bleu_compat.tokenizers import SEGMENTERS, tokenizer_signature

    if tokenize in SEGMENTERS:  # sacreBLEU's value: the segmenter's version or model name
        tokenize = tokenizer_signature(tokenize)
    order = f"|order:{max_order}" if max_order != 4 else ""
    eff = "yes" if effective_order else "no"
    return (f"nrefs:{n_refs}|case:{'lc' if lowercase else 'mixed'}|eff:{eff}|tok:{tokenize}"
            f"|smooth:{smooth}{order}|bleu-compat:{__version__}")
