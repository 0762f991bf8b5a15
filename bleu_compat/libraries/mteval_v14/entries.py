"""mteval-v14.pl's release (its one public version, by SHA-256) and catalog entries.

:data:`RELEASES`: the only ``scripts/generic/mteval-v14.pl`` of
github:moses-smt/mosesdecoder (added 2017-04-27 in 2ea75d9, shipped in Moses
RELEASE-4.0, unchanged since), with its blob and commit; facts about the file, none of
its code. Verified by running it (``oracle_tests/test_perl_scripts.py``).
"""

from __future__ import annotations

from bleu_compat.harness.dialect import CatalogEntry
from bleu_compat.libraries.multi_bleu.model import ScriptRelease

__all__ = ["RELEASES", "VERIFIED", "ENTRIES", "by_sha256", "LIBRARY_CODE"]

#: every public version of mteval-v14.pl
RELEASES: tuple[ScriptRelease, ...] = (
    ScriptRelease("5a598c9f1f27dcbee2772b26f2d04d35423cf615ad8dfc9a002dbd545171c43c",
                  "84a7549acf3380ad344733df52b32ad99d16e590",
                  "2ea75d91dcd0455c9e44e6eaa836a668d577adc8", "2017-04-27T13:48:18+01:00",
                  "scripts/generic/mteval-v14.pl", "master", ("RELEASE-4.0",), "v14"),
)
VERIFIED: tuple[str, ...] = tuple(r.label for r in RELEASES)


def by_sha256(sha: str) -> ScriptRelease | None:
    """The release whose file has this SHA-256, or None."""
    return next((r for r in RELEASES if r.sha256 == sha), None)


CORPUS, SMOOTHING = "bleu-corpus-compute", "bleu-smoothing-compute"

#: Python that runs mteval-v14.pl (-b -c) from $BLEU_COMPAT_MOSES_SCRIPTS on one segment
LIBRARY_CODE = (
    "import os, subprocess, tempfile\n"
    "def mteval(hyp, ref, script='mteval-v14.pl'):\n"
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
_ID = "mteval-v14"

ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        id="MTEVAL-V14-PRINTS-4-DECIMALS",
        library=_ID, verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="mteval-v14 prints BLEU (0-1) with 4 decimals",
        explanation=(
            "As v13a (MTEVAL-V13A-PRINTS-4-DECIMALS): the only BLEU output is 'BLEU score = "
            "%.4f', printf rounding the score's exact binary value, an exact tie to even. "
            "Model: that printf on the script's score."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d", "e"]],
                    "references": [[["a", "b", "c", "d", "f"]]]},
        reproducer_field="bleu", card_value=0.668740304976422, library_value=0.6687,
        library_code=LIBRARY_CODE + "print(mteval('a b c d e', 'a b c d f'))",
        library_prints="0.6687",
        tags=("float",),
    ),
    CatalogEntry(
        id="MTEVAL-V14-PRINTS-4-DECIMALS-SMOOTHING",
        library=_ID, verified=VERIFIED, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="From statistics: mteval-v14's BLEU is the card's method3 (NIST smoothing), printed with 4 decimals",
        explanation=(
            "For the statistics the decomposition steps through: v14's smoothing (1/(2^k "
            "total) for the k-th order without a match) is the card's method3 and its order of "
            "operations the card's; it prints 4 decimals. The adapter runs the script on one "
            "segment whose first matching tokens give the statistics asked for. Model: the printf."
        ),
        reproducer={"matches": [4, 3, 2, 1], "totals": [5, 4, 3, 2], "candidate_length": 5,
                    "reference_length": 5, "smoothing": "method3"},
        reproducer_field="bleu", card_value=0.668740304976422, library_value=0.6687,
        library_code=LIBRARY_CODE + "print(mteval('t1 t2 t3 t4 t5', 't1 t2 t3 t4 r1'))",
        library_prints="0.6687",
        tags=("float",),
    ),
    CatalogEntry(
        id="MTEVAL-V14-ZERO-MATCH-SMOOTHED",
        library=_ID, verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="An order without a match is smoothed to 1/(2^k total): a positive score where the card gives 0",
        explanation=(
            "As v13a (MTEVAL-V13A-ZERO-MATCH-SMOOTHED): the k-th order with n-grams but no "
            "match gets the precision 1/(2^k total). Model: the script's bleu_score."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d"]], "references": [[["a", "b", "c", "x"]]]},
        reproducer_field="bleu", card_value=0, library_value=0.5946,
        library_code=LIBRARY_CODE + "print(mteval('a b c d', 'a b c x'))",
        library_prints="0.5946",
    ),
    CatalogEntry(
        id="MTEVAL-V14-EMPTY-ORDER-LOG-1",
        library=_ID, verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="An order with no n-gram adds log 1: short hypotheses still score",
        explanation=(
            "As v13a (MTEVAL-V13A-EMPTY-ORDER-LOG-1): an order without n-grams adds log 1 = 0 "
            "and the sum is still divided by 4, where the card's 0/0 precision gives 0. "
            "Model: the script's bleu_score."
        ),
        reproducer={"hypotheses": [["a", "b", "c"]], "references": [[["a", "b", "c"]]]},
        reproducer_field="bleu", card_value=0, library_value=1.0,
        library_code=LIBRARY_CODE + "print(mteval('a b c', 'a b c'))",
        library_prints="1.0000",
    ),
    CatalogEntry(
        id="MTEVAL-V14-NO-MATCH-SMOOTHED",
        library=_ID, verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="No match at all still scores: every order smoothed, unigrams included",
        explanation=(
            "As v13a (MTEVAL-V13A-NO-MATCH-SMOOTHED): with no matching unigram every order is "
            "smoothed, the first with 1/(2 total). The card gives 0. Model: the script's "
            "bleu_score."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d"]], "references": [[["w", "x", "y", "z"]]]},
        reproducer_field="bleu", card_value=0, library_value=0.0799,
        library_code=LIBRARY_CODE + "print(mteval('a b c d', 'w x y z'))",
        library_prints="0.0799",
    ),
    CatalogEntry(
        id="MTEVAL-V14-RETOKENIZES",
        library=_ID, verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called",),
        title="mteval-v14 tokenizes its input again: 'a,' and 'a' ',' become the same tokens",
        explanation=(
            "v14 reads text and applies its own tokenizer (v13a's, by default): the adapter "
            "writes each token list as a line and the script splits off punctuation, so a "
            "hypothesis token 'a,' matches the reference tokens 'a' and ','. Model: the "
            "script's tokenizer on the joined line (-c). v14 prints no length line, so the "
            "changed lengths show only in the score. The mapped adapter writes an id per "
            "distinct token."
        ),
        reproducer={"hypotheses": [["a,", "b", "c", "d", "e"]],
                    "references": [[["a", ",", "b", "c", "d", "e"]]]},
        reproducer_field="bleu", card_value=0.5475182535069453, library_value=1.0,
        library_code=LIBRARY_CODE + "print(mteval('a, b c d e', 'a , b c d e'))",
        library_prints="1.0000",
        tags=("input",),  # how the script reads text: not required of a target (issue 36)
    ),

    # --- bleu-smoothing-compute: the statistics-side counterparts (one segment, as v13a's)
    CatalogEntry(
        id="MTEVAL-V14-NO-MATCH-SMOOTHED-SMOOTHING",
        library=_ID, verified=VERIFIED, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="From statistics: no unigram match still scores (mteval smooths the unigrams too)",
        explanation=(
            "As v13a (MTEVAL-V13A-NO-MATCH-SMOOTHED-SMOOTHING): every order with n-grams but no "
            "match is smoothed, the unigrams included, where the card's method3 gives 0. Model: "
            "the script's bleu_score on the statistics."
        ),
        reproducer={"matches": [0, 0, 0, 0], "totals": [4, 3, 2, 1], "candidate_length": 4,
                    "reference_length": 4, "smoothing": "method3"},
        reproducer_field="bleu", card_value=0, library_value=0.0799,
        library_code=LIBRARY_CODE + "print(mteval('t1 t2 t3 t4', 'r1 r2 r3 r4'))",
        library_prints="0.0799",
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="MTEVAL-V14-EMPTY-ORDER-LOG-1-SMOOTHING",
        library=_ID, verified=VERIFIED, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="From statistics: an order with a total of 0 adds log 1 (card method3: 0)",
        explanation=(
            "As v13a (MTEVAL-V13A-EMPTY-ORDER-LOG-1-SMOOTHING): an order without n-grams adds "
            "log 1 and the mean still divides by 4; v14 also scores r = 0 (its brevity factor "
            "is then 1) where v13a dies. Model: the script's bleu_score on the statistics."
        ),
        reproducer={"matches": [3, 2, 1, 0], "totals": [3, 2, 1, 0], "candidate_length": 3,
                    "reference_length": 3, "smoothing": "method3"},
        reproducer_field="bleu", card_value=0, library_value=1.0,
        library_code=LIBRARY_CODE + "print(mteval('t1 t2 t3', 't1 t2 t3'))",
        library_prints="1.0000",
        tags=("smoothing",),
    ),
)
