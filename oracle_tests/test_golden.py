"""Golden cases in fixtures/golden/*.json, each citing the source of its expected values.

A case is ``{"source", "tool", "input", "expected", "bleu_repr_prefix"?}``: ``expected``
holds output fields that must be equal exactly; ``bleu_repr_prefix`` is a published
value printed with doctest's ELLIPSIS (e.g. NLTK's ``0.5920...``), which ``repr(bleu)``
must start with.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from bleu_compat import execute
from bleu_compat.tools import TOOL_IDS, card

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "golden"
CASES = sorted(GOLDEN.glob("*.json"))


def test_there_are_golden_cases() -> None:
    """At least ten golden cases ship with the repository."""
    assert len(CASES) >= 10


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_golden(path: Path) -> None:
    """The tool's output has every expected field exactly and starts with the published digits."""
    case = json.loads(path.read_text("utf-8"))
    assert set(case) <= {"source", "tool", "input", "expected", "bleu_repr_prefix"}
    assert case["source"].strip() and case["tool"] in TOOL_IDS
    out = execute(case["tool"], case["input"])
    jsonschema.Draft202012Validator(card(case["tool"]).output_schema).validate(out)
    for key, value in case["expected"].items():
        assert out[key] == value, (key, out[key], value)
    if "bleu_repr_prefix" in case:
        assert repr(out["bleu"]).startswith(case["bleu_repr_prefix"]), out["bleu"]
