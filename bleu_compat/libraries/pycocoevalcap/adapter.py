"""pycocoevalcap adapter: a card request run through ``pycocoevalcap.bleu.bleu.Bleu``.

Captioning papers call ``Bleu(4).compute_score(gts, res)`` with ``gts`` and
``res`` mapping an id to a list of strings (several references, one hypothesis),
usually after ``PTBTokenizer().tokenize`` (Stanford CoreNLP 3.4.1 through Java:
lowercased, punctuation tokens removed). ``compute_score`` returns
``[Bleu_1, ..., Bleu_N]`` and prints the corpus statistics
(``{'testlen': ..., 'reflen': ..., 'guess': [...], 'correct': [...]}`` and
``ratio: ...``) on standard output; the adapter captures that output (ours stays
clean) and reads the statistics from it.

Modes (SPEC.md §7):

* ``as_called`` — the corpus tool: ``Bleu(N).compute_score({i: [refs joined by
  ' ']}, {i: [hyp joined by ' ']})``, ``Bleu_N`` as the score; the statistics are
  the ones it prints. The smoothing tool: ``BleuScorer.compute_score(option=
  'closest')`` on one cooked test holding the statistics (what ``compute_score``
  sums: ``testlen``, ``reflen``, ``guess``, ``correct``); coco has no smoothing
  (only ``none``) and no effective order. The brevity tool is not representable
  (no function returns the penalty).
* ``mapped`` — the corpus tool with whitespace-free surrogate tokens; the
  smoothing tool as called.

:func:`tokenize_lines` runs the PTB tokenizer (needs ``java`` on the path) for the
``coco-ptb`` configuration: a tokenizer the library runs, which the decomposition
uses as it is.
"""

from __future__ import annotations

import ast
import contextlib
import io
from typing import Any, Sequence

from bleu_compat.libraries import AdapterResult, NotRepresentable, dispatch
from bleu_compat.rounding import to_fixed

__all__ = ["run", "score_lines", "tokenize_lines", "TOKENIZERS"]

LIBRARY = "pycocoevalcap"
#: the tokenizers this library runs itself
TOKENIZERS = ("ptb",)


def run(mode: str, tool_id: str, request: dict[str, Any]) -> AdapterResult:
    """Run pycocoevalcap on a validated card ``request`` in ``mode``.

    Raises:
        ValueError: unknown mode or tool.
        OracleUnavailableError: pycocoevalcap is not installed.
    """
    handlers = {
        "bleu-corpus-compute": _corpus,
        "bleu-smoothing-compute": _smoothing,
        "bleu-brevity-penalty": _brevity,
    }
    return dispatch(LIBRARY, mode, tool_id, request, handlers)


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None else to_fixed(float(value), decimals)


def _printed_statistics(printed: str) -> dict[str, Any]:
    """The ``totalcomps`` dict ``compute_score`` prints (its first line)."""
    for line in printed.splitlines():
        if line.startswith("{"):
            return ast.literal_eval(line)
    raise RuntimeError(f"compute_score printed no statistics: {printed[:200]!r}")


def compute(gts: dict[Any, list[str]], res: dict[Any, list[str]], n: int) -> tuple[list[float], str]:
    """``Bleu(n).compute_score(gts, res)``'s corpus scores, and what it printed."""
    from pycocoevalcap.bleu.bleu import Bleu

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        score, _ = Bleu(n).compute_score(gts, res)
    return [float(x) for x in score], printed.getvalue()


def _corpus(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    hypotheses, references = request["hypotheses"], request["references"]
    n = request.get("max_order", 4)
    if mode == "mapped":
        mapping: dict[str, str] = {}

        def enc(tokens: list[str]) -> str:
            return " ".join(mapping.setdefault(t, f"t{len(mapping)}") for t in tokens)

        res = {i: [enc(h)] for i, h in enumerate(hypotheses)}
        gts = {i: [enc(r) for r in refs] for i, refs in enumerate(references)}
        raw["token_encoding"] = f"{len(mapping)} distinct tokens mapped to surrogates"
    else:
        res = {i: [" ".join(h)] for i, h in enumerate(hypotheses)}
        gts = {i: [" ".join(r) for r in refs] for i, refs in enumerate(references)}
    scores, printed = compute(gts, res, n)
    stats = _printed_statistics(printed)
    raw.update(score=scores[n - 1], scores=scores, printed=printed.strip()[:2000])
    return {
        "bleu": _round(scores[n - 1], request.get("decimals")),
        "candidate_length": int(stats["testlen"]),
        "reference_length": int(stats["reflen"]),
        "max_order": n,
        "matches": [int(x) for x in stats["correct"]],
        "totals": [int(x) for x in stats["guess"]],
    }


def _smoothing(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    from pycocoevalcap.bleu.bleu_scorer import BleuScorer

    if request["smoothing"] != "none":
        raise NotRepresentable(f"pycocoevalcap's BLEU has no smoothing (only its 1e-15 / 1e-9 "
                               f"fudges): {request['smoothing']} cannot be given to it")
    if request.get("effective_order"):
        raise NotRepresentable("pycocoevalcap's BLEU has no effective order")
    n = len(request["matches"])
    scorer = BleuScorer(n=n)
    # one cooked test holding the statistics compute_score sums ("closest" picks the one reflen)
    scorer.crefs = [([request["reference_length"]], {})]
    scorer.ctest = [{"testlen": request["candidate_length"], "reflen": [request["reference_length"]],
                     "guess": list(request["totals"]), "correct": list(request["matches"])}]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        score, _ = scorer.compute_score(option="closest")
    raw.update(score=float(score[n - 1]), scores=[float(x) for x in score],
               function="BleuScorer.compute_score(option='closest') on one cooked test")
    return {"bleu": _round(raw["score"], request.get("decimals"))}


def _brevity(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    raise NotRepresentable("pycocoevalcap computes the brevity penalty inside compute_score and "
                           "returns only the scores")


@contextlib.contextmanager
def _quiet() -> Any:
    """Standard output and standard error (file descriptors 1 and 2, which the Java
    tokenizer inherits: "PTBTokenizer tokenized N tokens at ...") sent to /dev/null."""
    import os
    import sys

    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    saved = [os.dup(1), os.dup(2)]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        with contextlib.redirect_stdout(io.StringIO()):
            yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, devnull):
            os.close(fd)


def tokenize_lines(name: str, lines: Sequence[str]) -> list[list[str]]:
    """Each line's tokens from pycocoevalcap's own PTB tokenizer (``name`` ``"ptb"``).

    ``PTBTokenizer().tokenize`` runs Stanford CoreNLP 3.4.1's PTBTokenizer through
    ``java`` (``-preserveLines -lowerCase``) and drops punctuation tokens.

    Raises:
        OracleUnavailableError: no ``java`` on the path.
        RuntimeError: the tokenizer gave another number of lines.
    """
    import shutil

    from bleu_compat.errors import OracleUnavailableError

    if name not in TOKENIZERS:
        raise ValueError(f"pycocoevalcap has no tokenizer {name!r}")
    if shutil.which("java") is None:
        raise OracleUnavailableError("pycocoevalcap's PTB tokenizer needs java on the path "
                                     "(Debian: apt-get install default-jre-headless)")
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    captions = {i: [{"caption": line}] for i, line in enumerate(lines)}
    with _quiet():
        tokenized = PTBTokenizer().tokenize(captions)
    if len(tokenized) != len(lines):
        raise RuntimeError(f"the PTB tokenizer gave {len(tokenized)} lines for {len(lines)}")
    return [tokenized[i][0].split() for i in range(len(lines))]


def score_lines(cfg: Any, hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]]) -> float:
    """pycocoevalcap's own ``Bleu_N`` (0–1) for a ``score --compare`` configuration.

    ``coco``: ``Bleu(N).compute_score`` on the lines as they are (it splits them
    on whitespace); ``coco-ptb`` (``tok=ptb``): the captioning pipeline, both sides
    through ``PTBTokenizer().tokenize`` first. Its printing is captured.
    """
    refs = [list(seg) for seg in zip(*ref_lines)]
    if cfg.tokenize == "ptb":
        from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

        tokenizer = PTBTokenizer()
        with _quiet():
            gts = tokenizer.tokenize({i: [{"caption": r} for r in seg] for i, seg in enumerate(refs)})
            res = tokenizer.tokenize({i: [{"caption": h}] for i, h in enumerate(hyp_lines)})
    else:
        gts = {i: list(seg) for i, seg in enumerate(refs)}
        res = {i: [h] for i, h in enumerate(hyp_lines)}
    scores, _ = compute(gts, res, cfg.max_order)
    return scores[cfg.max_order - 1]
