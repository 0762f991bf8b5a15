"""The judge of ``--impl`` checks itself on a known-flawed BLEU (issue 36).

A crosscheck that judges users' implementations also judges this canary, on the same kind
of requests: a corpus BLEU whose brevity penalty takes each segment's *shortest* reference
(HF evaluate's, bleuscore's and torcheval's mistake), otherwise the card's formula in the
card's order (SPEC.md section 2). Written here from the card, sharing no code with the core
or the judge. Against the card the verdict must be a finding named by one library's entries
about the reference length (the catalog's ``TORCHEVAL-SHORTEST-REFERENCE`` with today's
plug-ins); allowing those entries, or with that library as the target, a pass. A judge that
lets it pass as the card, names nothing, or names a quirk that is not about the reference
length fails the run.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Sequence

__all__ = ["shortest_reference_bleu", "FLAWED_FACTOR", "requests"]

#: the factor (bleu_compat.libraries.plugin.FACTOR_NAMES) the canary's flaw is about
FLAWED_FACTOR = "reference length"


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def shortest_reference_bleu(hypotheses: Sequence[Sequence[str]],
                            references: Sequence[Sequence[Sequence[str]]], max_order: int = 4) -> float:
    """Corpus BLEU (0-1) whose reference length is each segment's shortest reference."""
    matches, totals = [0] * max_order, [0] * max_order
    c = r = 0
    for hyp, refs in zip(hypotheses, references):
        c += len(hyp)
        r += min(len(ref) for ref in refs)  # the flaw
        for n in range(1, max_order + 1):
            counts = _ngrams(hyp, n)
            best: Counter[tuple[str, ...]] = Counter()
            for ref in refs:
                best |= _ngrams(ref, n)
            matches[n - 1] += sum(min(k, best[g]) for g, k in counts.items())
            totals[n - 1] += sum(counts.values())
    if c == 0 or any(m == 0 for m in matches):
        return 0.0
    bp = 1.0 if c > r else math.exp(1 - r / c)
    log_sum = 0.0
    for m, t in zip(matches, totals):
        log_sum += math.log(m / t)
    return bp * math.exp((1 / max_order) * log_sum)


def requests(seed: int, count: int = 40) -> list[tuple[str, dict[str, Any]]]:
    """``(case id, request)``: a request where the shortest reference is not the closest
    ("c c" against "" and "a b c"), then the first ``count`` generated bleu-corpus-compute
    requests of ``seed`` (without ``decimals``)."""
    from .generate import generate_case

    out: list[tuple[str, dict[str, Any]]] = [("canary#shortest", {
        "hypotheses": [["c", "c"]], "references": [[[], ["a", "b", "c"]]], "max_order": 1})]
    for k in range(count):
        request = generate_case(seed, "bleu-corpus-compute", k).request
        out.append((f"canary#{k}", {key: v for key, v in request.items() if key != "decimals"}))
    return out
