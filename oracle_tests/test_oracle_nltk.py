"""Differential property test: NLTK (both modes) equals the card or a catalog entry explains it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from bleu_compat.harness.classify import evaluate
from bleu_compat.harness.strategies import requests
from bleu_compat.tools import TOOL_IDS

pytest.importorskip("nltk")


@pytest.mark.parametrize("tool_id", TOOL_IDS)
def test_nltk_differences_are_explained(tool_id: str) -> None:
    """Every field where NLTK differs from the card is explained by the catalog."""

    @settings(max_examples=40, deadline=None)
    @given(requests(tool_id))
    def check(request: dict) -> None:
        result = evaluate(tool_id, "prop", request, implementations=("nltk/as_called", "nltk/mapped"))
        unexpected = [(d.implementation, d.field, d.card_value, d.library_value)
                      for d in result.discrepancies if d.unexpected]
        assert not unexpected, unexpected

    check()
