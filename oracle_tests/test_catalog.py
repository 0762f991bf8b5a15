"""The divergence catalog: every reproducer runs against the installed libraries.

Each entry's reproducer is executed twice: by the card (bleu_compat.execute)
and by the library through its adapter, in every mode the entry lists. Both
values must equal the ones the entry records, so a library upgrade that
changes a behaviour fails here and names the entry to update.
"""

from __future__ import annotations

import copy
import math
import warnings
from pathlib import Path

import pytest

from bleu_compat import card, execute
from bleu_compat.libraries import run_adapter
from bleu_compat.catalog import ENTRIES, entry, explain, version_in_range
from bleu_compat.ulp import ulp_distance

pytest.importorskip("sacrebleu")
pytest.importorskip("nltk")

REPO = Path(__file__).resolve().parent.parent
IDS = [e.id for e in ENTRIES]


def _same(a, b) -> bool:
    """Exact equality, floats bit for bit (1 == 1.0 is fine: JSON has one number type)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return a == b


@pytest.mark.parametrize("e", ENTRIES, ids=IDS)
def test_reproducer_card_value(e):
    """The card's value on the reproducer is the one the entry records."""
    out = execute(e.tool_id, copy.deepcopy(e.reproducer))
    assert _same(out[e.reproducer_field], e.card_value), e.id


@pytest.mark.parametrize("e", ENTRIES, ids=IDS)
def test_reproducer_library_value(e):
    """The library (through its adapter, in every listed mode) gives the recorded value."""
    for mode in e.modes:
        request = copy.deepcopy(e.reproducer)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = run_adapter(e.library, mode, e.tool_id, request)
        assert request == e.reproducer, f"{e.id}: the adapter mutated the request"
        if result.output is None:
            if result.not_representable is not None:
                assert "not_representable" in e.fields, e.id
                continue
            assert result.error == e.library_value, f"{e.id} ({mode}): {result.error}"
            continue
        got = result.output[e.reproducer_field]
        assert _same(got, e.library_value), f"{e.id} ({mode}): library now gives {got!r}"
        card_value = execute(e.tool_id, e.reproducer)[e.reproducer_field]
        assert not _same(got, card_value), f"{e.id} ({mode}): no divergence any more"


@pytest.mark.parametrize("e", ENTRIES, ids=IDS)
def test_predicate_true_on_reproducer_and_explain_finds_it(e):
    """The predicate holds on the reproducer, and explain() returns the entry there."""
    assert e.predicate(e.reproducer)
    card_value = execute(e.tool_id, e.reproducer)[e.reproducer_field]
    for mode in e.modes:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = run_adapter(e.library, mode, e.tool_id, e.reproducer)
        if result.output is None:
            name = "not_representable" if result.not_representable else "error"
            value = result.not_representable or result.error
        else:
            name, value = e.reproducer_field, result.output[e.reproducer_field]
        assert e in explain(e.library, mode, e.tool_id, e.reproducer, name, card_value, value)


def _card_examples():
    for tool_id in ("bleu-corpus-compute", "bleu-smoothing-compute", "bleu-brevity-penalty"):
        for k, ex in enumerate(card(tool_id).examples):
            yield tool_id, k, ex["input"]


@pytest.mark.parametrize("e", ENTRIES, ids=IDS)
def test_predicate_false_on_some_card_example(e):
    """Each entry is false on at least one card example of its tool where it does not occur."""
    examples = [inp for tool_id, _, inp in _card_examples() if tool_id == e.tool_id]
    if e.id == "SACREBLEU-FLOAT-ORDER-SMOOTHING" or e.id == "NLTK-FLOAT-ORDER-SMOOTHING":
        # every smoothing example scores > 0, where float order can matter; a zero score cannot
        examples = [{"matches": [2, 0], "totals": [2, 1], "candidate_length": 2,
                     "reference_length": 2, "smoothing": "none"}]
        assert execute(e.tool_id, examples[0])["bleu"] == 0
    assert any(not e.predicate(inp) for inp in examples), e.id


def test_whitespace_predicate_false_without_whitespace():
    """SACREBLEU-WHITESPACE-IN-TOKEN does not fire on ordinary tokens (the card's 2nd example)."""
    ex = card("bleu-corpus-compute").examples[1]["input"]
    assert not entry("SACREBLEU-WHITESPACE-IN-TOKEN").predicate(ex)
    assert entry("SACREBLEU-WHITESPACE-IN-TOKEN").predicate(
        {"hypotheses": [["a\u3000b"]], "references": [[["a"]]]})


def test_ids_unique_and_stable_shape():
    """Ids are unique, upper-case and name their library."""
    assert len(IDS) == len(set(IDS))
    for e in ENTRIES:
        assert e.id == e.id.upper() and e.id.startswith(e.library.upper() + "-")
        assert set(e.modes) <= {"as_called", "mapped"} and e.modes
        assert e.explanation and e.title


def test_explain_respects_version_range():
    """An entry does not explain a difference seen with a library version outside its range."""
    e = entry("NLTK-ZERO-MATCH-TINY")
    args = ("nltk", "as_called", e.tool_id, e.reproducer, "bleu", 0, e.library_value)
    assert e in explain(*args, library_version="3.10.4")
    assert e not in explain(*args, library_version="4.0")
    assert version_in_range("2.6.0", ">=2.4,<3") and not version_in_range("3.0.0", ">=2.4,<3")


def test_explain_ulp_entries_bounded():
    """A float-order entry explains at most max_ulps; a larger gap is UNEXPECTED."""
    e = entry("SACREBLEU-FLOAT-ORDER")
    v = e.card_value
    far = v
    for _ in range(e.max_ulps + 1):
        far = math.nextafter(far, 1.0)
    assert ulp_distance(v, far) == e.max_ulps + 1
    assert explain("sacrebleu", "mapped", e.tool_id, e.reproducer, "bleu", v, far) == []
    near = math.nextafter(v, 1.0)
    assert e in explain("sacrebleu", "mapped", e.tool_id, e.reproducer, "bleu", v, near)


def test_explain_unknown_difference_is_unexpected():
    """A difference no entry covers (NLTK matches on the card's 2nd example) gives []."""
    ex = card("bleu-corpus-compute").examples[1]["input"]
    assert explain("nltk", "mapped", "bleu-corpus-compute", ex, "matches", [14, 7, 5, 3],
                   [14, 7, 5, 2]) == []


def test_denominator_floor_facts():
    """facts() counts the short hypotheses per order."""
    e = entry("NLTK-DENOMINATOR-FLOOR")
    assert e.facts(e.reproducer) == (
        "1 hypothesis shorter than 2 tokens adds 1 to the 2-gram total; "
        "1 hypothesis shorter than 3 tokens adds 1 to the 3-gram total; "
        "1 hypothesis shorter than 4 tokens adds 1 to the 4-gram total")


def test_real_data_denominator_floor(shared_dir):
    """On WMT17 en-de uedin-nmt (13a tokens) NLTK's 4-gram total is 53866, the card's 53861
    (shared/real/SOURCES.md, 'Divergence seen while reproducing')."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tok = Tokenizer13a()
    d = shared_dir / "real" / "wmt17" / "en-de"
    hyps = [tok(line.rstrip("\n")).split() for line in
            (d / "sys.uedin-nmt.4722.txt").read_text(encoding="utf-8").splitlines()]
    refs = [[tok(line.rstrip("\n")).split()] for line in
            (d / "ref.A.txt").read_text(encoding="utf-8").splitlines()]
    request = {"hypotheses": hyps, "references": refs}
    from bleu_compat.bleu import corpus_bleu

    ours = corpus_bleu(hyps, refs)
    assert ours.stats.totals[3] == 53861
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nltk_result = run_adapter("nltk", "as_called", "bleu-corpus-compute", request)
        sacre = run_adapter("sacrebleu", "mapped", "bleu-corpus-compute", request)
    assert nltk_result.output["totals"][3] == 53866
    facts = entry("NLTK-DENOMINATOR-FLOOR").facts(request)
    assert "5 hypotheses shorter than 4 tokens add 5 to the 4-gram total" in facts
    assert sacre.output["totals"] == list(ours.stats.totals)
    assert ulp_distance(sacre.output["bleu"], ours.bleu) <= entry("SACREBLEU-FLOAT-ORDER").max_ulps


def test_divergences_md_not_stale():
    """reports/divergences.md equals a fresh `bleu-compat catalog` rendering."""
    from bleu_compat.cli.catalog import render_markdown

    path = REPO / "reports" / "divergences.md"
    assert path.read_text(encoding="utf-8") == render_markdown(), (
        "reports/divergences.md is stale: run `bleu-compat catalog --out reports/divergences.md`")


def test_catalog_check_command(tmp_path):
    """`bleu-compat catalog --check` exits 0 on a fresh file and 1 on a stale or missing one."""
    from bleu_compat.cli import main

    out = tmp_path / "d.md"
    assert main(["catalog", "--out", str(out)]) == 0
    assert main(["catalog", "--check", "--out", str(out)]) == 0
    out.write_text(out.read_text(encoding="utf-8") + "edited\n", encoding="utf-8")
    assert main(["catalog", "--check", "--out", str(out)]) == 1
    assert main(["catalog", "--check", "--out", str(tmp_path / "missing.md")]) == 1


class TestDecimalsFlip:
    """A few-ULP float-order difference that ``decimals`` rounds across a boundary."""

    REQUEST = {"hypotheses": [["a", "b", "c", "d"]], "references": [[["c"]]], "max_order": 1, "decimals": 1}

    def test_card_and_sacrebleu_round_to_different_decimals(self) -> None:
        """p_1 = 1/4 and BP = 1: the card's bleu is exactly 0.25 (a tie, toFixed(1) gives 0.3); sacreBLEU's double lies below it."""
        from bleu_compat import execute
        from bleu_compat.libraries import run_adapter

        assert execute("bleu-corpus-compute", self.REQUEST)["bleu"] == 0.3
        unrounded = {k: v for k, v in self.REQUEST.items() if k != "decimals"}
        assert execute("bleu-corpus-compute", unrounded)["bleu"] == 0.25
        library = run_adapter("sacrebleu", "as_called", "bleu-corpus-compute", self.REQUEST).output
        library_unrounded = run_adapter("sacrebleu", "as_called", "bleu-corpus-compute", unrounded).output
        assert library is not None and library_unrounded is not None
        assert library["bleu"] == 0.2
        assert 0 < ulp_distance(0.25, library_unrounded["bleu"]) <= 14

    def test_explained_only_with_the_unrounded_doubles(self) -> None:
        """explain() attributes the flip to SACREBLEU-FLOAT-ORDER when given both doubles, and not otherwise."""
        below = math.nextafter(0.25, 0.0)
        with_doubles = explain(
            "sacrebleu", "as_called", "bleu-corpus-compute", self.REQUEST, "bleu", 0.3, 0.2,
            card_unrounded=0.25, library_unrounded=below,
        )
        assert [e.id for e in with_doubles] == ["SACREBLEU-FLOAT-ORDER"]
        assert explain("sacrebleu", "as_called", "bleu-corpus-compute", self.REQUEST, "bleu", 0.3, 0.2) == []

    def test_far_apart_doubles_are_not_explained(self) -> None:
        """Doubles further apart than the entry's bound stay UNEXPECTED even when they round differently."""
        assert explain(
            "sacrebleu", "as_called", "bleu-corpus-compute", self.REQUEST, "bleu", 0.3, 0.2,
            card_unrounded=0.25, library_unrounded=0.2,
        ) == []

    def test_doubles_must_round_to_the_reported_values(self) -> None:
        """Unrounded doubles that do not round to the reported values explain nothing."""
        below = math.nextafter(0.25, 0.0)
        assert explain(
            "sacrebleu", "as_called", "bleu-corpus-compute", self.REQUEST, "bleu", 0.3, 0.1,
            card_unrounded=0.25, library_unrounded=below,
        ) == []


@pytest.mark.parametrize("e", ENTRIES, ids=lambda e: e.id)
def test_reproducer_card_value_is_the_independent_truth(e) -> None:
    """Each entry's card value equals the harness's independent evaluation of the card (not only ours)."""
    from bleu_compat.harness.truth import truth

    assert truth(e.tool_id, e.reproducer).expected[e.reproducer_field] == e.card_value
