"""The generators reach every regime where implementations disagree, validly and reproducibly."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings

from bleu_compat.harness.generate import generate_case
from bleu_compat.harness.strategies import REGIMES, regimes_of, requests
from bleu_compat.tools import TOOL_IDS, validate_request

N_CASES = 600


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_every_regime_is_reached(tool_id: str) -> None:
    """Over N seeded cases, each regime (judged from the request itself) occurs at least once."""
    counts: Counter[str] = Counter()
    for k in range(N_CASES):
        counts.update(regimes_of(tool_id, generate_case(0, tool_id, k).request))
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
