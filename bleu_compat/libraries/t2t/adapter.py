"""tensor2tensor adapter: card requests and files run through t2t's own ``bleu_hook`` code.

``tensor2tensor/utils/bleu_hook.py`` (the code behind ``t2t-bleu``) imports TensorFlow
and ``tensor2tensor.data_generators.text_encoder`` at the top, but its BLEU functions
(``compute_bleu``, ``bleu_tokenize``) use only Python, ``unicodedata``, ``six`` and numpy.
:func:`load_bleu_hook` therefore executes the installed wheel's own file (``pip install
--no-deps tensor2tensor==1.15.7``: its dependencies pull TensorFlow and far more) with
empty stand-ins for those two modules, present only while the file is executed; the
functions that need TensorFlow (``bleu_score``, ``bleu_wrapper``'s ``tf.gfile``, the
checkpoint helpers) are never called.

Mode ``as_called`` (t2t has nothing to map: it takes tokens): the corpus tool is
``compute_bleu([reference tokens], [hypothesis tokens], max_order=N)``, which returns only
the score, as ``np.float32``; a request with other than one reference per segment is not
representable (t2t takes one). The smoothing tool runs ``compute_bleu`` on a token corpus
with exactly the request's statistics (:mod:`bleu_compat.libraries.hf_bleu.realize`) when
the card's method is ``method3`` (t2t always smooths so); the brevity tool is not
representable.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from typing import Any, Sequence

from bleu_compat.libraries import AdapterResult, NotRepresentable, dispatch
from bleu_compat.rounding import to_fixed

__all__ = ["run", "score_lines", "check_release", "load_bleu_hook", "tokenize_lines", "tokenize_block",
           "TOKENIZERS"]

LIBRARY = "t2t"
#: the tokenizers the decomposition takes from here (``tok=t2t``: bleu_tokenize, as modelled)
TOKENIZERS = ("t2t",)
_HOOK = "tensor2tensor/utils/bleu_hook.py"
_module: Any = None


def load_bleu_hook() -> Any:
    """tensor2tensor's ``bleu_hook`` module, executed from the installed wheel's file without
    TensorFlow (loaded once per process).

    Raises:
        OracleUnavailableError: tensor2tensor is not installed, or its file does not load.
    """
    global _module
    if _module is not None:
        return _module
    from importlib import metadata

    from bleu_compat.errors import OracleUnavailableError

    try:
        path = metadata.distribution("tensor2tensor").locate_file(_HOOK)
    except metadata.PackageNotFoundError:
        raise OracleUnavailableError("t2t is not installed (pip install --no-deps "
                                     "tensor2tensor==1.15.7)") from None
    stand_ins = {name: types.ModuleType(name) for name in (
        "tensorflow", "tensorflow.compat", "tensorflow.compat.v1", "tensor2tensor",
        "tensor2tensor.data_generators", "tensor2tensor.data_generators.text_encoder")}
    saved = {name: sys.modules.get(name) for name in stand_ins}
    missing = {name: stand_ins[name] for name in stand_ins if name not in sys.modules}
    try:
        sys.modules.update(missing)
        spec = importlib.util.spec_from_file_location("_bleu_compat_t2t_bleu_hook", str(path))
        if spec is None or spec.loader is None:
            raise ImportError(f"no loader for {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except ModuleNotFoundError as exc:  # a module it imports besides TensorFlow (six, numpy)
        raise OracleUnavailableError(
            f"tensor2tensor's {_HOOK} needs the module {exc.name!r}, not installed here "
            f"(pip install {exc.name}; its own dependencies were left out with --no-deps)") from exc
    except Exception as exc:  # a file that does not load without TensorFlow: model only
        raise OracleUnavailableError(f"tensor2tensor's {_HOOK} does not load without TensorFlow "
                                     f"({type(exc).__name__}: {exc})") from exc
    finally:
        for name, previous in saved.items():
            if previous is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = previous
    _module = module
    return module


def check_release(version: str) -> None:
    """The installed tensor2tensor's ``bleu_hook`` must load without TensorFlow.

    Raises:
        OracleUnavailableError: it does not.
    """
    load_bleu_hook()


def run(mode: str, tool_id: str, request: dict[str, Any]) -> AdapterResult:
    """Run tensor2tensor's ``compute_bleu`` on a validated card ``request``.

    Raises:
        ValueError: unknown mode or tool.
        OracleUnavailableError: tensor2tensor is not installed or does not load.
    """
    handlers = {
        "bleu-corpus-compute": _corpus,
        "bleu-smoothing-compute": _smoothing,
        "bleu-brevity-penalty": _brevity,
    }
    return dispatch(LIBRARY, mode, tool_id, request, handlers)


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None else to_fixed(float(value), decimals)


def _corpus(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    several = [i for i, refs in enumerate(request["references"]) if len(refs) != 1]
    if several:
        raise NotRepresentable(
            f"tensor2tensor's compute_bleu takes one reference per hypothesis: segment "
            f"{several[0]} has {len(request['references'][several[0]])}")
    hook = load_bleu_hook()
    score = hook.compute_bleu([refs[0] for refs in request["references"]],
                              [list(h) for h in request["hypotheses"]],
                              max_order=request.get("max_order", 4))
    raw.update(score=float(score), type=type(score).__name__)
    return {"bleu": _round(float(score), request.get("decimals"))}


def _smoothing(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    from bleu_compat.libraries.hf_bleu.adapter import smoothing_corpus

    hyps, refs, own = smoothing_corpus(request, {"method3": "its own smoothing (always on)"},
                                       ("method3",), mode, "tensor2tensor")
    hook = load_bleu_hook()
    score = hook.compute_bleu([seg[0] for seg in refs], hyps, max_order=len(request["matches"]))
    raw.update(score=float(score), type=type(score).__name__,
               corpus=f"{len(hyps)} segments built with these statistics")
    return {"bleu": _round(float(score), request.get("decimals"))}


def _brevity(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    raise NotRepresentable("tensor2tensor's compute_bleu takes tokens, not lengths, and returns "
                           "only the score")


def tokenize_lines(name: str, lines: Sequence[str]) -> list[list[str]]:
    """Each line's tokens by ``bleu_tokenize`` as modelled (:func:`bleu_compat.libraries.t2t.
    model.t2t_tokenize`): the decomposition counts on them, and its end state must then give
    t2t's own number (which runs t2t's own tokenizer)."""
    from bleu_compat.libraries.t2t.model import t2t_tokenize

    if name not in TOKENIZERS:
        raise ValueError(f"tensor2tensor has no tokenizer {name!r}")
    return [t2t_tokenize(line) for line in lines]


def tokenize_block(name: str, data: bytes) -> bytes:
    """:func:`tokenize_lines` on every line of a UTF-8 block at once (one line of tokens per
    line, split by whitespace): ``bleu_tokenize``'s rules are sacreBLEU 1.x's ``intl`` rules
    with the running Python's ``unicodedata`` classes and no ``rstrip``, which the C kernel
    does (:func:`bleu_compat.tokenizers.block.intl_block`); without it, line by line.

    Raises:
        ValueError: an unknown tokenizer name.
    """
    from bleu_compat.tokenizers.block import intl_block, kernel

    if name not in TOKENIZERS:
        raise ValueError(f"tensor2tensor has no tokenizer {name!r}")
    if kernel() is None:
        lines = data.decode("utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return "".join(" ".join(t) + "\n" for t in tokenize_lines(name, lines)).encode("utf-8")
    return intl_block(data, "unicodedata", rstrip=False)


def score_lines(cfg: Any, hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]]) -> float:
    """t2t-bleu's own number (0–1, the ``np.float32`` as a float) for a configuration:
    ``bleu_wrapper``'s steps on the lines, with t2t's own functions: lowercase both sides
    unless ``lc=no`` (``case_sensitive``), ``bleu_tokenize`` each line, then
    ``compute_bleu(reference tokens, hypothesis tokens, max_order=N)``.

    Raises:
        ValueError: not exactly one reference file (``bleu_wrapper`` takes one).
        OracleUnavailableError: tensor2tensor is not installed or does not load.
    """
    if len(ref_lines) != 1:
        raise ValueError(f"{cfg.name}: t2t-bleu takes one reference file "
                         f"(bleu_wrapper(ref_filename, hyp_filename)); {len(ref_lines)} given")
    hook = load_bleu_hook()
    hyps, refs = list(hyp_lines), list(ref_lines[0])
    if cfg.lowercase:
        hyps, refs = [x.lower() for x in hyps], [x.lower() for x in refs]
    score = hook.compute_bleu([hook.bleu_tokenize(x) for x in refs],
                              [hook.bleu_tokenize(x) for x in hyps], max_order=cfg.max_order)
    return float(score)
