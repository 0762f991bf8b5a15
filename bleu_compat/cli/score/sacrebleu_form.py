"""``score REF ... -i SYS ...``: sacreBLEU's command line, its numbers and its output bytes.

What the ``sacrebleu`` command (release :data:`SACREBLEU_RELEASE`) prints on
standard output for corpus BLEU, reproduced from the sufficient statistics
counted by bleu-compat (the same tokens: :mod:`bleu_compat.tokenizers`):

* the score in sacreBLEU's arithmetic (:func:`sacrebleu_bleu`), which is not
  the card's: precisions on the 0–100 scale, ``log`` of 0 replaced by
  ``-9999999999``, the orders summed left to right (the catalog's
  ``SACREBLEU-FLOAT-ORDER`` entries say where the last bits differ);
* its rounding: Python's ``format`` (round half to even on the double's exact
  value), not JavaScript's ``toFixed`` (half away from zero), which the card's
  outputs use;
* its output forms: one JSON object for one system (default), the
  ``BLEU|signature = ...`` line (``-f text``), the score alone (``-b``); for
  several systems a JSON list (default) or a ``tabulate`` table (``-f text``,
  ``-f latex``) followed by the signatures;
* its signature, ``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0``,
  with ``|bleu-compat:VERSION`` after it (the one difference: the number was
  computed by bleu-compat, in the dialect of that sacreBLEU release) and
  ``order:N`` before the version when ``--max-order`` is not 4 (sacreBLEU's
  command line has no such option; its signature would not record it).

Facts read from sacreBLEU 2.6.0's source (``sacrebleu/metrics/bleu.py``
``BLEU.compute_bleu`` and ``BLEUSignature``; ``metrics/base.py``
``Score.format`` and ``Signature.format``; ``utils.py`` ``my_log``,
``print_single_results``, ``print_results_table``); the test
``oracle_tests/test_score_sacrebleu_cli.py`` runs the real command beside this
one and compares the bytes.
"""

from __future__ import annotations

import math
# typing is not imported at run time (issue 34: 2 ms of every command's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Sequence

__all__ = [
    "SACREBLEU_RELEASE",
    "SMOOTH_DEFAULTS",
    "SacreBleuScore",
    "sacrebleu_bleu",
    "signature",
    "single_system",
    "several_systems",
]

#: The sacreBLEU release whose command line this reproduces, byte for byte (the
#: test compares with the installed ``sacrebleu`` command when it is this release).
SACREBLEU_RELEASE = "2.6.0"

#: sacreBLEU's default smoothing values: floor's epsilon, add-k's k (the others take none).
SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}

#: ``log(0)`` in sacreBLEU's arithmetic (its ``my_log``).
LOG_ZERO = -9999999999


class SacreBleuScore:
    """One system's corpus BLEU as sacreBLEU computes it (0–100 scale).

    Attributes:
        score: BLEU, 0–100.
        precisions: the n-gram precisions, 0–100 (smoothed where smoothing applied).
        bp: the brevity penalty, 0–1.
        sys_len, ref_len: candidate and reference length (tokens).
    """

    def __init__(self, score: float, precisions: list[float], bp: float,
                 sys_len: int, ref_len: int) -> None:
        self.score, self.precisions, self.bp = score, precisions, bp
        self.sys_len, self.ref_len = sys_len, ref_len

    @property
    def ratio(self) -> float:
        """Candidate / reference length; 0 when the reference length is 0 (as sacreBLEU)."""
        return self.sys_len / self.ref_len if self.ref_len else 0

    def verbose(self) -> str:
        """``59.9/34.0/21.8/14.4 (BP = 1.000 ratio = 1.026 hyp_len = 62873 ref_len = 61287)``."""
        precisions = "/".join(f"{p:.1f}" for p in self.precisions)
        return (f"{precisions} (BP = {self.bp:.3f} ratio = {self.ratio:.3f} "
                f"hyp_len = {self.sys_len:d} ref_len = {self.ref_len:d})")


def sacrebleu_bleu(matches: Sequence[int], totals: Sequence[int], sys_len: int, ref_len: int, *,
                   smooth_method: str = "exp", smooth_value: float | None = None,
                   effective_order: bool = False) -> SacreBleuScore:
    """Corpus BLEU from sufficient statistics in sacreBLEU's arithmetic and smoothing.

    Args:
        matches, totals: clipped matches and totals per order, 1..N (N = ``len(matches)``).
        sys_len, ref_len: candidate length and (closest) reference length.
        smooth_method: ``none``, ``floor`` (zero-match precisions become
            ``100 * value / total``), ``add-k`` (``value`` added to matches and
            totals from order 2 on), ``exp`` (the k-th zero-match precision becomes
            ``100 / (2**k * total)``): Chen and Cherry (2014), methods 1–3.
        smooth_value: floor's epsilon or add-k's k (default :data:`SMOOTH_DEFAULTS`).
        effective_order: average over the orders up to the last one with a positive total.

    Order of operations (sacreBLEU 2.6.0 ``compute_bleu``): the brevity penalty
    ``exp(1 - ref_len / sys_len)`` when ``sys_len < ref_len`` (0 when ``sys_len``
    is 0); no match at any order gives 0 at once, unsmoothed; orders are visited
    from 1 and the first with a total of 0 ends the loop (its precision and
    the later ones stay 0); each precision is ``100. * m / t``; the score is
    ``bp * exp(s / N)`` where ``s`` is the built-in ``sum`` of the list of ``log(p)``
    (``-9999999999`` for 0), order by order. ``matches`` and ``totals`` may be numpy
    arrays (sacreBLEU's resampled sums): the arithmetic is then numpy's on their dtype.
    """
    if smooth_value is None:
        smooth_value = SMOOTH_DEFAULTS[smooth_method]
    max_order = len(matches)
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    precisions: list[Any] = [0.0] * max_order
    if not any(matches):
        return SacreBleuScore(0.0, precisions, bp, sys_len, ref_len)
    # numpy rows (the bootstrap's float32 sums, the randomization test's int64 sums) keep
    # their type: add-k's value is stored back into the row's dtype, as sacreBLEU's in-place
    # addition stores it; Python numbers stay Python numbers
    array = hasattr(matches, "dtype")
    m: Any = matches.copy() if array else list(matches)  # type: ignore[union-attr]
    t: Any = totals.copy() if array else list(totals)  # type: ignore[union-attr]
    halvings = 1.0
    orders = max_order
    for n in range(max_order):
        if smooth_method == "add-k" and n > 0:
            m[n] = m[n] + smooth_value
            t[n] = t[n] + smooth_value
        if t[n] == 0:
            break
        if effective_order:
            orders = n + 1
        if m[n] == 0:
            if smooth_method == "exp":
                halvings *= 2
                precisions[n] = 100. / (halvings * t[n])
            elif smooth_method == "floor":
                precisions[n] = 100. * smooth_value / t[n]  # type: ignore[operator]
        else:
            precisions[n] = 100. * m[n] / t[n]
    # the built-in sum over a list, as sacreBLEU adds them (Python 3.12's sum compensates
    # its rounding: a loop of additions would differ there in the last bits)
    log_sum = sum([LOG_ZERO if p == 0.0 else math.log(p) for p in precisions[:orders]])
    return SacreBleuScore(bp * math.exp(log_sum / orders), precisions, bp, sys_len, ref_len)


#: sacreBLEU's short signature keys (``--short``)
_SHORT = {"nrefs": "#", "case": "c", "eff": "e", "tok": "tok", "smooth": "s", "version": "v",
          "bs": "bs", "ar": "ar", "seed": "rs"}


def signature_fields(n_refs: int, *, lowercase: bool, tokenize: str, smooth_method: str,
                     smooth_value: float | None, max_order: int = 4,
                     effective_order: bool = False,
                     resampling: Sequence[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """The signature's (key, value) pairs, in sacreBLEU's order, bleu-compat's version last.

    ``tok`` is sacreBLEU's value for the tokenizer (``ja-mecab-0.996-IPA``, ``flores101``
    for ``spm``: :func:`bleu_compat.tokenizers.tokenizer_signature`). ``resampling``:
    sacreBLEU's ``bs`` (bootstrap resamples), ``ar`` (randomization trials) and ``seed``
    pairs, which its signature puts right after ``nrefs``.
    """
    from bleu_compat import __version__

    smooth = smooth_method
    default = SMOOTH_DEFAULTS[smooth_method]
    if default is not None:  # floor and add-k: the value, as sacreBLEU writes it ([0.10])
        smooth += f"[{(default if smooth_value is None else smooth_value):.2f}]"
    from bleu_compat.tokenizers import tokenizer_signature

    fields = [("nrefs", str(n_refs)), *resampling, ("case", "lc" if lowercase else "mixed"),
              ("eff", "yes" if effective_order else "no"), ("tok", tokenizer_signature(tokenize)),
              ("smooth", smooth)]
    if max_order != 4:
        fields.append(("order", str(max_order)))
    return fields + [("version", SACREBLEU_RELEASE), ("bleu-compat", __version__)]


def signature(fields: list[tuple[str, str]], short: bool = False) -> str:
    """``nrefs:1|case:mixed|...|version:2.6.0|bleu-compat:0.1.0`` (``short``: sacreBLEU's ``-sh`` keys)."""
    return "|".join(f"{_SHORT.get(k, k) if short else k}:{v}" for k, v in fields)


def single_system(result: SacreBleuScore, fields: list[tuple[str, str]], *, width: int,
                  fmt: str, score_only: bool, short: bool,
                  confidence: tuple[float, float] | None = None, color: bool = False) -> str:
    """What ``sacrebleu`` prints for one system (without the final newline).

    ``fmt`` ``json`` (the object: name, score, signature, verbose_score, then
    every signature field), ``text`` or ``latex`` (``BLEU|SIGNATURE = SCORE
    VERBOSE``; the signature short with ``short``); ``score_only``: the score alone.
    ``confidence``: ``-ci``'s (mean, half-width), printed as ``(μ = MEAN ± HALF)``
    after the score when the mean is above 0 (in JSON also as ``confidence_mean``,
    ``confidence_var`` and ``confidence``), in cyan with ``color`` (sacreBLEU's
    terminal colour; never in JSON).
    """
    score = f"{result.score:.{width}f}"
    extra: dict[str, Any] = {}
    if confidence is not None and confidence[0] > 0:
        mean, half = f"{confidence[0]:.{width}f}", f"{confidence[1]:.{width}f}"
        extra = {"confidence_mean": float(mean), "confidence_var": float(half),
                 "confidence": f"μ = {mean} ± {half}"}
        score += f" ({extra['confidence']})"
    if score_only or fmt != "json":
        line = score if score_only else f"BLEU|{signature(fields, short)} = {score} {result.verbose()}"
        if extra and color and fmt != "json":
            import re

            line = re.sub(r"(\(μ = [0-9\.]+ ± [0-9\.]+\))",
                          lambda m: f"\x1b[36m{m.group()}\x1b[0m", line)
        return line
    import json

    doc: dict[str, Any] = {"name": "BLEU", "score": float(f"{result.score:.{width}f}"),
                           "signature": signature(fields), **extra,
                           "verbose_score": result.verbose()}
    doc.update(fields)
    return json.dumps(doc, indent=1, ensure_ascii=False)


def several_systems(names: Sequence[str], results: Sequence[SacreBleuScore],
                    fields: list[tuple[str, str]], *, width: int, fmt: str, short: bool,
                    color: bool) -> str:
    """What ``sacrebleu`` prints for several systems (without the final newline).

    ``json``: a list of ``{"system": NAME, "BLEU": "SCORE"}`` (the score a
    string); ``text`` (a ``fancy_grid`` table) or ``latex`` (``latex_booktabs``),
    made by ``tabulate`` as sacreBLEU makes it, then a blank line and the
    signatures. ``color``: the column names in cyan (sacreBLEU colours them
    when its output is a terminal).
    """
    scores = [f"{r.score:.{width}f}" for r in results]
    if fmt == "json":
        import json

        return json.dumps([{"system": n, "BLEU": s} for n, s in zip(names, scores)], indent=4)
    from tabulate import tabulate

    def cyan(text: str) -> str:
        return f"\x1b[36m{text}\x1b[0m" if color else text

    table = tabulate({cyan("System"): list(names), cyan("BLEU"): scores}, headers="keys",
                     tablefmt="fancy_grid" if fmt == "text" else "latex_booktabs",
                     colalign=("right",), stralign="center", numalign="center",
                     floatfmt=f".{width}f")
    return (f"{table}\n\n-----------------\nMetric signatures\n-----------------\n"
            f" - {'BLEU':<10} {signature(fields, short)}")
