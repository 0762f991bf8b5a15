"""The independent check of score --compare's decompositions, and the exact side's second route
(issue 25 items 3 and 4).

Expected values come from hand calculation (Shapley values of a two- and three-factor table),
from the definition of the ranges (r/c bounds from ln 2), or from corrupting a real
decomposition in one known way; never from the decomposition code under test.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from bleu_compat.harness.decomposition_check import check_decomposition, shapley_values
from bleu_compat.harness.exact_check import check_exact, exact_values
from bleu_compat.harness.strategies import EXACT_REGIMES, exact_regime_requests
from bleu_compat.harness.truth import truth

pytest.importorskip("sacrebleu")
pytest.importorskip("nltk")


def test_shapley_values_of_a_hand_computed_table() -> None:
    # v({}) = 0, v({0}) = 1, v({1}) = 2, v({0, 1}) = 5: phi_0 = (1 - 0)/2 + (5 - 2)/2 = 2,
    # phi_1 = (2 - 0)/2 + (5 - 1)/2 = 3 (Shapley 1953; efficiency: 2 + 3 = 5)
    assert shapley_values([0.0, 1.0, 2.0, 5.0], [0, 1]) == {0: 2, 1: 3}
    # three symmetric factors that only matter together: each gets a third of the gap
    table = [0.0] * 7 + [0.75]
    assert shapley_values(table, [0, 1, 2]) == {i: Fraction(1, 4) for i in range(3)}
    # a factor outside the members is left at its start value (bit 1 never set)
    assert shapley_values([0.0, 0.5, 9.0, 9.0], [0]) == {0: Fraction(1, 2)}


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory):
    from bleu_compat.decompose import compare, parse_config

    d = tmp_path_factory.mktemp("decomp")
    hyp, ref = d / "hyp.txt", d / "ref.txt"
    hyp.write_text("The cat sat on the mat .\na b c\nHello , world !\nx\n", encoding="utf-8")
    ref.write_text("The cat is on the mat.\na b c d e\nhello world!\nx y z w v\n", encoding="utf-8")
    configs = [parse_config(n) for n in ("sacrebleu", "nltk", "nltk-method1", "card")]
    result = compare(str(hyp), [str(ref)], configs)
    return result, configs, {id(r.config): r.bleu for r in result.runs}


def _pair(compared, frm: str, to: str):
    result, configs, real = compared
    dec = next(d for d in result.decompositions if (d.frm, d.to) == (frm, to))
    a = next(c for c in configs if c.name == frm)
    b = next(c for c in configs if c.name == to)
    return dec, a, b, real[id(a)], real[id(b)]


def _checks(dec, a, b, ra, rb) -> set[str]:
    return {f["check"] for f in check_decomposition(dec, a, b, ra, rb)}


def test_every_pair_passes_unchanged(compared) -> None:
    result, configs, real = compared
    assert len(result.decompositions) == 6
    for dec in result.decompositions:
        a = next(c for c in configs if c.name == dec.frm)
        b = next(c for c in configs if c.name == dec.to)
        assert check_decomposition(dec, a, b, real[id(a)], real[id(b)]) == []


def test_swapped_ends_fail_telescoping(compared) -> None:
    dec, a, b, ra, rb = _pair(compared, "sacrebleu", "nltk-method1")
    assert len(dec.causes) >= 2
    swapped = replace(dec, causes=tuple(replace(c, start=c.end, end=c.start) for c in dec.causes))
    assert "telescoping" in _checks(swapped, a, b, ra, rb)


def test_doubled_shapley_values_fail(compared) -> None:
    dec, a, b, ra, rb = _pair(compared, "sacrebleu", "nltk-method1")
    doubled = replace(dec, causes=tuple(replace(c, shapley=2 * c.shapley) for c in dec.causes))
    assert _checks(doubled, a, b, ra, rb) == {"Shapley"}


def test_causes_named_after_the_next_factor_fail(compared) -> None:
    dec, a, b, ra, rb = _pair(compared, "sacrebleu", "nltk-method1")
    names = [c.cause for c in dec.causes]
    shifted = replace(dec, causes=tuple(replace(c, cause=names[(k + 1) % len(names)])
                                        for k, c in enumerate(dec.causes)))
    assert "telescoping" in _checks(shifted, a, b, ra, rb)


def test_a_skipped_step_fails(compared) -> None:
    dec, a, b, ra, rb = _pair(compared, "sacrebleu", "nltk-method1")
    skipped = replace(dec, causes=dec.causes[1:])
    assert {"factors", "inert", "telescoping"} <= _checks(skipped, a, b, ra, rb)


def test_an_end_that_is_not_the_library_fails(compared) -> None:
    dec, a, b, ra, rb = _pair(compared, "nltk", "card")
    assert "end states" in _checks(dec, a, b, ra, math.nextafter(rb, 1.0))


def test_an_inert_factor_stepped_fails(compared) -> None:
    dec, a, b, ra, rb = _pair(compared, "sacrebleu", "nltk-method1")
    assert dec.inert, "this pair has inert factors"
    extra = replace(dec.causes[-1], cause=dec.inert[0], start=dec.end, end=dec.end, shapley=Fraction(0))
    stepped = replace(dec, causes=dec.causes + (extra,), inert=dec.inert[1:])
    assert "inert" in _checks(stepped, a, b, ra, rb)


def test_a_missing_factor_fails(compared) -> None:
    dec, a, b, ra, rb = _pair(compared, "sacrebleu", "nltk-method1")
    assert "factors" in _checks(replace(dec, inert=dec.inert[:-1]), a, b, ra, rb)


# ------------------------------------------------------------------ the exact side (item 4)

#: r/c bounds from ln 2 (independent of the generator's constants): exp(1 - x) < 2^-1022 for
#: x > 1 + 1022 ln 2, and <= 2^-1075 (double 0) for x >= 1 + 1075 ln 2
SUBNORMAL_FROM = 1 + 1022 * math.log(2)
ZERO_FROM = 1 + 1075 * math.log(2)


def test_each_regime_lands_in_its_range() -> None:
    seen = set()
    for tool, case_id, request in exact_regime_requests(0, 3):
        regime = case_id.split("~exact:")[1].split("#")[0]
        seen.add(regime)
        t = truth(tool, request)
        c = t.expected.get("candidate_length", request.get("candidate_length"))
        r = t.expected.get("reference_length", request.get("reference_length"))
        bp = t.exact["brevity_penalty"]
        if regime == "bp-c-zero":
            assert c == 0 and bp == 0.0
        elif regime == "bp-c-above-r":
            assert c > r and bp == 1.0
        elif regime == "rc-1-80":
            assert 1 <= r / c <= 80 and bp > 0
        elif regime == "rc-80-709":
            assert 80 < r / c < SUBNORMAL_FROM and bp >= 2.0 ** -1022
        elif regime == "rc-709-746":
            assert SUBNORMAL_FROM < r / c < ZERO_FROM and 0 < bp < 2.0 ** -1022
        elif regime == "rc-746-800":
            assert ZERO_FROM < r / c <= 800 and bp == 0.0
        elif regime == "rc-above-800":
            assert r / c > 800 and bp == 0.0
        else:  # the ratio of a zero-match order under method1
            q = Fraction(request["epsilon"]) / request["totals"][1]
            if regime == "ratio-rounds-to-zero":
                assert q < Fraction(1, 2**1075) and t.exact["bleu"] == 0.0
            elif regime == "ratio-tie":
                assert q == Fraction(1, 2**1075) and t.exact["bleu"] == 0.0
            else:
                assert Fraction(1, 2**1075) < q < Fraction(1, 2**1022) and t.exact["bleu"] > 0
        assert check_exact(tool, case_id, request, t.expected, t.exact) == []
    assert seen == set(EXACT_REGIMES)


def test_a_planted_underflow_cut_at_80_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    import bleu_compat.harness.truth as truth_module

    request = {"segments": [{"candidate_length": 2, "reference_lengths": [300]}]}  # r/c = 150
    monkeypatch.setattr(truth_module, "_EXP_UNDERFLOW_ARGUMENT", 80)
    t = truth_module.truth("bleu-brevity-penalty", request)
    found = check_exact("bleu-brevity-penalty", "x", request, t.expected, t.exact)
    assert [f["field"] for f in found] == ["brevity_penalty"]
    assert found[0]["truth"] == 0.0 and found[0]["direct"] > 1e-66


def test_second_route_values_by_hand() -> None:
    # exp(1 - 150/2) = exp(-74): 7.28e-33, a normal double; mpmath at 50 digits agrees
    import mpmath

    with mpmath.workdps(50):
        want = float(mpmath.exp(-74))
    got = exact_values("bleu-brevity-penalty", {}, {"candidate_length": 2, "reference_length": 150})
    assert got == {"brevity_penalty": want}
    # a ratio whose double is 0 (5e-324 / 3): bleu 0 by SPEC.md section 2, BP 1 (c > r)
    got = exact_values("bleu-smoothing-compute", {
        "matches": [2, 0], "totals": [2, 3], "candidate_length": 2, "reference_length": 1,
        "smoothing": "method1", "epsilon": 5e-324}, {})
    assert got == {"bleu": 0.0, "brevity_penalty": 1.0}


def test_score_compare_exits_1_on_a_wrong_decomposition(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    import bleu_compat.decompose as decompose
    from bleu_compat.cli import main

    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("The cat sat on the mat .\na b c\n", encoding="utf-8")
    ref.write_text("The cat is on the mat.\na b c d e\n", encoding="utf-8")
    assert main(["score", str(ref), "-i", str(hyp), "--compare", "sacrebleu", "nltk-method1"]) == 0
    capsys.readouterr()
    real = decompose._shapley
    monkeypatch.setattr(decompose, "_shapley",
                        lambda k, members, values: {i: 2 * v for i, v in real(k, members, values).items()})
    assert main(["score", str(ref), "-i", str(hyp), "--compare", "sacrebleu", "nltk-method1"]) == 1
    out = capsys.readouterr()
    assert "fails the independent check of its Shapley" in out.err
    assert "sacrebleu -> nltk-method1" in out.err
    assert "Shapley" not in out.out  # no decomposition printed


def test_crosscheck_unit_checks_every_pair_of_a_generated_corpus() -> None:
    """One of the crosscheck's decomposition units: a generated raw-text corpus through every
    pair of the configurations that run here, each pair judged."""
    from bleu_compat.harness.classify import IMPLEMENTATIONS
    from bleu_compat.harness.run import _run_decompositions, decomposition_configurations

    n = len(decomposition_configurations(IMPLEMENTATIONS))
    tally = _run_decompositions(0, "generated#0", IMPLEMENTATIONS, None)
    assert tally.decompositions == n * (n - 1) // 2 >= 3
    assert tally.decomposition_failures == []


# ------------------------------------------------------- attribution (issue 36, item 4)


def _weakest(dec):
    """``dec`` with each step's "interacts most with" partner replaced by its *weakest*
    interacting factor (the smallest |v({i,j}) - v({i}) - v({j}) + v({})| in the table), and
    the effect after it made consistent with that partner: every number stays right."""
    names, values = list(dec.factors), list(dec.values)
    k = len(names)
    moving = [i for i in range(k)
              if any(values[m] != values[m | 1 << i] for m in range(1 << k) if not m >> i & 1)]
    causes = []
    for c in dec.causes:
        i = names.index(c.cause)
        sizes = {j: abs(Fraction(values[1 << i | 1 << j]) - Fraction(values[1 << i])
                        - Fraction(values[1 << j]) + Fraction(values[0])) for j in moving if j != i}
        if not sizes:
            causes.append(c)
            continue
        j = min(sizes, key=lambda x: (sizes[x], x))
        causes.append(replace(c, partner=(names[j], Fraction(values[1 << i | 1 << j])
                                          - Fraction(values[1 << j]))))
    return replace(dec, causes=tuple(causes))


def test_a_weakest_partner_fails_attribution(compared) -> None:
    """A pair with three or more moving factors whose interactions differ in size: naming the
    weakest partner (its effect after it computed right) fails the attribution check alone."""
    result, configs, real = compared
    hits = 0
    for dec in result.decompositions:
        a = next(c for c in configs if c.name == dec.frm)
        b = next(c for c in configs if c.name == dec.to)
        weakest = _weakest(dec)
        if weakest == dec:
            continue
        hits += 1
        assert _checks(weakest, a, b, real[id(a)], real[id(b)]) == {"attribution"}
    assert hits >= 1, "no pair here names a partner the weakest would change"


def test_alone_and_after_values_are_checked(compared) -> None:
    dec, a, b, ra, rb = _pair(compared, "sacrebleu", "nltk-method1")
    c = next(c for c in dec.causes if c.partner is not None)
    k = dec.causes.index(c)
    one_ulp = Fraction(math.ulp(1.0))
    for broken in (replace(c, alone=c.alone + one_ulp),
                   replace(c, partner=(c.partner[0], c.partner[1] + one_ulp)),
                   replace(c, partner=(dec.inert[0] if dec.inert else "no such factor",
                                       c.partner[1]))):
        changed = replace(dec, causes=dec.causes[:k] + (broken,) + dec.causes[k + 1:])
        assert _checks(changed, a, b, ra, rb) == {"attribution"}, broken


def test_change_direction_and_ranked_lines_are_checked(compared) -> None:
    dec, a, b, ra, rb = _pair(compared, "sacrebleu", "nltk-method1")
    tok = next(c for c in dec.causes if c.cause == "tokenization")
    assert tok.change.startswith("13a -> str.split()")
    k = dec.causes.index(tok)
    flipped = replace(tok, change="str.split() -> 13a")
    assert _checks(replace(dec, causes=dec.causes[:k] + (flipped,) + dec.causes[k + 1:]),
                   a, b, ra, rb) == {"attribution"}
    ranked = next(c for c in dec.causes if len({abs(e) for _, e in c.line_effects}) >= 2)
    k = dec.causes.index(ranked)
    reversed_ = replace(ranked, line_effects=tuple(reversed(ranked.line_effects)))
    assert _checks(replace(dec, causes=dec.causes[:k] + (reversed_,) + dec.causes[k + 1:]),
                   a, b, ra, rb) == {"attribution"}


def test_crosscheck_unit_fails_on_a_planted_weakest_partner(monkeypatch: pytest.MonkeyPatch) -> None:
    """The planted bug of the issue, in the crosscheck's own decomposition unit: score
    --compare choosing the weakest interacting factor as the partner (numbers unchanged) is
    an attribution failure on generated#0 (the crosscheck then exits 1: failed())."""
    import bleu_compat.decompose as decompose
    from bleu_compat.cli.crosscheck import failed
    from bleu_compat.harness.classify import IMPLEMENTATIONS
    from bleu_compat.harness.run import _run_decompositions

    real = decompose.decompose
    monkeypatch.setattr(decompose, "decompose", lambda *a, **k: _weakest(real(*a, **k)))
    tally = _run_decompositions(0, "generated#0", IMPLEMENTATIONS, None)
    checks = {f["check"] for f in tally.decomposition_failures}
    assert checks == {"attribution"}, tally.decomposition_failures[:3]
    assert failed({"unexpected_count": 0, "decomposition_failures_count": len(
        tally.decomposition_failures)})


@pytest.mark.parametrize("change, start, end, ok", [
    ("exp -> none", "exp", "none", True),
    ("exp -> none (card: method3 -> none)", "exp", "none", True),
    ("moses-de (tokenizer.perl -l de) -> moses-a-de (tokenizer.perl -l de -a)",
     "moses-de", "moses-a-de", True),
    ("exp -> nonex", "exp", "none", False),  # a value is whole
    ("13a -> zh", "13a", "char", False),
    ("moses-de (tokenizer.perl -l de) -> moses-de", "moses-de", "moses-a-de", False),
    ("13a (x -> y) -> zh", "13a", "zh", False),  # the words about the start hold no arrow
])
def test_the_change_wording_check(change, start, end, ok):
    """The attribution check reads "start -> end", words about a value allowed after it."""
    from bleu_compat.harness.decomposition_check import _worded

    assert _worded(change, start, end) is ok
