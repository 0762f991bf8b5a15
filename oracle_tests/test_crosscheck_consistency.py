"""Issue 25: the judge checks itself — every claimed catalog entry held against its library.

A model too broad (firing where the library does not behave so) and a claim widened (an entry
claimed for a release or mode where the library does not behave so) must fail a crosscheck
(exit 1, a "too broad" finding naming the entry), not pass because no verdict changed. The
planted bugs below are the issue's examples; the real catalog must raise no finding.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from bleu_compat import catalog
from bleu_compat.harness.checks import expected_error
from bleu_compat.harness.consistency import (
    NEGATIVE_DEFAULTS, check_negative_models, negative_request, too_broad, unreachable,
)

CORPUS, SMOOTHING, BREVITY = "bleu-corpus-compute", "bleu-smoothing-compute", "bleu-brevity-penalty"


def _installed(library: str) -> str:
    version = catalog.installed_version(library)
    if not version or not catalog.is_measured(library, version):
        pytest.skip(f"{library} is not installed in a measured release")
    return version


def _too_broad_bp_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant the issue's first kind: sacreBLEU's BP-zero model gives BP 1 whenever c = 0."""
    import bleu_compat.libraries.sacrebleu.model as model

    real = model._bp
    monkeypatch.setattr(model, "_bp", lambda c, r, zero: 1.0 if zero and c == 0 else real(c, r, zero))


def _widen(monkeypatch: pytest.MonkeyPatch, entry_id: str, **changes: Any) -> None:
    entries = tuple(dataclasses.replace(e, **changes) if e.id == entry_id else e for e in catalog.ENTRIES)
    monkeypatch.setattr(catalog, "ENTRIES", entries)


def test_every_negative_reproducer_is_valid_and_left_alone() -> None:
    """Each entry's negative reproducer is a valid request, and its model alone gives the card's
    output there (every library's entries, installed or not; torch's models need torch)."""
    for e in catalog.ENTRIES:
        assert expected_error(e.tool_id, negative_request(e)) is None, e.id
    assert check_negative_models(catalog.ENTRIES) == []
    assert set(NEGATIVE_DEFAULTS) == {CORPUS, SMOOTHING, BREVITY}


def test_a_model_firing_on_its_negative_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """A model that changes the card's output on its negative reproducer is a finding."""
    import bleu_compat.libraries.sacrebleu.model as model

    real = model._bp
    monkeypatch.setattr(model, "_bp", lambda c, r, zero: 0.5 if zero else real(c, r, zero))
    found = check_negative_models(catalog.ENTRIES, {"sacrebleu"})
    assert {f["entry"] for f in found} == {"SACREBLEU-BP-ZERO-LENGTHS-BREVITY", "SACREBLEU-BP-EMPTY-CORPUS",
                                           "SACREBLEU-BP-ZERO-LENGTHS-SMOOTHING"}
    assert all(f["model"]["brevity_penalty"] == 0.5 and f["library"]["brevity_penalty"] == 1.0
               for f in found)


def test_the_catalog_is_consistent_on_its_own_reproducers() -> None:
    """The real catalog: on every entry's reproducer and negative, no installed library's claimed
    entry is too broad (the library really runs)."""
    from bleu_compat.harness.classify import IMPLEMENTATIONS, evaluate

    for e in catalog.ENTRIES:
        impls = tuple(f"{e.library}/{m}" for m in e.modes if f"{e.library}/{m}" in IMPLEMENTATIONS)
        if not impls:
            continue
        for request in (e.reproducer, negative_request(e)):
            result = evaluate(e.tool_id, e.id, request, implementations=impls)
            assert result.too_broad == [], (e.id, result.too_broad)


def test_too_broad_model_is_found_where_the_library_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    """BP 1 whenever c = 0: on c = 0 < r sacreBLEU gives the card's 0, so the entry is too broad."""
    from bleu_compat.harness.classify import evaluate

    version = _installed("sacrebleu")
    request = {"segments": [{"candidate_length": 0, "reference_lengths": [3]}]}
    assert evaluate(BREVITY, "c0", request, implementations=("sacrebleu/mapped",)).too_broad == []
    _too_broad_bp_zero(monkeypatch)
    result = evaluate(BREVITY, "c0", request, implementations=("sacrebleu/as_called", "sacrebleu/mapped"))
    assert [(f["implementation"], f["entry"], f["release"]) for f in result.too_broad] == [
        ("sacrebleu/as_called", "SACREBLEU-BP-ZERO-LENGTHS-BREVITY", version),
        ("sacrebleu/mapped", "SACREBLEU-BP-ZERO-LENGTHS-BREVITY", version)]
    f = result.too_broad[0]
    assert f["library"] == {"brevity_penalty": 0.0} and f["model"] == {"brevity_penalty": 1.0}
    # its neighbour c = r = 0, where sacreBLEU does give 1, is no finding
    both_zero = {"segments": [{"candidate_length": 0, "reference_lengths": [0]}]}
    assert evaluate(BREVITY, "c0r0", both_zero, implementations=("sacrebleu/mapped",)).too_broad == []


def test_widened_release_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """NLTK-METHOD2-ADDS-TO-UNIGRAMS (NLTK 3.5) claimed for the installed NLTK: on a method2
    request NLTK does not add to the unigrams, so the claim fails."""
    from bleu_compat.harness.classify import evaluate

    version = _installed("nltk")
    request = {"matches": [3, 1, 0, 0], "totals": [4, 3, 2, 1], "candidate_length": 4,
               "reference_length": 4, "smoothing": "method2"}
    assert evaluate(SMOOTHING, "m2", request, implementations=("nltk/as_called",)).too_broad == []
    entry = catalog.entry("NLTK-METHOD2-ADDS-TO-UNIGRAMS")
    _widen(monkeypatch, entry.id, verified=entry.verified + (version,))
    result = evaluate(SMOOTHING, "m2", request, implementations=("nltk/as_called", "nltk/mapped"))
    assert {(f["implementation"], f["entry"]) for f in result.too_broad} == {
        ("nltk/as_called", entry.id), ("nltk/mapped", entry.id)}


def test_widened_mode_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """SACREBLEU-WHITESPACE-IN-TOKEN allowed in mapped mode: the mapped adapter keeps such a
    token whole, so the claim fails on a request with one."""
    from bleu_compat.harness.classify import evaluate

    _installed("sacrebleu")
    request = {"hypotheses": [["New York", "is", "big"]], "references": [[["New York", "is", "big"]]]}
    assert evaluate(CORPUS, "ws", request, implementations=("sacrebleu/mapped",)).too_broad == []
    _widen(monkeypatch, "SACREBLEU-WHITESPACE-IN-TOKEN", modes=("as_called", "mapped"))
    result = evaluate(CORPUS, "ws", request, implementations=("sacrebleu/mapped",))
    assert [f["entry"] for f in result.too_broad] == ["SACREBLEU-WHITESPACE-IN-TOKEN"]


def test_interacting_entries_are_consistent_together() -> None:
    """Two claimed entries whose changes cancel on a request (bleuscore's retokenizing and its
    shortest reference, generated case bleu-corpus-compute#148 of seed 0) are no finding: the
    release's whole claimed dialect reproduces the library."""
    from bleu_compat.harness.classify import evaluate
    from bleu_compat.harness.generate import generate_case

    _installed("bleuscore")
    case = generate_case(0, CORPUS, 148)
    result = evaluate(CORPUS, case.case_id, case.request, implementations=("bleuscore/as_called",))
    assert "bleuscore/as_called" not in result.reproductions  # it agrees with the card
    assert result.too_broad == []
    # each alone does change the output there: the check is not vacuous on this case
    model = catalog.MODELS["bleuscore"]
    card = model(CORPUS, "as_called", case.request, frozenset(), {})
    alone = model(CORPUS, "as_called", case.request, frozenset({"BLEUSCORE-SHORTEST-REFERENCE"}), {})
    assert alone["reference_length"] != card["reference_length"]


def test_too_broad_under_measuring_claims_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """``BLEU_COMPAT_DIALECT=any`` (measuring a release) and an unmeasured release claim nothing."""
    monkeypatch.setenv("BLEU_COMPAT_DIALECT", "any")
    assert too_broad("sacrebleu", "mapped", "2.6.0", BREVITY, {"segments": []}, {"x": 1}, (), "c") == []
    monkeypatch.delenv("BLEU_COMPAT_DIALECT")
    assert too_broad("sacrebleu", "mapped", "0.0.1", BREVITY, {"segments": []}, {"x": 1}, (), "c") == []


def test_crosscheck_fails_on_a_too_broad_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI: exit 1, a summary line naming the entry, and the finding in every report."""
    from bleu_compat.cli import main

    _installed("sacrebleu")
    _too_broad_bp_zero(monkeypatch)
    args = ["crosscheck", "--cases", "12", "--tools", BREVITY, "--no-real", "--workers", "1",
            "--no-progress", "--out", str(tmp_path)]
    assert main(args) == 1
    report = json.loads((tmp_path / "crosscheck.json").read_text(encoding="utf-8"))
    assert report["unexpected_count"] == 0  # no verdict changed: only the consistency check sees it
    assert report["too_broad_count"] >= 1
    assert {t["entry"] for t in report["too_broad"]} == {"SACREBLEU-BP-ZERO-LENGTHS-BREVITY"}
    md = (tmp_path / "crosscheck.md").read_text(encoding="utf-8")
    assert "### `SACREBLEU-BP-ZERO-LENGTHS-BREVITY` too broad" in md
    junit = (tmp_path / "crosscheck.junit.xml").read_text(encoding="utf-8")
    assert 'type="TOO-BROAD"' in junit
    if (tmp_path / "crosscheck.html").exists():
        assert "SACREBLEU-BP-ZERO-LENGTHS-BREVITY" in (tmp_path / "crosscheck.html").read_text(encoding="utf-8")


def test_never_reproduced_lists_claimed_entries_and_why() -> None:
    """Item 2: the claimed entries of the installed releases no case reproduced, with the reason
    for those the default generators do not reach."""
    from bleu_compat.harness.report import never_reproduced

    version = _installed("bleuscore")
    ids = [e.id for e in catalog.dialect_entries("bleuscore", version)]
    rows = never_reproduced({"bleuscore": version}, ("ours", "bleuscore/as_called", "bleuscore/mapped"),
                            set(ids[1:]))
    assert [r["entry"] for r in rows] == ids[:1]
    rows = never_reproduced({"bleuscore": version}, ("ours", "bleuscore/mapped"), set())
    assert {r["entry"] for r in rows} <= set(ids)
    assert "BLEUSCORE-ADD-ONE-ON-UNIGRAMS-SMOOTHING" not in {r["entry"] for r in rows}  # as_called only
    unreached = {r["entry"]: r for r in rows if not r["reachable"]}
    assert set(unreached) == {k for k in unreachable() if k in ids} and unreached
    assert all(r["why"] for r in unreached.values())


def test_tally_keeps_findings_through_json() -> None:
    """A checkpoint's tally keeps the findings (counts and first example)."""
    from bleu_compat.harness.run import Tally, tally_from_json, tally_to_json

    tally = Tally()
    finding = {"tool": BREVITY, "implementation": "sacrebleu/mapped", "entry": "E", "release": "2.6.0",
               "case_id": "c", "request": {"segments": []}, "with": ["E"], "fields": ["bleu"],
               "library": {"bleu": 0.0}, "model": {"bleu": 1.0}}
    tally.add_too_broad([finding, dict(finding, case_id="d")])
    back = tally_from_json(json.loads(json.dumps(tally_to_json(tally))))
    assert back.too_broad == {(BREVITY, "sacrebleu/mapped", "E"): [2, finding]}


# --- item 5: an internal error is exit 3 naming the case; the gate samples by kind --------------


def test_internal_error_is_exit_3_naming_the_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A truth that raises on one case (an internal error of ours) stops the run with exit 3,
    naming that case: never a verdict, never a report that looks complete."""
    import bleu_compat.harness.classify as classify
    from bleu_compat.cli import main

    real = classify.truth

    def broken(tool_id: str, request: dict[str, Any]) -> Any:
        if request == generate_brevity(3):
            raise TypeError("planted")
        return real(tool_id, request)

    monkeypatch.setattr(classify, "truth", broken)
    out = tmp_path / "out"
    code = main(["crosscheck", "--cases", "6", "--tools", BREVITY, "--no-real", "--workers", "1",
                 "--no-progress", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 3
    assert "bleu-brevity-penalty#3" in err and "TypeError: planted" in err and "no verdict" in err
    assert not (out / "crosscheck.json").exists()


def generate_brevity(k: int) -> dict[str, Any]:
    from bleu_compat.harness.generate import generate_case

    return generate_case(0, BREVITY, k).request


def test_case_error_crosses_processes() -> None:
    """A worker's CaseError reaches the parent whole (it is pickled by the process pool)."""
    import pickle

    from bleu_compat.harness.run import CaseError

    back = pickle.loads(pickle.dumps(CaseError("bleu-corpus-compute#337", "TypeError: x (truth.py:1)")))
    assert (back.case_id, back.detail) == ("bleu-corpus-compute#337", "TypeError: x (truth.py:1)")
    assert str(back) == "on case bleu-corpus-compute#337: TypeError: x (truth.py:1); no verdict"


def test_gate_sample_meets_the_default_runs_kinds() -> None:
    """The cases the default run reaches first after the gate's 120 — the total-token limit met
    exactly (#337), the total-byte limit met exactly (#437) — are in the gate's sample."""
    from bleu_compat.harness.generate import generate_case
    from bleu_compat.harness.sampling import kind_of, sample_by_kind

    chosen = sample_by_kind(0, CORPUS, 120, 440)
    assert chosen[:120] == list(range(120)) and {337, 437} <= set(chosen[120:])
    assert len(chosen) < 140  # a handful added, not the run
    facts = dict((f[0], f[1:]) for f in kind_of(CORPUS, generate_case(0, CORPUS, 337).request))
    assert facts["at limit tokens"] == (True,)
    # fewer candidate tokens than four orders, with a unigram match: NLTK's auto_reweigh acts there
    short = {"hypotheses": [["a", "b"]], "references": [[["a", "b", "c"]]]}
    assert ("orders, candidate tokens", True, 1) in kind_of(CORPUS, short)


def test_gate_keeps_its_sample_and_fails_on_too_broad() -> None:
    """The baseline keeps the sample; a report with an entry too broad fails the gate."""
    from bleu_compat.cli.gate import baseline_of, gate_diff

    report = {"seed": 0, "cases": {BREVITY: 3}, "versions": {}, "unexpected_count": 0, "kinds": [],
              "real": [], "sampled": {BREVITY: [130]},
              "too_broad": [{"tool": BREVITY, "implementation": "sacrebleu/mapped", "entry": "E"}]}
    current = baseline_of(report)
    assert current["sample"] == {BREVITY: [130]}
    clean = baseline_of(dict(report, too_broad=[]))
    assert "too_broad" not in clean and gate_diff(clean, clean) == []
    assert gate_diff(clean, current) == [f"+ catalog entry too broad: {BREVITY} | sacrebleu/mapped | E"]
