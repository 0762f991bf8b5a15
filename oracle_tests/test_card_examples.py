"""Every worked example of every card, through the tool layer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bleu_compat import dumps_js, execute

CARDS_DIR = Path(__file__).resolve().parent.parent / "bleu_compat" / "cards"
EXAMPLES = [
    pytest.param(card["id"], ex["input"], ex["output"], id=f"{card['id']}-{i}")
    for card in (json.loads(p.read_text("utf-8")) for p in sorted(CARDS_DIR.glob("*.json")))
    for i, ex in enumerate(card["examples"])
]


@pytest.mark.parametrize(("tool_id", "request_", "expected"), EXAMPLES)
def test_card_example(tool_id: str, request_: dict, expected: dict) -> None:
    """The tool's output equals the card's example output, key for key and bit for bit."""
    out = execute(tool_id, request_)
    assert out == expected
    assert list(out) == list(expected) or set(out) == set(expected)
    assert dumps_js(out) == dumps_js(expected)
