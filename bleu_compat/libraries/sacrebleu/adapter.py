"""sacreBLEU adapter: a card request run through ``sacrebleu.metrics.BLEU``.

Two modes (SPEC.md §7):

* ``as_called`` — what a user gets calling sacreBLEU the usual way:
  ``BLEU(tokenize='none', smooth_method='none', max_ngram_order=N)
  .corpus_score(hypotheses joined by ' ', reference streams)``. A segment
  with fewer references than the others is padded with ``''`` in the
  missing streams: that is what line-aligned reference files give (an empty
  line) and what sacreBLEU's docstring offers first ("A particular
  reference segment can be '' or None"); sacreBLEU counts ``''`` as an
  empty reference of length 0 (catalog ``SACREBLEU-EMPTY-STRING-PADDING``).
  The smoothing tool calls ``BLEU.compute_bleu`` with ``smooth_method``
  ``none``/``floor``/``add-k``/``exp`` and sacreBLEU's own defaults; its
  reported ``counts``/``totals`` are the smoothed counts a user sees. The
  brevity tool uses sacreBLEU's closest-length rule
  (``BLEU._get_closest_ref_len``) and ``BLEU.compute_bleu(...).bp``.
* ``mapped`` — everything the adapter can honestly do to make sacreBLEU
  compute the card's semantics: every distinct token is replaced by a
  whitespace-free surrogate (``t0``, ``t1``, … in order of first
  appearance, the same map for hypotheses and references) so that tokens
  containing whitespace survive ``str.split``; missing references are
  padded with ``None`` ("no reference"), an empty reference is ``''``;
  method1 ↔ ``floor`` with ``smooth_value=epsilon``, method2 ↔ ``add-k``
  with ``smooth_value=1``, method3 ↔ ``exp``; ``effective_order`` and
  ``max_ngram_order`` passed through; the 0–100 score divided by 100;
  smoothed counts recovered exactly from sacreBLEU's precisions.

Versions: the adapter dispatches on the installed release (:func:`api`).
sacreBLEU 2.x is called as above. sacreBLEU 1.4–1.5 has no ``BLEU(tokenize=...)``
and no max order: the corpus tool calls its ``corpus_bleu(sys_stream,
ref_streams, smooth_method='none', tokenize='none', force=True)``, the
smoothing tool ``BLEU.compute_bleu(correct, total, sys_len, ref_len,
smooth_method=..., smooth_value=..., use_effective_order=...)`` and the
brevity tool ``BLEU.reference_stats``; a request for other than 4 orders is
``not_representable`` there (``BLEU.NGRAM_ORDER`` is 4). Releases before 1.4
(module-level ``corpus_bleu(..., smooth=..., smooth_floor=...)``) are not
supported: :func:`api` raises ``OracleUnavailableError`` naming the version.

Both modes pass copies of the request's lists (``compute_bleu`` mutates its
list arguments under ``add-k``) and never mutate the request. ``decimals``
is applied to the library's doubles with :func:`bleu_compat.rounding.to_fixed`;
``raw`` keeps sacreBLEU's unrounded values.
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

from bleu_compat.libraries import AdapterResult, NotRepresentable, dispatch, library_version
from bleu_compat.rounding import to_fixed

__all__ = ["run", "score_lines", "check_release", "SMOOTH_METHODS", "encode_tokens", "api",
           "check_spm_model", "tokenizer_signature"]

LIBRARY = "sacrebleu"

#: Card smoothing → sacreBLEU ``smooth_method`` (Chen & Cherry 2014 numbering).
SMOOTH_METHODS = {"none": "none", "method1": "floor", "method2": "add-k", "method3": "exp"}


def run(mode: str, tool_id: str, request: dict[str, Any]) -> AdapterResult:
    """Run sacreBLEU on a validated card ``request`` in ``mode``.

    Args:
        mode: ``"as_called"`` or ``"mapped"``.
        tool_id: one of the three card ids.
        request: a request the card's validation accepted; never mutated.

    Returns:
        An :class:`AdapterResult`; ``error`` is set (``output`` None) when
        sacreBLEU raised.

    Raises:
        ValueError: unknown mode or tool.
        OracleUnavailableError: sacreBLEU is not installed.
    """
    api()
    handlers = {
        "bleu-corpus-compute": _corpus,
        "bleu-smoothing-compute": _smoothing,
        "bleu-brevity-penalty": _brevity,
    }
    return dispatch(LIBRARY, mode, tool_id, request, handlers)


def api(version: str | None = None) -> int:
    """The sacreBLEU API generation of ``version`` (default: the installed one): 1 or 2.

    1 is sacreBLEU 1.4–1.5 (``sacrebleu.corpus_bleu(..., smooth_method=...)``,
    ``BLEU.compute_bleu(..., use_effective_order=...)``), 2 is 2.x
    (``sacrebleu.metrics.BLEU(tokenize=..., max_ngram_order=...)``).

    Raises:
        OracleUnavailableError: sacreBLEU is not installed, or its release
            predates 1.4 (a module-level API the adapter does not speak).
    """
    from packaging.version import Version

    from bleu_compat.errors import OracleUnavailableError

    version = version or library_version(LIBRARY)
    v = Version(version)
    if v >= Version("2"):
        return 2
    if v >= Version("1.4"):
        return 1
    raise OracleUnavailableError(
        f"sacreBLEU {version} is installed, but releases before 1.4 (module-level "
        "corpus_bleu(..., smooth=..., smooth_floor=...)) are not supported by the adapter")


def check_release(version: str) -> None:
    """Raise ``OracleUnavailableError`` when the adapter cannot speak sacreBLEU ``version``
    (releases before 1.4); see :func:`api`."""
    api(version)


def check_spm_model(tokenize: str) -> None:
    """Before sacreBLEU builds a SentencePiece tokenizer: its model file must be where the
    installed sacreBLEU reads it, and be the file bleu-compat tokenizes with, since
    sacreBLEU downloads a missing model and bleu-compat fetches nothing from the network.

    sacreBLEU's place is ``os.path.join(SACREBLEU_DIR, "models",
    basename(SPM_MODELS[tokenize]["url"]))`` (tokenizer_spm.py, 2.3.0 to 2.6.0; 2.1-2.2:
    ``flores_sacrebleu_tokenizer_spm.model`` for ``spm``), read from the installed release's
    module (its ``SACREBLEU_DIR`` is the one it uses: ``$SACREBLEU`` as it was when
    sacreBLEU was imported).
    Any other tokenizer: nothing to check.

    Raises:
        SegmenterUnavailable: the file is absent there (sacreBLEU would download it), or
            differs from the model bleu-compat uses (``--spm-model`` given another file).
    """
    from bleu_compat.tokenizers.segmenters import (
        SPM, SegmenterUnavailable, model_path, spm_model,
    )

    if tokenize not in SPM:
        return
    import os

    from sacrebleu.tokenizers import tokenizer_spm

    models = getattr(tokenizer_spm, "SPM_MODELS", None)
    if models is not None and tokenize not in models:
        raise SegmenterUnavailable(f"sacreBLEU {library_version(LIBRARY)} has no -tok {tokenize}")
    if models is not None:
        theirs = os.path.join(tokenizer_spm.SACREBLEU_DIR, "models",
                              os.path.basename(models[tokenize]["url"]))
    else:  # 2.1-2.2: one model, "spm" only
        theirs = os.path.join(tokenizer_spm.SACREBLEU_DIR, "models",
                              "flores_sacrebleu_tokenizer_spm.model")
    if not os.path.isfile(theirs):
        raise SegmenterUnavailable(
            f"sacreBLEU {library_version(LIBRARY)} reads the -tok {tokenize} model from {theirs}, "
            "which is absent, and would download it; bleu-compat fetches nothing: put the "
            f"model there (the file {model_path(tokenize)} bleu-compat uses) to compare")
    ours = spm_model(tokenize)
    if os.path.realpath(theirs) != os.path.realpath(ours.path):
        import hashlib

        with open(theirs, "rb") as handle:
            digest = hashlib.sha256(handle.read()).hexdigest()
        if digest != ours.sha256:
            raise SegmenterUnavailable(
                f"sacreBLEU reads the -tok {tokenize} model from {theirs} (sha256 {digest}), "
                f"bleu-compat from {ours.path} (sha256 {ours.sha256}): not the same model, so "
                "the comparison would compare two segmentations; give the same file")


def score_lines(cfg: Any, hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]]) -> float:
    """sacreBLEU's own ``score`` (0–100) for a ``score --compare`` configuration, on raw lines.

    ``BLEU(lowercase, tokenize, smooth_method, smooth_value, max_ngram_order,
    effective_order).corpus_score(hyps, refs).score`` (``tok=split`` is
    sacreBLEU's ``none``); with ``aggregation="sentence-mean"``, the plain mean
    of ``sentence_score(h, refs).score`` over the segments (what
    ``sacrebleu.sentence_bleu`` computes per segment: it builds this same BLEU
    object and calls ``sentence_score``).

    Args:
        cfg: a :class:`bleu_compat.decompose.Configuration` of sacreBLEU.
        hyp_lines: one line per segment; ref_lines: ``ref_lines[k]`` is reference file k.
    """
    from sacrebleu.metrics import BLEU

    check_spm_model(cfg.tokenize)
    kwargs: dict[str, Any] = {}
    if cfg.smooth_value is not None:
        kwargs["smooth_value"] = cfg.smooth_value
    metric = BLEU(lowercase=cfg.lowercase,
                  tokenize="none" if cfg.tokenize == "split" else cfg.tokenize,
                  smooth_method=cfg.smoothing, max_ngram_order=cfg.max_order,
                  effective_order=cfg.effective_order, **kwargs)
    if cfg.aggregation == "sentence-mean":
        scores = [metric.sentence_score(h, list(refs)).score
                  for h, refs in zip(hyp_lines, zip(*ref_lines))]
        return float(sum(scores) / len(scores))
    return float(metric.corpus_score(list(hyp_lines), [list(r) for r in ref_lines]).score)


#: the most reference tokens the 1.x brevity adapter writes out as strings
_V1_BREVITY_TOKENS = 100_000

_FOUR_ORDERS_ONLY = ("sacreBLEU 1.x computes exactly 4 n-gram orders (BLEU.NGRAM_ORDER = 4) and "
                     "has no max order argument: {n} orders cannot be given to it")


def _none_allowed() -> bool:
    """True when this 1.x release accepts None for a missing reference (1.5; not 1.4.14)."""
    from packaging.version import Version

    return Version(library_version(LIBRARY)) >= Version("1.5")


def _score_v1(hyps: list[str], streams: list[list[str | None]]) -> Any:
    import sacrebleu

    return sacrebleu.corpus_bleu(hyps, streams, smooth_method="none", tokenize="none", force=True)


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None else to_fixed(float(value), decimals)


def encode_tokens(
    hypotheses: list[list[str]], references: list[list[list[str]]]
) -> tuple[list[str], list[list[str]], dict[str, str]]:
    """Whitespace-free surrogates for every distinct token.

    Returns:
        ``(hyps, refs, mapping)``: ``hyps[i]`` the encoded hypothesis string,
        ``refs[i][k]`` the encoded reference strings of segment i, and the
        token → surrogate map. Distinct tokens get distinct surrogates and
        equal tokens equal ones, so n-gram counts and matches are unchanged.
    """
    mapping: dict[str, str] = {}

    def enc(tokens: list[str]) -> str:
        out = []
        for t in tokens:
            s = mapping.get(t)
            if s is None:
                s = mapping[t] = f"t{len(mapping)}"
            out.append(s)
        return " ".join(out)

    hyps = [enc(h) for h in hypotheses]
    refs = [[enc(r) for r in seg] for seg in references]
    return hyps, refs, mapping


def _corpus(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    from sacrebleu.metrics import BLEU

    hypotheses, references = request["hypotheses"], request["references"]
    max_order = request.get("max_order", 4)
    decimals = request.get("decimals")
    if mode == "mapped":
        hyps, refs, mapping = encode_tokens(hypotheses, references)
        pad: str | None = None
        raw["token_encoding"] = f"{len(mapping)} distinct tokens mapped to surrogates t0..t{len(mapping) - 1}"
    else:
        hyps = [" ".join(h) for h in hypotheses]
        refs = [[" ".join(r) for r in seg] for seg in references]
        pad = ""
    n_streams = max(len(seg) for seg in refs)
    streams = [[seg[k] if k < len(seg) else pad for seg in refs] for k in range(n_streams)]
    raw["reference_padding"] = repr(pad)
    if api() == 1:
        if max_order != 4:
            raise NotRepresentable(_FOUR_ORDERS_ONLY.format(n=max_order))
        if pad is None and any(x is None for stream in streams for x in stream) and not _none_allowed():
            raise NotRepresentable(
                f"sacreBLEU {library_version(LIBRARY)} has no variable reference counts: "
                "corpus_score reads the streams with zip_longest and raises EOFError on a None "
                "reference (an empty string would be an empty reference)")
        score = _score_v1(hyps, streams)
    else:
        metric = BLEU(tokenize="none", smooth_method="none", max_ngram_order=max_order)
        score = metric.corpus_score(hyps, streams)
    raw.update(
        score=score.score, bp=score.bp, counts=[int(x) for x in score.counts],
        totals=[int(x) for x in score.totals], precisions=list(score.precisions),
        sys_len=int(score.sys_len), ref_len=int(score.ref_len),
    )
    return {
        "bleu": _round(score.score / 100, decimals),
        "brevity_penalty": _round(score.bp, decimals),
        "candidate_length": int(score.sys_len),
        "reference_length": int(score.ref_len),
        "max_order": max_order,
        "matches": [int(x) for x in score.counts],
        "totals": [int(x) for x in score.totals],
    }


def _smoothing(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    from sacrebleu.metrics import BLEU

    matches, totals = list(request["matches"]), list(request["totals"])
    n_orders = len(matches)
    method = SMOOTH_METHODS[request["smoothing"]]
    effective_order = bool(request.get("effective_order", False))
    decimals = request.get("decimals")
    if method == "floor":
        smooth_value: float | None = request.get("epsilon") if mode == "as_called" else request.get("epsilon", 0.1)
    elif method == "add-k":
        smooth_value = None if mode == "as_called" else 1
    else:
        smooth_value = None
    correct_arg, total_arg = list(matches), list(totals)  # copies: add-k mutates them
    generation = api()
    if generation == 1:
        if n_orders != 4:
            raise NotRepresentable(_FOUR_ORDERS_ONLY.format(n=n_orders))
        score = BLEU.compute_bleu(
            correct_arg, total_arg, request["candidate_length"], request["reference_length"],
            smooth_method=method, smooth_value=smooth_value, use_effective_order=effective_order,
        )
    else:
        score = BLEU.compute_bleu(
            correct_arg, total_arg, request["candidate_length"], request["reference_length"],
            smooth_method=method, smooth_value=smooth_value, effective_order=effective_order,
            max_ngram_order=n_orders,
        )
    counts = [_num(x) for x in score.counts]
    score_totals = [_num(x) for x in score.totals]
    raw.update(
        smooth_method=method, smooth_value=smooth_value, score=score.score, bp=score.bp,
        counts=counts, totals=score_totals, precisions=list(score.precisions),
        sys_len=int(score.sys_len), ref_len=int(score.ref_len),
        arguments_after_call={"correct": [_num(x) for x in correct_arg],
                              "total": [_num(x) for x in total_arg]},
        arguments_mutated=(correct_arg != matches or total_arg != totals),
    )
    # Which orders sacreBLEU's loop reached: 2.x returns before the loop when
    # no order has a match (#141; 1.x runs it) and stops at the first total of 0.
    reached = 0
    loop_runs = any(matches) or generation == 1
    if loop_runs:
        for t in score_totals:
            if t == 0:
                break
            reached += 1
    raw["orders_reached"] = reached
    if effective_order:
        orders_used = reached if loop_runs else _leading_positive(score_totals)
    else:
        orders_used = n_orders
    if mode == "as_called":
        smoothed_matches, smoothed_totals = counts, score_totals
    else:
        smoothed_matches = _recover_numerators(
            method, smooth_value, counts, score_totals, list(score.precisions), reached
        )
        smoothed_totals = score_totals
    return {
        "bleu": _round(score.score / 100, decimals),
        "brevity_penalty": _round(score.bp, decimals),
        "orders_used": orders_used,
        "smoothed_matches": smoothed_matches,
        "smoothed_totals": smoothed_totals,
    }


def _num(x: Any) -> int | float:
    """An int when integral-typed, else a float (JSON-friendly)."""
    if isinstance(x, bool):
        return int(x)
    return x if isinstance(x, int) else float(x)


def _leading_positive(totals: list[Any]) -> int:
    k = 0
    for t in totals:
        if t <= 0:
            break
        k += 1
    return k


def _recover_numerators(
    method: str,
    smooth_value: float | None,
    counts: list[Any],
    totals: list[Any],
    precisions: list[float],
    reached: int,
) -> list[Any]:
    """The numerator sacreBLEU used for each order's precision, exactly.

    sacreBLEU reports only ``precisions`` (0–100) for smoothed zero-match
    orders: ``100 * smooth_value / total`` under ``floor`` and
    ``100 / (2^k * total)`` under ``exp``. The numerator is recovered as
    ``smooth_value`` or ``1/2^k`` and checked to reproduce the precision
    bit for bit; orders the loop never reached keep their unsmoothed count.
    """
    out: list[Any] = list(counts)
    mteval = 1.0
    for n in range(reached):
        if counts[n] != 0:
            continue
        if method == "floor":
            if smooth_value is None or 100.0 * smooth_value / totals[n] != precisions[n]:  # pragma: no cover - library changed
                raise RuntimeError(f"cannot recover the floor numerator of order {n + 1}")
            out[n] = smooth_value
        elif method == "exp":
            mteval *= 2
            if 100.0 / (mteval * totals[n]) != precisions[n]:  # pragma: no cover - library changed
                raise RuntimeError(f"cannot recover the exp numerator of order {n + 1}")
            out[n] = 1 / mteval
    return out


def _brevity(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    from sacrebleu.metrics import BLEU

    c = sum(seg["candidate_length"] for seg in request["segments"])
    if api() == 1:
        # 1.x: BLEU.reference_stats(ref strings, hyp length) -> (ngrams, closest_diff, closest_len);
        # it takes the references as text, so lengths become strings of that many tokens
        text_tokens = sum(sum(seg["reference_lengths"]) for seg in request["segments"])
        if text_tokens > _V1_BREVITY_TOKENS:
            raise NotRepresentable(
                f"sacreBLEU 1.x has no closest-length function on lengths (BLEU.reference_stats "
                f"takes reference strings and counts their n-grams): {text_tokens} reference "
                f"tokens exceed the adapter's {_V1_BREVITY_TOKENS} for such strings")
        closest = [
            int(BLEU.reference_stats([" ".join(["x"] * n) for n in seg["reference_lengths"]],
                                     seg["candidate_length"])[2])
            for seg in request["segments"]
        ]
        r = sum(closest)
        score = BLEU.compute_bleu([0] * 4, [0] * 4, c, r)
        functions = "BLEU.reference_stats per segment; BLEU.compute_bleu(...).bp"
    else:
        metric = BLEU(tokenize="none", smooth_method="none")
        closest = [
            int(metric._get_closest_ref_len(seg["candidate_length"], list(seg["reference_lengths"])))
            for seg in request["segments"]
        ]
        r = sum(closest)
        score = BLEU.compute_bleu([0], [0], c, r, max_ngram_order=1)
        functions = "BLEU._get_closest_ref_len per segment; BLEU.compute_bleu(...).bp"
    raw.update(closest_ref_lens=closest, sys_len=c, ref_len=r, bp=score.bp, functions=functions)
    return {
        "candidate_length": c,
        "reference_length": r,
        "closest_reference_lengths": closest,
        "brevity_penalty": _round(score.bp, request.get("decimals")),
    }


#: sacreBLEU's default smoothing values (``BLEU.SMOOTH_DEFAULTS``): floor's epsilon, add-k's k
_SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}


def tokenizer_signature(tokenize: str) -> str:
    """The installed sacreBLEU's ``tok:`` value for ``tokenize``: the name, or for a
    tokenizer that calls MeCab or SentencePiece its tokenizer object's ``signature()``
    (``ja-mecab-0.996-IPA``, ``flores101`` for ``spm``), asked of the installed release."""
    from bleu_compat.tokenizers import SEGMENTERS

    if tokenize not in SEGMENTERS:
        return tokenize
    return _segmenter_signature(tokenize)


@functools.lru_cache(maxsize=None)
def _segmenter_signature(tokenize: str) -> str:
    check_spm_model(tokenize)  # sacreBLEU's SPM tokenizer downloads a missing model
    import logging

    from sacrebleu.metrics.bleu import _get_tokenizer

    logging.getLogger("sacrebleu").setLevel(logging.ERROR)  # 'spm' has been changed ...
    return str(_get_tokenizer(tokenize)().signature())


def signature_text(cfg: Any, n_refs: int) -> str:
    """The signature the installed sacreBLEU prints for a corpus-BLEU configuration ``cfg``.

    ``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0`` (sacreBLEU's
    ``BLEUSignature``: floor's and add-k's value written ``[0.10]``), with ``order:N``
    before the version when the max order is not 4: sacreBLEU's own signature does
    not record ``max_ngram_order``, and a number to report must say it (issue 23).
    """
    smooth = cfg.smoothing
    default = _SMOOTH_DEFAULTS.get(smooth)
    if default is not None:
        smooth += f"[{(default if cfg.smooth_value is None else cfg.smooth_value):.2f}]"
    fields = [f"nrefs:{n_refs}", f"case:{'lc' if cfg.lowercase else 'mixed'}",
              f"eff:{'yes' if cfg.effective_order else 'no'}",
              f"tok:{tokenizer_signature(cfg.tokenize)}",
              f"smooth:{smooth}"]
    if cfg.max_order != 4:
        fields.append(f"order:{cfg.max_order}")
    return "|".join(fields + [f"version:{library_version('sacrebleu')}"])


def call_text(cfg: Any, n_refs: int = 1) -> str:
    """How ``score --compare`` names this configuration in sacreBLEU's own words: its signature
    (a sentence average is ``sentence_bleu`` averaged, which has no corpus signature)."""
    if cfg.aggregation != "corpus":
        return (f"call mean of sacrebleu.sentence_bleu(hyp, refs, smooth_method={cfg.smoothing!r}, "
                f"tokenize={cfg.tokenize!r}) over the segments; signature "
                + signature_text(cfg, n_refs))
    return "signature " + signature_text(cfg, n_refs)
