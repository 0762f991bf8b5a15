"""Write the golden outputs of the real Moses ``tokenizer.perl`` that our ``moses`` is tested against.

Usage::

    git -C MOSES_REPO archive COMMIT scripts | tar -x -C /tmp/moses
    .venv/bin/python scripts/make_moses_golden.py /tmp/moses/scripts

It runs ``perl SCRIPTS/tokenizer/tokenizer.perl -q -l LANG [-a] [-no-escape] < INPUT`` (the
real script, its own ``../share/nonbreaking_prefixes``), with the arguments of each run
below, and writes ``oracle_tests/data/moses/golden-crafted.json.xz`` and
``golden-wmt17.json.xz``: the inputs, the exact command of every run, what it printed on
standard output (split into lines at LF) and standard error, the script's SHA-256, the
Moses commit and the Perl release. CI has no Moses copy: ``oracle_tests/test_moses_tokenizer.py``
compares our tokenizer with these outputs, and with the user's own copy when
``$BLEU_COMPAT_MOSES_SCRIPTS`` is set.

The crafted corpus (built here, deterministic) holds what the rules act on:

* ``general``: nonbreaking prefixes, numbers, commas, hyphens, apostrophes in English,
  French, Italian, Irish, Catalan, Tetun, Somali, colons in Finnish and Swedish, URLs and
  e-mail addresses, every escaped character (raw and already escaped), runs of periods and
  the ``DOTMULTI`` placeholder written by the user, Unicode and control whitespace, lines of
  whitespace only, letters of many scripts, combining marks, digits of other scripts;
* ``edges``: for each Perl class the script uses (``\\p{IsAlnum}``, ``\\p{IsAlpha}``,
  ``\\p{IsN}``, ``\\p{IsLower}``, ``\\p{Ll}``, ``\\s``), the code points on both sides of
  every range boundary of :mod:`bleu_compat.tokenizers.moses_tables`, each in the contexts
  where that class decides (one line per code point and class);
* ``prefix-LANG``: every line of ``nonbreaking_prefix.LANG`` (the shipped copy) as a word
  before a capitalised word, a number and a lowercase word, and at the end of the line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "oracle_tests" / "data" / "moses"
sys.path.insert(0, str(REPO))

GENERAL = [
    # nonbreaking prefixes, sentence ends
    "Mr. Smith went to Washington.",
    "Dr. med. Müller und Prof. Dr. Schmidt kamen um 5 Uhr.",
    "The U.S.A. and the U.K. met. Then the E.U. spoke.",
    "No. 5 is No. Five, and no. 7 is no. 8.",
    "Art. 3 Abs. 2 Nr. 4 S. 1 i.V.m. Art. 5 GG.",
    "See p. 12, pp. 3-4 and vol. II; cf. fig. 3.",
    "He said e.g. this, i.e. that, etc. and so on etc.",
    "Jan. 5 Feb. 6 Mar. 7 Apr. 8 Sep. 9 Oct. 10 Nov. 11 Dec. 12",
    "It ends here.",
    "It ends here .",
    "A sentence. Another sentence. a lowercase one. 3 a digit one.",
    "x. y. Z. 1. ß. ǅ. ª. Ω. ω. É. é.",
    "a.b. c a.b. C 1.2. C 1.2. c U.S. Army",
    "St. Louis, Mt. Everest, Ft. Worth; Gen. Patton and Sgt. Pepper.",
    ".",
    "..",
    "...",
    "a.",
    ".a",
    "a .",
    "Mr.",
    "Mr. ",
    # numbers and commas
    "5,300 and 1,000,000 and 3.14 and 2,5 % and 10.000,00 EUR",
    "A,B,C,D,E and 1,2,3,4,5 and a,1 and 1,a and 5, and ,5",
    "It cost 5, then 6,",
    "It cost 5,",
    "(5,)",
    "x,,y 1,,2 ,,, ,",
    "²,³ ½,¼ ٣,٤ ５,６ Ⅻ,Ⅳ",
    # hyphens
    "e-mail, 5-6, a-b-c, --, -5, x-, -x, 3-D, ä-ö, Ω-ω, 1-a, a-1, a--b, a - b",
    "The well-known state-of-the-art X-ray hit 20-30 km/h on 2017-01-05.",
    "Nord-Süd-Gefälle und E-Mail-Adresse sowie 3-jähriger und US-Präsident",
    "—em dash– en dash‐hyphen‑nonbreaking hyphen−minus",
    # apostrophes
    "don't won't can't I'm you're he's she'd we'll they've y'all o'clock",
    "John's dog, the boys' toys, James' book, 1990's music, '90s, the 90's",
    "rock 'n' roll, 'tis, 'twas, ''quoted'', `backtick`, ``double``, it's.",
    "O'Neil and D'Angelo met l'Oréal's CEO",
    "l'homme d'affaires qu'il aujourd'hui jusqu'à presqu'île s'il",
    "dell'Italia un'altra l'anno c'è po' nell'ambito",
    "l'amic d'en Joan s'ha anat",
    "ka'an ba'a ne'e",
    "' ' '' a' 'a 5' '5 5's 5'S a'5 5'a",
    "He said: 'Hello.'",
    "He said: 'Hello'.",
    "She said \"no.\"",
    "End with quote.'",
    "End with quote .'",
    "End with quote.' ",
    "x.'y",
    # colons (fi, sv)
    "USA:n 20:een EU:ssa USA:s S:t a:B x: :x 12:30 A:ä A:Ä",
    # Catalan middle dots
    "il·lusió col·legi l·L a·b Â·b Â·B x· ·x Â·",
    # URLs, e-mail, paths
    "See http://www.example.com/a?b=c&d=e#f and https://x.de/path/.",
    "Mail me at john.doe@example.com or visit www.example.org.",
    "C:\\Users\\x and /usr/local/bin and ~/file.txt",
    # escaping
    "Tom & Jerry | pipes < less > greater ' apos \" quot [ left ] right",
    "&amp; &#124; &lt; &gt; &apos; &quot; &#91; &#93; &nbsp; &#x41;",
    "a&b a|b a<b a>b a[b]c {x} (y) @z #h $5 %p ^c *s +p =e ~t",
    "a_b a\\b a/b a;b a?b a!b",
    # periods
    "Wait... what.... really..... ok.. yes.",
    "a...b a....b a..b ...a a... . . . .. ..",
    "The end...",
    "The end ...",
    "x.. y",
    "DOTMULTI and DOTDOTMULTI and DOTMULTI.x and DOTMULTI.. and xDOTMULTIy",
    "a.DOTMULTI..b DOTDOTMULTI. DOTMULTI",
    "DOT... DOTDOT..MULTI ...MULTI DOT.MULTI",
    # whitespace and control characters
    "tab\there  two  spaces",
    "nbsp\u00a0here thin\u2009space ideo\u3000space nel\u0085here",
    "figure\u2007space narrow\u202fnbsp mmsp\u205fhere ogham\u1680here",
    "ls\u2028ps\u2029end",
    "zwsp\u200bhere bom\ufeffhere wj\u2060here",
    "fs\x1cgs\x1drs\x1eus\x1fend",
    "ctrl\x01a\x02b\x07c\x08d\x0bvt\x0cff",
    "del\x7fhere c1\x80\x9fhere",
    "cr\rinside",
    "\ufeffBOM at the start",
    "  leading and trailing spaces  ",
    "\x01",
    "\x01\x02",
    "",
    " ",
    "\t",
    "\u00a0",
    "\u3000 \u2009",
    "\x1c",
    "\x0b",
    # scripts, marks, digits
    "Ελληνικά: Αθήνα. Η πόλη, 5,3 εκ.",
    "Русский текст. Москва, 5,3 млн. т.е. и т.д.",
    "हिन्दी पाठ। यह एक वाक्य है। १२३,४५६",
    "العربية: ٣٫١٤ و ١٬٠٠٠. نعم",
    "中文句子。你好，世界！ 日本語の文。 한국어 문장.",
    "e\u0301t\u00e9 cafe\u0301 n\u0303 a\u0308b",
    "Ⅻ Ⓐⓑ ½ ² ٣ ５ 𝟘 🙂 👍🏽 👨‍👩‍👧",
    "ﬁ ﬂ ß ẞ İ ı ǅ ǈ ǋ",
    "x₂ x² 10³ 1⁄2",
    "smart ‘quotes’ and “double” and «guillemets» and „Gänsefüßchen“",
    "€5, £3, ¥7, $9.99, 5€, 100 %, 3°C, 5‰",
    "a½b a²b a٣b a５b aⅫb aⒶb",
    "Zürich. über alles. Über alles. Éric. été.",
]

#: (name, tokenizer.perl arguments) for the general corpus
GENERAL_RUNS = [
    ("en", ["-l", "en"]), ("en-a", ["-l", "en", "-a"]), ("en-no-escape", ["-l", "en", "-no-escape"]),
    ("en-a-no-escape", ["-l", "en", "-a", "-no-escape"]),
    ("de", ["-l", "de"]), ("de-a", ["-l", "de", "-a"]), ("fr", ["-l", "fr"]),
    ("it", ["-l", "it"]), ("ga", ["-l", "ga"]), ("ca", ["-l", "ca"]), ("fi", ["-l", "fi"]),
    ("sv", ["-l", "sv"]), ("tdt", ["-l", "tdt"]), ("so", ["-l", "so"]), ("nl", ["-l", "nl"]),
    ("cs", ["-l", "cs"]), ("es", ["-l", "es"]), ("ru", ["-l", "ru"]), ("zh", ["-l", "zh"]),
    ("xx", ["-l", "xx"]), ("xx-a", ["-l", "xx", "-a"]),
]


def edge_lines() -> list[str]:
    """One line per (class, code point next to one of its range boundaries), in contexts."""
    from bleu_compat.tokenizers import moses_tables as t

    contexts = {
        "ALNUM": "x{c}x {c}-{c} x-{c} {c}-x Q",
        "ALPHA": "x'{c} {c}'x {c}'s 1'{c} 1.{c}. Q 1.{c}. q Q",
        "NUMBER": "5,{c} {c},5 {c},{c} {c}'s {c}'S x{c}, Q",
        "LOWER": "Zz. {c}x Zz. Q{c} Q",
        "LL": "A:{c} Q'{c} Q",
        "SPACE": "x{c}x {c}Q Q",
    }
    lines = []
    for name, ctx in contexts.items():
        points: set[int] = set()
        for a, b in getattr(t, name):
            points.update((a - 1, a, b, b + 1))
        for cp in sorted(points):
            if 0 <= cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF and cp != 0x0A:
                lines.append(ctx.replace("{c}", chr(cp)))
    return lines


def prefix_lines(language: str) -> list[str]:
    """Every line of the shipped prefix file as a word, in four positions."""
    from bleu_compat.tokenizers.moses import PREFIX_DIR

    text = (PREFIX_DIR / f"nonbreaking_prefix.{language}").read_text(encoding="utf-8")
    out = []
    for item in text.split("\n"):
        word = item.split("#NUMERIC_ONLY#")[0].strip() if "#NUMERIC_ONLY#" in item else item
        if not word or word.startswith("#"):
            continue
        out.append(f"{word}. Xy {word}. 5 {word}. xy {word}. (z) {word}.")
    return out


def run(scripts: Path, args: list[str], lines: list[str]) -> dict[str, object]:
    script = scripts / "tokenizer" / "tokenizer.perl"
    with tempfile.NamedTemporaryFile("wb", delete=False) as f:
        f.write("".join(x + "\n" for x in lines).encode("utf-8"))
        name = f.name
    try:
        with open(name, "rb") as fin:
            proc = subprocess.run(["perl", str(script), "-q", *args], stdin=fin,
                                  capture_output=True, check=True,
                                  env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"})
    finally:
        os.unlink(name)
    out = proc.stdout.decode("utf-8")
    return {"args": args, "output": out.split("\n")[:-1] if out.endswith("\n") else out.split("\n"),
            "stderr": proc.stderr.decode("utf-8")}


def facts(scripts: Path) -> dict[str, str]:
    script = scripts / "tokenizer" / "tokenizer.perl"
    perl = subprocess.run(["perl", "-e", 'printf "%vd", $^V'], capture_output=True, text=True,
                          check=True).stdout
    return {"tokenizer_perl_sha256": hashlib.sha256(script.read_bytes()).hexdigest(),
            "perl": perl,
            "command": "perl tokenizer/tokenizer.perl -q ARGS < INPUT (INPUT: the lines, each "
                       "ended by LF, UTF-8)"}


def write(path: Path, data: dict[str, object]) -> None:
    raw = json.dumps(data, ensure_ascii=False, indent=0, sort_keys=True).encode("utf-8")
    path.write_bytes(lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME))
    print(f"wrote {path} ({path.stat().st_size} bytes)")


def main(argv: list[str] | None = None) -> int:
    from bleu_compat.tokenizers.moses import LANGUAGES, MOSES_COMMIT

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scripts", type=Path, help="mosesdecoder's scripts directory")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    base = {"moses_commit": MOSES_COMMIT, **facts(args.scripts)}

    inputs = {"general": GENERAL, "edges": edge_lines()}
    runs = [{"name": n, "input": "general", **run(args.scripts, a, GENERAL)} for n, a in GENERAL_RUNS]
    edges = inputs["edges"]
    for n, a in (("en", ["-l", "en"]), ("en-a", ["-l", "en", "-a"]), ("fi", ["-l", "fi"]),
                 ("fr", ["-l", "fr"])):
        runs.append({"name": f"edges-{n}", "input": "edges", **run(args.scripts, a, edges)})
    for lang in LANGUAGES:
        lines = prefix_lines(lang)
        inputs[f"prefix-{lang}"] = lines
        runs.append({"name": f"prefix-{lang}", "input": f"prefix-{lang}",
                     **run(args.scripts, ["-l", lang], lines)})
    write(OUT / "golden-crafted.json.xz", {**base, "inputs": inputs, "runs": runs})

    wmt = {"ref.A": REPO / "fixtures" / "real" / "wmt17-en-de-uedin-nmt" / "ref.A.txt",
           "sys.online-B.0": REPO / "fixtures" / "post2018" / "sys.online-B.0.txt"}
    runs = []
    digests = {}
    for label, path in wmt.items():
        lines = path.read_text(encoding="utf-8").split("\n")[:-1]
        digests[label] = hashlib.sha256(path.read_bytes()).hexdigest()
        for n, a in (("de", ["-l", "de"]), ("de-a", ["-l", "de", "-a"])):
            runs.append({"name": f"{label}-{n}", "input": label, **run(args.scripts, a, lines)})
    # Post (2018)'s basic and split rows: multi-bleu.perl (the same Moses checkout) on them
    multi_bleu = args.scripts / "generic" / "multi-bleu.perl"
    printed = {}
    for n in ("de", "de-a"):
        by_name = {r["name"]: r for r in runs}
        with tempfile.TemporaryDirectory() as d:
            ref, hyp = Path(d) / "ref", Path(d) / "hyp"
            ref.write_text("".join(x + "\n" for x in by_name[f"ref.A-{n}"]["output"]), encoding="utf-8")
            hyp.write_text("".join(x + "\n" for x in by_name[f"sys.online-B.0-{n}"]["output"]),
                           encoding="utf-8")
            for lc in ([], ["-lc"]):
                with open(hyp, "rb") as fin:
                    out = subprocess.run(["perl", str(multi_bleu), *lc, str(ref)], stdin=fin,
                                         capture_output=True, check=True).stdout.decode("utf-8")
                printed[f"{n}{' -lc' if lc else ''}"] = out.strip()
    write(OUT / "golden-wmt17.json.xz", {
        **base, "inputs_sha256": digests,
        "inputs": {k: str(v.relative_to(REPO)) for k, v in wmt.items()}, "runs": runs,
        "multi_bleu_perl": {"sha256": hashlib.sha256(multi_bleu.read_bytes()).hexdigest(),
                            "command": "perl generic/multi-bleu.perl [-lc] REF.tok < SYS.tok "
                                       "(the tokenizer.perl outputs above, named by tokenizer "
                                       "arguments)",
                            "printed": printed}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
