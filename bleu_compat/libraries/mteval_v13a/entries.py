"""mteval-v13a.pl's releases (every public version, by SHA-256) and catalog entries.

:data:`RELEASES`: each distinct ``mteval-v13a.pl`` of github:moses-smt/mosesdecoder
(8 versions, 2011-12-21 to 2018-06-23), with its first commit, date and the Moses
release branches shipping it; facts about the files, none of their code. Verified by
running each (``oracle_tests/test_perl_scripts.py``). :data:`OTHER_SCRIPTS`: the hashes of
mteval-v11b.pl and mteval-v12.pl, which are recognised and refused (not modelled).
"""

from __future__ import annotations

from bleu_compat.harness.dialect import CatalogEntry
from bleu_compat.libraries.multi_bleu.model import ScriptRelease

__all__ = ["RELEASES", "VERIFIED", "ENTRIES", "OTHER_SCRIPTS", "by_sha256", "LIBRARY_CODE"]


def _r(sha256: str, blob: str, commit: str, date: str, path: str, where: str,
       moses: tuple[str, ...], dialect: str) -> ScriptRelease:
    return ScriptRelease(sha256, blob, commit, date, path, where, moses, dialect)


#: every public version of mteval-v13a.pl, oldest first
RELEASES: tuple[ScriptRelease, ...] = (
    _r("8fbdc4c99817945973e0100ccb8d7c72deb5a4506aa336ec30d28a323b131e14", "879212e6e3948c31722c9bcda4ee5dd575686964", "b95c372e3a254e3eee36112efa0c8d4a97cf5ada", "2011-12-21T04:26:27+00:00", "scripts/generic/mteval-v13a.pl",
       "master", ('RELEASE-0.91', 'RELEASE-1.0'), "v13a"),
    _r("c3a2304f997679f41b50f002d4e4eeaa25def67b14000941f91fb68ce07ddaa7", "f1f8f9ef686cad0638869502501e25a2d6750889", "3a7f4f776a34049e2dd57622451694068c604bad", "2013-03-13T17:54:29+00:00", "scripts/generic/mteval-v13a.pl",
       "master", ('RELEASE-2.1', 'RELEASE-2.1.1', 'RELEASE-3.0'), "v13a"),
    _r("05293a917cd313e99993f03521dd92ea8bf1a6cf0cf09d38f78aaf719457bfc1", "453c03e19696a943e7c6a5c773ddbc8be82e858b", "2d1da3219ddcdf923599106818a02e51da3737f8", "2015-04-02T17:38:56+04:00", "scripts/generic/mteval-v13a.pl",
       "master", (), "v13a"),
    _r("dbb467ed1a2a47137eb47726a433116f096ef898b3a7bd31b78c1e577856df78", "41a88800a17df38ec3a3a1c3cfe9710785b8ef2c", "a25193cc5da6a271c4676e843db80ee19221822a", "2015-05-17T20:04:04+07:00", "scripts/generic/mteval-v13a.pl",
       "master", (), "v13a"),
    _r("caf4625f7585395baea1ac8bf3cff8017fc89ae91866d0fe28a406e8d845fc3c", "bdc2d947929b0cbcaf9ecc6526e930d053e297bf", "ef028446f3640e007215b4576a4dc52a9c9de6db", "2015-05-29T18:30:26+07:00", "scripts/generic/mteval-v13a.pl",
       "master", (), "v13a"),
    _r("f970e1a433dbffa773c9fb1e64d1d798bdbb0364ef9e3cb9b89d37e7123283d3", "2e5d29ad562b9e0b5ac6dd6ba32938d91e507b21", "c6c3bc84b7673618f379482cbc6b708f55a9ecd3", "2016-12-23T14:21:20+08:00", "scripts/generic/mteval-v13a.pl",
       "master", (), "v13a-line-break"),
    _r("3ea54a55839ff82d082eb6c1e86f9a365e47cabaf0d26e83bf041a9153147869", "92afcbd71348d4b74eca02e3795ab3ee6cb1d224", "2ea75d91dcd0455c9e44e6eaa836a668d577adc8", "2017-04-27T13:48:18+01:00", "scripts/generic/mteval-v13a.pl",
       "master", ('RELEASE-4.0',), "v13a-line-break"),
    _r("bca77abb865579e7581e5f3701dccc64e949e842da651952a31e513702b3fb7c", "c7749269886c2a006b6211dc139a0340fb8d65a8", "5bbd5ca1607f32e4c3e1841c704c89ebd53c9cb7", "2018-06-23T08:19:36+01:00", "scripts/generic/mteval-v13a.pl",
       "master", (), "v13a"),
)
VERIFIED: tuple[str, ...] = tuple(r.label for r in RELEASES)
#: the releases that run on Perl 5.30+ (the catalog's reproducers show them)
RUNNING = tuple(r.label for r in RELEASES if r.dialect == "v13a")
#: other mteval versions in the repository: name -> {sha256: "commit date"}
OTHER_SCRIPTS: dict[str, dict[str, str]] = {
    "mteval-v11b.pl": {
        "b8fc428a5cfd90c8234518bbb926f934f1e3bf8d8f37233d9eb4e883266b8443": "17800fd, 2016-04-23"},
    "mteval-v12.pl": {
        "df3bd9a0b2ee54913944654dcd1bad17ce47604124a5978dcf747d32436b215d": "2ed6804, 2010-05-04",
        "6bb74b556c04343f898cd96f527935a9027e84e05890fe0288bfbd0e9f8c26ae": "b95c372, 2011-12-21",
        "1c4138922d75746ca8278b2eeff7244bbe425e6a030cbe7ebfda4606f36770e8": "2d1da32, 2015-04-02",
        "02f0dd07617170e6c11e9e8262d111cea561151d07136d0796823fc53ad1e5cd": "6162223, 2015-04-13",
        "dbe41828f07596fd558f9dd5ca8254c86b880b8ab89b9f1507995230f781e0b4": "a25193c, 2015-05-17",
        "e7cc8aadb9d8009cab281a7185cd9f9f02894b4b7f6e6fe2eb04ee83c065743d": "ef02844, 2015-05-29"},
}


def by_sha256(sha: str) -> ScriptRelease | None:
    """The release whose file has this SHA-256, or None."""
    return next((r for r in RELEASES if r.sha256 == sha), None)


CORPUS, SMOOTHING = "bleu-corpus-compute", "bleu-smoothing-compute"

#: Python that runs mteval-v13a.pl (-b -c) from $BLEU_COMPAT_MOSES_SCRIPTS on one segment
LIBRARY_CODE = (
    "import os, subprocess, tempfile\n"
    "def mteval(hyp, ref, script='mteval-v13a.pl'):\n"
    "    path = os.path.join(os.environ['BLEU_COMPAT_MOSES_SCRIPTS'], script)\n"
    "    with tempfile.TemporaryDirectory() as d:\n"
    "        for kind, tag, text in (('src', 'srcset', ''), ('ref', 'refset', ref), ('tst', 'tstset', hyp)):\n"
    "            who = {'src': '', 'ref': ' trglang=\"xx\" refid=\"r\"', 'tst': ' trglang=\"xx\" sysid=\"s\"'}[kind]\n"
    "            open(f'{d}/{kind}.sgm', 'w').write(f'<{tag} setid=\"x\" srclang=\"any\"{who}>\\n'\n"
    "                f'<doc docid=\"d\" sysid=\"{kind}\">\\n<seg id=\"1\">{text}</seg>\\n</doc>\\n</{tag}>\\n')\n"
    "        p = subprocess.run(['perl', path, '-b', '-c', '-r', f'{d}/ref.sgm', '-s', f'{d}/src.sgm',\n"
    "                            '-t', f'{d}/tst.sgm'], capture_output=True, text=True)\n"
    "    return next(x for x in p.stdout.splitlines() if 'BLEU score' in x).split()[3]\n"
)

ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        id="MTEVAL-V13A-PRINTS-4-DECIMALS",
        library="mteval-v13a", verified=RUNNING, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="mteval prints BLEU (0-1) with 4 decimals",
        explanation=(
            "mteval's only BLEU output is 'BLEU score = %.4f': printf rounds the score's exact "
            "binary value to 4 decimals, an exact tie to even. Model: that printf on the "
            "script's score (the card's, or its smoothed one: see the other entries)."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d", "e"]],
                    "references": [[["a", "b", "c", "d", "f"]]]},
        reproducer_field="bleu", card_value=0.668740304976422, library_value=0.6687,
        library_code=LIBRARY_CODE + "print(mteval('a b c d e', 'a b c d f'))",
        library_prints="0.6687",
        tags=("float",),
    ),
    CatalogEntry(
        id="MTEVAL-V13A-PRINTS-4-DECIMALS-SMOOTHING",
        library="mteval-v13a", verified=RUNNING, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="From statistics: mteval's BLEU is the card's method3 (NIST smoothing), printed with 4 decimals",
        explanation=(
            "For the statistics the decomposition steps through: mteval's smoothing puts "
            "1/(2^k total) for the k-th order without a match, which is the card's method3, "
            "and its order of operations (the logs summed, / 4, exp, times exp(min(0, 1 - r/c))) "
            "is the card's; it prints 4 decimals. The adapter runs the script on one segment "
            "whose first matching tokens give the statistics asked for. Model: the printf."
        ),
        reproducer={"matches": [4, 3, 2, 1], "totals": [5, 4, 3, 2], "candidate_length": 5,
                    "reference_length": 5, "smoothing": "method3"},
        reproducer_field="bleu", card_value=0.668740304976422, library_value=0.6687,
        library_code=LIBRARY_CODE + "print(mteval('t1 t2 t3 t4 t5', 't1 t2 t3 t4 r1'))",
        library_prints="0.6687",
        tags=("float",),
    ),
    CatalogEntry(
        id="MTEVAL-V13A-ZERO-MATCH-SMOOTHED",
        library="mteval-v13a", verified=RUNNING, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="An order without a match is smoothed to 1/(2^k total): a positive score where the card gives 0",
        explanation=(
            "mteval's bleu_score smooths by default: the k-th order with n-grams but no match "
            "gets the precision 1/(2^k total), so the score is positive where the card's "
            "(bleu-corpus-compute has no smoothing) is 0. Model: the script's bleu_score."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d"]], "references": [[["a", "b", "c", "x"]]]},
        reproducer_field="bleu", card_value=0, library_value=0.5946,
        library_code=LIBRARY_CODE + "print(mteval('a b c d', 'a b c x'))",
        library_prints="0.5946",
    ),
    CatalogEntry(
        id="MTEVAL-V13A-EMPTY-ORDER-LOG-1",
        library="mteval-v13a", verified=RUNNING, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="An order with no n-gram adds log 1: short hypotheses still score",
        explanation=(
            "When the hypotheses have no n-gram of some order (all shorter than n), mteval adds "
            "log 1 = 0 for that order and still divides by 4, where the card's precision 0/0 "
            "makes the score 0. Model: the script's bleu_score."
        ),
        reproducer={"hypotheses": [["a", "b", "c"]], "references": [[["a", "b", "c"]]]},
        reproducer_field="bleu", card_value=0, library_value=1.0,
        library_code=LIBRARY_CODE + "print(mteval('a b c', 'a b c'))",
        library_prints="1.0000",
    ),
    CatalogEntry(
        id="MTEVAL-V13A-NO-MATCH-SMOOTHED",
        library="mteval-v13a", verified=RUNNING, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="No match at all still scores: every order smoothed, unigrams included",
        explanation=(
            "With no matching unigram mteval smooths every order, the first with 1/(2 total), "
            "so the score is small but not 0 (printed 0.0000 unless the segment is short). "
            "The card gives 0. Model: the script's bleu_score."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d"]], "references": [[["w", "x", "y", "z"]]]},
        reproducer_field="bleu", card_value=0, library_value=0.0799,
        library_code=LIBRARY_CODE + "print(mteval('a b c d', 'w x y z'))",
        library_prints="0.0799",
    ),
    CatalogEntry(
        id="MTEVAL-V13A-RETOKENIZES",
        library="mteval-v13a", verified=RUNNING, tool_id=CORPUS,
        fields=("bleu", "candidate_length", "reference_length"), modes=("as_called",),
        title="mteval tokenizes its input again: punctuation inside a token is split off",
        explanation=(
            "mteval reads text and applies its own tokenizer (13a) to it: the adapter writes "
            "each token list as a line and the script splits off punctuation and symbols, so "
            "'a.b' or 'x,' become several tokens. Model: the script's tokenizer on the joined "
            "line (-c: no lowercasing). The mapped adapter writes an id per distinct token."
        ),
        reproducer={"hypotheses": [["a,", "b"]], "references": [[["a,", "b"]]]},
        reproducer_field="candidate_length", card_value=2, library_value=3,
        library_code=LIBRARY_CODE.replace("return next(x for x in p.stdout.splitlines() if 'BLEU score' in x).split()[3]",
                                          "return next(x for x in p.stdout.splitlines() if x.startswith('length ratio')).split('(')[1].split('/')[0]")
                     + "print(mteval('a, b', 'a, b'))",
        library_prints="3",
        tags=("input",),  # how the script reads text: not required of a target (issue 36)
    ),
    CatalogEntry(
        id="MTEVAL-V13A-ZERO-LENGTH-DIES",
        library="mteval-v13a", verified=RUNNING, tool_id=CORPUS,
        fields=("error",), modes=("as_called", "mapped"),
        title="v13a dies on an empty reference side (division by zero) or empty hypotheses (log of 0)",
        explanation=(
            "mteval-v13a prints 'length ratio: c/r ..., penalty (log): log(BP)' for the system: "
            "r = 0 dies with 'Illegal division by zero', c = 0 with 'Can\'t take log of 0'. "
            "mteval-v14 has no such line and prints a score. Model: those errors."
        ),
        reproducer={"hypotheses": [["a"]], "references": [[[]]]},
        reproducer_field="error", card_value=None, library_value="PerlDie: Illegal division by zero",
        library_code=LIBRARY_CODE.replace("return next(x for x in p.stdout.splitlines() if 'BLEU score' in x).split()[3]",
                                          "return p.stderr.strip().splitlines()[-1].split(' at ')[0]")
                     + "print(mteval('a', ''))",
        library_prints="Illegal division by zero",
    ),

    # --- bleu-smoothing-compute: the statistics-side counterparts (the adapter runs the script on
    # one segment whose first L tokens match; score --compare's decompositions step through them)
    CatalogEntry(
        id="MTEVAL-V13A-NO-MATCH-SMOOTHED-SMOOTHING",
        library="mteval-v13a", verified=RUNNING, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="From statistics: no unigram match still scores (mteval smooths the unigrams too)",
        explanation=(
            "As MTEVAL-V13A-NO-MATCH-SMOOTHED, from the statistics: the card's method3 gives 0 "
            "when no unigram matches; bleu_score smooths every order with n-grams, the first "
            "without a match with 1/(2 total). Model: the script's bleu_score on the statistics "
            "(with MTEVAL-V13A-EMPTY-ORDER-LOG-1-SMOOTHING too where an order has no n-gram)."
        ),
        reproducer={"matches": [0, 0, 0, 0], "totals": [4, 3, 2, 1], "candidate_length": 4,
                    "reference_length": 4, "smoothing": "method3"},
        reproducer_field="bleu", card_value=0, library_value=0.0799,
        library_code=LIBRARY_CODE + "print(mteval('t1 t2 t3 t4', 'r1 r2 r3 r4'))",
        library_prints="0.0799",
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="MTEVAL-V13A-EMPTY-ORDER-LOG-1-SMOOTHING",
        library="mteval-v13a", verified=RUNNING, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="From statistics: an order with a total of 0 adds log 1 (card method3: 0)",
        explanation=(
            "As MTEVAL-V13A-EMPTY-ORDER-LOG-1, from the statistics: an order without n-grams "
            "adds log 1 = 0 to the sum and the mean still divides by 4; the card's method3 gives "
            "0 for a used order whose total is 0. Model: the script's bleu_score on the "
            "statistics (with MTEVAL-V13A-NO-MATCH-SMOOTHED-SMOOTHING too where no unigram "
            "matches)."
        ),
        reproducer={"matches": [3, 2, 1, 0], "totals": [3, 2, 1, 0], "candidate_length": 3,
                    "reference_length": 3, "smoothing": "method3"},
        reproducer_field="bleu", card_value=0, library_value=1.0,
        library_code=LIBRARY_CODE + "print(mteval('t1 t2 t3', 't1 t2 t3'))",
        library_prints="1.0000",
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="MTEVAL-V13A-ZERO-LENGTH-DIES-SMOOTHING",
        library="mteval-v13a", verified=RUNNING, tool_id=SMOOTHING,
        fields=("error",), modes=("as_called", "mapped"),
        title="From statistics: v13a dies on r = 0 (division by zero) or c = 0 (log of 0)",
        explanation=(
            "As MTEVAL-V13A-ZERO-LENGTH-DIES, from the statistics: the length line divides c "
            "by r (r = 0: 'Illegal division by zero', checked first) and takes the log of the "
            "brevity factor (c = 0: 'Can\'t take log of 0'). The card scores 0. Model: those "
            "errors."
        ),
        reproducer={"matches": [0, 0, 0, 0], "totals": [1, 0, 0, 0], "candidate_length": 1,
                    "reference_length": 0, "smoothing": "method3"},
        reproducer_field="error", card_value=None, library_value="PerlDie: Illegal division by zero",
        library_code=LIBRARY_CODE.replace("return next(x for x in p.stdout.splitlines() if 'BLEU score' in x).split()[3]",
                                          "return p.stderr.strip().splitlines()[-1].split(' at ')[0]")
                     + "print(mteval('t1', ''))",
        library_prints="Illegal division by zero",
        unreached=(
            "the scripts take text: a bleu-smoothing-compute request reaches them only as one "
            "segment whose first L tokens match (4 orders, no effective order), and none of the "
            "default run's 700 generated requests has that shape with r = 0 or c = 0 (seed 0; the "
            "reproducer is checked by the catalog tests and test_perl_scripts.py's sweep)"),
    ),
)
