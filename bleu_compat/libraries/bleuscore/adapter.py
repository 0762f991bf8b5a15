"""bleuscore adapter: a card request run through ``bleuscore.compute`` (Rust, PyPI 0.2.0).

bleuscore reimplements HF evaluate's ``bleu`` (the tensorflow/nmt formula and
evaluate's copy of 13a) in Rust: ``compute(references, predictions, max_order=4,
smooth=False, ref_len_method="shortest")`` tokenizes every string with its 13a and
returns the same keys as evaluate's ``bleu``.

Modes (SPEC.md §7):

* ``as_called`` — the corpus tool: ``compute([[refs joined by ' ']], [hyp joined by
  ' '], max_order=N)``: its 13a runs on the card's tokens again (it has no other
  tokenizer). The statistics shown are recovered exactly: the totals from the tokens
  of bleuscore's own ``tokenizer_13a``, each match count ``round(p_n * l_n)``,
  checked to give the returned precision bit for bit.
* ``mapped`` — whitespace-free surrogate tokens (which its 13a keeps whole) and
  ``ref_len_method="closest"``; the brevity penalty's ``1 / ratio`` cannot be mapped.

The smoothing tool runs ``compute`` on a token corpus built with exactly the
request's statistics (:mod:`bleu_compat.libraries.hf_bleu.realize`): ``none`` is
``smooth=False``; as called the card's ``method2`` is ``smooth=True`` (one added to
every order, the unigrams included). The brevity tool is not representable.

A Rust panic (``pyo3_runtime.PanicException``, a ``BaseException``: bleuscore
panics on an empty corpus) is turned into an error, as a library exception is; an
empty corpus is refused before the call.
"""

from __future__ import annotations

from typing import Any, Sequence

from bleu_compat.libraries import AdapterResult, NotRepresentable, dispatch
from bleu_compat.rounding import to_fixed

__all__ = ["tokenize_block", "run", "score_lines", "check_release", "compute", "tokenize_lines", "TOKENIZERS"]

LIBRARY = "bleuscore"
#: the tokenizer the decomposition takes from here: ``tok=bleuscore-13a``, its 13a as modelled
TOKENIZERS = ("bleuscore-13a",)
#: marks a Python-whitespace character inside a token (see :func:`tokenize_lines`)
_ESCAPE = "\U0010fffd"


def run(mode: str, tool_id: str, request: dict[str, Any]) -> AdapterResult:
    """Run bleuscore on a validated card ``request`` in ``mode``.

    Raises:
        ValueError: unknown mode or tool.
        OracleUnavailableError: bleuscore is not installed.
    """
    handlers = {
        "bleu-corpus-compute": _corpus,
        "bleu-smoothing-compute": _smoothing,
        "bleu-brevity-penalty": _brevity,
    }
    return dispatch(LIBRARY, mode, tool_id, request, handlers)


def check_release(version: str) -> None:
    """bleuscore before 0.2 has no ``ref_len_method`` (the mapped mode's closest length).

    Raises:
        OracleUnavailableError: an older release.
    """
    from packaging.version import Version

    from bleu_compat.errors import OracleUnavailableError

    if Version(version) < Version("0.2"):
        raise OracleUnavailableError(f"bleuscore {version} is installed; the adapter speaks 0.2's "
                                     "compute(..., ref_len_method=...) (pip install bleuscore==0.2.0)")


#: the process in which bleuscore's rayon thread pool was started (None: not yet)
_pool_pid: int | None = None
_helper: Any = None

#: the helper interpreter's loop: one JSON request per line in, one JSON answer per line out
_HELPER = """
import json, sys
import bleuscore
for line in sys.stdin:
    references, predictions, kwargs = json.loads(line)
    try:
        answer = {"result": dict(bleuscore.compute(references, predictions, **kwargs))}
    except BaseException as exc:
        answer = {"error": type(exc).__name__ + ": " + str(exc)}
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()
"""


def _in_helper(references: list[list[str]], predictions: list[str], kwargs: dict[str, Any]) -> dict[str, Any]:
    """``bleuscore.compute`` in a helper interpreter of this process (started once)."""
    import json
    import subprocess
    import sys

    global _helper
    if _helper is None or _helper.poll() is not None:
        _helper = subprocess.Popen([sys.executable, "-c", _HELPER], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True, encoding="utf-8")
    _helper.stdin.write(json.dumps([references, predictions, kwargs]) + "\n")
    _helper.stdin.flush()
    line = _helper.stdout.readline()
    if not line:
        raise RuntimeError("bleuscore's helper interpreter ended")
    answer = json.loads(line)
    if "error" in answer:
        raise RuntimeError(f"bleuscore raised {answer['error']}")
    return dict(answer["result"])


def compute(references: Sequence[Sequence[str]], predictions: Sequence[str], **kwargs: Any) -> dict[str, Any]:
    """``bleuscore.compute(references, predictions, **kwargs)``; a Rust panic becomes RuntimeError.

    bleuscore sums its segments on rayon's global thread pool. In a process forked from one
    whose pool was already started (a crosscheck's worker after an in-process run), the pool's
    threads do not exist and a call would wait for them forever: there the call runs in a
    helper interpreter of its own (started once, fed JSON lines), with the same result.

    Raises:
        ValueError: no segment (bleuscore panics on an empty corpus).
        RuntimeError: bleuscore panicked.
    """
    import os

    import bleuscore

    global _pool_pid
    if not predictions:
        raise ValueError("bleuscore needs at least one segment (it panics on an empty corpus)")
    refs, preds = [list(r) for r in references], list(predictions)
    if _pool_pid is not None and _pool_pid != os.getpid():
        return _in_helper(refs, preds, dict(kwargs))
    _pool_pid = os.getpid()
    try:
        return dict(bleuscore.compute(refs, preds, **kwargs))
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as exc:  # pyo3_runtime.PanicException is a BaseException
        if isinstance(exc, Exception):
            raise
        raise RuntimeError(f"bleuscore panicked: {exc}") from None


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None else to_fixed(float(value), decimals)


def _finite(value: Any) -> Any:
    """JSON-safe: a non-finite float as its repr (bleuscore's length_ratio is NaN for c = r = 0)."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return repr(value)
    return value


def _corpus(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    from bleuscore import tokenizer_13a

    from bleu_compat.libraries.hf_bleu.adapter import recover_matches, surrogates

    max_order = request.get("max_order", 4)
    decimals = request.get("decimals")
    if mode == "mapped":
        preds, refs, distinct = surrogates(request["hypotheses"], request["references"])
        kwargs: dict[str, Any] = {"ref_len_method": "closest"}
        raw["token_encoding"] = f"{distinct} distinct tokens mapped to surrogates"
    else:
        preds = [" ".join(h) for h in request["hypotheses"]]
        refs = [[" ".join(r) for r in seg] for seg in request["references"]]
        kwargs = {}
    result = compute(refs, preds, max_order=max_order, **kwargs)
    raw.update({k: _finite(v) for k, v in result.items()})
    matches, totals = recover_matches(result["precisions"], [tokenizer_13a(p) for p in preds],
                                      max_order)
    return {
        "bleu": _round(result["bleu"], decimals),
        "brevity_penalty": _round(result["brevity_penalty"], decimals),
        "candidate_length": int(result["translation_length"]),
        "reference_length": int(result["reference_length"]),
        "max_order": max_order,
        "matches": matches,
        "totals": totals,
    }


def _smoothing(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    from bleu_compat.libraries.hf_bleu.adapter import recover_matches, smoothing_corpus

    hyps, refs, own = smoothing_corpus(request, {"none": "smooth=False", "method2": "smooth=True"},
                                       ("none",), mode, "bleuscore")
    n_orders = len(request["matches"])
    smooth = own == "smooth=True"
    result = compute([[" ".join(r) for r in seg] for seg in refs], [" ".join(h) for h in hyps],
                     max_order=n_orders, smooth=smooth)
    raw.update({k: _finite(v) for k, v in result.items()})
    raw.update(corpus=f"{len(hyps)} segments built with these statistics", call=own)
    matches, totals = recover_matches(result["precisions"], hyps, n_orders, smooth=smooth)
    plus = 1 if smooth else 0
    decimals = request.get("decimals")
    return {
        "bleu": _round(result["bleu"], decimals),
        "brevity_penalty": _round(result["brevity_penalty"], decimals),
        "orders_used": n_orders,
        "smoothed_matches": [m + plus for m in matches],
        "smoothed_totals": [t + plus for t in totals],
    }


def _brevity(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    raise NotRepresentable("bleuscore takes strings, not lengths, and returns only the corpus' "
                           "brevity penalty")


def _whole(token: str) -> str:
    """``token`` with every character Python's ``str.split`` splits on written as ``_ESCAPE`` and
    a letter (and ``_ESCAPE`` itself doubled): an injective spelling without whitespace."""
    if not any(c.isspace() or c == _ESCAPE for c in token):
        return token
    return "".join(_ESCAPE + _ESCAPE if c == _ESCAPE else _ESCAPE + f"{ord(c):x}" + ";" if c.isspace()
                   else c for c in token)


def tokenize_lines(name: str, lines: Sequence[str]) -> list[list[str]]:
    """Each line's tokens by bleuscore's 13a as modelled (:func:`bleu_compat.libraries.hf_bleu.
    model.tokenize_13a_copy` with Rust's whitespace), for the decomposition to count on.

    A token may hold U+001C..U+001F (not whitespace to Rust); the decomposition writes tokens
    joined by spaces and splits them with ``str.split``, so such a character is spelled
    injectively without whitespace (:func:`_whole`): the counts are those of the tokens.
    """
    from bleu_compat.libraries.hf_bleu.model import tokenize_13a_copy

    if name not in TOKENIZERS:
        raise ValueError(f"bleuscore has no tokenizer {name!r}")
    return [[_whole(t) for t in tokenize_13a_copy(line, "rust")] for line in lines]


def tokenize_block(name: str, data: bytes) -> bytes:
    """:func:`tokenize_lines` on every line of a UTF-8 block at once (one line of tokens per
    line, split by Python's whitespace): on lines read from a file, evaluate's 13a copy gives
    sacreBLEU's 13a tokens (:mod:`bleu_compat.libraries.hf_bleu.model`) split at Rust's
    whitespace, which is Python's less U+001C..U+001F: those four are first spelled as
    private-use placeholders (:func:`bleu_compat.text_rules.placeholders`, no tokenizer's
    whitespace or punctuation), then ``score``'s 13a tokenizes the block.

    Raises:
        ValueError: an unknown tokenizer name.
    """
    from bleu_compat.text_rules import placeholders
    from bleu_compat.tokenizers.block import tokenize_block as ours

    if name not in TOKENIZERS:
        raise ValueError(f"bleuscore has no tokenizer {name!r}")
    for character, mark in placeholders("perl").items():  # Python's less U+001C..U+001F
        code = character.encode("utf-8")
        if code in data:
            data = data.replace(code, mark.encode("utf-8"))
    return ours(data, "13a")


def score_lines(cfg: Any, hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]]) -> float:
    """bleuscore's own ``bleu`` (0–1) for a ``score --compare`` configuration, on raw lines:
    ``compute([[ref lines of the segment]], lines, max_order=N, smooth=(smooth=add-one))``.

    Raises:
        ValueError: an empty corpus, or bleuscore panicked.
    """
    try:
        result = compute([list(refs) for refs in zip(*ref_lines)], list(hyp_lines),
                         max_order=cfg.max_order, smooth=cfg.smoothing == "add-one")
    except RuntimeError as exc:
        raise ValueError(f"{cfg.name}: {exc}") from exc
    return float(result["bleu"])
