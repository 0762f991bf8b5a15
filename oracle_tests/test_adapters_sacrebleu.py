"""The sacreBLEU adapter on the card examples, whitespace tokens, variable
reference counts, empty references and smoothing; it never mutates a request.

Expected values come from the cards' worked examples and from the card
implementation (bleu_compat.execute); float differences must be within the
ULPs of a named catalog entry.
"""

from __future__ import annotations

import copy

import pytest

from bleu_compat import card, execute
from bleu_compat.libraries import run_adapter
from bleu_compat.ulp import ulp_distance

from _reproduce import assert_reproduced

pytest.importorskip("sacrebleu")

TOOLS = ("bleu-corpus-compute", "bleu-smoothing-compute", "bleu-brevity-penalty")
EXAMPLES = [(t, k, ex) for t in TOOLS for k, ex in enumerate(card(t).examples)]


def _assert_matches_card(tool_id, mode, request, output, expected):
    """Equal to the card's example, or reproduced bit for bit by sacreBLEU's dialect."""
    if any(output[name] != want for name, want in expected.items()):
        assert_reproduced("sacrebleu", mode, tool_id, request, output)


@pytest.mark.parametrize("tool_id,k,example", EXAMPLES, ids=[f"{t}-{k}" for t, k, _ in EXAMPLES])
@pytest.mark.parametrize("mode", ["as_called", "mapped"])
def test_card_examples(tool_id, k, example, mode):
    """Every card example: equal to the card's output, or a catalogued divergence."""
    request = copy.deepcopy(example["input"])
    result = run_adapter("sacrebleu", mode, tool_id, request)
    assert request == example["input"]
    assert result.error is None and result.output is not None
    assert result.library == "sacrebleu" and result.version.startswith("2.")
    _assert_matches_card(tool_id, mode, request, result.output, example["output"])


def test_card_corpus_example_2_exact_counts():
    """Card example 2 of bleu-corpus-compute: counts exact, bleu within SACREBLEU-FLOAT-ORDER."""
    ex = card("bleu-corpus-compute").examples[1]
    request = {k: v for k, v in ex["input"].items() if k != "decimals"}
    out = run_adapter("sacrebleu", "mapped", "bleu-corpus-compute", request).output
    assert out["matches"] == [14, 7, 5, 3] and out["totals"] == [17, 14, 11, 8]
    assert out["candidate_length"] == 17 and out["reference_length"] == 18
    card_bleu = execute("bleu-corpus-compute", request)["bleu"]
    assert 0 < ulp_distance(out["bleu"], card_bleu)
    assert assert_reproduced("sacrebleu", "mapped", "bleu-corpus-compute", request, out) == (
        "SACREBLEU-FLOAT-ORDER",)
    # decimals applied the card's way on sacreBLEU's double
    rounded = run_adapter("sacrebleu", "mapped", "bleu-corpus-compute", ex["input"]).output
    assert rounded["bleu"] == 0.485308 and rounded["brevity_penalty"] == 0.942873


@pytest.mark.parametrize("token", ["New York", "a\u00a0b", "x\u3000y", " ", "tab\there"])
def test_whitespace_tokens(token):
    """as_called splits the token (differs from the card); mapped keeps it (equals the card)."""
    request = {"hypotheses": [[token, "is", "here"]], "references": [[[token, "is", "here"]]],
               "max_order": 2}
    expected = execute("bleu-corpus-compute", request)
    assert expected["totals"] == [3, 2]
    as_called = run_adapter("sacrebleu", "as_called", "bleu-corpus-compute", request).output
    mapped = run_adapter("sacrebleu", "mapped", "bleu-corpus-compute", request).output
    assert as_called["totals"] != expected["totals"]
    assert mapped["totals"] == expected["totals"] and mapped["matches"] == expected["matches"]
    assert_reproduced("sacrebleu", "as_called", "bleu-corpus-compute", request, as_called,
                      including="SACREBLEU-WHITESPACE-IN-TOKEN")


def test_surrogates_do_not_merge_or_split_tokens():
    """Distinct tokens stay distinct (a hypothesis token equal to a surrogate name included)."""
    request = {"hypotheses": [["t0", "t1", "a b"]], "references": [[["a b", "t0", "t1"]]],
               "max_order": 2}
    expected = execute("bleu-corpus-compute", request)
    mapped = run_adapter("sacrebleu", "mapped", "bleu-corpus-compute", request).output
    assert mapped["matches"] == expected["matches"] == [3, 1]
    assert mapped["totals"] == expected["totals"] == [3, 2]


def test_variable_reference_counts():
    """mapped pads with None (no reference): equals the card; as_called pads with ''."""
    request = {"hypotheses": [["a", "b"], ["c"]],
               "references": [[["a", "b"], ["a", "b", "x"]], [["c", "d", "e"]]]}
    expected = execute("bleu-corpus-compute", request)
    mapped = run_adapter("sacrebleu", "mapped", "bleu-corpus-compute", request)
    as_called = run_adapter("sacrebleu", "as_called", "bleu-corpus-compute", request)
    assert mapped.raw["reference_padding"] == "None"
    assert mapped.output["reference_length"] == expected["reference_length"] == 5
    assert mapped.output["brevity_penalty"] == expected["brevity_penalty"]
    assert as_called.output["reference_length"] == 2
    assert_reproduced("sacrebleu", "as_called", "bleu-corpus-compute", request, as_called.output,
                      including="SACREBLEU-EMPTY-STRING-PADDING")


def test_empty_reference_is_a_reference():
    """A real empty reference ([]) counts as length 0 in both modes, as in the card."""
    request = {"hypotheses": [["a"], []], "references": [[["a"]], [[], ["q", "r"]]], "max_order": 1}
    expected = execute("bleu-corpus-compute", request)
    assert expected["reference_length"] == 1
    for mode in ("as_called", "mapped"):
        out = run_adapter("sacrebleu", mode, "bleu-corpus-compute", request).output
        assert out["reference_length"] == 1 and out["totals"] == expected["totals"]


def test_empty_hypothesis_corpus():
    """The card's third corpus example (empty hypothesis) is matched exactly."""
    ex = card("bleu-corpus-compute").examples[2]
    out = run_adapter("sacrebleu", "mapped", "bleu-corpus-compute", ex["input"]).output
    assert out == ex["output"]


def test_max_order_8():
    """max_order 8 is passed through as max_ngram_order."""
    request = {"hypotheses": [list("abcdefghij")], "references": [[list("abcdefghiz")]], "max_order": 8}
    expected = execute("bleu-corpus-compute", request)
    out = run_adapter("sacrebleu", "mapped", "bleu-corpus-compute", request).output
    assert out["matches"] == expected["matches"] and out["totals"] == expected["totals"]
    assert_reproduced("sacrebleu", "mapped", "bleu-corpus-compute", request, out)


@pytest.mark.parametrize("smoothing,extra", [
    ("none", {}), ("method1", {}), ("method1", {"epsilon": 0.3}), ("method2", {}), ("method3", {}),
])
@pytest.mark.parametrize("effective_order", [False, True])
def test_smoothing_mapped_equals_card(smoothing, extra, effective_order):
    """Statistics without zero totals: mapped smoothed counts exact, bleu within ULPs."""
    request = {"matches": [7, 3, 0, 0], "totals": [9, 8, 7, 6], "candidate_length": 9,
               "reference_length": 10, "smoothing": smoothing, "effective_order": effective_order,
               **extra}
    expected = execute("bleu-smoothing-compute", request)
    before = copy.deepcopy(request)
    result = run_adapter("sacrebleu", "mapped", "bleu-smoothing-compute", request)
    assert request == before
    out = result.output
    assert out["smoothed_matches"] == expected["smoothed_matches"]
    assert out["smoothed_totals"] == expected["smoothed_totals"]
    assert out["orders_used"] == expected["orders_used"]
    assert out["brevity_penalty"] == expected["brevity_penalty"]
    if expected["bleu"] == 0:
        assert out["bleu"] == 0
    else:
        assert set(assert_reproduced("sacrebleu", "mapped", "bleu-smoothing-compute", request, out)
                   ) <= {"SACREBLEU-FLOAT-ORDER-SMOOTHING"}


def test_add_k_does_not_mutate_the_request():
    """compute_bleu mutates its lists under add-k; the adapter passes copies and records it."""
    request = {"matches": [3, 1, 0], "totals": [4, 3, 2], "candidate_length": 4,
               "reference_length": 4, "smoothing": "method2"}
    before = copy.deepcopy(request)
    result = run_adapter("sacrebleu", "as_called", "bleu-smoothing-compute", request)
    assert request == before
    assert result.raw["arguments_mutated"] is True
    assert result.raw["arguments_after_call"] == {"correct": [3, 2, 1], "total": [4, 4, 3]}
    assert result.output["smoothed_matches"] == [3, 2, 1]


def test_library_error_is_caught(monkeypatch):
    """If sacreBLEU raises, the result carries 'Type: message' and no output."""
    from sacrebleu.metrics import BLEU

    def boom(*args, **kwargs):
        raise RuntimeError("synthetic failure")

    monkeypatch.setattr(BLEU, "compute_bleu", staticmethod(boom))
    result = run_adapter("sacrebleu", "mapped", "bleu-smoothing-compute",
                         card("bleu-smoothing-compute").examples[0]["input"])
    assert result.output is None and result.error == "RuntimeError: synthetic failure"


def test_brevity_examples():
    """Brevity examples 1 and 2 equal the card; example 3 is SACREBLEU-BP-ZERO-LENGTHS-BREVITY."""
    exs = card("bleu-brevity-penalty").examples
    for ex in exs[:2]:
        assert run_adapter("sacrebleu", "mapped", "bleu-brevity-penalty", ex["input"]).output == ex["output"]
    out = run_adapter("sacrebleu", "mapped", "bleu-brevity-penalty", exs[2]["input"]).output
    assert out["brevity_penalty"] == 1.0 and exs[2]["output"]["brevity_penalty"] == 0
