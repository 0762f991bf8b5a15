"""The generators reach every regime where implementations disagree, validly and reproducibly."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings

import functools
import unicodedata
from typing import Callable

from bleu_compat.harness.generate import generate_case
from bleu_compat.harness.run import DEFAULT_CASES, DEFAULT_SEED
from bleu_compat.harness.strategies import REGIMES, TWIN_TRANSFORMS, regimes_of, requests, twins
from bleu_compat.harness.truth import corpus_truth_stats
from bleu_compat.tools import TOOL_IDS, validate_request

#: The default crosscheck's cases per tool: every regime must be reached in the default run.
N_CASES = 700


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_every_regime_is_reached(tool_id: str) -> None:
    """Over the default run's seeded cases, each regime (judged from the request itself) occurs
    at least once."""
    assert DEFAULT_CASES[tool_id] == N_CASES
    counts: Counter[str] = Counter()
    for k in range(N_CASES):
        counts.update(regimes_of(tool_id, generate_case(DEFAULT_SEED, tool_id, k).request))
    missing = [r for r in REGIMES[tool_id] if counts[r] == 0]
    assert not missing, f"regimes never reached in {N_CASES} cases: {missing}"


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_seeded_cases_are_reproducible(tool_id: str) -> None:
    """Case k depends only on (seed, tool, k), not on what ran before."""
    assert generate_case(7, tool_id, 13) == generate_case(7, tool_id, 13)
    assert generate_case(7, tool_id, 13).request != generate_case(8, tool_id, 13).request or \
        generate_case(7, tool_id, 14).request != generate_case(8, tool_id, 14).request


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_strategy_requests_are_valid(tool_id: str) -> None:
    """The hypothesis strategies yield requests the card accepts."""

    @settings(max_examples=60, deadline=None)
    @given(requests(tool_id))
    def check(request: dict) -> None:
        validate_request(tool_id, request)

    check()


def test_regimes_of_detects_a_planted_tie() -> None:
    """A hand-made tie in closest reference length (3 and 5 around 4) is recognised."""
    request = {"segments": [{"candidate_length": 4, "reference_lengths": [5, 3]}]}
    assert "closest_ref_tie" in regimes_of("bleu-brevity-penalty", request)
    request = {"segments": [{"candidate_length": 4, "reference_lengths": [5, 2]}]}
    assert "closest_ref_tie" not in regimes_of("bleu-brevity-penalty", request)


# --- twins: a counter comparing transformed tokens gets caught -----------------------

@functools.cache
def _corpus_cases() -> tuple[dict, ...]:
    """The default run's corpus requests (generated once; do not mutate)."""
    return tuple(generate_case(DEFAULT_SEED, "bleu-corpus-compute", k).request for k in range(N_CASES))


def _mutant_stats(f: Callable[[str], str], request: dict) -> tuple:
    """A deliberately wrong counter: the definition, on tokens transformed by ``f``."""
    hyps = [[f(t) for t in h] for h in request["hypotheses"]]
    refs = [[[f(t) for t in r] for r in rs] for rs in request["references"]]
    return tuple(map(tuple, corpus_truth_stats(hyps, refs, request.get("max_order", 4))[:2]))


def _definition_stats(request: dict) -> tuple:
    return tuple(map(tuple, corpus_truth_stats(
        request["hypotheses"], request["references"], request.get("max_order", 4))[:2]))


@functools.cache
def _small_corpus_cases() -> tuple[tuple[dict, tuple], ...]:
    """(request, definition's (matches, totals)) of the default run's cases under 5,000 tokens
    (the limit-size corpora hold no twins and take 100x longer to count)."""
    out = []
    for request in _corpus_cases():
        n = sum(map(len, request["hypotheses"])) + sum(len(r) for rs in request["references"] for r in rs)
        if n <= 5000:
            out.append((request, _definition_stats(request)))
    return tuple(out)


@pytest.mark.parametrize("name", sorted(TWIN_TRANSFORMS))
def test_token_comparison_mutants_disagree_on_generated_cases(name: str) -> None:
    """Counting after str.strip(), .lower() or NFC gives other clipped matches than exact string
    equality (the card's rule) on some of the default run's cases; the identity does not."""
    f = TWIN_TRANSFORMS[name]
    cases = _small_corpus_cases()
    assert len(cases) >= N_CASES - 20
    assert all(_mutant_stats(lambda t: t, request) == definition for request, definition in cases[:100])
    caught = sum(_mutant_stats(f, request) != definition for request, definition in cases)
    assert caught >= 3, f"the {name} mutant changes the statistics of only {caught} cases"


def test_twins_are_twins() -> None:
    """Each twin differs from its base and equals it after strip, lower/upper or NFC."""
    for base in ("a", "\u00e9", "Caf\u00e9"):
        for t in twins(base):
            assert t != base
            assert (t.strip() == base or t.lower() == base.lower()
                    or unicodedata.normalize("NFC", t) == unicodedata.normalize("NFC", base))
    assert {"a ", " a", "a\t", "A"} <= set(twins("a"))
    assert "e\u0301" in twins("\u00e9")


# --- limits, exactly ----------------------------------------------------------------

def test_corpus_limit_cases_are_exactly_at_the_limits() -> None:
    """The limit-size corpora of the default run hit each limit exactly (not one under) and are
    valid; the sizes are measured here, from the request."""
    limits = {"max_segments": 1000, "max_total_tokens": 50_000, "max_total_token_bytes": 1_048_576}
    seen: Counter[str] = Counter()
    for request in _corpus_cases():
        tokens = [t for h in request["hypotheses"] for t in h] + [
            t for rs in request["references"] for r in rs for t in r]
        sizes = {"max_segments": len(request["hypotheses"]), "max_total_tokens": len(tokens),
                 "max_total_token_bytes": sum(len(t.encode("utf-8")) for t in tokens)}
        for name, limit in limits.items():
            assert sizes[name] <= limit, (name, sizes[name])
            seen[name] += sizes[name] == limit
        assert max((len(t.encode("utf-8")) for t in tokens), default=0) <= 128
    assert all(seen[name] >= 1 for name in limits), seen
    assert sum(seen.values()) <= 20, f"limit-size corpora should be rare: {seen}"


def test_epsilon_underflow_and_not() -> None:
    """method1 with a subnormal epsilon: some default-run cases make epsilon / total underflow
    to 0 (IEEE, SPEC §2) and others do not; the 5e-324 / 2 tie is among them."""
    under = over = 0
    tie = False
    for k in range(N_CASES):
        request = generate_case(DEFAULT_SEED, "bleu-smoothing-compute", k).request
        eps = request.get("epsilon")
        if not eps or eps >= 2.2250738585072014e-308:
            continue
        for m, t in zip(request["matches"], request["totals"]):
            if m == 0 and t > 0:
                under += eps / t == 0.0
                over += eps / t != 0.0
                tie |= eps == 5e-324 and t == 2
    assert under >= 5 and over >= 5 and tie


@pytest.mark.parametrize("name", sorted(TWIN_TRANSFORMS))
def test_planted_token_normalisation_in_ours_is_caught_by_the_harness(name: str) -> None:
    """End to end: an `ours` that normalises tokens (strip, lower, NFC) before executing differs
    from the truth on a default-run case, and the harness files it as a discrepancy of ours."""
    from bleu_compat.harness.classify import evaluate
    from bleu_compat.tools import execute

    f = TWIN_TRANSFORMS[name]

    def planted(tool_id: str, request: dict) -> dict:
        request = {**request,
                   "hypotheses": [[f(t) for t in h] for h in request["hypotheses"]],
                   "references": [[[f(t) for t in r] for r in rs] for rs in request["references"]]}
        return execute(tool_id, request)

    for k, (request, _) in enumerate(_small_corpus_cases()):
        result = evaluate("bleu-corpus-compute", f"#{k}", request, implementations=("ours",), ours=planted)
        if any(d.implementation == "ours" and d.field in ("matches", "bleu") for d in result.discrepancies):
            return
    pytest.fail(f"no default-run case exposes an ours that compares tokens after {name}")
