"""multi-bleu.perl's dialect, and the Perl facts the Moses/NIST script family shares.

The judge of the four Perl scripts (multi-bleu.perl, multi-bleu-detok.perl,
mteval-v13a.pl, mteval-v14.pl). It models, from facts read in the scripts'
public history (github:moses-smt/mosesdecoder, ``scripts/generic/``) and
checked by running every historical release of them (``oracle_tests/test_perl_scripts.py``),
what a script prints for given input files: the printed line, to the digit. Nothing
of the scripts' code is copied here; the facts are:

* **Perl on bytes** (multi-bleu.perl and multi-bleu-detok.perl before 2019-02-27 read
  their files undecoded): a line is the bytes up to and with ``\\n``; ``chop`` drops
  the last byte whatever it is (on a last line without ``\\n`` that is a byte of the
  text, perhaps half of a UTF-8 character), ``chomp`` only a ``\\n``; ``split`` (awk
  mode) and ``\\s`` split on the six ASCII whitespace bytes only (TAB, LF, VT, FF, CR,
  space: :data:`ASCII_WHITESPACE`; VT since Perl 5.18); ``lc`` and ``tr/[A-Z]/[a-z]/``
  lowercase A–Z only.
* **Perl on decoded text** (mteval's ``:utf8`` files, multi-bleu-detok.perl from
  2019-02-27): ``\\s`` is :data:`PERL_UNICODE_WHITESPACE`, Python's ``str.split()``
  whitespace less U+001C–U+001F; ``lc`` lowercases each character on its own (no final
  sigma, where Python's ``str.lower`` gives ς).
* **printf**: ``%.Nf`` rounds the double's exact binary value to the nearest, an exact
  tie to even (glibc; :func:`perl_fixed`); a number in a string is ``%.15g``
  (:func:`perl_number`).
* **multi-bleu.perl** (every release: :data:`DIALECTS`): hypothesis lines from
  standard input, reference lines from ``STEM0``, ``STEM1``, ... then ``STEM``;
  clipped n-gram counts for n = 1..4 against the largest count in any reference;
  reference length the closest to the hypothesis length (ties to the shorter since
  2006-12-15; the first before); a hypothesis line without a reference line adds
  9999 (the initial "closest" length); precision ``CORRECT/TOTAL`` (0 for an order
  with no n-gram); ``BLEU = BP * exp((my_log(p1) + my_log(p2) + my_log(p3) +
  my_log(p4)) / 4)`` with ``my_log(0) = -9999999999`` (so a zero precision gives 0:
  no smoothing) and ``BP = exp(1 - r/c)`` when c < r; a reference length of 0 prints
  ``BLEU = 0, 0/0/0/0 (...)`` and exits 1; c = 0 with r > 0 dies ("Illegal division
  by zero"). Releases before 2018-07-03 ``chop`` every line; references were split on
  single spaces (``split(/ /, ...)``) before 2012-07-06.

:func:`multi_bleu_run` is the whole script on file contents; :func:`evaluate` is the
card-shaped dialect the crosscheck and ``score --compare`` use.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any, Sequence

from bleu_compat.harness.dialect import card_bp, card_smoothed_bleu, card_smoothing
from bleu_compat.harness.truth import to_fixed

__all__ = ["corpus_outcome", "points", 
    "ASCII_WHITESPACE", "PERL_UNICODE_WHITESPACE", "ScriptRelease", "ScriptOutput",
    "perl_lines", "chop", "chomp", "ascii_split", "space_split", "perl_unicode_split",
    "ascii_lower", "perl_lower", "perl_fixed", "perl_number", "MultiBleuDialect", "DIALECTS",
    "multi_bleu_counts", "multi_bleu_run", "reference_files_read", "multi_bleu_line", "evaluate", "joined_tokens",
    "PRINTS", "PRINTS_SMOOTHING", "WHITESPACE_IN_TOKEN", "EMPTY_REFERENCES", "EMPTY_HYPOTHESES",
    "EMPTY_REFERENCES_SMOOTHING", "EMPTY_HYPOTHESES_SMOOTHING",
]

# ----------------------------------------------------------------------------- Perl facts

#: the bytes Perl's ``split`` (awk mode) and ``\s`` treat as whitespace in an undecoded string
ASCII_WHITESPACE = frozenset(b"\t\n\x0b\x0c\r ")
#: the characters Perl's ``\s`` matches in a decoded string (Perl 5.18+, Unicode White_Space
#: less U+180E): Python's ``str.isspace()`` set without U+001C..U+001F
PERL_UNICODE_WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000")


@dataclass(frozen=True)
class ScriptRelease:
    """One public version of a script: its bytes' SHA-256 and where it comes from.

    Attributes:
        sha256: SHA-256 of the file's bytes (what identifies a user's copy).
        blob: its git blob id in github:moses-smt/mosesdecoder (``git hash-object FILE``).
        commit: the first commit holding these bytes; date: that commit's author date.
        path: the file's path in that commit; where: the line of history
            (``"master"``, a branch, a pull request).
        moses_releases: the Moses release branches that ship it (``RELEASE-4.0``...).
        dialect: the id of the dialect that models it (the script's ``DIALECTS``).
    """

    sha256: str
    blob: str
    commit: str
    date: str
    path: str
    where: str
    moses_releases: tuple[str, ...]
    dialect: str

    @property
    def label(self) -> str:
        """The release as reports name it: ``"<commit date>-<commit[:7]>"``."""
        return f"{self.date[:10]}-{self.commit[:7]}"


@dataclass(frozen=True)
class ScriptOutput:
    """What a script run gives.

    Attributes:
        stdout: the lines the model reproduces (the BLEU line; for mteval also the
            length-ratio line and the n-gram rows), or "" when it dies.
        status: the exit status (0; multi-bleu's 1 after ``BLEU = 0, 0/0/0/0``; 255 when
            Perl dies).
        error: the ``die`` message without its `` at FILE line N.`` tail, or None.
        stats: ``{"correct", "total", "hyp_len", "ref_len"}`` as the script summed them.
    """

    stdout: str
    status: int = 0
    error: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)


def perl_lines(data: bytes) -> list[bytes]:
    """The lines ``<FH>`` reads: each with its ``\\n``; a last line without one as it is."""
    if not data:
        return []
    parts = data.split(b"\n")
    lines = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def chop(line: bytes) -> bytes:
    """Perl's ``chop`` on bytes: the last byte goes, whatever it is."""
    return line[:-1]


def chomp(line: bytes) -> bytes:
    """Perl's ``chomp``: a trailing ``\\n`` goes."""
    return line[:-1] if line.endswith(b"\n") else line


def ascii_split(line: bytes) -> list[bytes]:
    """``split`` / ``split(' ', ...)`` on bytes: runs of ASCII whitespace, no empty fields."""
    out, start = [], None
    for i, b in enumerate(line):
        if b in ASCII_WHITESPACE:
            if start is not None:
                out.append(line[start:i])
                start = None
        elif start is None:
            start = i
    if start is not None:
        out.append(line[start:])
    return out


def space_split(line: bytes) -> list[bytes]:
    """``split(/ /, ...)``: fields between single spaces; trailing empty fields dropped."""
    fields = line.split(b" ")
    while fields and fields[-1] == b"":
        fields.pop()
    return fields


def perl_unicode_split(text: str) -> list[str]:
    """``split`` on a decoded string: runs of :data:`PERL_UNICODE_WHITESPACE`."""
    out, cur = [], []
    for ch in text:
        if ch in PERL_UNICODE_WHITESPACE:
            if cur:
                out.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
    if cur:
        out.append("".join(cur))
    return out


def ascii_lower(line: bytes) -> bytes:
    """``lc`` on bytes and ``tr/[A-Z]/[a-z]/``: A–Z only."""
    return line.translate(_ASCII_LOWER)


_ASCII_LOWER = bytes(c + 32 if 65 <= c <= 90 else c for c in range(256))


def perl_lower(text: str) -> str:
    """``lc`` on a decoded string: each character's lowercase mapping on its own."""
    return "".join(ch.lower() for ch in text)


def perl_fixed(x: float, decimals: int) -> str:
    """``printf "%.Nf"``: the exact binary value rounded to ``decimals`` places, ties to even."""
    if math.isnan(x):
        return "NaN" if math.copysign(1, x) > 0 else "-NaN"
    if math.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    d = Decimal(x).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_EVEN)
    s = f"{d:f}"
    if math.copysign(1, x) < 0 and not s.startswith("-"):
        s = "-" + s
    return s


def perl_number(x: float | int) -> str:
    """A number interpolated in a string: an integer as is, a float as ``%.15g``."""
    if isinstance(x, int):
        return str(x)
    if math.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    if math.isnan(x):
        return "NaN"
    if x == int(x) and abs(x) < 1e15:
        return str(int(x)) if x != 0 or math.copysign(1, x) > 0 else "-0"
    return format(x, ".15g")


# ----------------------------------------------------------------------------- multi-bleu.perl


@dataclass(frozen=True)
class MultiBleuDialect:
    """What one multi-bleu.perl release does (each field a fact read in its code).

    Attributes:
        chop: lines end with ``chop`` (True, before 2018-07-03) or ``chomp``.
        ref_split: ``"space"`` (``split(/ /, $reference)``, before 2012-07-06) or ``"awk"``.
        ties: ``"first"`` (before 2006-12-15) or ``"shorter"`` reference on equal distance.
        first_index: the first numbered reference file read (``STEM0``; 1 in 2006-10-06).
        direct_precision: precisions ``CORRECT[n]/TOTAL[n]`` evaluated without a guard (the
            first three releases: an order without n-grams dies) and printed as
            ``100*CORRECT/TOTAL``.
        lowercase: has ``-lc`` (2011-12-16, except a 2013 branch copy).
        skip_empty_references: a reference of length 0 is not a length candidate (pull
            request 185, never merged).
        no_reference: what the script dies with when it read no reference line at all
            (``die`` 2006-08-10 to 2006-09-01 and again from 2012-10-04; None: it goes on,
            every hypothesis line adding 9999).
        line: the printed line's format: ``"v1"`` (``ration=``), ``"v2"`` (with
            ``%i sents, %i refs``), ``"v2i"`` (the ``ration=%.3fi`` typo), ``"v3"``
            (``ration=... hyp_len``), ``"v4"`` (``ratio=``, today's).
    """

    chop: bool = False
    ref_split: str = "awk"
    ties: str = "shorter"
    first_index: int = 0
    direct_precision: bool = False
    lowercase: bool = True
    skip_empty_references: bool = False
    no_reference: str | None = None
    line: str = "v4"


#: the die of 2012-10-04 and later without its file name (``... reference file STEM``)
NO_REFERENCE_FILE = "ERROR: could not find reference file"
_TODAY = MultiBleuDialect(no_reference=NO_REFERENCE_FILE)
_CHOP = replace(_TODAY, chop=True)
#: dialect id -> the dialect; ids are the first release (commit date) that behaves so
DIALECTS: dict[str, MultiBleuDialect] = {
    "2006-08-07": MultiBleuDialect(chop=True, ref_split="space", ties="first",
                                   direct_precision=True, lowercase=False, line="v1"),
    "2006-08-10": MultiBleuDialect(chop=True, ref_split="space", ties="first",
                                   direct_precision=True, lowercase=False,
                                   no_reference="No reference sentences found!", line="v2i"),
    "2006-08-11": MultiBleuDialect(chop=True, ref_split="space", ties="first",
                                   direct_precision=True, lowercase=False,
                                   no_reference="No reference sentences found!", line="v2"),
    "2006-09-01": MultiBleuDialect(chop=True, ref_split="space", ties="first",
                                   lowercase=False, line="v3"),
    "2006-10-06": MultiBleuDialect(chop=True, ref_split="space", ties="first", first_index=1,
                                   lowercase=False, line="v3"),
    "2006-12-15": MultiBleuDialect(chop=True, ref_split="space", lowercase=False, line="v3"),
    "2007-02-26": MultiBleuDialect(chop=True, ref_split="space", lowercase=False),
    "2011-12-16": MultiBleuDialect(chop=True, ref_split="space"),
    "2012-07-06": replace(_CHOP, no_reference=None),
    "2012-10-04": _CHOP,
    "2017-09-22": replace(_CHOP, skip_empty_references=True),
    "2018-07-03": _TODAY,
}

#: catalog entry ids (the card-shaped dialect's switches)
PRINTS = "MULTI-BLEU-PRINTS-2-DECIMALS"
PRINTS_SMOOTHING = "MULTI-BLEU-PRINTS-2-DECIMALS-SMOOTHING"
WHITESPACE_IN_TOKEN = "MULTI-BLEU-WHITESPACE-IN-TOKEN"
EMPTY_REFERENCES = "MULTI-BLEU-EMPTY-REFERENCES"
EMPTY_HYPOTHESES = "MULTI-BLEU-EMPTY-HYPOTHESES"
#: the two zero-length branches met from statistics (the adapter's one-segment text)
EMPTY_REFERENCES_SMOOTHING = "MULTI-BLEU-EMPTY-REFERENCES-SMOOTHING"
EMPTY_HYPOTHESES_SMOOTHING = "MULTI-BLEU-EMPTY-HYPOTHESES-SMOOTHING"
#: what a script's ``die`` on a division by zero says (without " at FILE line N.")
DIVISION_BY_ZERO = "Illegal division by zero"


def _ngrams(tokens: Sequence[Any], n: int) -> Counter[tuple[Any, ...]]:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def multi_bleu_counts(hyps: Sequence[Sequence[Any]], refs: Sequence[Sequence[Sequence[Any]]],
                      ties: str = "shorter", skip_empty: bool = False) -> dict[str, Any]:
    """multi-bleu's sums: ``correct``/``total`` per order 1..4 (None where Perl's array element
    stays undefined), ``hyp_len``, ``ref_len`` (None when no hypothesis line was read).

    ``refs[s]`` are segment s's reference token lists (missing for a hypothesis line beyond
    the reference files: the closest length stays 9999).
    """
    correct: list[int | None] = [None] * 4
    total: list[int | None] = [None] * 4
    c_sum: int | None = None
    r_sum: int | None = None
    for s, hyp in enumerate(hyps):
        seg_refs = refs[s] if s < len(refs) else []
        c = len(hyp)
        closest_diff, closest_len = 9999, 9999
        ref_max: dict[tuple[Any, ...], int] = {}
        for ref in seg_refs:
            length = len(ref)
            if not (skip_empty and length == 0):
                diff = abs(c - length)
                if diff < closest_diff:
                    closest_diff, closest_len = diff, length
                elif diff == closest_diff and ties == "shorter" and length < closest_len:
                    closest_len = length
            for n in range(1, 5):
                for g, k in _ngrams(ref, n).items():
                    if ref_max.get(g, 0) < k:
                        ref_max[g] = k
        c_sum = c if c_sum is None else c_sum + c
        r_sum = closest_len if r_sum is None else r_sum + closest_len
        for n in range(1, 5):
            for g, k in _ngrams(hyp, n).items():
                total[n - 1] = (total[n - 1] or 0) + k
                if g in ref_max:
                    correct[n - 1] = (correct[n - 1] or 0) + min(k, ref_max[g])
    return {"correct": correct, "total": total, "hyp_len": c_sum, "ref_len": r_sum}


def _my_log(p: float) -> float:
    return -9999999999 if not p else math.log(p)


def _script_bleu(precisions: Sequence[float], bp: float) -> float:
    """``$brevity_penalty * exp((my_log(p1) + my_log(p2) + my_log(p3) + my_log(p4)) / 4)``."""
    s = _my_log(precisions[0]) + _my_log(precisions[1])
    s = s + _my_log(precisions[2])
    s = s + _my_log(precisions[3])
    return bp * math.exp(s / 4)


def _script_bp(c: int, r: int) -> float:
    """``exp(1 - $length_reference / $length_translation)`` when c < r, else 1 (c > 0)."""
    return math.exp(1 - r / c) if c < r else 1


def multi_bleu_line(dialect: MultiBleuDialect, stats: dict[str, Any],
                    n_segments_with_refs: int = 0, refs_of_first: int = 0) -> ScriptOutput:
    """The end of the script: precisions, the zero-length branches, BLEU and its line."""
    correct = [x or 0 for x in stats["correct"]]
    total = stats["total"]
    c, r = stats["hyp_len"] or 0, stats["ref_len"] or 0
    if dialect.direct_precision:
        if any(t is None for t in total) or c == 0 and r > 0:
            return ScriptOutput("", 255, DIVISION_BY_ZERO, stats)
        bp = _script_bp(c, r)
        p = [m / t for m, t in zip(correct, total)]
        bleu = _script_bleu(p, bp)
        if r == 0:
            return ScriptOutput("", 255, DIVISION_BY_ZERO, stats)
        shown = [100 * m / t for m, t in zip(correct, total)]
    else:
        p = [m / t if t else 0 for m, t in zip(correct, total)]
        if r == 0:
            ration = "ration" if dialect.line == "v3" else "ratio"
            return ScriptOutput(f"BLEU = 0, 0/0/0/0 (BP=0, {ration}=0, hyp_len=0, ref_len=0)", 1,
                                None, stats)
        if c == 0:
            return ScriptOutput("", 255, DIVISION_BY_ZERO, stats)
        bp = _script_bp(c, r)
        bleu = _script_bleu(p, bp)
        shown = [100 * x for x in p]
    head = (f"BLEU = {perl_fixed(100 * bleu, 2)}, "
            + "/".join(perl_fixed(x, 1) for x in shown)
            + f" (BP={perl_fixed(bp, 3)}, ")
    ratio = perl_fixed(c / r, 3)
    if dialect.line == "v1":
        line = head + f"ration={ratio})"
    elif dialect.line in ("v2", "v2i"):
        i = "i" if dialect.line == "v2i" else ""
        line = head + f"ration={ratio}{i}, {n_segments_with_refs} sents, {refs_of_first} refs)"
    else:
        word = "ration" if dialect.line == "v3" else "ratio"
        line = head + f"{word}={ratio}, hyp_len={c}, ref_len={r})"
    return ScriptOutput(line, 0, None, dict(stats, bleu=bleu, bp=bp))


def reference_files_read(dialect: MultiBleuDialect, numbered: Sequence[bytes],
                         plain: bytes | None) -> list[bytes]:
    """The reference files the script reads: ``STEM<i>`` from its first index while they
    exist, then ``STEM`` itself when it exists."""
    return list(numbered[dialect.first_index:]) + ([plain] if plain is not None else [])


def multi_bleu_run(dialect: MultiBleuDialect, hypothesis: bytes, numbered: Sequence[bytes] = (),
                   plain: bytes | None = None, lowercase: bool = False) -> ScriptOutput:
    """What ``perl multi-bleu.perl [-lc] STEM < HYP`` prints, given the files' bytes.

    Args:
        dialect: the release's dialect (:data:`DIALECTS`).
        hypothesis: the hypothesis file's bytes (standard input).
        numbered: the bytes of ``STEM0``, ``STEM1``, ... as they exist.
        plain: the bytes of ``STEM`` itself, or None when there is no such file.
        lowercase: ``-lc``.
    """
    end = chop if dialect.chop else chomp
    files = reference_files_read(dialect, numbered, plain)
    if dialect.no_reference and not any(perl_lines(data) for data in files):
        return ScriptOutput("", 255, dialect.no_reference)
    refs: list[list[list[bytes]]] = []
    for data in files:
        for s, line in enumerate(perl_lines(data)):
            line = end(line)
            while len(refs) <= s:
                refs.append([])
            if lowercase:
                line = ascii_lower(line)
            refs[s].append(space_split(line) if dialect.ref_split == "space" else ascii_split(line))
    hyps = []
    for line in perl_lines(hypothesis):
        line = end(line)
        if lowercase:
            line = ascii_lower(line)
        hyps.append(ascii_split(line))
    stats = multi_bleu_counts(hyps, refs, dialect.ties, dialect.skip_empty_references)
    # "%i sents": scalar @REF, which the loop over @{$REF[$s]} extends to every hypothesis line
    return multi_bleu_line(dialect, stats, max(len(refs), len(hyps)), len(refs[0]) if refs else 0)


# ----------------------------------------------------------------------------- card-shaped dialect


def joined_tokens(tokens: Sequence[str]) -> bytes:
    """A token list as the adapter writes it on a line: UTF-8, joined by one space."""
    return " ".join(tokens).encode("utf-8")


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None else to_fixed(float(value), decimals)


def _corpus(dialect: MultiBleuDialect, request: dict[str, Any], on: frozenset[str],
            cache: dict[Any, Any]) -> dict[str, Any]:
    """bleu-corpus-compute as the adapter runs the script: each token list a line."""
    # the counts depend on the request, WHITESPACE_IN_TOKEN and the release's rules only:
    # counted once per request (``cache`` lives for one request), not per set of entries tried
    key = ("multi-bleu-count", WHITESPACE_IN_TOKEN in on, dialect.ties, dialect.skip_empty_references)
    if key not in cache:
        if WHITESPACE_IN_TOKEN in on:  # the script splits what the adapter joined
            hyps = [ascii_split(joined_tokens(h)) for h in request["hypotheses"]]
            refs = [[ascii_split(joined_tokens(r)) for r in seg] for seg in request["references"]]
        else:
            hyps = [[t.encode("utf-8") for t in h] for h in request["hypotheses"]]
            refs = [[[t.encode("utf-8") for t in r] for r in seg] for seg in request["references"]]
        cache[key] = multi_bleu_counts(hyps, refs, dialect.ties, dialect.skip_empty_references)
    stats = cache[key]
    c, r = stats["hyp_len"] or 0, stats["ref_len"] or 0
    decimals = request.get("decimals")
    if r == 0 and EMPTY_REFERENCES in on:  # "BLEU = 0, 0/0/0/0 (BP=0, ..., hyp_len=0, ref_len=0)"
        return {"bleu": 0.0, "brevity_penalty": 0.0, "candidate_length": 0,
                "reference_length": 0, "max_order": 4}
    if c == 0 and r > 0 and EMPTY_HYPOTHESES in on:
        return {"error": f"PerlDie: {DIVISION_BY_ZERO}"}
    matches = [x or 0 for x in stats["correct"]]
    totals = [x or 0 for x in stats["total"]]
    bp = card_bp(c, r)
    if c > 0:
        p = [m / t if t else 0 for m, t in zip(matches, totals)]
        bleu = _script_bleu(p, _script_bp(c, r))
    else:
        bleu = 0.0
    if PRINTS in on:  # printf "%.2f" of 100 * BLEU, "%.3f" of BP; the adapter's / 100
        return {"bleu": float(perl_fixed(100 * bleu, 2)) / 100,
                "brevity_penalty": float(perl_fixed(bp, 3)),
                "candidate_length": c, "reference_length": r, "max_order": 4}
    return {"bleu": _round(bleu, decimals), "brevity_penalty": _round(bp, decimals),
            "candidate_length": c, "reference_length": r, "max_order": 4}


def _smoothing(request: dict[str, Any], on: frozenset[str]) -> dict[str, Any]:
    """bleu-smoothing-compute: the card, or (with PRINTS_SMOOTHING) the number printed.

    multi-bleu has no smoothing: the decomposition gives it method ``none``, where its
    ``my_log(0) = -9999999999`` scores 0 as the card's ln 0 does, and its order of
    operations (the sum of the four logs, / 4, exp, times BP) is the card's. Its two
    zero-length branches, as the one-segment text the adapter writes meets them:
    ``EMPTY_REFERENCES_SMOOTHING`` (r = 0: the fixed ``BLEU = 0, 0/0/0/0 (BP=0, ...)`` line)
    and ``EMPTY_HYPOTHESES_SMOOTHING`` (c = 0 < r: "Illegal division by zero").
    """
    sm, st, used = card_smoothing(request)
    c, r = request["candidate_length"], request["reference_length"]
    if r == 0 and EMPTY_REFERENCES_SMOOTHING in on:  # "BLEU = 0, 0/0/0/0 (BP=0, ...)"
        return {"bleu": 0.0, "brevity_penalty": 0.0}
    if c == 0 and r > 0 and EMPTY_HYPOTHESES_SMOOTHING in on:
        return {"error": f"PerlDie: {DIVISION_BY_ZERO}"}
    bp = card_bp(c, r)
    bleu = card_smoothed_bleu(request, sm, st, used, bp)
    decimals = request.get("decimals")
    if PRINTS_SMOOTHING in on:  # what the adapter reads from the line: BLEU and BP only
        return {"bleu": float(perl_fixed(100 * bleu, 2)) / 100,
                "brevity_penalty": float(perl_fixed(bp, 3))}
    return {"bleu": _round(bleu, decimals), "brevity_penalty": _round(bp, decimals),
            "orders_used": used, "smoothed_matches": sm, "smoothed_totals": st}


def evaluate(tool_id: str, mode: str, request: dict[str, Any], on: frozenset[str],
             cache: dict[Any, Any], dialect: MultiBleuDialect = _TODAY) -> dict[str, Any]:
    """multi-bleu.perl's dialect on a card request: the card with the models in ``on``.

    Returns the fields the adapter reads from the script's line (``bleu`` on the 0–1
    scale, ``brevity_penalty``, the lengths, ``max_order`` 4) for the corpus tool, the
    card's output for the smoothing tool (the decomposition's), or ``{"error": ...}``.
    """
    if tool_id == "bleu-corpus-compute":
        return _corpus(dialect, request, on, cache)
    if tool_id == "bleu-smoothing-compute":
        return _smoothing(request, on)
    raise ValueError(f"multi-bleu.perl has no model for {tool_id}")


def corpus_outcome(facts: dict[str, Any], on: frozenset[str]) -> str | float | None:
    """What the script does on a corpus with these statistics beyond the arithmetic: dies
    ("Illegal division by zero") on empty hypotheses against non-empty references
    (MULTI-BLEU-EMPTY-HYPOTHESES), prints ``BLEU = 0`` (and exits 1) on empty references
    (MULTI-BLEU-EMPTY-REFERENCES: 0.0, its own number); else None.

    ``facts``: the corpus statistics scored (``matches``, ``totals``, ``candidate_length``,
    ``reference_length``, after the statistics changes), ``max_order``, ``smoothing`` (the
    card's method), ``effective_order``, ``reference_files``,
    ``segments_without_reference``; ``on``: the ``bleu-corpus-compute`` entries verified on
    the release (``identify`` leaves out what the library does not score).
    """
    c, r = facts["candidate_length"], facts["reference_length"]
    if r == 0 and EMPTY_REFERENCES in on:
        return 0.0
    if c == 0 and r > 0 and EMPTY_HYPOTHESES in on:
        return f"PerlDie: {DIVISION_BY_ZERO}"
    return None


def points(request: dict[str, Any], on: frozenset[str]) -> float:
    """The number the script prints (0-100) for a valid bleu-smoothing-compute ``request``
    with the entries ``on``: ``printf "%.2f"`` of 100 x BLEU read back (PRINTS_SMOOTHING),
    else 100 x the card's BLEU. ``identify`` matches published numbers against it."""
    out = _smoothing(request, on)
    if PRINTS_SMOOTHING in on:
        sm, st, used = card_smoothing(request)
        bp = card_bp(request["candidate_length"], request["reference_length"])
        return float(perl_fixed(100 * card_smoothed_bleu(request, sm, st, used, bp), 2))
    return 100 * out["bleu"]
