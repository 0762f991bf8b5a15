"""Which configurations produce a given BLEU number? (``bleu-compat identify``, issue 23 item 7)

A reviewer reads "BLEU 23.4" in a paper's table and asks: is that NLTK on
``str.split()`` tokens, sacreBLEU's 13a, a lowercased run, BLEU-3? :func:`identify`
searches every registered implementation (installed or not: the dialect models
compute, the libraries are not called) × each group of its releases whose models
differ × tokenizer × case × smoothing method (and the values users use) ×
effective order (where the implementation has one) × max order 1–4, and lists every
configuration whose number, rounded to the decimals the score was given with
(JavaScript ``toFixed``, SPEC.md §2), is that score.

Speed: the statistics are counted once per tokenizer × case (the fast path of
:func:`bleu_compat.stream.corpus_stats_files`, at max order 4; orders 1–3 are their
first orders); every configuration is then arithmetic on them, in its
implementation's dialect model (:mod:`bleu_compat.decompose`'s states: the
configuration's end state with the catalog entries verified on the release on).

Means of sentence scores (``sacrebleu-sentence-avg``, the mean of ``sentence_bleu``) are
searched per tokenizer × case × effective order at their built-in smoothing and max order
(each segment's statistics through the dialect model: a model call per segment).
sacreBLEU's MeCab tokenizers are searched when the references' script is their language
(``ja-mecab`` for Japanese, ``ko-mecab`` for Korean) and MeCab is installed; its
SentencePiece tokenizers (``flores101``, ``flores200``, ``spBLEU-1K``) when their model
file is where sacreBLEU keeps it (``spm`` is ``flores101``).
Not searched (said in the result's ``not_searched``): other smoothings and orders of a
sentence mean, tokenizers that need what is not
here (a Java PTB tokenizer, NLTK's Punkt data, an uninstalled library's own
tokenizer, MeCab or a SentencePiece model: the reason names what to install or where the
file goes), the releases of sacreBLEU whose tokenizer differs from ours for that name
(``intl`` before 2.0.0; no ``char`` before 1.4.14; each segmenter before the release that
introduced it, :data:`bleu_compat.tokenizers.releases.SINCE`).

Moses' ``tokenizer.perl`` (``moses-LANG``, ``moses-a-LANG``: :mod:`bleu_compat.tokenizers.moses`)
is searched when the target language is known (``language``: ``identify -l SRC-TRG``), for
every implementation that takes tokenized text (``tok=none``: the library is run on
tokenizer.perl's output, lowercased after it); without it, ``not_searched`` says so.

Scales: a score ≤ 1 is read on the 0–1 scale, above 1 on the 0–100 scale (BLEU
points), unless ``scale`` says otherwise; the result names the scale it assumed.
"""

from __future__ import annotations

import importlib.util
import math
import os
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from typing import Any, Callable, Sequence

__all__ = ["Match", "IdentifyResult", "Search", "parse_score", "identify", "search", "TOKENIZERS",
           "MAX_ORDERS"]

#: the tokenizers searched for implementations that take one (``split`` = ``str.split()``)
TOKENIZERS = ("split", "13a", "intl", "char", "zh")
#: the max orders searched
MAX_ORDERS = (4, 3, 2, 1)
#: the values searched beside each method's default: floor / method1's epsilon
EPSILONS = (None, 0.01)
SMOOTH_TOOL = "bleu-smoothing-compute"


@dataclass(frozen=True)
class Match:
    """One configuration whose number rounds to the score.

    Attributes:
        implementation: the registered implementation's display name.
        releases: the releases it holds for (its models' releases, oldest first).
        config: the :class:`bleu_compat.decompose.Configuration`.
        bleu: its number on the 0–1 scale (the dialect model's, bit for bit the library's
            where the model is verified).
        differences: how many settings differ from the implementation's closest built-in
            configuration (0: as its users run it by default): the order of the list.
    """

    implementation: str
    releases: tuple[str, ...]
    config: Any
    bleu: float
    differences: int

    @property
    def points(self) -> float:
        """The number on the 0–100 scale."""
        return 100 * self.bleu

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


@dataclass(frozen=True)
class IdentifyResult:
    """:func:`identify`'s answer for one system.

    Attributes:
        score: the score as given (text); value: it as a number; decimals: places given.
        scale: ``"0-100"`` or ``"0-1"``: the scale the score was read on; scale_note: why.
        system: the system file; references: the reference files.
        matches: every configuration whose number rounds to the score, most common first.
        searched: how many configurations were evaluated.
        tokenizations: how many tokenizer × case statistics were counted.
        not_searched: what the search left out, and why (sentences).
    """

    score: str
    value: float
    decimals: int
    scale: str
    scale_note: str
    system: str
    references: tuple[str, ...]
    matches: tuple[Match, ...]
    searched: int
    tokenizations: int
    not_searched: tuple[str, ...] = field(default_factory=tuple)


def parse_score(text: str, scale: str | None = None) -> tuple[float, int, str, str]:
    """``(value, decimals, scale, note)`` of a published score.

    Args:
        text: the score as printed (``"23.38"``, ``"0.2338"``, ``"28"``).
        scale: ``"0-100"``, ``"0-1"`` or None (decided by the value: ≤ 1 is 0–1).

    Raises:
        ValueError: not a plain decimal number, or outside [0, 100] (or [0, 1] on that scale).
    """
    t = text.strip()
    import re

    try:
        d = Decimal(t)
    except InvalidOperation:
        raise ValueError(f"{text!r} is not a number (give the score as printed, e.g. 23.38)") from None
    # Decimal also takes "1_0", "1e1", "nan" and other scripts' digits ("２３.３８"): ASCII only
    if not re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)", t):
        raise ValueError(f"{text!r} is not a plain decimal number (e.g. 23.38)")
    if not d.is_finite() or t.lower().lstrip("+-").startswith(("inf", "nan")) or "e" in t.lower():
        raise ValueError(f"{text!r} is not a plain decimal number (e.g. 23.38)")
    value = float(d)
    if not 0 <= value <= 100:
        raise ValueError(f"{text}: a BLEU score is in [0, 100] (or [0, 1])")
    decimals = max(0, -d.as_tuple().exponent)  # type: ignore[operator]
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
    return value, decimals, scale, note


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


class _Orders:
    """A :class:`bleu_compat.decompose._Statistics` (counted at max order 4) seen at max order n."""

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
            cut = SimpleNamespace(matches=list(total.matches[:self.n]), totals=list(total.totals[:self.n]),
                                  hyp_len=total.hyp_len, ref_len=total.ref_len)
            self._cache[key] = (cut, [self._cut(r) for r in rows])
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


@dataclass(frozen=True)
class Search:
    """Every configuration's number on one system's files (:func:`search`), to match scores against.

    Attributes:
        system, references: the files.
        values: every configuration evaluated, as a :class:`Match` (``differences`` set).
        searched: how many configurations were evaluated (those the models raise on included).
        tokenizations: how many tokenizer × case statistics were counted.
        not_searched: what the search left out, and why.
    """

    system: str
    references: tuple[str, ...]
    values: tuple[Match, ...]
    searched: int
    tokenizations: int
    not_searched: tuple[str, ...]

    def matching(self, score: str, scale: str | None = None) -> IdentifyResult:
        """The configurations whose number rounds to ``score`` (:func:`parse_score`), most
        common first: fewest settings changed from the implementation's closest built-in
        configuration, then the registry's order, then the larger max order.

        Raises:
            ValueError: a bad score.
        """
        from bleu_compat.rounding import to_fixed

        value, decimals, used_scale, note = parse_score(score, scale)
        factor = 100 if used_scale == "0-100" else 1
        target = to_fixed(value, decimals)
        found = [m for m in self.values if to_fixed(m.bleu * factor, decimals) == target]
        return IdentifyResult(score, value, decimals, used_scale, note, self.system, self.references,
                              tuple(found), self.searched, self.tokenizations, self.not_searched)


def identify(score: str, hypothesis: str, references: Sequence[str], *, scale: str | None = None,
             progress: Callable[[str], Any] | None = None,
             language: str | None = None) -> IdentifyResult:
    """Every configuration whose BLEU on the files rounds to ``score``.

    Args:
        score: the score as printed (its decimals are the rounding's).
        hypothesis: the system output file; references: one file per reference.
        scale: ``"0-100"``, ``"0-1"`` or None (≤ 1 is read on the 0–1 scale).
        progress: called with a short description before each tokenization is counted.
        language: the target language, for the Moses tokenizations (None: not searched).

    Returns:
        An :class:`IdentifyResult`; ``matches`` empty is the answer "none".

    Raises:
        ValueError: a bad score (:func:`parse_score`), checked before any counting.
        CorpusReadError: a file cannot be read.
    """
    parse_score(score, scale)
    return search(hypothesis, references, progress=progress, language=language).matching(
        score, scale)


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
           progress: Callable[[str], Any] | None = None, language: str | None = None) -> Search:
    """Every searched configuration's number on the files (see the module's docstring).

    Args:
        language: the target language (``-l``'s), for the Moses tokenizations; None: they are
            not searched (``not_searched`` says so).

    Raises:
        CorpusReadError: a file cannot be read.
        ValueError: the files have different numbers of lines; a language that is not a code.
    """
    from bleu_compat import decompose as dc
    from bleu_compat.corpus_io import read_lines
    counts = {path: len(read_lines(path).lines) for path in (hypothesis, *references)}
    n = counts[hypothesis]  # every file read and checked before any counting
    for path, count in counts.items():
        if count != n:
            raise ValueError(f"line counts differ: {hypothesis} has {n} line{'s' if n != 1 else ''}, "
                             f"{path} has {count}: the files must be line-aligned")
    not_searched: list[str] = []
    segmenters = _segmenters_searched(references, not_searched)
    moses, why_not = moses_tokenizers(language)
    if why_not:
        not_searched.append(why_not)
    libs = dc._libraries()
    stats = dc._Statistics(hypothesis, references, max(MAX_ORDERS))
    views = {n: _Orders(stats, n) for n in MAX_ORDERS}
    evaluators = {n: dc._Evaluator(views[n], n) for n in MAX_ORDERS}  # type: ignore[arg-type]
    usable: dict[str, bool] = {}
    counted: set[tuple[Any, ...]] = set()

    def tokenizer_ok(tok: str, lib: Any) -> bool:
        if tok in dc._TOKENIZERS or tok == "none" or tok in moses:
            return True
        if tok not in usable:
            owner = next((x for x in libs if tok in x.tokenizers), None)
            try:
                owner.adapter_module().tokenize_lines(tok, ["a b."])
                usable[tok] = True
            except Exception as exc:  # noqa: BLE001 - a tokenizer that cannot run here
                usable[tok] = False
                not_searched.append(f"tok={tok} ({owner.display_name if owner else lib.display_name}'s "
                                    f"own tokenizer): it does not run here ({type(exc).__name__}: "
                                    f"{str(exc).splitlines()[0][:120] if str(exc) else ''})")
        return usable[tok]

    matches: list[Match] = []
    searched = 0
    try:
        for lib in libs:
            missing = [m for m in lib.model_imports if importlib.util.find_spec(m) is None]
            if missing:
                not_searched.append(f"{lib.display_name}: its model evaluates the library's "
                                    f"arithmetic with {', '.join(missing)}, not installed here")
                continue
            groups = _release_groups(lib)
            builtins = [b for b in lib.configurations if b.aggregation != "sentence-mean"]
            for b in lib.configurations:
                if b.aggregation != "sentence-mean":
                    continue
                found, count = _sentence_means(dc, views[4], lib, b, groups,
                                               _tokenizers_of(lib, (*segmenters, *moses)), tokenizer_ok)
                matches += found
                searched += count
                not_searched.append(
                    f"{b.name} with a smoothing other than {b.smoothing} or a max order other "
                    f"than {b.max_order} (a mean of sentence scores costs a model call per "
                    "segment: searched per tokenizer, case and effective order only)"
                    if getattr(lib.model_module(), "points", None) is not None else
                    f"{b.name}: {lib.display_name}'s model gives no score per segment to average")
            grid: dict[str, Any] = {}
            for builtin in builtins:
                for cfg in _candidates(lib, builtin, _tokenizers_of(lib, (*segmenters, *moses))):
                    grid.setdefault(cfg.signature(), cfg)
            for cfg in grid.values():
                if not tokenizer_ok(cfg.tokenize, lib) or _refuses(lib, cfg, segmenters):
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
                        key = (c.stats_tokenize, c.lowercase, c.whitespace, c.chop)
                        if key not in counted and progress:
                            progress(f"counting statistics on {c.stats_tokenize} tokens"
                                     f"{', lowercased' if c.lowercase else ''}")
                        counted.add(key)
                        bleu = _value(dc, evaluators[c.max_order], lib, c, on, kinds)
                        searched += 1
                        if bleu is None or not math.isfinite(bleu):
                            continue
                        matches.append(Match(lib.display_name, releases, c, bleu,
                                             _differences(c, closest)))
    finally:
        stats.close()
    order = {lib.name: k for k, lib in enumerate(libs)}
    matches = _merge_releases(matches, {lib.name: lib.verified for lib in libs})
    matches.sort(key=lambda m: (m.differences, order[m.config.implementation], -m.config.max_order,
                                m.config.tokenize, bool(m.config.lowercase)))
    return Search(hypothesis, tuple(references), tuple(_dedupe(matches)), searched, len(counted),
                  tuple(dict.fromkeys(not_searched)))


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
    from bleu_compat.cli.score.script_check import SAMPLE_CHARACTERS, advice
    from bleu_compat.tokenizers import segmenters as sg

    text, left = [], SAMPLE_CHARACTERS
    for path in references:
        with open(path, encoding="utf-8", errors="ignore") as handle:
            part = handle.read(max(left, 0))
        text.append(part)
        left -= len(part)
    found = advice("\n".join(text))
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


def _sentence_means(dc: Any, view: Any, lib: Any, builtin: Any, groups: Any,
                    tokenizers: Sequence[str], tokenizer_ok: Callable[[str, Any], bool]
                    ) -> tuple[list[Match], int]:
    """A sentence-mean built-in (``sacrebleu-sentence-avg``: the mean of sentence scores) on
    each tokenizer x case x effective order, at its max order and smoothing: each segment's
    statistics (counted once per tokenizer and case, as the corpus search counts them)
    scored by the implementation's dialect model of its smoothing card, then averaged in
    segment order as the implementation's users do (the model's ``points``: its own 0-100
    score per segment). Returns the configurations found and how many were searched."""
    found: list[Match] = []
    count = 0
    points = getattr(lib.model_module(), "points", None)
    if points is None:  # the model gives no 0-100 score to average as the library's users do
        return found, count
    for cfg in _candidates(lib, builtin, tokenizers):
        if (cfg.smoothing, cfg.smooth_value, cfg.max_order) != (
                builtin.smoothing, builtin.smooth_value, builtin.max_order):
            continue
        if not tokenizer_ok(cfg.tokenize, lib) or _refuses(lib, cfg, tokenizers):
            continue
        cfg = replace(cfg, name=_spec(cfg, builtin))
        method, eps = cfg.card_smoothing
        n = cfg.max_order
        _, rows = view.get(cfg.stats_tokenize, cfg.lowercase, cfg.whitespace, cfg.chop)
        for releases, on, _kinds in groups:
            releases = _tokenizer_releases(lib, cfg.tokenize, releases)
            if not releases and lib.verified:
                continue
            count += 1
            scores: list[float] = []
            for row in rows:
                request = {"matches": list(row[:n]), "totals": list(row[n:2 * n]),
                           "candidate_length": row[2 * n], "reference_length": row[2 * n + 1],
                           "smoothing": method, "effective_order": cfg.effective_order}
                if method == "method1" and cfg.smooth_value is not None:
                    request["epsilon"] = eps
                score = points(request, on)
                if score is None:
                    break
                scores.append(score)
            else:
                if rows:  # the adapter's mean: sum() of the 0-100 scores / count, then / 100
                    mean = float(sum(scores) / len(scores))
                    found.append(Match(lib.display_name, releases, cfg,
                                       mean / 100 if lib.native.scale == "0-100" else mean,
                                       _differences(cfg, builtin)))
    return found, count


def _merge_releases(matches: list[Match], verified: dict[str, tuple[str, ...]]) -> list[Match]:
    """One row per configuration and number: release groups whose models give the same number
    on these files are one row with every release (oldest first)."""
    merged: dict[tuple[str, str, float], Match] = {}
    for m in matches:
        key = (m.config.implementation, m.config.signature(), m.bleu)
        if key in merged:
            known = verified.get(m.config.implementation, ())
            rels = set(merged[key].releases) | set(m.releases)
            ordered = tuple(r for r in known if r in rels) + tuple(sorted(rels - set(known)))
            merged[key] = replace(merged[key], releases=ordered)
        else:
            merged[key] = m
    return list(merged.values())


def _dedupe(matches: list[Match]) -> list[Match]:
    """One row per (configuration, releases): built-in configurations of one implementation
    that search the same settings give the same rows."""
    seen: set[Any] = set()
    out = []
    for m in matches:
        key = (m.config.implementation, m.config.signature(), m.releases)
        if key not in seen:
            seen.add(key)
            out.append(m)
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


def _value(dc: Any, ev: Any, lib: Any, cfg: Any, on: frozenset[str], kinds: frozenset[str]) -> float | None:
    """``cfg``'s number (0–1) in ``lib``'s dialect with the entries ``on`` and the statistics
    changes ``kinds``; None where the model says the library raises."""
    state = dc._end_state(cfg)
    for name in dc._statistics():
        state[name] = name in kinds and state[name]
    method, eps = cfg.card_smoothing
    try:
        if state[dc.POOLED]:
            rows = ev.pooled_statistics(state)
        else:
            rows = [ev.statistics(state)]
        values = []
        for stats in rows:
            request = {"matches": list(stats["matches"]), "totals": list(stats["totals"]),
                       "candidate_length": stats["candidate_length"],
                       "reference_length": stats["reference_length"],
                       "smoothing": method, "effective_order": cfg.effective_order}
            if method == "method1" and cfg.smooth_value is not None:
                request["epsilon"] = eps
            if ":" in method:
                values.append(dc._own_smoothing_value(method, eps, request, lambda: ev.stats.last_segment(
                    state["tokenization"], state["case"], state["whitespace"], state["chop"])))
                continue
            out = lib.evaluate(SMOOTH_TOOL, "as_called", request, on, {})
            if "error" in out:
                return None
            values.append(float(out["bleu"]))
    except (dc.UnreproducedError, ArithmeticError, ValueError):
        return None
    return sum(values) / len(values) if state[dc.POOLED] else values[0]
