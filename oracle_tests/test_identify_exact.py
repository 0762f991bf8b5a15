"""``identify`` (issue 33): exact numbers, how a score is read, configurations that do not run,
reference subsets.

Expected numbers come from sacreBLEU and NLTK run here on the same files, from the published
WMT23 ``automatic-scores.tsv`` (``fixtures/real/wmt23-audit``, SOURCE.md), from the catalog's
recorded library outputs, or from an independent calculation (``decimal``); never from
bleu_compat.
"""

from __future__ import annotations

import gzip
import json
import random
import warnings
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

import pytest

from bleu_compat.cli import main

pytestmark = pytest.mark.xdist_group("test_identify_exact")

sacrebleu = pytest.importorskip("sacrebleu")

ROOT = Path(__file__).resolve().parent.parent
WMT23 = ROOT / "fixtures" / "real" / "wmt23-audit"
WMT17 = ROOT / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"


def _lines(path: Path | str) -> list[str]:
    return Path(path).read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def wmt23(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The WMT23 fixture's files, unpacked."""
    out = tmp_path_factory.mktemp("wmt23")
    for gz in WMT23.glob("*.gz"):
        (out / gz.name[:-3]).write_bytes(gzip.decompress(gz.read_bytes()))
    (out / "table.tsv").write_bytes((WMT23 / "table.tsv").read_bytes())
    return out


def _published(label: str) -> str:
    for line in _lines(WMT23 / "table.tsv")[1:]:
        cells = line.split("\t")
        if cells[0] == label:
            return cells[1]
    raise KeyError(label)


# ----------------------------------------------------------------------------- exact numbers


def test_en_cs_online_w_published_double_is_sacrebleu(wmt23: Path, capsys) -> None:
    """Done-when: the published 59.436518912388884 is sacreBLEU's own double (its 0-100
    arithmetic: the card's 0-1 value x 100 is one ULP away, which made identify answer none)."""
    from sacrebleu.metrics import BLEU

    ref, hyp = wmt23 / "generaltest2023.en-cs.ref.refA.cs", wmt23 / "generaltest2023.en-cs.hyp.ONLINE-W.cs"
    published = _published("en-cs ONLINE-W bleu-all")
    own = BLEU().corpus_score(_lines(hyp), [_lines(ref)]).score
    assert repr(own) == published == "59.436518912388884"
    assert 100 * (own / 100) != own  # the 0-1 round trip is not sacreBLEU's number here
    code = main(["identify", published, str(ref), "-i", str(hyp), "--format", "json"])
    out = json.loads(capsys.readouterr().out)["results"][0]
    assert code == 0 and out["read"]["exact"] is True
    first = out["matches"][0]
    assert first["spec"] == "sacrebleu" and "2.6.0" in first["releases"]
    assert first["native"] == own and first["points"] == own and first["native_scale"] == "0-100"
    assert all(m["points"] == own for m in out["matches"])  # exact: every one is that double


def test_en_zh_14_decimals_is_a_whole_double(wmt23: Path) -> None:
    """50.21600470897051 (14 decimals, 16 significant digits: ``str`` of a double) is read as
    that double, and sacreBLEU -tok zh gives it exactly."""
    from sacrebleu.metrics import BLEU

    from bleu_compat.identify import parse_score, search

    ref = wmt23 / "generaltest2023.en-zh.ref.refA.zh"
    hyp = wmt23 / "generaltest2023.en-zh.hyp.Lan-BridgeMT.zh"
    published = _published("en-zh Lan-BridgeMT bleu-all")
    own = BLEU(tokenize="zh").corpus_score(_lines(hyp), [_lines(ref)]).score
    assert repr(own) == published
    reading = parse_score(published)
    assert reading.exact and reading.value == own and "exactly" in reading.how
    r = search(str(hyp), [str(ref)]).matching(published)
    assert r.matches and r.matches[0].config.signature().startswith("case:mixed|eff:no|tok:zh|smooth:exp")
    assert all(m.points == own for m in r.matches)


@pytest.mark.parametrize("text, exact, decimals", [
    ("59.436518912388884", True, 15), ("50.21600470897051", True, 14), ("28.3", False, 1),
    ("23.38", False, 2), ("0.2338", False, 4), ("28", False, 0), ("0.0", False, 1),
    ("23.383356", False, 6), ("61.99618827942800", False, 14),  # a trailing zero: not a repr
])
def test_how_a_score_is_read(text: str, exact: bool, decimals: int) -> None:
    from bleu_compat.identify import parse_score

    r = parse_score(text)
    assert (r.exact, r.decimals) == (exact, decimals)
    assert r.how.startswith("read as the double" if exact else "read as rounded")
    assert parse_score(text, exact=True).exact and not parse_score(text, exact=False).exact


def test_exact_zero_is_zero_not_one_decimal(tmp_path: Path, capsys) -> None:
    """``identify 0.0 --exact`` matches numbers that are 0.0, where ``0.0`` read as one
    decimal on the 0-1 scale takes everything below 0.05 (the issue's 0.0316, 0.000032)."""
    from bleu_compat.identify import parse_score, search

    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat on the mat\nhello world\nA B C D\n", encoding="utf-8")
    hyp.write_text("the dog ran\nworld peace\nA X B Y\n", encoding="utf-8")
    s = search(str(hyp), [str(ref)])
    exact = {m.config.signature() + m.release_label for m in s.matching("0.0", exact=True).matches}
    rounded = {m.config.signature() + m.release_label for m in s.matching("0.0").matches}
    assert exact == {m.config.signature() + m.release_label for m in s.values if m.bleu == 0.0}
    assert rounded == {m.config.signature() + m.release_label for m in s.values
                       if Decimal(m.bleu).quantize(Decimal("0.1"), ROUND_HALF_EVEN) == 0}
    assert exact < rounded and any(0 < m.bleu < 0.05 for m in s.values)
    code = main(["identify", "0.0", str(ref), "-i", str(hyp), "--exact"])
    out = capsys.readouterr().out
    assert code == 0 and "read as the double 0.0 exactly (--exact)" in out.splitlines()[0]
    assert parse_score("0.0", exact=True).value == 0.0


def test_printing_is_half_even_on_the_binary_value() -> None:
    """The rounding of a candidate is the printers' (Python format, printf): the exact binary
    value to the nearest, an exact tie to even (an independent Decimal calculation)."""
    from bleu_compat.identify import printed

    rng = random.Random(7)
    cases = [0.125, 0.375, 2.675, 28.25, 28.35, 1e-7, 99.995, 0.5, 1.5, 2.5]
    cases += [rng.random() * 100 for _ in range(2000)] + [k / 8 for k in range(800)]
    for x in cases:
        for d in (0, 1, 2, 3, 4, 6):
            want = str(Decimal(x).quantize(Decimal(1).scaleb(-d), rounding=ROUND_HALF_EVEN))
            assert printed(x, d) == want, (x, d)


# ----------------------------------------------------------------------------- only what runs


def test_identify_0_on_empty_output_does_not_list_hf_bleu(tmp_path: Path, capsys) -> None:
    """Done-when: HF evaluate's bleu raises ZeroDivisionError on an all-empty output (its
    catalog entry, HF-BLEU-ZERO-LENGTH-RAISES, recorded from the library); identify names it
    with that error and never lists it as giving 0."""
    from bleu_compat.libraries.registry import libraries

    entry = next(e for lib in libraries() for e in lib.catalog_entries
                 if e.id == "HF-BLEU-ZERO-LENGTH-RAISES")
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat\nhello world\n", encoding="utf-8")
    hyp.write_text("\n\n", encoding="utf-8")
    for extra in ([], ["--exact"]):
        code = main(["identify", "0", str(ref), "-i", str(hyp), "--format", "json", *extra])
        out = json.loads(capsys.readouterr().out)["results"][0]
        assert code == 0 and out["matches"]
        assert not any(m["implementation"].startswith("HF evaluate") for m in out["matches"])
        hf = [u for u in out["unscored"] if u["implementation"].startswith("HF evaluate")]
        assert hf and all(u["does"] == entry.library_prints for u in hf)
    code = main(["identify", "0", str(ref), "-i", str(hyp)])
    text = capsys.readouterr().out
    assert code == 0 and "not an answer:" in text and entry.library_prints in text


def test_t2t_with_two_reference_files_is_refused(tmp_path: Path) -> None:
    """t2t-bleu's bleu_wrapper takes one reference file: with two, no t2t configuration
    gives a number (against both), and the refusal says why."""
    from bleu_compat.identify import search

    r1, r2, hyp = tmp_path / "r1.txt", tmp_path / "r2.txt", tmp_path / "h.txt"
    r1.write_text("a b c d\ne f g h\n", encoding="utf-8")
    r2.write_text("a b x d\ne f y h\n", encoding="utf-8")
    hyp.write_text("a b c d\ne f g z\n", encoding="utf-8")
    s = search(str(hyp), [str(r1), str(r2)])
    both = (str(r1), str(r2))
    assert not any(m.config.implementation == "t2t" and m.references == both for m in s.values)
    assert any(m.config.implementation == "t2t" and len(m.references) == 1 for m in s.values)
    assert any(f.implementation == "tensor2tensor" and "one reference file" in f.what
               and f.references == both for f in s.refused) or any(
        "one reference file" in f.what for f in s.refused)


def test_sacrebleu_2_0_0_below_order_4_is_refused_as_the_catalog_says(tmp_path: Path) -> None:
    """sacreBLEU 2.0.0 does not pass the max order on (SACREBLEU-MAX-ORDER-NOT-PASSED-
    INDEXERROR, recorded from 2.0.0): an order-3 configuration is not listed for 2.0.0."""
    from bleu_compat.identify import search
    from bleu_compat.libraries.registry import libraries

    entry = next(e for lib in libraries() for e in lib.catalog_entries
                 if e.id == "SACREBLEU-MAX-ORDER-NOT-PASSED-INDEXERROR")
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat on the mat today\n", encoding="utf-8")
    hyp.write_text("the cat sat on a mat today\n", encoding="utf-8")
    s = search(str(hyp), [str(ref)])
    order3 = [m for m in s.values if m.config.implementation == "sacrebleu" and m.config.max_order == 3
              and m.config.aggregation == "corpus"]
    assert order3 and all("2.0.0" not in m.releases for m in order3)
    assert all("2.6.0" in m.releases for m in order3 if m.config.tokenize == "13a")
    assert any("2.0.0" in f.releases and entry.library_value.split(":")[0] in f.what for f in s.refused)


def test_every_model_outcome_agrees_with_its_corpus_model(tmp_path: Path) -> None:
    """Each model's ``corpus_outcome`` (what identify reads) says a library raises exactly
    where its ``bleu-corpus-compute`` model (the one the catalog verifies on the libraries)
    gives an error, on corpora with empty outputs, empty references and normal ones."""
    from bleu_compat.libraries.registry import libraries
    from bleu_compat.stats import corpus_stats

    corpora = [([[]], [[["a"]]]), ([["a", "b"]], [[[]]]), ([["a", "b", "c"]], [[["a", "b", "c"]]]),
               ([[], ["x"]], [[["a"]], [["x"]]]), ([["a"]], [[["a"]]])]
    checked = 0
    for lib in libraries():
        model = lib.model_module()
        outcome = getattr(model, "corpus_outcome", None)
        if outcome is None:
            continue
        entries = [e for e in lib.catalog_entries if e.tool_id == "bleu-corpus-compute"
                   and "as_called" in e.modes]
        for release in lib.verified:
            on = frozenset(e.id for e in entries if release in e.verified)
            for order in (1, 2, 4):
                for hyps, refs in corpora:
                    request = {"hypotheses": hyps, "references": refs, "max_order": order}
                    try:
                        out = lib.evaluate("bleu-corpus-compute", "as_called", request, on, {})
                    except Exception:  # noqa: BLE001 - a model that needs its library here
                        continue
                    st = corpus_stats(hyps, refs, max_order=order)
                    facts = {"matches": list(st.matches), "totals": list(st.totals),
                             "candidate_length": st.hyp_len, "reference_length": st.ref_len,
                             "max_order": order, "reference_files": 1, "smoothing": "none",
                             "segments_without_reference": sum(
                                 1 for seg in refs if all(not r for r in seg))}
                    if lib.decomposition.statistics:  # shortest-reference and the like
                        continue
                    said = outcome(facts, on)
                    assert isinstance(said, str) == ("error" in out), (lib.name, release, request, said, out)
                    if isinstance(said, float):  # its own number, on its own scale
                        assert out["bleu"] == (said / 100 if lib.native.scale == "0-100" else said)
                    checked += 1
    assert checked > 100


# ----------------------------------------------------------------------------- subsets


def test_he_en_bleu_all_is_ref_a_alone(wmt23: Path) -> None:
    """WMT23 he-en's published bleu-all is refA's number: identify against refA and refB
    finds it against refA alone (sacreBLEU run here on refA gives every digit)."""
    from sacrebleu.metrics import BLEU

    from bleu_compat.identify import search

    a, b = wmt23 / "generaltest2023.he-en.ref.refA.en", wmt23 / "generaltest2023.he-en.ref.refB.en"
    hyp = wmt23 / "generaltest2023.he-en.hyp.ZengHuiMT.en"
    published = _published("he-en ZengHuiMT bleu-all")
    assert repr(BLEU().corpus_score(_lines(hyp), [_lines(a)]).score) == published
    both = BLEU().corpus_score(_lines(hyp), [_lines(a), _lines(b)]).score
    s = search(str(hyp), [str(a), str(b)])
    r = s.matching(published)
    assert r.matches and r.matches[0].references == (str(a),)
    assert r.matches[0].config.name == "sacrebleu"
    assert not any(m.references == (str(a), str(b)) for m in r.matches)
    full = s.matching(repr(both)).matches
    assert full and full[0].references == (str(a), str(b))
    alone = [m.references for m in s.values if m.config.name == "sacrebleu"]
    assert sorted(set(alone)) == sorted({(str(a),), (str(b),), (str(a), str(b))})


# ----------------------------------------------------------------------------- done-when


def test_12_3456_on_wmt17_is_none(capsys) -> None:
    code = main(["identify", "12.3456", str(WMT17 / "ref.A.txt"), "-i",
                 str(WMT17 / "sys.uedin-nmt.4722.txt")])
    out = capsys.readouterr().out
    assert code == 0 and "none: no configuration searched gives 12.3456" in out
    assert "closest:" in out


def test_points_key_sharers_score_alike() -> None:
    """sacreBLEU's model says which sentence requests score alike (identify's sentence means
    share one call per key): every request with a key gives its key's points under every
    choice of the model's entries, whatever the effective order."""
    from bleu_compat.libraries.sacrebleu import model as m

    ids = [m.FLOAT_SMOOTHING, m.STOPS, m.NO_MATCH, m.NO_MATCH_SMOOTHED, m.FLOOR_DEFAULT_ZERO,
           m.BP_ZERO_SMOOTHING, m.HIDDEN]
    rng = random.Random(11)
    seen: dict[tuple[object, ...], float | None] = {}
    shared = 0
    for _ in range(20000):
        n = rng.randint(1, 4)
        totals = [rng.randint(1, 5) for _ in range(n)]
        matches = [rng.randint(0, t) for t in totals]
        request = {"matches": matches, "totals": totals, "candidate_length": rng.randint(0, 6),
                   "reference_length": rng.randint(0, 6),
                   "smoothing": rng.choice(["none", "method1", "method2", "method3"]),
                   "effective_order": rng.random() < 0.5}
        if request["smoothing"] == "method1" and rng.random() < 0.5:
            request["epsilon"] = 0.01
        on = frozenset(x for x in ids if rng.random() < 0.5)
        key = m.points_key(request, on)
        if key is None:
            continue
        value = m.points(request, on)
        if key in seen:
            shared += 1
            assert seen[key] == value, (key, request, on)
        seen[key] = value
        flipped = dict(request, effective_order=not request["effective_order"])
        other = (on - {m.STOPS, m.NO_MATCH, m.NO_MATCH_SMOOTHED, m.HIDDEN, m.BP_ZERO_SMOOTHING}
                 ) | {x for x in (m.STOPS, m.HIDDEN) if rng.random() < 0.5}
        assert m.points_key(flipped, other) == key
        assert m.points(flipped, other) == value, (request, on, other)
    assert shared > 100


def test_every_native_number_is_the_librarys_own(tmp_path: Path) -> None:
    """On a corpus where some orders have no match, each searched configuration of an
    installed implementation at its installed release has, as its own number, the library's
    own (sacreBLEU's ``score``, NLTK's value), bit for bit, and its 0-1 and 0-100 numbers
    are ``--compare``'s (:func:`bleu_compat.decompose.scaled` of it)."""
    from bleu_compat.decompose import library_points, scaled
    from bleu_compat.identify import search
    from bleu_compat.libraries.registry import libraries

    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("The cat sat on the mat, didn't it?\nHello world.\nA B C D E F\n", encoding="utf-8")
    hyp.write_text("the cat is on the mat, did it?\nhello there world.\nA B X D E\n", encoding="utf-8")
    refs, hyps = _lines(ref), _lines(hyp)
    installed = {}
    for lib in libraries():
        try:
            installed[lib.name] = (lib, lib.installed_version())
        except Exception:  # noqa: BLE001 - not installed here
            continue
    checked: dict[str, int] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in search(str(hyp), [str(ref)]).values:
            impl = m.config.implementation
            if impl not in installed or installed[impl][1] not in m.releases or \
                    "path" in installed[impl][0].config_keys:
                continue
            lib = installed[impl][0]
            own = library_points(m.config, hyps, [refs])
            assert m.native == own, (m.config.name, m.native, own)
            assert (m.bleu, m.points) == scaled(lib, own)
            checked[impl] = checked.get(impl, 0) + 1
    assert checked.get("sacrebleu", 0) > 300 and checked.get("nltk", 0) > 200, checked


def test_multi_bleu_native_is_what_the_real_script_prints(tmp_path: Path) -> None:
    """multi-bleu.perl's own number is the one it prints (2 decimals): run the real script
    (mosesdecoder's, BLEU_COMPAT_MOSES_SCRIPTS) on WMT17 uedin and find that number, exactly,
    among identify's multi-bleu.perl configurations."""
    import os
    import re
    import subprocess

    from bleu_compat.identify import search

    scripts = os.environ.get("BLEU_COMPAT_MOSES_SCRIPTS")
    if not scripts or not Path(scripts, "multi-bleu.perl").is_file():
        pytest.skip("BLEU_COMPAT_MOSES_SCRIPTS (mosesdecoder's scripts/generic) is not set")
    ref, hyp = WMT17 / "ref.A.txt", WMT17 / "sys.uedin-nmt.4722.txt"
    with open(hyp, "rb") as stdin:
        line = subprocess.run(["perl", str(Path(scripts, "multi-bleu.perl")), str(ref)], stdin=stdin,
                              capture_output=True, text=True, timeout=300).stdout
    printed = re.match(r"BLEU = ([0-9.]+),", line).group(1)
    r = search(str(hyp), [str(ref)]).matching(printed, exact=True)
    found = [m for m in r.matches if m.implementation == "multi-bleu.perl"]
    assert found and all(m.native == float(printed) for m in found)
    assert "2018-09-16-48fa6e9" in {rel for m in found for rel in m.releases}


def test_the_script_precheck_is_script_checks_classes() -> None:
    """identify looks at the references' script only when they hold a Han, kana or Hangul
    character: its class is the union of score's script check's (and the same sample)."""
    from bleu_compat.cli.score import script_check
    from bleu_compat.identify import _CJK

    probe = "".join(chr(c) for c in range(0x1100, 0x30000) if not 0xD800 <= c <= 0xDFFF)
    found = {c for c in probe if _CJK.match(c)}
    ranges = script_check.HAN + script_check.KANA + script_check.HANGUL
    wanted = {c for c in probe if any(a <= ord(c) <= b for a, b in ranges)}
    assert found == wanted and len(found) > 20000
    assert script_check.SAMPLE_CHARACTERS == 1_000_000
