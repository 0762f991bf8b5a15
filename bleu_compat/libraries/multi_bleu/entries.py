"""multi-bleu.perl's releases (every public version, by SHA-256) and catalog entries.

:data:`RELEASES` lists each distinct file ``multi-bleu.perl`` ever had in
github:moses-smt/mosesdecoder (all branches, tags and pull requests of the snapshot
read: 29 versions, 2006-08-07 to 2018-09-16; ``scripts/generic/multi-bleu.perl`` at
``master`` is the last), with the first commit holding it, that commit's author date,
the Moses release branches that ship it and the dialect that models it. The SHA-256 is
of the file's bytes, as a user's copy has them. These are facts about the files; none of
their code is here. Each release's dialect was verified by running that file on the
same inputs as the model (``oracle_tests/test_perl_scripts.py``; :data:`VERIFIED`).
"""

from __future__ import annotations

from bleu_compat.harness.dialect import CatalogEntry
from bleu_compat.libraries.multi_bleu.model import ScriptRelease

__all__ = ["RELEASES", "VERIFIED", "ENTRIES", "by_sha256", "LIBRARY_CODE"]


def _r(sha256: str, blob: str, commit: str, date: str, path: str, where: str,
       moses: tuple[str, ...], dialect: str) -> ScriptRelease:
    return ScriptRelease(sha256, blob, commit, date, path, where, moses, dialect)


#: every public version of multi-bleu.perl, oldest first
RELEASES: tuple[ScriptRelease, ...] = (
    _r("251af262c3029d5c9b0e45deacb816eb59a5fc32cc7e0d3344b108426e523574", "9d767107c34285508703294855f5854ead5dbcc5", "64ec2e5ca41ebd6e7340eb3e9d481b59b89c3fc5", "2006-08-07T23:44:35+00:00", "scripts/generic/multi-bleu.perl",
       "master", (), "2006-08-07"),
    _r("d14afdabe0e64d28019903a0f8a920c802431ef06994236308e7b6754c91ff0a", "fd472777a447e81827383e2c969d3b22d9d3a0ec", "367e21c7d25ffd37dc8b84c4d08e6e0e624cc932", "2006-08-10T18:53:12+00:00", "trunk/scripts/generic/multi-bleu.perl",
       "svn trunk", (), "2006-08-10"),
    _r("82be46ae5052549a87ca3445b3856451a842d8e95d685ddca9ba12607a324226", "9f00e349f7a7cdc8c39afc07a2397fdf016358c1", "6ad1dc176b7bbcf9f95307646467a926cb356803", "2006-08-11T15:50:23+00:00", "trunk/scripts/generic/multi-bleu.perl",
       "svn trunk", (), "2006-08-11"),
    _r("b8cbefc90b3ca545661c7e8b3d24626d185669c90f7582499d6f2b904fe6fd35", "fa7c70bdaac30f54848dea8438db4112bee42bcd", "041e6ed3c5b11beb34f91a564802c8f9f0a0a5a3", "2006-09-01T14:54:41+00:00", "scripts/generic/multi-bleu.perl",
       "master", (), "2006-09-01"),
    _r("59bf13bfd44a927be2b6785ab566cc558fafcd96d89f54f5a7ae5541ca42c1b4", "026cf8f499dcea58f9c96e3bfd05e88b60fe99d9", "7fdf42564e1932fc5338ae0316328e0f83801a8d", "2006-10-06T15:07:30+00:00", "trunk/scripts/generic/multi-bleu.perl",
       "svn trunk", (), "2006-10-06"),
    _r("e37e4bc247a094a8c04c4a86c7a88d6f2b6a4f6f74bfb5e6d86383ead796a76e", "2adbfd7611fb443bd621acad44910a4124c2dc73", "3360f4e1ad18427e0174d0731581c8f63d124f0c", "2006-12-15T05:31:47+00:00", "trunk/scripts/generic/multi-bleu.perl",
       "svn trunk", (), "2006-12-15"),
    _r("fddd24fb3a38999e7ca06678615b4d80151b31b6319697bf275b10f69f1f68b7", "247bd720d73fbe034feaf282358e68ab86f2d135", "15eed9c2313be99399736e7ad15fb899a6f64518", "2007-02-26T20:59:41+00:00", "trunk/scripts/generic/multi-bleu.perl",
       "svn trunk", (), "2007-02-26"),
    _r("ce42af4d73fd2b786ef1715ef7e2f7bca9b311da9f45ba43dadecf0346c0eeb6", "2024924da8fe2d8bf16ff3e07db865f1e685cf8d", "3c07c5df4da11f611d516c731968b93a856ddef5", "2007-03-14T22:22:36+00:00", "scripts/generic/multi-bleu.perl",
       "master", (), "2007-02-26"),
    _r("1aae99acd22f946ff1a1dfb7135e9323b4b9a8cdc017c5676b0c317598aa9957", "8a191cfc34e4c8a97a7b810a436824c9ccae316d", "475db82010f7ac8b5899778e66f05c86b7da9a54", "2008-02-16T15:15:12+00:00", "branches/hieu_async/scripts/generic/multi-bleu.perl",
       "branches/hieu_async", (), "2007-02-26"),
    _r("75ac85f236661f4ff4d50ea3a3d61b34433ef63ae0dc353b2ffc90be89eb1501", "78761613ff7c74843eabccbf59d96129e5e85538", "616842f2788f90098b87143bcb3ebb7e7fd12e22", "2009-01-08T00:47:10+00:00", "scripts/generic/multi-bleu.perl",
       "master", (), "2007-02-26"),
    _r("32bf7615bd3b92834ecf35605e5c955a00f32b5a1a61f49d0d3b8f2233ce6023", "ce275a29aac11ebbc09d3d83946c3aa482a10c1a", "0b5184e2dd43c013e2b11aa5469b7f06f8ce23f3", "2010-04-21T12:06:31+00:00", "branches/DPR_MOSES/scripts/generic/multi-bleu.perl",
       "branches/DPR_MOSES", (), "2007-02-26"),
    _r("ab3b5f4098278a5866696e37b44b6c6c65ebf01874467bf606d0ec2d02102fe2", "a24cd2cc7ba162fc380886b20b67ff9cea1da85b", "b271862d7cbb476ec58f9ea5e7432f29f4c4a5c9", "2010-05-18T17:39:16+00:00", "scripts/generic/multi-bleu.perl",
       "master", (), "2007-02-26"),
    _r("3502f2890e5e6a55aaafe6f930caa82f02b24314105fafe9afac5febdde7d02f", "924b48673afff0d50b7177f179d921a8396dad97", "fe578e08fa35ef9421f37ecb3ab51366f071f4be", "2010-09-13T17:55:23+00:00", "scripts/generic/multi-bleu.perl",
       "a branch for on-line commands (fe578e0)", (), "2007-02-26"),
    _r("03f5406b9a8a7d2082f6e6038ef98a44ca23297f0bf760899174c1306651efc8", "40b95a2092316c4febecf4dae4ba6e4e12c4abaa", "dd85b311bfb7c178a042d3ebe5013607949eddca", "2011-01-19T17:24:53+00:00", "scripts/generic/multi-bleu.perl",
       "the mert-other_metrics branch (dd85b31)", (), "2007-02-26"),
    _r("48bcd24d51ab3790b0a7936888891933ada552e09db1a2d10f0594a85a25f708", "c3f6ab43bf842f3556fc65a8a8efe0e664324fb0", "7b06b1a565d6a1d67c66e007c1ad6ba64d4e76f8", "2011-07-11T17:11:15+00:00", "scripts/generic/multi-bleu.perl",
       "a branch (7b06b1a)", (), "2007-02-26"),
    _r("abd866f0135b07bacad3e13cebe0eb10e5cbab612fb8e333e5488981519d3667", "06f01acff8b65abdf2747eb5adc7281941c7f296", "b0e0546dd901983f2cda726656e3855f5da298c5", "2011-12-16T17:00:13+00:00", "scripts/generic/multi-bleu.perl",
       "master", (), "2011-12-16"),
    _r("887238409e4e1029f5e4e8fb0beba92dc431074a635f9d121034202698974286", "137117647e6f9d624de9a6e1bf4cc3372549552b", "51589a25e7c8e10028b3ccaa375e3a260b49ad98", "2012-07-06T05:12:50+01:00", "scripts/generic/multi-bleu.perl",
       "master", ('RELEASE-0.91',), "2012-07-06"),
    _r("50b3a542b6ef03ae559df22ae0d4ac61dbd92f0427ca09470c7f16ddf1e89e4d", "94da1504fef1ba5c33175317d155a71f6f1f4ce7", "04544f8bfcd567b8306671b1420341ab7ee7fbf3", "2012-10-04T23:22:19+01:00", "scripts/generic/multi-bleu.perl",
       "master", ('RELEASE-1.0', 'RELEASE-2.1', 'RELEASE-2.1.1', 'RELEASE-3.0'), "2012-10-04"),
    _r("026fde0273feb835b9165c6691b3d5c9fdb49ab9d865efa3348f2a8630bfd01f", "bf7cdc8dc941dd87fe10f516fd4bc83eb1e4c06f", "5ab5de98cb1955bed19d961a429d839cb1114bb8", "2013-09-19T12:17:21+02:00", "MbotDecoder/scripts/generic/multi-bleu.perl",
       "MbotDecoder", (), "2007-02-26"),
    _r("da883a2414ab7f77722965708cd7c795d53667e1a3563414f4410ec437e46b4b", "5ed6add74579de12f1a44675af54ff1ea3333f5a", "2d1da3219ddcdf923599106818a02e51da3737f8", "2015-04-02T17:38:56+04:00", "scripts/generic/multi-bleu.perl",
       "master", (), "2012-10-04"),
    _r("d0455d3f5c9bdeb225c706d525fbd4ac7143ad6c6526beccaded8a6f16f7dd8e", "2f44d419fa1b8b480190771119d0346d7859d8f1", "6162223690d8a9a3d461a85acdafe9cbef7bf3e5", "2015-04-13T20:42:33+04:00", "scripts/generic/multi-bleu.perl",
       "master", (), "2012-10-04"),
    _r("ac18d67db4c861c1039245504b63ea5ad8b5f7716cd06d90efb03d8000ec9a81", "344f58c6f80b9755a6a5c9173a155138534575eb", "a25193cc5da6a271c4676e843db80ee19221822a", "2015-05-17T20:04:04+07:00", "scripts/generic/multi-bleu.perl",
       "master", (), "2012-10-04"),
    _r("7b9ab2a4112e0d3b5a7d91d4ac072a544662037e8948c634817f79f2c727f2a7", "61de10d4594268d657e4f08780794ff7f58122dc", "ef028446f3640e007215b4576a4dc52a9c9de6db", "2015-05-29T18:30:26+07:00", "scripts/generic/multi-bleu.perl",
       "master", (), "2012-10-04"),
    _r("a94489593499db1b7670fd41388b620020ac7876417315a92f2586d21f5d02f5", "a25e347bb76c85c839b53d11d4eca2c7fdbe92d8", "ec71c2397bb8316110efb91067dfb4c66b843cf3", "2015-11-10T01:16:17+00:00", "scripts/generic/multi-bleu.perl",
       "master", ('RELEASE-4.0',), "2012-10-04"),
    _r("564a7a7bae229d6ce5df77dcc1a1515adad6511f7b728aa17dcf5b840b3d9418", "d43ad9aacc07e6eeb19f95a14e4a884f268427d8", "9422dcc69047fe38f94949cd34a16b67dd108417", "2017-09-22T19:31:12+02:00", "scripts/generic/multi-bleu.perl",
       "pull request 185 (not merged)", (), "2017-09-22"),
    _r("c5040e4a965e0a62c642c23d8d8a744ca1ccc94867bb882a9e355015b4d45e0f", "15e26ff4aa9e06a1426df89e0ca7a9cbeb86107b", "545eee7e75487aeaf45a8b077c57e189e50b2c2e", "2017-10-19T22:57:36+01:00", "scripts/generic/multi-bleu.perl",
       "master", (), "2012-10-04"),
    _r("0d7530958a23c851d6e5f7b30dc75c7e0f5e77880b6871b0c24f1867192f00bf", "9a3375cab3719a8e983df0bc05fedc795a93ee12", "05a37d218ed247bd9a0a8c305d024219100240a4", "2017-10-19T23:31:56+01:00", "scripts/generic/multi-bleu.perl",
       "master", (), "2012-10-04"),
    _r("a9181402b3a6e5027e5ee148079faf8ae7f444ace76a5a6b596f5272d24a4dfb", "8ebe3918986eda9796f05c6addc0ae0aafce0b35", "53da5f4dbe5bc068bb33e8c1bd0c37876a3903e5", "2018-07-03T03:39:35-06:00", "scripts/generic/multi-bleu.perl",
       "master", (), "2018-07-03"),
    _r("af2580098301798d36e4f9209118310bb9558d9f781c671409498dc7975df1c0", "4394def3534a249b0268da2bb1f690d488a10176", "48fa6e92a9486cea7859f22faf58b5bb4dfbcbc9", "2018-09-16T14:58:39+01:00", "scripts/generic/multi-bleu.perl",
       "master", (), "2018-07-03"),
)
#: every release whose dialect was measured (all: each was run), oldest first
VERIFIED: tuple[str, ...] = tuple(r.label for r in RELEASES)
#: releases of the dialect the catalog's reproducers show (chomp, ties to the shorter)
TODAY = tuple(r.label for r in RELEASES if r.dialect == "2018-07-03")


def by_sha256(sha: str) -> ScriptRelease | None:
    """The release whose file has this SHA-256, or None."""
    return next((r for r in RELEASES if r.sha256 == sha), None)


CORPUS, SMOOTHING = "bleu-corpus-compute", "bleu-smoothing-compute"

#: Python that runs the script as its users do (``perl multi-bleu.perl REF < HYP``), from
#: $BLEU_COMPAT_MOSES_SCRIPTS, on hypothesis and reference lines; prints its BLEU line
#: the releases whose statistics-side zero-length branches (the -SMOOTHING entries below) were
#: verified by running each on every one-segment shape of c <= 4 (issue 36): the three releases
#: of 2006-08 die on every such segment as the adapter writes it, and 2017-09-22 (pull request
#: 185, never merged) dies on c = r = 0, where the others print the fixed 'BLEU = 0' line
STATISTICS_VERIFIED: tuple[str, ...] = tuple(
    label for label in VERIFIED
    if label not in ("2006-08-07-64ec2e5", "2006-08-10-367e21c", "2006-08-11-6ad1dc1",
                     "2017-09-22-9422dcc"))

LIBRARY_CODE = (
    "import os, subprocess, tempfile\n"
    "def multi_bleu(hyp, ref):\n"
    "    script = os.path.join(os.environ['BLEU_COMPAT_MOSES_SCRIPTS'], 'multi-bleu.perl')\n"
    "    with tempfile.TemporaryDirectory() as d:\n"
    "        open(d + '/hyp', 'w').write(''.join(x + '\\n' for x in hyp))\n"
    "        open(d + '/ref', 'w').write(''.join(x + '\\n' for x in ref))\n"
    "        p = subprocess.run(['perl', script, d + '/ref'], stdin=open(d + '/hyp'),\n"
    "                           capture_output=True, text=True)\n"
    "    return (p.stdout.strip() or p.stderr.strip().splitlines()[-1]).split(' at ')[0]\n"
)

ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        id="MULTI-BLEU-PRINTS-2-DECIMALS",
        library="multi-bleu", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu", "brevity_penalty"), modes=("as_called", "mapped"),
        title="multi-bleu.perl prints BLEU with 2 decimals (0-100) and the brevity penalty with 3",
        explanation=(
            "The script's only output is its line 'BLEU = %.2f, ... (BP=%.3f, ...)': printf "
            "rounds 100 * BLEU to 2 decimals and the brevity penalty to 3, each to the nearest "
            "of its exact binary value with an exact tie to even (C's printf; the card's "
            "decimals round ties up). Its BLEU before printing is the card's: the four logs "
            "summed left to right, / 4, exp, times BP, with my_log(0) = -9999999999 giving 0 "
            "where the card's ln 0 does. Model: that printf on the card's numbers; the adapter "
            "divides the printed BLEU by 100."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d", "e"]],
                    "references": [[["a", "b", "c", "d", "f"]]]},
        reproducer_field="bleu", card_value=0.668740304976422, library_value=0.6687000000000001,
        library_code=LIBRARY_CODE + "print(multi_bleu(['a b c d e'], ['a b c d f']).split(',')[0])",
        library_prints="BLEU = 66.87",
        tags=("float",),
    ),
    CatalogEntry(
        id="MULTI-BLEU-PRINTS-2-DECIMALS-SMOOTHING",
        library="multi-bleu", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("bleu", "brevity_penalty"), modes=("as_called", "mapped"),
        title="From statistics: multi-bleu.perl's BLEU is the card's (no smoothing), printed with 2 decimals",
        explanation=(
            "As MULTI-BLEU-PRINTS-2-DECIMALS, for the statistics the decomposition steps "
            "through: with method none the script's score is the card's and its printed number "
            "is that score times 100 with 2 decimals (the brevity penalty with 3). The adapter "
            "runs the script on one segment whose first matching tokens give the statistics "
            "asked for. Model: the printf."
        ),
        reproducer={"matches": [4, 3, 2, 1], "totals": [5, 4, 3, 2], "candidate_length": 5,
                    "reference_length": 5, "smoothing": "none"},
        reproducer_field="bleu", card_value=0.668740304976422, library_value=0.6687000000000001,
        library_code=LIBRARY_CODE + "print(multi_bleu(['t1 t2 t3 t4 t5'], ['t1 t2 t3 t4 r1']).split(',')[0])",
        library_prints="BLEU = 66.87",
        tags=("float",),
    ),
    CatalogEntry(
        id="MULTI-BLEU-WHITESPACE-IN-TOKEN",
        library="multi-bleu", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu", "brevity_penalty", "candidate_length", "reference_length"),
        modes=("as_called",),
        title="Tokens are a line split on ASCII whitespace: a token holding a space or TAB becomes two",
        explanation=(
            "multi-bleu.perl reads text: the adapter writes each token list as a line, tokens "
            "joined by one space, and the script splits it with Perl's split on ASCII "
            "whitespace (TAB, LF, VT, FF, CR, space; not U+00A0 or other Unicode spaces, which "
            "stay inside tokens). A token holding ASCII whitespace becomes several, an empty "
            "token disappears. Model: the script's split of the joined line. The mapped adapter "
            "writes an id per distinct token instead."
        ),
        reproducer={"hypotheses": [["a b", "c"]], "references": [[["a b", "c"]]]},
        reproducer_field="candidate_length", card_value=2, library_value=3,
        library_code=LIBRARY_CODE + "print(multi_bleu(['a b c'], ['a b c']).split('hyp_len=')[1].split(',')[0])",
        library_prints="3",
        tags=("input",),  # how the script reads text: not required of a target (issue 36)
    ),
    CatalogEntry(
        id="MULTI-BLEU-EMPTY-REFERENCES",
        library="multi-bleu", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu", "brevity_penalty", "candidate_length", "reference_length"),
        modes=("as_called", "mapped"),
        title="A reference length of 0 prints 'BLEU = 0, 0/0/0/0 (BP=0, ..., hyp_len=0, ref_len=0)' and exits 1",
        explanation=(
            "When the closest reference lengths add up to 0 the script prints a fixed line, "
            "'BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0, ref_len=0)', whatever the "
            "hypotheses, and exits with status 1. The card gives BLEU 0 too, but a brevity "
            "penalty of 1 and the real candidate length. Model: that line."
        ),
        reproducer={"hypotheses": [["a"]], "references": [[[]]]},
        reproducer_field="brevity_penalty", card_value=1, library_value=0,
        library_code=LIBRARY_CODE + "print(multi_bleu(['a'], ['']))",
        library_prints="BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0, ref_len=0)",
    ),
    CatalogEntry(
        id="MULTI-BLEU-EMPTY-HYPOTHESES",
        library="multi-bleu", verified=VERIFIED, tool_id=CORPUS,
        fields=("error",), modes=("as_called", "mapped"),
        title="Empty hypotheses (c = 0) against non-empty references: 'Illegal division by zero'",
        explanation=(
            "With a total hypothesis length of 0 and a reference length above 0 the brevity "
            "penalty exp(1 - r/c) divides by zero and Perl dies: 'Illegal division by zero'. "
            "The card's brevity penalty is 0 there and its BLEU 0. Model: that error."
        ),
        reproducer={"hypotheses": [[]], "references": [[["a"]]]},
        reproducer_field="error", card_value=None,
        library_value="PerlDie: Illegal division by zero",
        library_code=LIBRARY_CODE + "print(multi_bleu([''], ['a']))",
        library_prints="Illegal division by zero",  # the adapter's error: "PerlDie: " + this
    ),

    # --- bleu-smoothing-compute: the zero-length branches met from statistics (the adapter writes
    # one segment whose first L tokens match)
    CatalogEntry(
        id="MULTI-BLEU-EMPTY-REFERENCES-SMOOTHING",
        library="multi-bleu", verified=STATISTICS_VERIFIED, tool_id=SMOOTHING,
        fields=("bleu", "brevity_penalty"), modes=("as_called", "mapped"),
        title="From statistics: a reference length of 0 prints the fixed 'BLEU = 0, 0/0/0/0 (BP=0, ...)' line",
        explanation=(
            "As MULTI-BLEU-EMPTY-REFERENCES, from the statistics: with r = 0 the script prints "
            "'BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0, ref_len=0)', a brevity penalty of 0 "
            "where the card's is 1 (c > r). Model: that line."
        ),
        reproducer={"matches": [0, 0, 0, 0], "totals": [1, 0, 0, 0], "candidate_length": 1,
                    "reference_length": 0, "smoothing": "none"},
        reproducer_field="brevity_penalty", card_value=1, library_value=0,
        library_code=LIBRARY_CODE + "print(multi_bleu(['t1'], ['']))",
        library_prints="BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0, ref_len=0)",
        unreached=(
            "the scripts take text: a bleu-smoothing-compute request reaches them only as one "
            "segment whose first L tokens match (4 orders, no effective order), and none of the "
            "default run's 700 generated requests has that shape with r = 0 (seed 0; the "
            "reproducer is checked by the catalog tests and test_perl_scripts.py's sweep)"),
    ),
    CatalogEntry(
        id="MULTI-BLEU-EMPTY-HYPOTHESES-SMOOTHING",
        library="multi-bleu", verified=STATISTICS_VERIFIED, tool_id=SMOOTHING,
        fields=("error",), modes=("as_called", "mapped"),
        title="From statistics: c = 0 against r > 0 dies with 'Illegal division by zero'",
        explanation=(
            "As MULTI-BLEU-EMPTY-HYPOTHESES, from the statistics: exp(1 - r/c) divides by "
            "c = 0. The card scores 0. Model: that error."
        ),
        reproducer={"matches": [0, 0, 0, 0], "totals": [0, 0, 0, 0], "candidate_length": 0,
                    "reference_length": 1, "smoothing": "none"},
        reproducer_field="error", card_value=None,
        library_value="PerlDie: Illegal division by zero",
        library_code=LIBRARY_CODE + "print(multi_bleu([''], ['r1']))",
        library_prints="Illegal division by zero",
        unreached=(
            "the scripts take text: a bleu-smoothing-compute request reaches them only as one "
            "segment whose first L tokens match (4 orders, no effective order), and none of the "
            "default run's 700 generated requests has that shape with c = 0 (seed 0; the "
            "reproducer is checked by the catalog tests and test_perl_scripts.py's sweep)"),
    ),
)
