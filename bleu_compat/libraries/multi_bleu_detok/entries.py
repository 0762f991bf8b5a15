"""multi-bleu-detok.perl's releases (both public versions, by SHA-256) and catalog entries.

:data:`RELEASES` lists each distinct file ``scripts/generic/multi-bleu-detok.perl`` had in
github:moses-smt/mosesdecoder (2 versions: 2017-10-20, and 2019-02-27 "Fix non-ASCII
lowercasing", the one at ``master``), with the first commit holding it and that commit's
author date. No Moses release branch ships it (RELEASE-4.0 predates it). The SHA-256 is of
the file's bytes, as a user's copy has them; none of their code is here. Each release's
dialect was verified by running that file on the same inputs as the model
(``oracle_tests/test_perl_scripts.py``, with ``$BLEU_COMPAT_MOSES_HISTORY``).
"""

from __future__ import annotations

from bleu_compat.harness.dialect import CatalogEntry
from bleu_compat.libraries.multi_bleu.model import ScriptRelease

__all__ = ["RELEASES", "VERIFIED", "ENTRIES", "by_sha256", "LIBRARY_CODE"]

#: both public versions of multi-bleu-detok.perl, oldest first
RELEASES: tuple[ScriptRelease, ...] = (
    ScriptRelease("7600522f799b9015aa603c2b50b5056b49ec8497458c0fca7aa8fe8cddcbaf87",
                  "d2ef60c9067d3cfd0ac1e7f39ce7472d4ddc4302",
                  "7e9108dd29ff3f03820a968bf81cd022fe35c43f", "2017-10-20T10:08:22+01:00",
                  "scripts/generic/multi-bleu-detok.perl", "master", (), "2017-10-20"),
    ScriptRelease("232424ced4e495461c0ddfd6a000d0a67864ec1c973186f49b986c2553972b99",
                  "e1f69501e3c96c70c1e124e44336a31054ca6b63",
                  "fdb7384d3d401cc9d6ece34a038e1b585712c512", "2019-02-27T10:17:29-05:00",
                  "scripts/generic/multi-bleu-detok.perl", "master", (), "2019-02-27"),
)
#: every release whose dialect was measured (both were run), oldest first
VERIFIED: tuple[str, ...] = tuple(r.label for r in RELEASES)
#: the releases the catalog's reproducers show (on card requests both behave alike: the
#: adapter writes ASCII-spaced UTF-8 lines, each with its newline)
ALL = VERIFIED


def by_sha256(sha: str) -> ScriptRelease | None:
    """The release whose file has this SHA-256, or None."""
    return next((r for r in RELEASES if r.sha256 == sha), None)


CORPUS, SMOOTHING = "bleu-corpus-compute", "bleu-smoothing-compute"

#: Python that runs the script as its users do (``perl multi-bleu-detok.perl REF < HYP``),
#: from $BLEU_COMPAT_MOSES_SCRIPTS, on hypothesis and reference lines; prints its BLEU line
LIBRARY_CODE = (
    "import os, subprocess, tempfile\n"
    "def multi_bleu_detok(hyp, ref):\n"
    "    script = os.path.join(os.environ['BLEU_COMPAT_MOSES_SCRIPTS'], 'multi-bleu-detok.perl')\n"
    "    with tempfile.TemporaryDirectory() as d:\n"
    "        open(d + '/hyp', 'w').write(''.join(x + '\\n' for x in hyp))\n"
    "        open(d + '/ref', 'w').write(''.join(x + '\\n' for x in ref))\n"
    "        p = subprocess.run(['perl', script, d + '/ref'], stdin=open(d + '/hyp'),\n"
    "                           capture_output=True, text=True)\n"
    "    return (p.stdout.strip() or p.stderr.strip().splitlines()[-1]).split(' at ')[0]\n"
)

ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        id="MULTI-BLEU-DETOK-PRINTS-2-DECIMALS",
        library="multi-bleu-detok", verified=ALL, tool_id=CORPUS,
        fields=("bleu", "brevity_penalty"), modes=("as_called", "mapped"),
        title="multi-bleu-detok.perl prints BLEU with 2 decimals (0-100) and the brevity penalty with 3",
        explanation=(
            "As multi-bleu.perl (MULTI-BLEU-PRINTS-2-DECIMALS): the only output is 'BLEU = "
            "%.2f, ... (BP=%.3f, ...)', printf rounding the exact binary value, ties to even; "
            "before printing, the card's BLEU (the four logs summed left to right, / 4, exp, "
            "times BP; my_log(0) = -9999999999). Model: that printf on the card's numbers; the "
            "adapter divides the printed BLEU by 100."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d", "e"]],
                    "references": [[["a", "b", "c", "d", "f"]]]},
        reproducer_field="bleu", card_value=0.668740304976422, library_value=0.6687000000000001,
        library_code=LIBRARY_CODE + "print(multi_bleu_detok(['a b c d e'], ['a b c d f']).split(',')[0])",
        library_prints="BLEU = 66.87",
        tags=("float",),
    ),
    CatalogEntry(
        id="MULTI-BLEU-DETOK-PRINTS-2-DECIMALS-SMOOTHING",
        library="multi-bleu-detok", verified=ALL, tool_id=SMOOTHING,
        fields=("bleu", "brevity_penalty"), modes=("as_called", "mapped"),
        title="From statistics: multi-bleu-detok.perl's BLEU is the card's (no smoothing), printed with 2 decimals",
        explanation=(
            "For the statistics the decomposition steps through: with method none the "
            "script's score is the card's and its printed number that score times 100 with 2 "
            "decimals (the brevity penalty with 3). The adapter runs the script on one segment "
            "whose first matching tokens give the statistics asked for. Model: the printf."
        ),
        reproducer={"matches": [4, 3, 2, 1], "totals": [5, 4, 3, 2], "candidate_length": 5,
                    "reference_length": 5, "smoothing": "none"},
        reproducer_field="bleu", card_value=0.668740304976422, library_value=0.6687000000000001,
        library_code=LIBRARY_CODE + "print(multi_bleu_detok(['t1 t2 t3 t4 t5'], ['t1 t2 t3 t4 r1']).split(',')[0])",
        library_prints="BLEU = 66.87",
        tags=("float",),
    ),
    CatalogEntry(
        id="MULTI-BLEU-DETOK-RETOKENIZES",
        library="multi-bleu-detok", verified=ALL, tool_id=CORPUS,
        fields=("bleu", "brevity_penalty", "candidate_length", "reference_length"),
        modes=("as_called",),
        title="multi-bleu-detok.perl tokenizes its input again (mteval-v13a's tokenizer): 'a,' becomes 'a' and ','",
        explanation=(
            "The script is for detokenized text: every line goes through mteval-v13a's "
            "tokenizer without its lowercasing (punctuation and symbols split off, '.' and ',' "
            "unless between digits, '-' after a digit) and is then split on whitespace. The "
            "adapter writes each token list as a line, tokens joined by one space, so "
            "punctuation inside a token becomes tokens of its own and the lengths grow. Model: "
            "that tokenizer on the joined line. The mapped adapter writes an id per distinct "
            "token, which the tokenizer leaves alone."
        ),
        reproducer={"hypotheses": [["a,", "b"]], "references": [[["a,", "b"]]]},
        reproducer_field="candidate_length", card_value=2, library_value=3,
        library_code=LIBRARY_CODE + "print(multi_bleu_detok(['a, b'], ['a, b']).split('hyp_len=')[1].split(',')[0])",
        library_prints="3",
        tags=("input",),  # how the script reads text: not required of a target (issue 36)
    ),
    CatalogEntry(
        id="MULTI-BLEU-DETOK-EMPTY-REFERENCES",
        library="multi-bleu-detok", verified=ALL, tool_id=CORPUS,
        fields=("bleu", "brevity_penalty", "candidate_length", "reference_length"),
        modes=("as_called", "mapped"),
        title="A reference length of 0 prints 'BLEU = 0, 0/0/0/0 (BP=0, ..., hyp_len=0, ref_len=0)' and exits 1",
        explanation=(
            "As multi-bleu.perl (MULTI-BLEU-EMPTY-REFERENCES): when the closest reference "
            "lengths add up to 0 the script prints a fixed line whatever the hypotheses and "
            "exits with status 1. The card gives BLEU 0 too, but a brevity penalty of 1 and "
            "the real candidate length. Model: that line."
        ),
        reproducer={"hypotheses": [["a"]], "references": [[[]]]},
        reproducer_field="brevity_penalty", card_value=1, library_value=0,
        library_code=LIBRARY_CODE + "print(multi_bleu_detok(['a'], ['']))",
        library_prints="BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0, ref_len=0)",
    ),
    CatalogEntry(
        id="MULTI-BLEU-DETOK-EMPTY-HYPOTHESES",
        library="multi-bleu-detok", verified=ALL, tool_id=CORPUS,
        fields=("error",), modes=("as_called", "mapped"),
        title="Empty hypotheses (c = 0) against non-empty references: 'Illegal division by zero'",
        explanation=(
            "As multi-bleu.perl (MULTI-BLEU-EMPTY-HYPOTHESES): with a total hypothesis length "
            "of 0 and a reference length above 0 the brevity penalty exp(1 - r/c) divides by "
            "zero and Perl dies. The card's brevity penalty is 0 there and its BLEU 0. Model: "
            "that error."
        ),
        reproducer={"hypotheses": [[]], "references": [[["a"]]]},
        reproducer_field="error", card_value=None,
        library_value="PerlDie: Illegal division by zero",
        library_code=LIBRARY_CODE + "print(multi_bleu_detok([''], ['a']))",
        library_prints="Illegal division by zero",
    ),

    # --- bleu-smoothing-compute: the zero-length branches met from statistics (the adapter writes
    # one segment whose first L tokens match)
    CatalogEntry(
        id="MULTI-BLEU-DETOK-EMPTY-REFERENCES-SMOOTHING",
        library="multi-bleu-detok", verified=ALL, tool_id=SMOOTHING,
        fields=("bleu", "brevity_penalty"), modes=("as_called", "mapped"),
        title="From statistics: a reference length of 0 prints the fixed 'BLEU = 0, 0/0/0/0 (BP=0, ...)' line",
        explanation=(
            "As MULTI-BLEU-DETOK-EMPTY-REFERENCES, from the statistics: with r = 0 the script prints "
            "'BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0, ref_len=0)', a brevity penalty of 0 "
            "where the card's is 1 (c > r). Model: that line."
        ),
        reproducer={"matches": [0, 0, 0, 0], "totals": [1, 0, 0, 0], "candidate_length": 1,
                    "reference_length": 0, "smoothing": "none"},
        reproducer_field="brevity_penalty", card_value=1, library_value=0,
        library_code=LIBRARY_CODE + "print(multi_bleu_detok(['t1'], ['']))",
        library_prints="BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0, ref_len=0)",
        unreached=(
            "the scripts take text: a bleu-smoothing-compute request reaches them only as one "
            "segment whose first L tokens match (4 orders, no effective order), and none of the "
            "default run's 700 generated requests has that shape with r = 0 (seed 0; the "
            "reproducer is checked by the catalog tests and test_perl_scripts.py's sweep)"),
    ),
    CatalogEntry(
        id="MULTI-BLEU-DETOK-EMPTY-HYPOTHESES-SMOOTHING",
        library="multi-bleu-detok", verified=ALL, tool_id=SMOOTHING,
        fields=("error",), modes=("as_called", "mapped"),
        title="From statistics: c = 0 against r > 0 dies with 'Illegal division by zero'",
        explanation=(
            "As MULTI-BLEU-DETOK-EMPTY-HYPOTHESES, from the statistics: exp(1 - r/c) divides by "
            "c = 0. The card scores 0. Model: that error."
        ),
        reproducer={"matches": [0, 0, 0, 0], "totals": [0, 0, 0, 0], "candidate_length": 0,
                    "reference_length": 1, "smoothing": "none"},
        reproducer_field="error", card_value=None,
        library_value="PerlDie: Illegal division by zero",
        library_code=LIBRARY_CODE + "print(multi_bleu_detok([''], ['r1']))",
        library_prints="Illegal division by zero",
        unreached=(
            "the scripts take text: a bleu-smoothing-compute request reaches them only as one "
            "segment whose first L tokens match (4 orders, no effective order), and none of the "
            "default run's 700 generated requests has that shape with c = 0 (seed 0; the "
            "reproducer is checked by the catalog tests and test_perl_scripts.py's sweep)"),
    ),
)
