"""Which configurations produce a given BLEU number? (``bleu-compat identify``, issues 23 and 33)

A reviewer reads "BLEU 23.4" in a paper's table and asks: is that NLTK on
``str.split()`` tokens, sacreBLEU's 13a, a lowercased run, BLEU-3, one of the
references? :func:`search` evaluates every registered implementation (installed or not:
the dialect models compute, the libraries are not called) x each group of its releases
whose models differ x tokenizer x case x smoothing method (and the values users use) x
effective order (where the implementation has one) x max order 1-4, against the
references given and, with several, each non-empty subset of them;
:meth:`Search.matching` lists every configuration whose number is the score.

**Each number is the implementation's own**, on the scale it prints, as ``score
--compare`` prints it (:func:`bleu_compat.decompose.scaled`): sacreBLEU's ``score``
(its own 0-100 arithmetic, the model's ``points``), multi-bleu.perl's printed 2-decimal
number, NLTK's 0-1 value; the other scale is that number / 100 or x 100 as ``--compare``
computes it.

**Reading the score** (:func:`parse_score`): a score with d decimals matches a number
that rounds to it at d decimals as the implementation (or its users, in Python) print:
the exact binary value rounded half to even (Python's ``format``, Perl's and C's
``printf``); a score that is a double's shortest repr with at least
:data:`EXACT_DIGITS` significant digits (how ``str(float)`` writes a whole double, e.g.
WMT's ``automatic-scores.tsv``) matches that double exactly; ``exact=True`` reads any
score as the double nearest to it (``0.0`` is zero, not "0.0 at one decimal"). The
result says how the score was read.

**Only configurations that run**: where an implementation's library raises or refuses on
these files (HF evaluate's ``bleu`` on an empty output: HF-BLEU-ZERO-LENGTH-RAISES;
``t2t-bleu`` with two reference files), its model's ``corpus_outcome`` says so and the
configuration is listed under ``refused`` with what the library does, never as giving a
number.

Speed: each file's tokens are made once per tokenizer x case x text rules and counted
once per reference subset, in bulk, by ``score``'s counter (:mod:`bleu_compat.counting`;
orders 1-3 are the first orders of the max-order-4 rows); every configuration is then
arithmetic on those statistics in its implementation's dialect model.

Means of sentence scores (``sacrebleu-sentence-avg``) are searched per tokenizer x case x
effective order at their built-in smoothing and max order (each segment's statistics
through the dialect model's ``points``), against all references only.
sacreBLEU's MeCab tokenizers are searched when the references' script is their language
(``ja-mecab`` for Japanese, ``ko-mecab`` for Korean) and MeCab is installed; its
SentencePiece tokenizers (``flores101``, ``flores200``, ``spBLEU-1K``) when their model
file is where sacreBLEU keeps it (``spm`` is ``flores101``). Moses' ``tokenizer.perl``
(``moses-LANG``, ``moses-a-LANG``: :mod:`bleu_compat.tokenizers.moses`) is searched when
the target language is known (``language``: ``identify -l SRC-TRG``), for every
implementation that takes tokenized text (the library on tokenizer.perl's output,
lowercased after it). Not searched (said in ``not_searched``): other smoothings and
orders of a sentence mean, tokenizers that cannot run here (the reason names what to
install or where the file goes), the releases of sacreBLEU whose tokenizer differs from
ours for that name (``intl`` before 2.0.0; no ``char`` before 1.4.14; each segmenter
before the release that introduced it), subsets of more than
:data:`MAX_SUBSET_REFERENCES` references.

Scales: a score <= 1 is read on the 0-1 scale, above 1 on the 0-100 scale (BLEU
points), unless ``scale`` says otherwise; the result names the scale it assumed.
"""

from __future__ import annotations

import bisect
import math
import os
import re
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from itertools import combinations
from typing import Any, Callable, Sequence

__all__ = ["Match", "Refusal", "Reading", "IdentifyResult", "Search", "parse_score", "identify",
           "search", "Searcher", "restricted", "gives", "TOKENIZERS", "MAX_ORDERS", "MAX_SUBSET_REFERENCES",
           "EXACT_DIGITS", "printed"]

#: the tokenizers searched for implementations that take one (``split`` = ``str.split()``),
#: beside sacreBLEU's segmenters where bleu-compat has them and the libraries' own
TOKENIZERS = ("split", "13a", "intl", "char", "zh")
#: the max orders searched
MAX_ORDERS = (4, 3, 2, 1)
#: the values searched beside each method's default: floor / method1's epsilon
EPSILONS = (None, 0.01)
SMOOTH_TOOL = "bleu-smoothing-compute"
CORPUS_TOOL = "bleu-corpus-compute"
#: with more reference files than this, only all of them and each one alone are searched
MAX_SUBSET_REFERENCES = 4
#: the most decimals a score is read with (a score is matched at 100 decimals at most)
MAX_DECIMALS = 100
#: a score written with at least this many significant digits that is a double's shortest
#: repr is read as that double (``str(float)`` writes 15 to 17; nobody rounds to that many)
EXACT_DIGITS = 15
# ----------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class Reading:
    """How a published score is read (:func:`parse_score`).

    Attributes:
        text: the score as given; value: the double nearest to it (on its scale).
        decimals: the places given; exact: True when it is matched as that double exactly,
            False when every number that rounds to it at ``decimals`` places matches.
        scale: ``"0-100"`` or ``"0-1"``; scale_note: why that scale.
        how: one sentence on how the number was read (the output prints it).
    """

    text: str
    value: float
    decimals: int
    exact: bool
    scale: str
    scale_note: str
    how: str

    @property
    def canonical(self) -> str:
        """The score at its decimals, as a printer writes it (``"023.40"`` -> ``"23.40"``)."""
        return f"{Decimal(self.text.strip()):.{self.decimals}f}"


def _significant_digits(d: Decimal) -> int:
    digits = d.as_tuple().digits
    k = 0
    while k < len(digits) - 1 and digits[k] == 0:
        k += 1
    return len(digits) - k


def parse_score(text: str, scale: str | None = None, *, exact: bool | None = None) -> Reading:
    """How to read a published score (the one place scores are parsed).

    Args:
        text: the score as printed (``"23.38"``, ``"0.2338"``, ``"28"``,
            ``"59.436518912388884"``): a plain decimal number in ASCII digits.
        scale: ``"0-100"``, ``"0-1"`` or None (decided by the value: <= 1 is 0-1).
        exact: True: the score is a double, matched exactly; False: it is rounded at its
            decimals; None: exact when it is a double's shortest repr with at least
            :data:`EXACT_DIGITS` significant digits, else rounded.

    Returns:
        A :class:`Reading`.

    Raises:
        ValueError: not a plain decimal number, more than :data:`MAX_DECIMALS` decimals, or
            outside [0, 100] (or [0, 1] on that scale).
    """
    t = text.strip()
    try:
        d = Decimal(t)
    except InvalidOperation:
        raise ValueError(f"{text!r} is not a number (give the score as printed, e.g. 23.38)") from None
    # Decimal also takes "1_0", "1e1", "nan" and other scripts' digits ("２３.３８"): ASCII only
    if not re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)", t):
        raise ValueError(f"{text!r} is not a plain decimal number (e.g. 23.38)")
    if not d.is_finite():
        raise ValueError(f"{text!r} is not a plain decimal number (e.g. 23.38)")
    value = float(d)
    if not 0 <= value <= 100 or d < 0:
        raise ValueError(f"{text}: a BLEU score is in [0, 100] (or [0, 1])")
    decimals = max(0, -d.as_tuple().exponent)  # type: ignore[operator]
    if decimals > MAX_DECIMALS:
        shown = t if len(t) <= 24 else t[:20] + "..."
        raise ValueError(f"{shown} has {decimals} decimals: a score is matched at {MAX_DECIMALS} "
                         "decimals at most (give it as it was printed, e.g. 23.38)")
    if scale is None:
        scale = "0-1" if value <= 1 else "0-100"
        note = ("read on the 0-1 scale (a value of at most 1; --scale 0-100 reads it as BLEU points)"
                if scale == "0-1" else "read as BLEU points, on the 0-100 scale (a value above 1)")
    else:
        if scale not in ("0-1", "0-100"):
            raise ValueError(f"scale {scale!r}: 0-1 or 0-100")
        if scale == "0-1" and value > 1:
            raise ValueError(f"{text}: above 1, so not on the 0-1 scale")
        note = f"read on the {scale} scale, as asked"
    digits = _significant_digits(d)
    full = t.lstrip("+") == repr(value) and digits >= EXACT_DIGITS
    if exact is None:
        exact = full
        how = (f"read as the double {value!r} exactly (its {digits} significant digits are that "
               "double's shortest repr; --rounded reads it as rounded)" if exact else
               f"read as rounded to {decimals} decimal{'s' if decimals != 1 else ''}: every number "
               f"that rounds to {t} matches (--exact matches the double {value!r} only)")
    elif exact:
        how = f"read as the double {value!r} exactly (--exact)"
    else:
        how = (f"read as rounded to {decimals} decimal{'s' if decimals != 1 else ''} (--rounded): "
               f"every number that rounds to {t} matches")
    return Reading(text, value, decimals, bool(exact), scale, note, how)


def printed(x: float, decimals: int) -> str:
    """``x`` at ``decimals`` places as the implementations and their users print it: the exact
    binary value rounded to the nearest, an exact tie to even (Python's ``format``, which is
    also Perl's and C's ``printf`` %.Nf with glibc; sacreBLEU's ``f"{score:.{width}f}"``)."""
    return format(x, f".{decimals}f")


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Match:
    """One configuration's number on the files.

    Attributes:
        implementation: the registered implementation's display name.
        releases: the releases it holds for (its models' releases, oldest first).
        config: the :class:`bleu_compat.decompose.Configuration`.
        bleu: its number on the 0-1 scale; points: on the 0-100 scale
            (:func:`bleu_compat.decompose.scaled` of ``native``, as ``--compare``).
        differences: how many settings differ from the implementation's closest built-in
            configuration (0: as its users run it by default): the order of the list.
        native: the implementation's own number, on ``native_scale`` (sacreBLEU's 0-100
            ``score``, NLTK's 0-1 value, multi-bleu.perl's printed number), bit for bit the
            library's where the model is verified.
        references: the reference files it was computed against (all given, or a subset).
    """

    implementation: str
    releases: tuple[str, ...]
    config: Any
    bleu: float
    differences: int
    native: float = math.nan
    native_scale: str = "0-1"
    points: float = math.nan
    references: tuple[str, ...] = ()

    def signature(self) -> str:
        """The configuration's signature with its releases."""
        return self.config.signature() + f"|release:{self.release_label}"

    @property
    def release_label(self) -> str:
        """``"3.5..3.10.4"`` for every verified release from the first to the last, else
        the releases joined by ``+``; ``"installed"`` when the implementation lists none."""
        from bleu_compat.decompose import _library

        lib = _library(self.config.implementation)
        return _span(self.releases, lib.verified if lib is not None else ())

    def on(self, scale: str) -> float:
        """The number on ``scale`` (``"0-100"``: points; ``"0-1"``: bleu)."""
        return self.points if scale == "0-100" else self.bleu


@dataclass(frozen=True)
class Refusal:
    """Configurations an implementation's library does not score on these files.

    Attributes:
        implementation: its display name; releases: where it does so.
        what: what the library does (``"ZeroDivisionError: float division by zero"``).
        configurations: how many configurations searched it concerns.
        references: the reference files (all given, or a subset).
        example: one of them, as a ``--compare`` spec.
    """

    implementation: str
    releases: tuple[str, ...]
    what: str
    configurations: int
    references: tuple[str, ...]
    example: str


@dataclass(frozen=True)
class IdentifyResult:
    """:meth:`Search.matching`'s answer for one system.

    Attributes:
        reading: how the score was read (:class:`Reading`); score, value, decimals, scale,
            scale_note: its fields.
        system: the system file; references: the reference files.
        matches: every configuration whose number is the score, most common first.
        closest: when there is none, the configurations whose numbers are nearest to it.
        searched: how many configurations were evaluated.
        tokenizations: how many tokenizer x case x text-rule statistics were counted.
        not_searched: what the search left out, and why (sentences).
        refused: configurations whose library raises or refuses on these files.
        unscored: those of them whose arithmetic would give the score, each with what the
            library does instead (where it matters: they are not the answer).
    """

    reading: Reading
    system: str
    references: tuple[str, ...]
    matches: tuple[Match, ...]
    searched: int
    tokenizations: int
    not_searched: tuple[str, ...] = field(default_factory=tuple)
    refused: tuple[Refusal, ...] = field(default_factory=tuple)
    closest: tuple[Match, ...] = field(default_factory=tuple)
    unscored: tuple[tuple[Match, str], ...] = field(default_factory=tuple)

    @property
    def score(self) -> str:
        return self.reading.text

    @property
    def value(self) -> float:
        return self.reading.value

    @property
    def decimals(self) -> int:
        return self.reading.decimals

    @property
    def scale(self) -> str:
        return self.reading.scale

    @property
    def scale_note(self) -> str:
        return self.reading.scale_note


@dataclass(frozen=True)
class Search:
    """Every configuration's number on one system's files (:func:`search`), to match scores against.

    Attributes:
        system, references: the files.
        values: every configuration that gives a number, as a :class:`Match`, most common
            first (fewest settings changed, all references before a subset, registry order,
            larger max order).
        searched: how many configurations were evaluated.
        tokenizations: how many tokenizer x case x text-rule statistics were counted.
        not_searched: what the search left out, and why.
        refused: what the libraries do not score on these files.
        unscored: ``(configuration with the number its arithmetic would give, what the
            library does instead)`` for every refused configuration whose arithmetic gives one.
    """

    system: str
    references: tuple[str, ...]
    values: tuple[Match, ...]
    searched: int
    tokenizations: int
    not_searched: tuple[str, ...]
    refused: tuple[Refusal, ...] = ()
    unscored: tuple[tuple[Match, str], ...] = ()
    subsets: tuple[frozenset[str], ...] = ()

    def _sorted(self, scale: str) -> tuple[list[float], list[int]]:
        """The numbers on ``scale`` in increasing order, and each one's index in ``values``
        (made once per scale: matching a table's rows is then a bisection each)."""
        cache = self.__dict__.setdefault("_by_scale", {})
        if scale not in cache:
            order = sorted(range(len(self.values)), key=lambda k: self.values[k].on(scale))
            cache[scale] = ([self.values[k].on(scale) for k in order], order)
        return cache[scale]

    def covers(self, references: Sequence[str]) -> bool:
        """Whether this search holds what a search of the same system against ``references``
        would (those references are among its own, and it searched each subset of them that
        such a search would)."""
        want = list(dict.fromkeys(references))
        if not set(want) <= set(self.references):
            return False
        k = len(want)
        if k == 1 or k > MAX_SUBSET_REFERENCES:
            needed = [frozenset(want)] + ([frozenset((r,)) for r in want] if k > 1 else [])
        else:
            needed = [frozenset(c) for size in range(1, k + 1) for c in combinations(want, size)]
        return all(n in self.subsets for n in needed)

    def matching(self, score: str | Reading, scale: str | None = None, *,
                 exact: bool | None = None, closest: int = 3) -> IdentifyResult:
        """The configurations whose number is ``score`` (read by :func:`parse_score`), most
        common first; with none, the ``closest`` nearest numbers.

        Raises:
            ValueError: a bad score.
        """
        reading = score if isinstance(score, Reading) else parse_score(score, scale, exact=exact)
        numbers, index = self._sorted(reading.scale)
        # every number that can give the score lies within half a unit of its last place
        # (and an ULP or two) of its value: look there only, then test each exactly
        half = 0.0 if reading.exact else 0.5 * 10.0 ** -reading.decimals
        slack = 4 * math.ulp(reading.value + half) + half
        lo = bisect.bisect_left(numbers, reading.value - slack)
        hi = bisect.bisect_right(numbers, reading.value + slack)
        if reading.exact:
            hits = sorted(index[k] for k in range(lo, hi) if numbers[k] == reading.value)
        else:
            target, d = reading.canonical, reading.decimals
            hits = sorted(index[k] for k in range(lo, hi) if printed(numbers[k], d) == target)
        found = [self.values[k] for k in hits]
        near: tuple[Match, ...] = ()
        if not found and closest:
            v = reading.value
            k = bisect.bisect_left(numbers, v)
            window = range(max(0, k - closest), min(len(numbers), k + closest))
            far = sorted(abs(numbers[j] - v) for j in window)[:closest][-1]
            # every number as near as the closest-th (ties taken in the list's order)
            tied = range(bisect.bisect_left(numbers, v - far), bisect.bisect_right(numbers, v + far))
            near = tuple(self.values[index[j]] for j in sorted(
                (j for j in tied if abs(numbers[j] - v) <= far),
                key=lambda j: (abs(numbers[j] - v), index[j]))[:closest])
        unscored = tuple((m, what) for m, what in self.unscored if gives(m, reading))
        return IdentifyResult(reading, self.system, self.references, tuple(found), self.searched,
                              self.tokenizations, self.not_searched, self.refused, near, unscored)


def gives(m: Match, reading: Reading) -> bool:
    """Whether ``m``'s number is the score as ``reading`` reads it (on its scale)."""
    x = m.on(reading.scale)
    if reading.exact:
        return x == reading.value
    return printed(x, reading.decimals) == reading.canonical


def _span(releases: Sequence[str], verified: Sequence[str] = ()) -> str:
    if not releases:
        return "installed"
    if len(releases) == 1:
        return releases[0]
    known = list(verified)
    if releases[0] in known and releases[-1] in known:
        first, last = known.index(releases[0]), known.index(releases[-1])
        if list(releases) == known[first:last + 1]:
            return f"{releases[0]}..{releases[-1]}"
    return "+".join(releases)


# ----------------------------------------------------------------------------- the grid


class _LazyRows(Sequence):  # type: ignore[type-arg]
    """Rows cut to a lower max order, cut when first read (most configurations read only the
    corpus statistics, never the rows)."""

    def __init__(self, rows: list[list[int]], cut: Callable[[Sequence[int]], list[int]],
                 hyp_lengths: list[int]) -> None:
        self._rows, self._cutter = rows, cut
        self._done: list[list[int]] | None = None
        #: each row's hyp_len, read without cutting (the statistics changes read only those)
        self.hyp_lengths = hyp_lengths

    def _all(self) -> list[list[int]]:
        if self._done is None:
            self._done = [self._cutter(r) for r in self._rows]
        return self._done

    def __getitem__(self, k: Any) -> Any:
        return self._all()[k]

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Any:
        return iter(self._all())


class _Orders:
    """A :class:`bleu_compat.counting.Statistics` (counted at max order 4) seen at max order n."""

    def __init__(self, stats: Any, n: int) -> None:
        self.stats, self.n = stats, n
        self._cache: dict[Any, Any] = {}

    def _cut(self, row: Sequence[int]) -> list[int]:
        n, top = self.n, self.stats.max_order
        return [*row[:n], *row[top:top + n], *row[2 * top:]]

    def get(self, tok: str, lowercase: Any, whitespace: str = "python", chop: str = "off") -> Any:
        key = (tok, lowercase, whitespace, chop)
        if key not in self._cache:
            from types import SimpleNamespace

            total, rows = self.stats.get(tok, lowercase, whitespace, chop)
            if self.n == self.stats.max_order:
                self._cache[key] = (total, rows)
            else:
                cut = SimpleNamespace(matches=list(total.matches[:self.n]),
                                      totals=list(total.totals[:self.n]),
                                      hyp_len=total.hyp_len, ref_len=total.ref_len)
                lengths = self.stats.__dict__.setdefault("_hyp_lengths", {})
                if key not in lengths:
                    top = 2 * self.stats.max_order
                    lengths[key] = [r[top] for r in rows]
                self._cache[key] = (cut, _LazyRows(rows, self._cut, lengths[key]))
        return self._cache[key]

    def pooled(self, tok: str, lowercase: bool) -> Any:
        rows, lengths = self.stats.pooled(tok, lowercase)
        return [self._cut(r) for r in rows], lengths

    def ref_lengths(self, *args: Any) -> Any:
        return self.stats.ref_lengths(*args)

    def last_segment(self, *args: Any) -> Any:
        return self.stats.last_segment(*args)


def _release_groups(lib: Any) -> list[tuple[tuple[str, ...], frozenset[str], frozenset[str]]]:
    """``[(releases, entries on, statistics changes on)]``: the library's verified releases
    grouped by the dialect its models give (the smoothing card's entries verified on the
    release, and its declared statistics changes that hold there)."""
    entries = lib.catalog_entries
    ids = {e.id: e for e in entries}
    groups: dict[tuple[frozenset[str], frozenset[str]], list[str]] = {}
    for release in lib.verified or ("",):
        on = frozenset(e.id for e in entries if e.tool_id == SMOOTH_TOOL and "as_called" in e.modes
                       and (release in e.verified or not release))
        stats = frozenset(name for name, _ in lib.decomposition.statistics
                          if name not in ids or release in ids[name].verified or not release)
        groups.setdefault((on, stats), []).append(release)
    return [(tuple(r for r in rels if r), on, st) for (on, st), rels in groups.items()]


def _corpus_entries(lib: Any) -> dict[str, frozenset[str]]:
    """release -> the ids of the library's ``bleu-corpus-compute`` entries verified on it (what
    its model's ``corpus_outcome`` reads)."""
    entries = [e for e in lib.catalog_entries if e.tool_id == CORPUS_TOOL and "as_called" in e.modes]
    return {release: frozenset(e.id for e in entries if release in e.verified or not release)
            for release in (lib.verified or ("",))}


def _candidates(lib: Any, builtin: Any, tokenizers: Sequence[str]) -> list[Any]:
    """The configurations searched for one built-in configuration: every value of each option
    its call takes (``options``), the others as the built-in has them. A script that reads
    tokenized text (multi-bleu.perl) is also searched on each Moses tokenization given."""
    from bleu_compat.decompose import Configuration
    from bleu_compat.tokenizers import is_moses

    if "path" in lib.config_keys:  # a script: its release's text rules decide all but -lc
        options: tuple[str, ...] | None = ("lc",)
    else:
        options = builtin.options
    takes = (lambda key: True) if options is None else (lambda key: key in options)
    toks = list(tokenizers) if takes("tok") else [builtin.tokenize]
    if not takes("tok") and "path" in lib.config_keys and builtin.tokenize in ("none", "split"):
        toks += [t for t in tokenizers if is_moses(t)]
    cases = [False, True] if takes("lc") else [builtin.lowercase]
    smoothings: list[tuple[str, Any]] = []
    if takes("smooth"):
        seen: set[str] = set()
        for name, card in lib.smoothing.items():
            if card in seen:  # an alias (NLTK's method0 is none)
                continue
            seen.add(card)
            values = EPSILONS if card == "method1" and name in lib.value_methods else (None,)
            smoothings += [(name, v) for v in values]
        smoothings += [(name, None) for name in lib.own_smoothing if name not in lib.smoothing]
    else:
        smoothings = [(builtin.smoothing, builtin.smooth_value)]
    effs = [False, True] if (lib.no_effective_order is None and takes("eff")) else [builtin.effective_order]
    orders = list(MAX_ORDERS) if takes("order") else [builtin.max_order]
    out = []
    for tok in toks:
        for lc in cases:
            for smooth, value in smoothings:
                for eff in effs:
                    for order in orders:
                        out.append(Configuration(
                            builtin.name, lib.name, tok, lowercase=lc, smoothing=smooth,
                            smooth_value=value, effective_order=eff, max_order=order,
                            aggregation=builtin.aggregation, call=builtin.call, options=builtin.options))
    return out


def _spec(cfg: Any, builtin: Any) -> str:
    """``cfg`` as a ``--compare`` spec: the closest built-in name and the keys that differ."""
    keys = []
    if cfg.tokenize != builtin.tokenize:
        keys.append(f"tok={cfg.tokenize}")
    if bool(cfg.lowercase) != bool(builtin.lowercase):
        keys.append(f"lc={'yes' if cfg.lowercase else 'no'}")
    if cfg.smoothing != builtin.smoothing:
        keys.append(f"smooth={cfg.smoothing}")
    if cfg.smooth_value != builtin.smooth_value and cfg.smooth_value is not None:
        keys.append(f"value={cfg.smooth_value:g}")
    if cfg.effective_order != builtin.effective_order:
        keys.append(f"eff={'yes' if cfg.effective_order else 'no'}")
    if cfg.max_order != builtin.max_order:
        keys.append(f"order={cfg.max_order}")
    return builtin.name + (":" + ",".join(keys) if keys else "")


def _differences(cfg: Any, builtin: Any) -> int:
    return sum((cfg.tokenize != builtin.tokenize, bool(cfg.lowercase) != bool(builtin.lowercase),
                cfg.smoothing != builtin.smoothing, cfg.smooth_value != builtin.smooth_value,
                cfg.effective_order != builtin.effective_order, cfg.max_order != builtin.max_order))


def _script_rules(lib: Any, cfg: Any) -> list[tuple[tuple[str, ...], Any]]:
    """A script implementation (``path=``): per group of releases with the same text rules,
    ``(releases, cfg with those rules)`` (its adapter's ``_rules(release, cfg)``)."""
    import importlib

    from bleu_compat.tokenizers import is_moses

    adapter = lib.adapter_module()
    entries = importlib.import_module(lib.entries)
    groups: dict[tuple[Any, ...], list[str]] = {}
    for rel in getattr(entries, "RELEASES", ()):
        try:
            rules = adapter._rules(rel, cfg)
        except ValueError:  # the release cannot run this (no -lc, does not compile)
            continue
        if is_moses(cfg.tokenize):  # the script reads tokenizer.perl's output
            rules = (cfg.tokenize, *tuple(rules)[1:])
        groups.setdefault(tuple(rules), []).append(rel.label)
    out = []
    for (tok, lc, ws, chop), rels in groups.items():
        out.append((tuple(rels), replace(cfg, tokenize=tok, lowercase=lc, whitespace=ws, chop=chop)))
    return out


def _tokenizer_releases(lib: Any, tok: str, releases: tuple[str, ...]) -> tuple[str, ...]:
    """The releases whose tokenizer ``tok`` is ours (sacreBLEU's per-release tokenizers)."""
    if lib.tokens is None or tok == "split" or not releases:
        return releases
    from bleu_compat.tokenizers.releases import NAMES, NEWEST, variant

    if tok not in NAMES:
        return releases
    newest = variant(tok, NEWEST)
    out = []
    for r in releases:
        try:
            if variant(tok, r) == newest:
                out.append(r)
        except Exception:  # noqa: BLE001 - the release has no such tokenizer
            continue
    return tuple(out)


@dataclass(frozen=True)
class _Point:
    """One configuration of the grid: its releases' groups, each evaluated once (its model
    module and card smoothing looked up once)."""

    lib: Any
    cfg: Any
    differences: int
    groups: tuple[tuple[tuple[str, ...], frozenset[str], frozenset[str]], ...]
    model: Any = None
    smoothing: tuple[str, Any] = ("", None)


def _point(lib: Any, cfg: Any, differences: int, groups: Any) -> _Point:
    return _Point(lib, cfg, differences, tuple(groups), lib.model_module(), cfg.card_smoothing)


@dataclass(frozen=True)
class _Grid:
    points: tuple[_Point, ...]
    means: tuple[_Point, ...]  # sentence-mean configurations
    not_searched: tuple[str, ...]
    corpus_entries: dict[str, dict[str, frozenset[str]]]
    order: dict[str, int]


def _searched_tokenizers(lib: Any, moses: Sequence[str] = ()) -> tuple[str, ...]:
    """Every tokenizer the grid holds for ``lib``: ours, every segmenter (a search leaves
    out those that do not apply to its files: :func:`_segmenters_searched`), the Moses
    tokenizations of the target language, the library's own."""
    from bleu_compat.tokenizers import SEGMENTERS

    return _tokenizers_of(lib, (*(t for t in SEGMENTERS if t != "spm"), *moses))


_GRIDS: dict[str | None, _Grid] = {}


def _grid(language: str | None = None) -> _Grid:
    """The configurations searched (independent of the files; built once per process and
    target language: the Moses tokenizations are the language's, ``moses_tokenizers``)."""
    if language in _GRIDS:
        return _GRIDS[language]
    import importlib.util

    from bleu_compat import decompose as dc

    moses, _ = moses_tokenizers(language)

    libs = dc._libraries()
    not_searched: list[str] = []
    points: list[_Point] = []
    means: list[_Point] = []
    corpus: dict[str, dict[str, frozenset[str]]] = {}
    for lib in libs:
        missing = [m for m in lib.model_imports if importlib.util.find_spec(m) is None]
        if missing:
            not_searched.append(f"{lib.display_name}: its model evaluates the library's "
                                f"arithmetic with {', '.join(missing)}, not installed here")
            continue
        corpus[lib.name] = _corpus_entries(lib)
        groups = _release_groups(lib)
        builtins = [b for b in lib.configurations if b.aggregation != "sentence-mean"]
        toks = _searched_tokenizers(lib, moses)
        for b in lib.configurations:
            if b.aggregation != "sentence-mean":
                continue
            if getattr(lib.model_module(), "points", None) is None:
                not_searched.append(f"{b.name}: {lib.display_name}'s model gives no score per "
                                    "segment to average")
                continue
            not_searched.append(
                f"{b.name} with a smoothing other than {b.smoothing} or a max order other "
                f"than {b.max_order}, or against a subset of the references (a mean of sentence "
                "scores costs a model call per segment: searched per tokenizer, case and "
                "effective order only)")
            for cfg in _candidates(lib, b, toks):
                if (cfg.smoothing, cfg.smooth_value, cfg.max_order) != (
                        b.smoothing, b.smooth_value, b.max_order):
                    continue
                if _refuses(lib, cfg, toks):
                    continue
                cfg = replace(cfg, name=_spec(cfg, b))
                gs = []
                for releases, on, kinds in groups:
                    releases = _tokenizer_releases(lib, cfg.tokenize, releases)
                    if releases or not lib.verified:
                        gs.append((releases, on, kinds))
                means.append(_point(lib, cfg, _differences(cfg, b), gs))
        grid: dict[str, Any] = {}
        for builtin in builtins:
            for cfg in _candidates(lib, builtin, toks):
                grid.setdefault(cfg.signature(), cfg)
        for cfg in grid.values():
            if _refuses(lib, cfg, toks):
                continue
            closest = min(builtins, key=lambda b: _differences(cfg, b)
                          if (b.aggregation, b.call) == (cfg.aggregation, cfg.call) else 99)
            cfg = replace(cfg, name=_spec(cfg, closest))
            variants: list[tuple[tuple[str, ...] | None, Any]] = [(None, cfg)]
            if "path" in lib.config_keys:
                if cfg.max_order != 4:
                    continue
                variants = list(_script_rules(lib, cfg))
            for rels, c in variants:
                gs = []
                for releases, on, kinds in groups:
                    if rels is not None:
                        releases = tuple(r for r in releases if r in rels) or rels
                    releases = _tokenizer_releases(lib, c.tokenize, releases)
                    if not releases and lib.verified:
                        continue
                    if ":" in c.card_smoothing[0] and lib.reference_release:
                        # methods outside the cards: read in the reference release only
                        if lib.reference_release not in releases:
                            continue
                        releases = (lib.reference_release,)
                    gs.append((releases, on, kinds))
                if gs:
                    points.append(_point(lib, c, _differences(c, closest), gs))
    _GRIDS[language] = _Grid(tuple(points), tuple(means), tuple(not_searched), corpus,
                             {lib.name: k for k, lib in enumerate(libs)})
    return _GRIDS[language]


# ----------------------------------------------------------------------------- the search


def identify(score: str, hypothesis: str, references: Sequence[str], *, scale: str | None = None,
             exact: bool | None = None, progress: Callable[[str], Any] | None = None,
             language: str | None = None) -> IdentifyResult:
    """Every configuration whose BLEU on the files is ``score``.

    Args:
        score: the score as printed (:func:`parse_score`).
        hypothesis: the system output file; references: one file per reference.
        scale: ``"0-100"``, ``"0-1"`` or None (<= 1 is read on the 0-1 scale).
        exact: see :func:`parse_score`.
        progress: called with a short description before each tokenization is counted.
        language: the target language, for the Moses tokenizations (None: not searched).

    Returns:
        An :class:`IdentifyResult`; ``matches`` empty is the answer "none".

    Raises:
        ValueError: a bad score (:func:`parse_score`), checked before any counting, or
            files of different line counts.
        CorpusReadError: a file cannot be read.
    """
    reading = parse_score(score, scale, exact=exact)
    return search(hypothesis, references, progress=progress, language=language).matching(reading)


def moses_tokenizers(language: str | None) -> tuple[tuple[str, ...], str | None]:
    """(the Moses tokenizations searched for the target ``language``, or why none is).

    Raises:
        ValueError: ``language`` is not a language code tokenizer.perl's names take.
    """
    if language is None:
        return (), ("tok=moses-LANG, moses-a-LANG (Moses tokenizer.perl -l LANG [-a], the "
                    "pre-2018 pipeline before multi-bleu.perl): the target language is not "
                    "known (give -l SRC-TRG)")
    from bleu_compat.errors import ConfigError
    from bleu_compat.tokenizers.moses import MosesTokenizer

    try:
        MosesTokenizer(language)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    return (f"moses-{language}", f"moses-a-{language}"), None


def search(hypothesis: str, references: Sequence[str], *,
           progress: Callable[[str], Any] | None = None, subsets: bool = True,
           language: str | None = None) -> Search:
    """Every searched configuration's number on the files (see the module's docstring).

    Args:
        subsets: with several references, search each non-empty subset too.
        language: the target language (``-l``'s), for the Moses tokenizations; None: they are
            not searched (``not_searched`` says so).

    Raises:
        CorpusReadError: a file cannot be read.
        ValueError: the files have different numbers of lines; a language that is not a code.
    """
    return Searcher(progress=progress).search(hypothesis, references, subsets=subsets,
                                              language=language)


class Searcher:
    """Searches (:func:`search`) that share what they count: files read and tokenized once
    for every search on them (``audit``'s rows on the same files), within ``keep`` files.

    Args:
        progress: called with a short description before each tokenization is counted.
        keep: how many files' token blocks are kept (the least recently used go first).
    """

    def __init__(self, progress: Callable[[str], Any] | None = None, keep: int = 8) -> None:
        self.progress = progress
        self.keep = keep
        self._files: dict[str, Any] = {}
        self._usable: dict[str, str | None] = {}

    def _corpus(self, paths: Sequence[str]) -> Any:
        """One :class:`bleu_compat.counting.CorpusFiles` holding ``paths`` (the token blocks of
        files met before are reused; the least recently used beyond ``keep`` are dropped)."""
        from bleu_compat.counting import CorpusFiles

        shared = CorpusFiles()
        for path in paths:
            old = self._files.pop(path, None)
            if old is not None:
                shared.adopt(old, path)
        for path in paths:
            self._files[path] = shared
        while len(self._files) > max(self.keep, len(paths)):
            self._files.pop(next(iter(self._files)))
        return shared

    def search(self, hypothesis: str, references: Sequence[str], *, subsets: bool = True,
               no_subsets_note: str = "subsets of the references (not asked)",
               language: str | None = None) -> Search:
        """See :func:`search` (``no_subsets_note``: what ``not_searched`` says when several
        references are searched without their subsets)."""
        from bleu_compat import decompose as dc

        files = self._corpus([hypothesis, *references])
        counts = {path: files.n_lines(path) for path in (hypothesis, *references)}
        n = counts[hypothesis]  # every file read and checked before any counting
        for path, count in counts.items():
            if count != n:
                raise ValueError(f"line counts differ: {hypothesis} has {n} line{'s' if n != 1 else ''}, "
                                 f"{path} has {count}: the files must be line-aligned")
        moses, why_not = moses_tokenizers(language)
        grid = _grid(language)
        not_searched = list(grid.not_searched)
        k = len(references)
        if not subsets or k == 1:
            sets = [tuple(range(k))]
        elif k <= MAX_SUBSET_REFERENCES:
            sets = [c for size in range(k, 0, -1) for c in combinations(range(k), size)]
        else:
            sets = [tuple(range(k))] + [(i,) for i in range(k)]
            not_searched.append(f"subsets of the {k} references other than all and each alone "
                                f"(more than {MAX_SUBSET_REFERENCES} references: "
                                f"{2 ** k - 1} subsets)")
        if k > 1 and not subsets:
            not_searched.append(no_subsets_note)
        # sacreBLEU's segmenters where they apply (each left out said once, with the reason)
        from bleu_compat.tokenizers import SEGMENTERS

        segmenters = _segmenters_searched(references, not_searched)
        if why_not:
            not_searched.append(why_not)
        skipped = {t: "" for t in SEGMENTERS if t not in segmenters}
        for tok, why in self._skipped_tokenizers(files, [hypothesis, *references]).items():
            skipped[tok] = why
            not_searched.append(f"tok={tok}: {why}")
        values: list[Match] = []
        would: list[tuple[Match, str]] = []
        refused: dict[tuple[Any, ...], list[Any]] = {}
        searched = 0
        counted: set[tuple[Any, ...]] = set()
        base = dc._Statistics(hypothesis, list(references), max(MAX_ORDERS), files)
        for which in sets:
            refs = tuple(references[i] for i in which)
            stats = base if len(which) == k else base.subset(which)
            run = _Run(stats, refs, files, grid, skipped, self.progress, counted)
            run.corpus()
            if len(which) == k:
                run.means()
            values += run.values
            would += run.would
            searched += run.searched
            for key, rows in run.refused.items():
                refused.setdefault(key, []).extend(rows)
        not_searched += [f"tok={tok}: {why}" for tok, why in _unavailable_seen(counted)]
        values = _merge_releases(values, {lib.name: lib.verified for lib in dc._libraries()})
        all_refs = tuple(references)
        values.sort(key=_rank(all_refs))
        refusals = tuple(Refusal(impl, _ordered_releases(rels, verified), what, len(specs),
                                 refs, specs[0])
                         for (impl, what, refs, verified), (rels, specs) in
                         ((key, _refusal_rows(rows)) for key, rows in refused.items()))
        return Search(hypothesis, all_refs, tuple(_dedupe(values)), searched,
                      len({key for key in counted if key[0] != "unavailable"}),
                      tuple(dict.fromkeys(not_searched)), refusals, tuple(would),
                      tuple(frozenset(references[i] for i in which) for which in sets))

    def _skipped_tokenizers(self, files: Any, paths: Sequence[str]) -> dict[str, str]:
        """The libraries' own tokenizers that cannot run here, and why (the segmenters and the
        Moses tokenizations are said by :func:`_segmenters_searched` and ``-l``)."""
        from bleu_compat import decompose as dc
        from bleu_compat.tokenizers import SEGMENTERS, is_moses

        out: dict[str, str] = {}
        names = {t for lib in dc._libraries() for t in lib.tokenizers}
        for tok in sorted(names):
            if tok in SEGMENTERS or is_moses(tok):  # said by _segmenters_searched / -l
                continue
            why = self._unusable(tok)
            if why is not None:
                out[tok] = why
        return out

    def _unusable(self, tok: str) -> str | None:
        """Why tokenizer ``tok`` cannot run here, or None (asked once per process)."""
        if tok in self._usable:
            return self._usable[tok]
        from bleu_compat.counting import _ours, _owner

        why: str | None = None
        try:
            if _ours(tok):
                from bleu_compat.tokenizers.block import tokenize_block

                tokenize_block(b"a b.\n", tok)
            else:
                owner = _owner(tok)
                adapter = owner.adapter_module()
                if hasattr(adapter, "tokenize_block"):
                    adapter.tokenize_block(tok, b"a b.\n")
                else:
                    adapter.tokenize_lines(tok, ["a b."])
        except Exception as exc:  # noqa: BLE001 - a tokenizer that cannot run here
            text = str(exc).splitlines()[0][:160] if str(exc) else ""
            who = "" if _ours(tok) else f"{_owner(tok).display_name}'s own tokenizer, "
            why = f"{who}it does not run here ({type(exc).__name__}{': ' + text if text else ''})"
        self._usable[tok] = why
        return why


def _rank(all_refs: Sequence[str]) -> Callable[[Match], tuple[Any, ...]]:
    """Most common first: fewest settings changed from the implementation's closest built-in
    configuration, all the references before a subset, the registry's order, the larger max
    order, more references, then the tokenizer and case (a stable, total order)."""
    everything = set(all_refs)
    order = _grid().order

    def key(m: Match) -> tuple[Any, ...]:
        return (m.differences, set(m.references) != everything, order[m.config.implementation],
                -m.config.max_order, -len(m.references), m.config.tokenize, bool(m.config.lowercase))

    return key


def restricted(s: Search, references: Sequence[str]) -> Search:
    """``s`` as a search against ``references`` (a subset of its references, in any order):
    the configurations computed against those references or a subset of them, ranked with
    ``references`` as all of them. (``s`` searched every subset, so nothing is missing.)

    Raises:
        ValueError: ``references`` is not a subset of ``s``'s.
    """
    want = set(references)
    if not s.covers(references):
        raise ValueError("restricted: the search does not cover these references")
    if want == set(s.references) and tuple(references) == s.references:
        return s
    values = sorted((m for m in s.values if set(m.references) <= want), key=_rank(references))
    return Search(s.system, tuple(references), tuple(values), s.searched, s.tokenizations,
                  s.not_searched,
                  tuple(f for f in s.refused if set(f.references) <= want),
                  tuple((m, what) for m, what in s.unscored if set(m.references) <= want),
                  tuple(x for x in s.subsets if x <= want))


_STATES: dict[tuple[int, frozenset[str]], dict[str, Any]] = {}


def _state(point: _Point, kinds: frozenset[str]) -> dict[str, Any]:
    """The decomposition's end state of ``point``'s configuration with the statistics changes
    ``kinds`` (made once per process; read only)."""
    key = (id(point), kinds)
    if key not in _STATES:
        from bleu_compat import decompose as dc

        state = dc._end_state(point.cfg)
        for name in dc._statistics():
            state[name] = name in kinds and state[name]
        _STATES[key] = state
    return _STATES[key]


def _unavailable_seen(counted: set[tuple[Any, ...]]) -> list[tuple[str, str]]:
    return sorted({(key[1], key[2]) for key in counted if key[0] == "unavailable"})


def _ordered_releases(releases: set[str], verified: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(r for r in verified if r in releases) + tuple(sorted(set(releases) - set(verified)))


def _refusal_rows(rows: list[tuple[tuple[str, ...], str]]) -> tuple[set[str], list[str]]:
    releases: set[str] = set()
    specs: list[str] = []
    for rels, spec in rows:
        releases |= set(rels)
        if spec not in specs:
            specs.append(spec)
    return releases, specs


class _Run:
    """One search of the grid against one set of references."""

    def __init__(self, stats: Any, refs: tuple[str, ...], files: Any, grid: _Grid,
                 skipped: dict[str, str], progress: Callable[[str], Any] | None,
                 counted: set[tuple[Any, ...]]) -> None:
        from bleu_compat import decompose as dc

        self.dc = dc
        self.stats, self.refs, self.files, self.grid = stats, refs, files, grid
        self.skipped, self.progress, self.counted = skipped, progress, counted
        self.views = {n: _Orders(stats, n) for n in MAX_ORDERS}
        self.evaluators = {n: dc._Evaluator(self.views[n], n) for n in MAX_ORDERS}  # type: ignore[arg-type]
        self.values: list[Match] = []
        self.refused: dict[tuple[Any, ...], list[tuple[tuple[str, ...], str]]] = {}
        self.would: list[tuple[Match, str]] = []
        self.searched = 0
        self._seen: set[tuple[Any, ...]] = set()
        self._facts: dict[str, Any] = {}
        self._sums: dict[tuple[int, int], tuple[Any, dict[str, Any]]] = {}
        self._bad: dict[tuple[Any, ...], str] = {}

    def _key(self, cfg: Any) -> tuple[Any, ...]:
        return (cfg.stats_tokenize, cfg.lowercase, cfg.whitespace, cfg.chop)

    def _announce(self, cfg: Any) -> bool:
        """Whether ``cfg``'s statistics can be counted here (its tokenizer runs, its rules
        read the files); says so before the first count of each."""
        if cfg.tokenize in self.skipped:
            return False
        key = self._key(cfg)
        if key in self._bad:
            return False
        if (self.refs, key) not in self._seen:
            self._seen.add((self.refs, key))
            if self.progress and key not in self.counted:
                self.progress(f"counting statistics on {cfg.stats_tokenize} tokens"
                              f"{', lowercased' if cfg.lowercase else ''}")
            try:
                self.views[4].get(*key)
            except self.dc.UnreproducedError as exc:
                self._bad[key] = str(exc)
                self.counted.add(("unavailable", cfg.tokenize, str(exc)))
                return False
            self.counted.add(key)
        return True

    def facts(self) -> dict[str, Any]:
        """What the models' ``corpus_outcome`` reads beside the statistics."""
        if not self._facts:
            lines = [self.files.lines(p) for p in self.refs]
            empty = sum(1 for seg in zip(*lines) if all(line == "" for line in seg))
            self._facts = {"reference_files": len(self.refs), "segments_without_reference": empty}
        return self._facts

    def corpus(self) -> None:
        for point in self.grid.points:
            if not self._announce(point.cfg):
                continue
            ev = self.evaluators[point.cfg.max_order]
            for releases, on, kinds in point.groups:
                self.searched += 1
                self._evaluate(point, ev, releases, on, kinds)

    def _evaluate(self, point: _Point, ev: Any, releases: tuple[str, ...], on: frozenset[str],
                  kinds: frozenset[str]) -> None:
        dc, lib, cfg = self.dc, point.lib, point.cfg
        state = _state(point, kinds)
        try:
            rows = ev.pooled_statistics(state) if state[dc.POOLED] else [ev.statistics(state)]
        except dc.UnreproducedError:
            return
        corpus_on = self.grid.corpus_entries.get(lib.name, {})
        outcome = getattr(point.model, "corpus_outcome", None)
        # what each release does beyond the arithmetic (its corpus entries): raise, or its own
        # number; a pooled mean's facts are its hypotheses' statistics summed
        by: dict[Any, list[str]] = {}
        if outcome is None:
            by[None] = list(releases or ("",))
        else:
            n = cfg.max_order
            facts = dict(self._summed(rows, n), max_order=n, smoothing=point.smoothing[0],
                         effective_order=cfg.effective_order)
            for release in (releases or ("",)):
                by.setdefault(outcome(facts, corpus_on.get(release, frozenset())), []).append(release)
        arithmetic: tuple[float, float] | str | None = None
        for result, rels in by.items():
            rels_t = tuple(r for r in rels if r)
            if isinstance(result, str):
                if arithmetic is None:
                    arithmetic = self._arithmetic(point, rows, on, state, ev)
                would = None if isinstance(arithmetic, str) else self._match(
                    point, rels_t, arithmetic[0])
                self._refuse(lib, rels_t, result, cfg, would)
                continue
            if isinstance(result, float):
                native = result
            else:
                if arithmetic is None:
                    arithmetic = self._arithmetic(point, rows, on, state, ev)
                if isinstance(arithmetic, str):
                    self._refuse(lib, rels_t, arithmetic, cfg)
                    continue
                native = arithmetic[0]
            if not math.isfinite(native):
                self._refuse(lib, rels_t, f"gives {native} (no finite number)", cfg)
                continue
            self.values.append(self._match(point, rels_t, native))

    def _summed(self, rows: list[Any], n: int) -> dict[str, Any]:
        """The facts of statistics ``rows`` (one: a corpus; several: a pooled mean's
        hypotheses, summed), with the run's (made once per list of rows)."""
        key = (id(rows), n)
        if key not in self._sums:
            if len(rows) == 1:
                s = rows[0]
                sums = {"matches": list(s["matches"]), "totals": list(s["totals"]),
                        "candidate_length": s["candidate_length"],
                        "reference_length": s["reference_length"]}
            else:
                sums = {"matches": [sum(s["matches"][k] for s in rows) for k in range(n)],
                        "totals": [sum(s["totals"][k] for s in rows) for k in range(n)],
                        "candidate_length": sum(s["candidate_length"] for s in rows),
                        "reference_length": sum(s["reference_length"] for s in rows)}
            self._sums[key] = (rows, dict(self.facts(), **sums))  # rows kept: ids stay unique
        return self._sums[key][1]

    def _match(self, point: _Point, releases: tuple[str, ...], native: float) -> Match:
        bleu, points = self.dc.scaled(point.lib, native)
        return Match(point.lib.display_name, releases, point.cfg, bleu, point.differences, native,
                     point.lib.native.scale, points, self.refs)

    def _arithmetic(self, point: _Point, rows: list[Any], on: frozenset[str],
                    state: dict[str, Any], ev: Any) -> tuple[float, float] | str:
        """``(native, 0-1)`` of the configuration from its statistics in its dialect model, or
        what the model says the library raises."""
        dc, lib, cfg = self.dc, point.lib, point.cfg
        method, eps = point.smoothing
        model = point.model
        evaluate = model.evaluate
        on_100 = lib.native.scale == "0-100"
        natives = []
        # a pooled mean scores each hypothesis: those with the same statistics score alike
        seen: dict[tuple[Any, ...], float] | None = {} if len(rows) > 1 and ":" not in method else None
        try:
            for stats in rows:
                if seen is not None:
                    same = (tuple(stats["matches"]), tuple(stats["totals"]),
                            stats["candidate_length"], stats["reference_length"])
                    if same in seen:
                        natives.append(seen[same])
                        continue
                request = {"matches": list(stats["matches"]), "totals": list(stats["totals"]),
                           "candidate_length": stats["candidate_length"],
                           "reference_length": stats["reference_length"],
                           "smoothing": method, "effective_order": cfg.effective_order}
                if method == "method1" and cfg.smooth_value is not None:
                    request["epsilon"] = eps
                if ":" in method:
                    own = method.partition(":")[2]
                    if on_100:
                        try:
                            natives.append(float(model.own_points(own, eps, request)))
                        except (ArithmeticError, AssertionError, IndexError, ValueError) as exc:
                            return f"{type(exc).__name__}: {exc}"
                        continue
                    natives.append(dc._own_smoothing_value(method, eps, request, lambda: ev.stats.last_segment(
                        state["tokenization"], state["case"], state["whitespace"], state["chop"])))
                    continue
                out = evaluate(SMOOTH_TOOL, "as_called", request, on, {})
                if "error" in out:
                    return str(out["error"])
                if on_100:
                    p = model.points(request, on)
                    if p is None:
                        return "its model gives no number on its own scale for this release"
                    natives.append(float(p))
                else:
                    natives.append(float(out["bleu"]))
                if seen is not None:
                    seen[same] = natives[-1]
        except dc.UnreproducedError as exc:
            return str(exc)
        except (ArithmeticError, ValueError) as exc:
            return f"{type(exc).__name__}: {exc}"
        native = sum(natives) / len(natives) if state[dc.POOLED] else natives[0]
        return native, native

    def _refuse(self, lib: Any, releases: tuple[str, ...], what: str, cfg: Any,
                would: Match | None = None) -> None:
        key = (lib.display_name, what, self.refs, lib.verified)
        self.refused.setdefault(key, []).append((releases, cfg.name))
        if would is not None and math.isfinite(would.native):
            self.would.append((would, what))

    def means(self) -> None:
        """The sentence-mean configurations (:data:`_Grid.means`): each segment's statistics
        scored by the model's ``points`` (its own 0-100 score), averaged in segment order as
        the implementation's users do (``sum(scores) / len(scores)``)."""
        memo: dict[Any, Any] = {}
        parts: dict[tuple[Any, ...], list[tuple[Any, Any, int, int]]] = {}
        ids: dict[tuple[Any, ...], list[int]] = {}
        uniq: dict[Any, int] = {}
        for point in self.grid.means:
            lib, cfg = point.lib, point.cfg
            if not self._announce(cfg):
                continue
            points = point.model.points
            row_key = getattr(point.model, "points_row_key", None)
            on_key = getattr(point.model, "points_on_key", None)
            if row_key is None or on_key is None:
                row_key = on_key = None
            outcome = getattr(point.model, "corpus_outcome", None)
            corpus_on = self.grid.corpus_entries.get(lib.name, {})
            method, eps = point.smoothing
            n = cfg.max_order
            total, rows = self.views[n].get(cfg.stats_tokenize, cfg.lowercase, cfg.whitespace, cfg.chop)
            facts = dict(self.facts(), matches=list(total.matches), totals=list(total.totals),
                         candidate_length=total.hyp_len, reference_length=total.ref_len, max_order=n)
            for releases, on, _kinds in point.groups:
                self.searched += 1
                refusals: dict[str, list[str]] = {}
                scored = []
                for release in releases or ("",):
                    what = outcome(facts, corpus_on.get(release, frozenset())) if outcome else None
                    if isinstance(what, str):
                        refusals.setdefault(what, []).append(release)
                    else:
                        scored.append(release)
                for what, rels in refusals.items():
                    self._refuse(lib, tuple(r for r in rels if r), what, cfg)
                if not scored or not rows:
                    continue
                skey = (cfg.stats_tokenize, cfg.lowercase, cfg.whitespace, cfg.chop, n)
                if skey not in parts:  # each segment's statistics, cut once for every mean
                    parts[skey] = [(row[:n], row[n:2 * n], row[2 * n], row[2 * n + 1])
                                   for row in rows]
                request: dict[str, Any] = {"smoothing": method,
                                           "effective_order": cfg.effective_order}
                if method == "method1" and cfg.smooth_value is not None:
                    request["epsilon"] = eps
                # the model says which segments score alike whatever the effective order and
                # the release (points_row_key, points_on_key): each such segment's statistics
                # get one id, and each id one call per dialect
                rkey = (lib.name, skey, method, eps, cfg.smooth_value is not None)
                if rkey not in ids:
                    own = []
                    for m, t, c, r in parts[skey]:
                        request["matches"], request["totals"] = m, t
                        request["candidate_length"], request["reference_length"] = c, r
                        found = row_key(request) if row_key else None
                        own.append(-1 if found is None else uniq.setdefault(found, len(uniq)))
                    ids[rkey] = own
                shared = memo.setdefault((lib.name, on_key(request, on) if on_key else on), {})
                others = memo.setdefault((lib.name, method, eps, cfg.effective_order, on), {})
                scores: list[float] = []
                for k, (m, t, c, r) in enumerate(parts[skey]):
                    uid = ids[rkey][k]
                    if uid >= 0:
                        score = shared.get(uid, memo)
                    else:  # the model shares nothing: equal statistics still score alike
                        alike = (tuple(m), tuple(t), c, r)
                        score = others.get(alike, memo)
                    if score is memo:
                        request["matches"], request["totals"] = m, t
                        request["candidate_length"], request["reference_length"] = c, r
                        score = points(dict(request), on)
                        if uid >= 0:
                            shared[uid] = score
                        else:
                            others[alike] = score
                    if score is None:
                        break
                    scores.append(score)
                else:
                    mean = float(sum(scores) / len(scores))  # the users' mean of the 0-100 scores
                    native = mean if lib.native.scale == "0-100" else mean / 100
                    bleu, pts = self.dc.scaled(lib, native)
                    self.values.append(Match(lib.display_name, tuple(r for r in scored if r), cfg,
                                             bleu, point.differences, native, lib.native.scale,
                                             pts, self.refs))


#: the Han, kana and Hangul characters :mod:`bleu_compat.cli.score.script_check` counts
_CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
                  "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"
                  "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")


def _segmenters_searched(references: Sequence[str], not_searched: list[str]) -> tuple[str, ...]:
    """sacreBLEU's MeCab and SentencePiece tokenizers that the search takes, in sacreBLEU's
    order; each one left out is listed in ``not_searched`` with the reason.

    ``ja-mecab`` is searched when the references are Japanese by their script, ``ko-mecab``
    when they are Korean (:mod:`bleu_compat.cli.score.script_check`: MeCab's dictionaries
    are for that language; on any other text the search would only add coincidences), each
    when its package is installed. ``flores101``, ``flores200`` and ``spBLEU-1K`` are searched
    whenever their model file is where sacreBLEU keeps it (any script); ``spm`` is
    ``flores101`` (the same model), so it is not searched twice.
    """
    from bleu_compat.tokenizers import segmenters as sg

    sample_characters = 1_000_000  # script_check.SAMPLE_CHARACTERS (a test keeps them equal)
    text, left = [], sample_characters
    for path in references:
        with open(path, encoding="utf-8", errors="ignore") as handle:
            part = handle.read(max(left, 0))
        text.append(part)
        left -= len(part)
    sample = "\n".join(text)
    language = None
    if _CJK.search(sample):  # without Han, kana or Hangul the rule finds no language
        from bleu_compat.cli.score.script_check import advice

        found = advice(sample)
        language = found.language if found is not None else None
    out: list[str] = []
    other_script: list[str] = []
    no_model: list[str] = []
    for name in sg.SEGMENTERS:
        if name == "spm":  # flores101's older name: the same model, searched once
            continue
        if name in sg.MECAB and sg.MECAB[name].extra != language:
            other_script.append(name)
            continue
        why = sg.why_unavailable(name)
        if why is not None and name in sg.SPM and not os.path.exists(sg.model_path(name)):
            no_model.append(name)
        elif why is not None:
            not_searched.append(f"tok={name}: it does not run here: {why}")
        else:
            out.append(name)
    if other_script:
        names = [{"ja": "Japanese", "ko": "Korean"}[sg.MECAB[n].extra] for n in other_script]
        languages = f"neither {' nor '.join(names)}" if len(names) > 1 else f"not {names[0]}"
        not_searched.append(f"tok={', '.join(other_script)}: the references are {languages} "
                            "by their script (MeCab's dictionary is for that language)")
    if no_model:
        not_searched.append(
            f"tok={', '.join(no_model)}: no SentencePiece model where sacreBLEU keeps it "
            f"(looked for {', '.join(sg.model_path(n) for n in no_model)}); bleu-compat "
            "downloads nothing: put sacreBLEU's model files there to search them")
    if "flores101" in out:
        not_searched.append("tok=spm: the same model as flores101 (sacreBLEU's older name, "
                            "signature flores101): searched as flores101")
    return tuple(out)


def _tokenizers_of(lib: Any, segmenters: Sequence[str]) -> tuple[str, ...]:
    """The tokenizers searched for ``lib``: ours, the segmenters searched, the library's own."""
    return (*TOKENIZERS, *segmenters, *lib.tokenizers)


def _refuses(lib: Any, cfg: Any, segmenters: Sequence[str]) -> bool:
    """True when ``lib``'s adapter refuses ``cfg`` with a segmenter tokenizer (its
    ``configure`` raises: torchmetrics' SacreBLEUScore tokenizes with its own copy of them,
    which no model reproduces)."""
    from bleu_compat.tokenizers.segmenters import SEGMENTERS

    if cfg.tokenize not in SEGMENTERS:
        return False
    configure = getattr(lib.adapter_module(), "configure", None)
    if configure is None:
        return False
    try:
        configure(cfg)
    except ValueError:
        return True
    return False


def _merge_releases(matches: list[Match], verified: dict[str, tuple[str, ...]]) -> list[Match]:
    """One row per configuration, references and number: release groups whose models give the
    same number on these files are one row with every release (oldest first)."""
    merged: dict[tuple[Any, ...], Match] = {}
    for m in matches:
        key = (m.config.implementation, m.config.signature(), m.references, m.native)
        if key in merged:
            known = verified.get(m.config.implementation, ())
            rels = set(merged[key].releases) | set(m.releases)
            ordered = tuple(r for r in known if r in rels) + tuple(sorted(rels - set(known)))
            merged[key] = replace(merged[key], releases=ordered)
        else:
            merged[key] = m
    return list(merged.values())


def _dedupe(matches: list[Match]) -> list[Match]:
    """One row per (configuration, references, releases): built-in configurations of one
    implementation that search the same settings give the same rows."""
    seen: set[Any] = set()
    out = []
    for m in matches:
        key = (m.config.implementation, m.config.signature(), m.references, m.releases)
        if key not in seen:
            seen.add(key)
            out.append(m)
    return out
