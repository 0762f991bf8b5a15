"""The divergence catalog: every reproducer runs against the installed libraries.

Each entry's reproducer is executed twice: by the card (bleu_compat.execute)
and by the library through its adapter, in every mode the entry lists. Both
values must equal the ones the entry records, so a library upgrade that
changes a behaviour fails here and names the entry to update.
"""

from __future__ import annotations

import copy
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from bleu_compat import card, execute
from bleu_compat.libraries import run_adapter
from bleu_compat.catalog import ENTRIES, entry
from bleu_compat.ulp import ulp_distance

from _reproduce import assert_reproduced

pytest.importorskip("sacrebleu")
pytest.importorskip("nltk")

REPO = Path(__file__).resolve().parent.parent
IDS = [e.id for e in ENTRIES]


def _verified_on_installed(e) -> None:
    """Skip an entry whose model was not verified on the installed library version: its
    reproducer shows a behaviour of other releases (``bleu-compat matrix`` checks those, and
    ``test_matrix.py::test_library_code_in_its_release`` runs their library code there, opt-in)."""
    from bleu_compat.errors import OracleUnavailableError
    from bleu_compat.libraries import library_version

    try:
        installed = library_version(e.library)
    except OracleUnavailableError as exc:  # not installed, or a script the environment does not name
        pytest.skip(f"{e.id}: {exc}")
    if installed not in e.verified:
        pytest.skip(f"{e.id} is verified on {e.library} {', '.join(e.verified)}; {installed} is installed")


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
    assert _same(out.get(e.reproducer_field), e.card_value), e.id


@pytest.mark.parametrize("e", ENTRIES, ids=IDS)
def test_reproducer_library_value(e):
    """The library (through its adapter, in every listed mode) gives the recorded value."""
    _verified_on_installed(e)
    for mode in e.modes:
        request = copy.deepcopy(e.reproducer)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = run_adapter(e.library, mode, e.tool_id, request)
        assert request == e.reproducer, f"{e.id}: the adapter mutated the request"
        if result.output is None:
            assert result.not_representable is None, e.id
            assert result.error == e.library_value, f"{e.id} ({mode}): {result.error}"
            continue
        got = result.output[e.reproducer_field]
        assert _same(got, e.library_value), f"{e.id} ({mode}): library now gives {got!r}"
        card_value = execute(e.tool_id, e.reproducer)[e.reproducer_field]
        assert not _same(got, card_value), f"{e.id} ({mode}): no divergence any more"


@pytest.mark.parametrize("e", ENTRIES, ids=IDS)
def test_reproducer_is_reproduced_by_the_entry(e):
    """In every listed mode the library's output on the reproducer is reproduced bit for bit by
    its dialect, and in at least one mode the reproducing set names the entry."""
    _verified_on_installed(e)
    named = False
    for mode in e.modes:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = run_adapter(e.library, mode, e.tool_id, e.reproducer)
        if result.not_representable is not None:
            continue
        output = result.output if result.output is not None else {"error": result.error}
        named |= e.id in assert_reproduced(e.library, mode, e.tool_id, e.reproducer, output)
    assert named, f"{e.id}: no mode's reproducing set names the entry"


@pytest.mark.parametrize("e", ENTRIES, ids=IDS)
def test_library_code_prints_the_library_value(e):
    """The code shown for the library side prints what the entry records (run as a user would)."""
    _verified_on_installed(e)
    proc = subprocess.run([sys.executable, "-c", e.library_code], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == e.library_prints, e.id


def test_no_tolerance_left_in_the_catalog():
    """No entry carries a ULP bound or a predicate: explanation is by reproduction only."""
    for e in ENTRIES:
        assert not hasattr(e, "max_ulps") and not hasattr(e, "predicate"), e.id
    for path in (REPO / "bleu_compat").rglob("*.py"):
        assert "max_ulps" not in path.read_text(encoding="utf-8"), path


def test_ids_unique_and_stable_shape():
    """Ids are unique, upper-case and name their library."""
    assert len(IDS) == len(set(IDS))
    for e in ENTRIES:
        assert e.id == e.id.upper() and e.id.startswith(e.library.upper() + "-")
        assert set(e.modes) <= {"as_called", "mapped"} and e.modes
        assert e.explanation and e.title


def test_entries_record_verified_versions():
    """Every entry names the library versions its model was verified on (SPEC.md section 7)."""
    for e in ENTRIES:
        assert e.verified and all(v[0].isdigit() for v in e.verified), e.id


def test_a_difference_no_model_gives_is_unexpected():
    """NLTK's mapped matches changed by one on the card's 2nd example: no dialect gives that."""
    from bleu_compat.catalog import classify
    from bleu_compat.harness.truth import truth

    ex = {k: v for k, v in card("bleu-corpus-compute").examples[1]["input"].items() if k != "decimals"}
    expected = truth("bleu-corpus-compute", ex).expected
    planted = dict(expected, matches=[14, 7, 5, 2])
    rep = classify("nltk", "mapped", "bleu-corpus-compute", ex, expected, planted)
    assert not rep.explained and "matches" in rep.unreproduced


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
    assert set(assert_reproduced("sacrebleu", "mapped", "bleu-corpus-compute", request, sacre.output)
               ) <= {"SACREBLEU-FLOAT-ORDER"}
    assert "NLTK-DENOMINATOR-FLOOR" in assert_reproduced(
        "nltk", "as_called", "bleu-corpus-compute", request, nltk_result.output)


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

    def test_the_flip_is_reproduced_by_the_float_order_model(self) -> None:
        """sacreBLEU's 0.2 is its own double rounded by toFixed: SACREBLEU-FLOAT-ORDER reproduces it."""
        library = run_adapter("sacrebleu", "as_called", "bleu-corpus-compute", self.REQUEST).output
        assert assert_reproduced("sacrebleu", "as_called", "bleu-corpus-compute", self.REQUEST,
                                 library) == ("SACREBLEU-FLOAT-ORDER",)

    def test_another_rounded_value_is_unexpected(self) -> None:
        """A value the model's double does not round to (0.1) is UNEXPECTED."""
        from bleu_compat.catalog import classify
        from bleu_compat.harness.truth import truth

        library = run_adapter("sacrebleu", "as_called", "bleu-corpus-compute", self.REQUEST).output
        expected = truth("bleu-corpus-compute", self.REQUEST).expected
        rep = classify("sacrebleu", "as_called", "bleu-corpus-compute", self.REQUEST, expected,
                       dict(library, bleu=0.1))
        assert not rep.explained and rep.unreproduced == ("bleu",)


@pytest.mark.parametrize("e", ENTRIES, ids=lambda e: e.id)
def test_reproducer_card_value_is_the_independent_truth(e) -> None:
    """Each entry's card value equals the harness's independent evaluation of the card (not only ours)."""
    from bleu_compat.harness.truth import truth

    assert truth(e.tool_id, e.reproducer).expected.get(e.reproducer_field) == e.card_value


def test_catalog_check_on_a_non_utf8_file_is_stale(tmp_path):
    """`catalog --check` on a file that is not even UTF-8 says it is stale (exit 1), no internal error."""
    from bleu_compat.cli import main

    bad = tmp_path / "garbage.bin"
    bad.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["catalog", "--check", "--out", str(bad)]) == 1


# --- tokenizer differences between releases (issue 20) --------------------------------------

from bleu_compat.catalog import MEASURED, TOKENIZER_ENTRIES  # noqa: E402


@pytest.mark.parametrize("e", TOKENIZER_ENTRIES, ids=[e.id for e in TOKENIZER_ENTRIES])
def test_tokenizer_entry_model_is_our_tokenizer_for_its_releases(e) -> None:
    """Our tokenizer takes the entry's model for exactly the measured releases it is verified on,
    and gives the recorded tokens: the model's for those, the newest release's otherwise."""
    from bleu_compat.tokenizers import get_tokenizer, releases

    assert set(e.verified) <= set(MEASURED[e.library]) and e.id.startswith("SACREBLEU-")
    for version in MEASURED[e.library]:
        assert (releases.variant(e.tokenizer, version) == e.model) == (version in e.verified), version
    assert tuple(get_tokenizer(e.tokenizer, release=e.verified[-1])(e.reproducer)) == e.library_tokens
    assert tuple(get_tokenizer(e.tokenizer)(e.reproducer)) == e.newest_tokens != e.library_tokens
    assert e.facts is None or e.facts(e.reproducer)


@pytest.mark.parametrize("e", TOKENIZER_ENTRIES, ids=[e.id for e in TOKENIZER_ENTRIES])
def test_tokenizer_entry_against_the_libraries(e) -> None:
    """The installed sacreBLEU gives the newest tokens where the entry does not hold; the entry's
    library code prints the recorded tokens in the environment of its newest verified release
    (skipped where that environment is not cached)."""
    from bleu_compat import matrix
    from bleu_compat.libraries import library_version
    from bleu_compat.libraries.sacrebleu.tokens import library_tokenizer

    installed = library_version(e.library)
    expected = e.library_tokens if installed in e.verified else e.newest_tokens
    assert tuple(library_tokenizer(e.tokenizer)(e.reproducer)) == expected
    env = matrix.default_cache() / matrix.EnvSpec(e.library, e.verified[-1]).name
    if not matrix.cached(matrix.EnvSpec(e.library, e.verified[-1]), matrix.default_cache(), REPO):
        pytest.skip(f"no cached environment of {e.library} {e.verified[-1]} ({env})")
    proc = subprocess.run([str(matrix.env_python(env)), "-c", e.library_code], capture_output=True,
                          text=True, timeout=120, cwd="/")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == e.library_prints
