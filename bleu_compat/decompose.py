"""Configurations, the libraries run as their users run them, and the gap decomposed into causes.

SPEC.md §8: ``score --compare`` answers "the paper reports 23.4 with NLTK,
sacreBLEU gives me 28.3: which is right, and why?". A :class:`Configuration`
is a complete description of how a BLEU number is produced (implementation,
tokenizer, case, smoothing method and value, effective order, max order).
:func:`compare` runs the real library of each configuration on the files and,
for each pair, decomposes the difference into named *factors*:

* ``case`` (lowercased or not), ``tokenization`` (sacreBLEU's tokenizers, or
  ``split`` = ``str.split()``), ``smoothing`` (method and value),
  ``effective order``: the request changes;
* changes to the statistics an implementation makes, of the kinds
  :data:`STATISTICS_KINDS` defines, named as the implementation declares them
  (NLTK's ``NLTK-DENOMINATOR-FLOOR``: each segment's order-n total is at least 1);
* each other catalog entry an implementation declares a step
  (:class:`bleu_compat.libraries.plugin.DecompositionSpec`), by its id,
  switched on and off on its own (``NLTK-ZERO-MATCH-TINY``,
  ``SACREBLEU-SMOOTHING-STOPS-AT-ZERO-TOTAL``, ...; the ``-SMOOTHING`` ids when
  the configuration smooths), and the float order (``SACREBLEU-FLOAT-ORDER``,
  ``NLTK-FLOAT-ORDER``, or the card's formula): one factor, since a score is
  evaluated in one order (between two implementations it is the bundle of both
  ids, :func:`_factors`). States with two implementations' entries on are
  defined in :func:`_arithmetic`.

Which implementations there are, their built-in configurations, smoothing
names, statistics changes and entries come from the registry
(:mod:`bleu_compat.libraries.registry`); this module names none of them.

A factor that moves the score in no combination of the others is *inert*:
named, not stepped. A configuration that averages sentence BLEU scores
(``sacrebleu-sentence-avg``) is not a corpus BLEU: its gaps are "not
decomposable" (different aggregation), never a made-up chain.

Every state (a choice of each factor's value) is evaluated with the dialect
models (each implementation's ``model.py``) on a ``bleu-smoothing-compute``
request built from the corpus statistics counted by the project's fast
statistics path (:func:`bleu_compat.stream.corpus_stats_files`): sacreBLEU's
``corpus_score`` is ``compute_bleu`` on summed statistics, NLTK's
``corpus_bleu`` is its smoothing function on (floored) corpus statistics.
The two end states must equal the real libraries' numbers bit for bit; when
a model does not reproduce a library's number the pair is UNEXPECTED (no
decomposition is invented). The sequential steps telescope, so their
contributions add up exactly (in rational arithmetic) to the difference;
because the order of steps changes the shares, each factor's exact Shapley
value (average over all orders, rational arithmetic, at most 8 factors that
move the score) is given too.

Scales: every ``bleu`` here is on the card's 0–1 scale; ``points`` are the
0–100 scale (``BLEU``).
"""

from __future__ import annotations

import functools
import math
import os
import tempfile
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import combinations
from typing import Any, Callable, Sequence

__all__ = [
    "Configuration", "BUILTIN", "DEFAULT_COMPARE", "CONFIG_SYNTAX", "parse_config", "with_reference",
    "ConfigRun", "Cause", "Decomposition", "CompareResult", "compare", "run_library", "library_points",
    "segment_behind", "first_lines", "MAX_SHAPLEY", "scaled",
]

SMOOTH_TOOL = "bleu-smoothing-compute"
#: how many input lines a cause lists before giving only the count
FIRST_LINES = 10
#: the implementation name of bleu-compat's own formula (not a library)
CARD = "card"
#: the card's smoothing methods (SPEC.md section 4)
CARD_SMOOTHINGS = ("none", "method1", "method2", "method3")


def _libraries() -> tuple[Any, ...]:
    from bleu_compat.libraries.registry import libraries

    return libraries()


def _library(name: str) -> Any:
    """The registered implementation ``name`` (None for the card)."""
    return next((lib for lib in _libraries() if lib.name == name), None)


@dataclass(frozen=True)
class Configuration:
    """How one BLEU number is produced.

    Attributes:
        name: what it is called in the output (a built-in name or the spec given).
        implementation: a registered implementation's name (its adapter's
            ``score_lines`` runs it, e.g. ``sacrebleu.metrics.BLEU.corpus_score``) or
            ``"card"`` (bleu-compat's bleu-corpus-compute / bleu-smoothing-compute formula).
        tokenize: ``"split"`` (``str.split()``), or a sacreBLEU tokenizer name
            (``none`` splits on whitespace too).
        lowercase: lowercase every line before tokenizing.
        smoothing: the implementation's own method name (its declaration's
            ``smoothing`` keys; the card's ``none|method1|method2|method3``).
        smooth_value: the value of a method that takes one (an epsilon or a k), or
            None for the library's default.
        effective_order: use only the orders with a non-zero total (where the
            implementation has it).
        max_order: N.
        references: how several references are used: always
            ``"max-clipped, closest length"`` (all three implementations).
        aggregation: ``"corpus"`` (one BLEU from the summed statistics), or
            ``"sentence-mean"``: the mean of the implementation's sentence scores over
            the segments (``sacrebleu-sentence-avg``), which many papers report and
            which is not a corpus BLEU, or ``"pooled-mean"``: the mean of each
            hypothesis' score against every reference of the corpus.
        call: which of the library's functions its adapter calls (``""``: the usual one).
        options: the keys ``BASE:key=value`` may change (None: every key).
        whitespace, chop: how a script reads text (:mod:`bleu_compat.text_rules`:
            ``"python"``/``"perl"``/``"ascii"``; ``"off"``/``"byte"``/``"char"``);
            ``lowercase`` may also be ``"ascii"`` or ``"perl"`` there.
        settings: an implementation's own ``key=value`` settings (its declaration's
            ``config_keys``, e.g. ``path``), as given.
        release: the implementation's release this configuration runs (a script's,
            identified by its file), or "" for the installed one.
    """

    name: str
    implementation: str
    tokenize: str
    lowercase: bool = False
    smoothing: str = "none"
    smooth_value: float | None = None
    effective_order: bool = False
    max_order: int = 4
    references: str = "max-clipped counts, closest reference length"
    aggregation: str = "corpus"
    call: str = ""
    options: tuple[str, ...] | None = None
    whitespace: str = "python"
    chop: str = "off"
    settings: tuple[tuple[str, str], ...] = ()
    release: str = ""

    # ------------------------------------------------------------ canonical factors
    @property
    def stats_tokenize(self) -> str:
        """The fast path's tokenizer name (``split`` and ``none`` are both ``str.split``)."""
        return "none" if self.tokenize == "split" else self.tokenize

    @property
    def card_smoothing(self) -> tuple[str, Any]:
        """(card method, epsilon): the implementation's method as the card's (its declaration's
        ``smoothing`` map, e.g. sacreBLEU floor = method1, add-k (k=1) = method2, exp = method3).

        A method (or value) the cards do not have, which the implementation declares in
        ``own_smoothing`` (NLTK's method4–method7, sacreBLEU's add-k with k ≠ 1), is
        ``("<implementation>:<method>", value)`` (value None: the library's default): its
        dialect model computes it (:func:`_own_smoothing_value`)."""
        method = self.smoothing
        lib = _library(self.implementation)
        if lib is not None:
            card = lib.smoothing.get(method)
            k_not_one = (card == "method2" and method != card
                         and self.smooth_value not in (None, 1, 1.0))
            if method in lib.own_smoothing and (card is None or k_not_one):
                return f"{lib.name}:{method}", self.smooth_value
            if k_not_one:
                raise ValueError(
                    f"{self.name}: {method} with k={self.smooth_value} has no card equivalent "
                    "(the card's method2 is k = 1)"
                )
            method = card
        eps = self.smooth_value if (method == "method1" and self.smooth_value is not None) else 0.1
        return method, float(eps)

    def signature(self) -> str:
        """sacreBLEU-style signature: ``case:mixed|eff:no|tok:13a|smooth:exp|impl:sacrebleu``."""
        smooth = self.smoothing
        if self.smooth_value is not None:
            smooth += f"[{self.smooth_value}]"
        agg = "" if self.aggregation == "corpus" else f"|agg:{self.aggregation}"
        if self.call:
            agg += f"|call:{self.call}"
        if self.whitespace != "python":
            agg += f"|ws:{self.whitespace}"
        if self.chop != "off":
            agg += f"|chop:{self.chop}"
        if self.release:
            agg += f"|release:{self.release}"
        case = "mixed" if not self.lowercase else "lc" if self.lowercase is True else f"lc-{self.lowercase}"
        return (f"case:{case}|eff:{'yes' if self.effective_order else 'no'}"
                f"|tok:{self.tokenize}|smooth:{smooth}|order:{self.max_order}|impl:{self.implementation}"
                + agg)


#: the card on ``str.split()`` tokens (named ``multi-bleu`` before the Perl script itself was
#: a configuration: that name is refused with a pointer to both)
CARD_SPLIT = "card-split"
#: configuration names that were renamed -> the message that says so (the registry keeps them:
#: an old name may be an implementation's name today)
from bleu_compat.libraries.registry import RENAMED_CONFIGURATIONS as RENAMED  # noqa: E402


def _builtin() -> dict[str, Configuration]:
    out: dict[str, Configuration] = {}
    for lib in _libraries():
        for b in lib.configurations:
            out[b.name] = Configuration(
                b.name, lib.name, b.tokenize, lowercase=b.lowercase, smoothing=b.smoothing,
                smooth_value=b.smooth_value, effective_order=b.effective_order,
                max_order=b.max_order, aggregation=b.aggregation, call=b.call, options=b.options)
    # bleu-compat's own: the card on str.split() tokens, and the card
    out[CARD_SPLIT] = Configuration(CARD_SPLIT, CARD, "split")
    out["card"] = Configuration("card", CARD, "13a")
    return out


#: every built-in configuration: each registered implementation's (registry order), then ours
BUILTIN: dict[str, Configuration] = _builtin()
#: ``score --compare`` without names: the first configuration of each implementation
#: declared ``in_default_compare``, then the card
DEFAULT_COMPARE: tuple[str, ...] = tuple(
    lib.configurations[0].name for lib in _libraries()
    if lib.in_default_compare and lib.configurations) + ("card",)
#: implementation -> its smoothing method names (``smooth=``)
_SMOOTHINGS: dict[str, tuple[str, ...]] = {
    **{lib.name: tuple(dict.fromkeys([*lib.smoothing, *lib.own_smoothing])) for lib in _libraries()},
    CARD: CARD_SMOOTHINGS}
#: str.split() and the tokenizers the fast statistics path supports (the segmenters: MeCab's
#: and SentencePiece's, through bleu_compat.tokenizers.segmenters)
from bleu_compat.tokenizers.segmenters import SEGMENTERS as _SEGMENTERS  # noqa: E402

_TOKENIZERS = ("split", "none", "13a", "intl", "zh", "char", *_SEGMENTERS)


def _is_moses(tok: str) -> bool:
    """A Moses tokenization (tokenizer.perl on the files first: :mod:`bleu_compat.tokenizers.moses`)."""
    from bleu_compat.tokenizers import is_moses

    return is_moses(tok)


def _moses_name(spec: str, value: str) -> None:
    """Check a ``tok=moses...`` value (ValueError with the spelling otherwise)."""
    from bleu_compat.errors import ConfigError
    from bleu_compat.tokenizers.moses import parse_name

    try:
        parse_name(value)
    except ConfigError as exc:
        raise ValueError(f"{spec}: {exc}") from None


def with_reference(specs: Sequence[str]) -> list[str]:
    """``specs`` with the first default configuration (``sacrebleu``) put first when a
    configuration of a library outside the defaults is compared and none of the defaults'
    libraries is: every gap is then also decomposed against the number users come from.

    Raises:
        ValueError: a bad spec.
    """
    implementations = {parse_config(spec).implementation for spec in specs}
    default = {lib.name for lib in _libraries() if lib.in_default_compare}
    others = implementations - default - {CARD}
    if others and not implementations & default and DEFAULT_COMPARE[0] != CARD:
        return [DEFAULT_COMPARE[0], *specs]
    return list(specs)


def _config_syntax() -> str:
    """:data:`CONFIG_SYNTAX`, from the registry (the built-in names, each implementation's
    smoothing names and what ``value=`` is for it)."""
    from bleu_compat.libraries.registry import SYNTAX_EXAMPLES, join_names

    groups: dict[tuple[str, ...], list[str]] = {}
    for name, methods in _SMOOTHINGS.items():
        lib = _library(name)
        groups.setdefault(methods, []).append(lib.display_name if lib is not None else name)
    smooth = "; ".join(f"{join_names(who)}: {'|'.join(methods)}" for methods, who in groups.items())
    values = ", ".join(lib.value_doc for lib in _libraries() if lib.value_doc)
    own = "".join(f", {key}=... ({lib.display_name}: {doc})" for lib in _libraries()
                  for key, doc in lib.config_keys.items())
    no_eff = [lib.display_name for lib in _libraries() if lib.no_effective_order]
    examples = " or ".join(f"'{e}'" for e in SYNTAX_EXAMPLES
                           if e.partition(":")[0] in BUILTIN)
    return (
        f"CONFIG is a built-in name ({', '.join(BUILTIN)}) or BASE:key=value,... with keys "
        f"tok={'|'.join(_TOKENIZERS[1:] + _TOKENIZERS[:1])} (split = str.split()"
        + "".join(f"; {lib.display_name} also {'|'.join(lib.tokenizers)}"
                  for lib in _libraries() if lib.tokenizers)
        + "), lc=yes|no "
        f"(lowercase), smooth=<method> ({smooth}), value=<float>"
        + (f" ({values})" if values else "")
        + ", eff=yes|no (effective order"
        + (f"; not {join_names(no_eff, 'or')}" if no_eff else "")
        + "), order=N (max n-gram order)" + own
        + (f", e.g. {examples}" if examples else "")
    )


#: the syntax of a configuration, as error messages and the help give it
CONFIG_SYNTAX: str = _config_syntax()


def _bool(key: str, value: str) -> bool:
    v = value.lower()
    if v in ("yes", "true", "1", "on"):
        return True
    if v in ("no", "false", "0", "off"):
        return False
    raise ValueError(f"{key}={value}: give yes or no")


#: the keys of BASE:key=value
_KEYS = ("tok", "lc", "smooth", "value", "eff", "order")
#: the largest max order a configuration takes (the cards' range; score's --max-order is the same)
MAX_ORDER_LIMIT = 8


def _check_smooth_value(spec: str, cfg: Configuration) -> None:
    """``value=`` is a finite number the configuration's smoothing uses, in that method's range.

    floor / method1: the epsilon, in [0, 1] (the bleu-smoothing-compute card's range, as
    ``--smooth-value``); add-k: k, which must be 1 (checked by :attr:`Configuration.card_smoothing`);
    any other method takes no value.
    """
    value = cfg.smooth_value
    lib = _library(cfg.implementation)
    uses = lib.value_methods if lib is not None else ("method1",)
    if cfg.smoothing not in uses:
        raise ValueError(f"{spec}: value={value:g} is used only with smooth="
                         f"{' or '.join(uses)} ({cfg.implementation}), "
                         f"not smooth={cfg.smoothing}")
    if not math.isfinite(value):
        raise ValueError(f"{spec}: value={value}: a finite number")
    card_method = lib.smoothing.get(cfg.smoothing) if lib is not None else cfg.smoothing
    if card_method == "method1" and not 0 <= value <= 1:
        raise ValueError(f"{spec}: value={value:g}: the epsilon must be in [0, 1] "
                         "(the bleu-smoothing-compute card's range, as --smooth-value)")
    if card_method == "method2" and value < 0:
        raise ValueError(f"{spec}: value={value:g}: k is a count added to the matches and "
                         "totals: 0 or more")
    if card_method is None and not value > 0:  # NLTK's k (a divisor) and alpha
        raise ValueError(f"{spec}: value={value:g}: {cfg.smoothing}'s value must be above 0")


def parse_config(spec: str, *, card_tokenize: str = "13a",
                 card_lowercase: bool = False) -> Configuration:
    """A configuration from its spec (:data:`CONFIG_SYNTAX`).

    Args:
        spec: ``NAME`` or ``BASE:key=value,...``.
        card_tokenize: the tokenizer of the built-in ``card`` (the command's own).

    Raises:
        ValueError: unknown name, key or value (the message says which).
    """
    base, colon, rest = spec.partition(":")
    if colon and not rest.strip(" ,"):  # "nltk:" or "nltk:,": a cut-off spec, not a choice
        raise ValueError(f"{spec}: nothing after ':' (write {base or 'NAME'} alone for its "
                         f"defaults, or {base or 'NAME'}:key=value,...)")
    if base in RENAMED:
        raise ValueError(RENAMED[base])
    if base not in BUILTIN:
        raise ValueError(f"unknown configuration {base!r}: {CONFIG_SYNTAX}")
    cfg = BUILTIN[base]
    if base == "card":
        cfg = replace(cfg, tokenize=card_tokenize, lowercase=card_lowercase)
    changes: dict[str, Any] = {}
    own_keys = getattr(_library(cfg.implementation), "config_keys", {})
    settings: list[tuple[str, str]] = []
    items = [p.strip() for p in rest.split(",")]
    if "path" in own_keys:  # a path may hold commas: path= takes the rest of the spec
        first = next((k for k, p in enumerate(items) if p.startswith("path=")), None)
        if first is not None:
            items = items[:first] + [",".join(rest.split(",")[first:]).strip()]
    seen: set[str] = set()
    if "" in items[:-1] or (items and not items[-1] and len(items) > 1):
        raise ValueError(f"{spec}: an empty item between commas")
    for item in filter(None, items):
        key, eq, value = item.partition("=")
        if key == "lc" and not eq:
            value, eq = "yes", "="
        if not eq:
            raise ValueError(f"{spec}: {item!r} is not key=value")
        if key in seen:  # which one counts would be a guess
            raise ValueError(f"{spec}: {key}= is given twice")
        seen.add(key)
        if key in own_keys:
            settings.append((key, value))
            continue
        if cfg.options is not None and key in _KEYS and key not in cfg.options:
            raise ValueError(f"{spec}: {key}= cannot be set on {base} (its call takes "
                             f"{', '.join(cfg.options) or 'no option'})")
        if key == "tok":
            lib = _library(cfg.implementation)
            allowed = _TOKENIZERS + (lib.tokenizers if lib is not None else ())
            if _is_moses(value):
                _moses_name(spec, value)
            elif value not in allowed:
                raise ValueError(f"{spec}: tok={value}: one of {', '.join(allowed)}, or a "
                                 "Moses tokenization (moses, moses-a, moses-LANG, moses-a-LANG)")
            changes["tokenize"] = value
        elif key == "lc":
            changes["lowercase"] = _bool(key, value)
        elif key == "smooth":
            if value not in _SMOOTHINGS[cfg.implementation]:
                glued = (" (items are separated by ',': smooth=METHOD,value=V)"
                         if any(c in value for c in ":=") else "")
                raise ValueError(f"{spec}: smooth={value}: {cfg.implementation} has "
                                 f"{', '.join(_SMOOTHINGS[cfg.implementation])}{glued}")
            changes["smoothing"] = value
        elif key == "value":
            try:
                changes["smooth_value"] = float(value)
            except ValueError:
                raise ValueError(f"{spec}: value={value} is not a number") from None
        elif key == "eff":
            changes["effective_order"] = _bool(key, value)
        elif key == "order":
            if not (value.isascii() and value.isdigit() and len(value) <= 2) \
                    or not 1 <= int(value) <= MAX_ORDER_LIMIT:
                raise ValueError(f"{spec}: order={value}: a whole number from 1 to "
                                 f"{MAX_ORDER_LIMIT} (the cards' range, as --max-order)")
            changes["max_order"] = int(value)
        else:
            raise ValueError(f"{spec}: unknown key {key!r}: {CONFIG_SYNTAX}")
    cfg = replace(cfg, name=spec if rest else cfg.name, settings=tuple(settings), **changes)
    if cfg.smooth_value is not None:
        _check_smooth_value(spec, cfg)
    lib = _library(cfg.implementation)
    configure = getattr(lib.adapter_module(), "configure", None) if lib is not None else None
    if configure is not None:  # the implementation checks its own keys and completes the config
        if _is_moses(cfg.tokenize):  # its library runs on tokenizer.perl's output as tok=none
            cfg = replace(configure(replace(cfg, tokenize="none")), tokenize=cfg.tokenize)
        else:
            cfg = configure(cfg)
    if lib is not None and lib.no_effective_order and cfg.effective_order:
        raise ValueError(f"{spec}: {lib.no_effective_order}")
    cfg.card_smoothing  # checks add-k's k
    return cfg


# ---------------------------------------------------------------- the real libraries


def config_tokens(line: str, tok: str, lowercase: bool) -> list[str]:
    """One line's tokens as a configuration makes them: lowercased first (``lc=yes``), then
    ``str.split()`` (``tok=split``) or :func:`bleu_compat.tokenizers.get_tokenizer`'s; a Moses
    tokenization is tokenizer.perl's output, lowercased after (the files are tokenized first)."""
    from bleu_compat.tokenizers import get_tokenizer

    if _is_moses(tok):  # tokenizer.perl first, a scorer's -lc on its output
        return get_tokenizer(tok, lowercase=bool(lowercase))(line)
    if lowercase:
        line = line.lower()
    if tok == "split":
        return line.split()
    return list(get_tokenizer(tok)(line))


_tokens = config_tokens


def library_points(cfg: Configuration, hyp_lines: Sequence[str],
                   ref_lines: Sequence[Sequence[str]],
                   paths: tuple[str, Sequence[str]] | None = None) -> float:
    """The implementation's own number on its own scale (its declaration's ``native.scale``:
    sacreBLEU's ``score`` on 0–100, NLTK's 0–1 value); the card's 0–1 value.

    ``paths`` (the hypothesis file and the reference files): an adapter with
    ``score_files(config, hypothesis, references)`` runs on the files themselves (a
    script reads their bytes, final newline included).

    Raises:
        OracleUnavailableError: the library is not installed.
    """
    lib = _library(cfg.implementation)
    if lib is not None and _is_moses(cfg.tokenize):
        return _points_on_moses_tokens(cfg, hyp_lines, ref_lines, paths)
    if lib is not None and paths is not None:
        adapter = lib.adapter_module()
        if hasattr(adapter, "score_files"):
            return float(adapter.score_files(cfg, paths[0], list(paths[1])))
    if lib is not None:
        return float(lib.adapter_module().score_lines(cfg, hyp_lines, ref_lines))
    return run_library(cfg, hyp_lines, ref_lines)


def _points_on_moses_tokens(cfg: Configuration, hyp_lines: Sequence[str],
                            ref_lines: Sequence[Sequence[str]],
                            paths: tuple[str, Sequence[str]] | None) -> float:
    """A library's number with a Moses tokenization: every file through our tokenizer.perl
    (:func:`bleu_compat.tokenizers.moses.tokenize_text`, its exact output), then the library
    as its users run it on tokenized text (``tok=none``: sacreBLEU's ``none``, NLTK's
    ``str.split()``, multi-bleu.perl itself), with the configuration's ``lc`` on those tokens."""
    from bleu_compat.corpus_io import read_lines
    from bleu_compat.tokenizers.moses import tokenize_text, tokenizer_for

    tok = tokenizer_for(cfg.tokenize)
    plain = replace(cfg, tokenize="none")
    if paths is None:
        def text(lines: Sequence[str]) -> str:
            return "".join(line + "\n" for line in lines)
        sources = [text(hyp_lines), *(text(r) for r in ref_lines)]
    else:
        sources = ["".join(line + "\n" for line in read_lines(p).lines)
                   for p in (paths[0], *paths[1])]
    with tempfile.TemporaryDirectory(prefix="bleu-compat-moses-") as d:
        files = []
        for k, source in enumerate(sources):
            files.append(os.path.join(d, f"{k}.tok"))
            with open(files[-1], "w", encoding="utf-8", newline="\n") as handle:
                handle.write(tokenize_text(source, tok))
        hyp = read_lines(files[0]).lines
        refs = [read_lines(f).lines for f in files[1:]]
        # a library's advice that its input looks tokenized (sacreBLEU logs "lines that end
        # in a tokenized period") is its --force here: the text is tokenized on purpose
        import logging

        previous = logging.root.manager.disable
        logging.disable(logging.WARNING)
        try:
            return library_points(plain, hyp, refs, (files[0], files[1:]))
        finally:
            logging.disable(previous)


def scaled(lib: Any, native: float) -> tuple[float, float]:
    """``(bleu, points)``: an implementation's own number ``native`` (on its declared scale,
    ``lib.native.scale``; the card's on 0-1 when ``lib`` is None) on the 0-1 and the 0-100
    scales, as ``score --compare`` prints them: a 0-100 number is itself in points and
    ``native / 100`` as bleu; a 0-1 number is itself as bleu and ``100 * native`` in points.
    ``identify`` reads its candidates' numbers so too."""
    if lib is not None and lib.native.scale == "0-100":
        return native / 100, native
    return native, 100 * native


def run_library(cfg: Configuration, hyp_lines: Sequence[str],
                ref_lines: Sequence[Sequence[str]]) -> float:
    """The real library's BLEU for ``cfg``, on the card's 0–1 scale.

    A registered implementation: its adapter's ``score_lines`` (the library called
    as its users call it, e.g. sacreBLEU's ``BLEU(...).corpus_score``), divided by
    100 when its own scale is 0–100 (the adapters' convention, SPEC.md section 7);
    the card: the core (:func:`bleu_compat.bleu.bleu_from_stats`, or ``smoothed_bleu``).

    Args:
        hyp_lines: one line per segment.
        ref_lines: ``ref_lines[k]`` is reference file k, one line per segment.

    Raises:
        OracleUnavailableError: the library is not installed.
    """
    lib = _library(cfg.implementation)
    if lib is not None:
        points = lib.adapter_module().score_lines(cfg, hyp_lines, ref_lines)
        return points / 100 if lib.native.scale == "0-100" else float(points)
    from bleu_compat.bleu import bleu_from_stats
    from bleu_compat.stats import corpus_stats

    hyps = [_tokens(h, cfg.tokenize, cfg.lowercase) for h in hyp_lines]
    refs = [[_tokens(r, cfg.tokenize, cfg.lowercase) for r in seg] for seg in zip(*ref_lines)]
    stats = corpus_stats(hyps, refs, max_order=cfg.max_order)
    method, eps = cfg.card_smoothing
    if method == "none" and not cfg.effective_order:
        return bleu_from_stats(stats).bleu
    from bleu_compat.smoothing import Smoothing  # noqa: F401  (card smoothing via tools)
    from bleu_compat.tools import execute

    request = {"matches": list(stats.matches), "totals": list(stats.totals),
               "candidate_length": stats.hyp_len, "reference_length": stats.ref_len,
               "smoothing": method, "effective_order": cfg.effective_order}
    if method == "method1":  # the card takes an epsilon with method1 only
        request["epsilon"] = eps
    return float(execute(SMOOTH_TOOL, request)["bleu"])


# ---------------------------------------------------------------- statistics


#: corpus and per-segment statistics per (tokenizer, case, whitespace, chop), counted once
#: each, in bulk, by ``score``'s block counter (:mod:`bleu_compat.counting`; a Moses
#: tokenization is tokenizer.perl's output, and the case and text rules act on it)
from bleu_compat.counting import Statistics as _Statistics  # noqa: E402


# ---------------------------------------------------------------- the models

#: the state key of the floating-point order: ``"card"`` or an implementation's name
FLOAT_KEY = "float order"


@dataclass(frozen=True)
class Counted:
    """What a statistics change sees: the segments of one tokenization.

    Attributes:
        rows: per segment ``[m_1..m_N, l_1..l_N, hyp_len, ref_len]`` (the card's statistics).
        max_order: N.
        tokenization, case: the state's (the fast path's tokenizer name; lowercased or not).
        ref_lengths: ``() -> per segment, each reference's length`` (counted on first use).
    """

    rows: list[list[int]]
    max_order: int
    tokenization: str
    case: bool
    ref_lengths: Callable[[], list[list[int]]]


#: corpus statistics as the states pass them on: ``matches``, ``totals``,
#: ``candidate_length``, ``reference_length`` (the smoothing request's fields)
Stats = dict[str, Any]


@dataclass(frozen=True)
class StatisticsKind:
    """A kind of change an implementation makes to the statistics (named by the implementation).

    Attributes:
        kind: the kind's id, as declarations name it.
        apply: ``(stats, counted) -> stats``: the corpus statistics with the change
            (given the statistics before it, which earlier changes may have made).
        behind: ``(row, max_order, ref_lengths) -> bool``: whether one segment is behind
            the change (``ref_lengths``: that segment's reference lengths, or None when
            the kind does not need them).
        lines: ``(max_order, tokens) -> str``: which segments those are, in words.
        needs_lengths: whether ``behind`` reads the reference lengths.
    """

    kind: str
    apply: Callable[[Stats, Counted], Stats]
    behind: Callable[[Sequence[int], int, Any], bool]
    lines: Callable[[int, str], str]
    needs_lengths: bool = False


def _hyp_lengths(counted: Counted) -> Sequence[int]:
    """Each segment's hypothesis length: its row's ``hyp_len`` (rows that carry them as
    ``hyp_lengths``, as identify's views of a lower max order do, need not be cut)."""
    known = getattr(counted.rows, "hyp_lengths", None)
    if known is not None:
        return known  # type: ignore[no-any-return]
    n = counted.max_order
    return [row[2 * n] for row in counted.rows]


def _floor_totals(stats: Stats, counted: Counted) -> Stats:
    # each segment's order-k total is at least 1: a hypothesis shorter than k tokens adds 1
    n = counted.max_order
    short = [c for c in _hyp_lengths(counted) if c < n]
    if not short:  # no hypothesis shorter than an order: no total changes
        return stats
    extra = [sum(1 for c in short if c < order) for order in range(1, n + 1)]
    return dict(stats, totals=[t + x for t, x in zip(stats["totals"], extra)])


def _first_closest(c: int, lengths: list[int]) -> int:
    diffs = [abs(c - x) for x in lengths]
    return lengths[diffs.index(min(diffs))]


def _first_reference_ties(stats: Stats, counted: Counted) -> Stats:
    # the first listed of the references closest in length (the card: the shorter)
    r = sum(_first_closest(c, lengths)
            for c, lengths in zip(_hyp_lengths(counted), counted.ref_lengths()))
    return dict(stats, reference_length=r)


def _shortest_reference(stats: Stats, counted: Counted) -> Stats:
    # the shortest reference of each segment, whatever the hypothesis length
    return dict(stats, reference_length=sum(min(lengths) for lengths in counted.ref_lengths()))


#: float32 holds every whole number up to 2^24 exactly
_FLOAT32_EXACT = 1 << 24


def _float32_counts(stats: Stats, counted: Counted) -> Stats:
    # float32 sums are the exact ones while every partial sum stays below 2^24: the totals
    # and lengths bound every partial sum of the counts added to them
    largest = max([*stats["totals"], stats["candidate_length"], stats["reference_length"]])
    if largest < _FLOAT32_EXACT:
        return stats
    raise UnreproducedError(
        f"a count of {largest} exceeds 2^24: its float32 sum depends on the order of every "
        "addition, which the decomposition does not model (the catalog's float32 entries do, "
        "on card requests)")


def _closest(c: int, lengths: list[int]) -> int:
    return min(lengths, key=lambda x: (abs(x - c), x))


#: the kinds of statistics change implementations declare (DecompositionSpec.statistics)
STATISTICS_KINDS: dict[str, StatisticsKind] = {
    "denominator-floor": StatisticsKind(
        "denominator-floor", _floor_totals,
        lambda row, n, lengths: row[2 * n] < n,
        lambda n, tok: f"hypotheses shorter than {n} tokens on {tok} tokens"),
    "first-reference-ties": StatisticsKind(
        "first-reference-ties", _first_reference_ties,
        lambda row, n, lengths: _first_closest(row[2 * n], lengths) != _closest(row[2 * n], lengths),
        lambda n, tok: f"segments whose first closest reference is the longer, on {tok} tokens",
        needs_lengths=True),
    "shortest-reference": StatisticsKind(
        "shortest-reference", _shortest_reference,
        lambda row, n, lengths: min(lengths) != _closest(row[2 * n], lengths),
        lambda n, tok: f"segments whose shortest reference is not the closest, on {tok} tokens",
        needs_lengths=True),
    "float32-counts": StatisticsKind(
        "float32-counts", _float32_counts, lambda row, n, lengths: False,
        lambda n, tok: ""),
}


@functools.lru_cache(maxsize=None)
def _specs() -> tuple[tuple[Any, Any], ...]:
    """(library, its DecompositionSpec) for every registered implementation, in order."""
    return tuple((lib, lib.decomposition) for lib in _libraries())


def _floats() -> dict[str, str]:
    """implementation -> the id of its float-order entry (those that have one)."""
    return {lib.name: spec.float_entry for lib, spec in _specs() if spec.float_entry}


def _switches() -> dict[str, tuple[str, ...]]:
    """implementation -> its entries that are factors of their own (catalog order); card: none."""
    return {**{lib.name: spec.switches for lib, spec in _specs()}, CARD: ()}


def _statistics() -> dict[str, str]:
    """statistics factor name -> its kind, every implementation's, in registry order."""
    return {name: kind for _, spec in _specs() for name, kind in spec.statistics}


def _card_value(request: dict[str, Any]) -> float:
    """The bleu-smoothing-compute card's score on ``request`` (the dialect with nothing on)."""
    from bleu_compat.harness.dialect import card_bp, card_smoothed_bleu, card_smoothing

    sm, st, used = card_smoothing(request)
    if not request.get("effective_order", False):
        used = len(request["matches"])
    bp = card_bp(request["candidate_length"], request["reference_length"])
    return float(card_smoothed_bleu(request, sm, st, used, bp))


def _arithmetic(request: dict[str, Any], float_order: str, on: frozenset[str]) -> float:
    """A smoothing request's ``bleu`` with the float order and catalog entries ``on``.

    The entries of one implementation (or none: the card) are that
    implementation's dialect model, exactly (its ``model.py``); those are every
    state an implementation's end or a sequential step reaches. A state with
    two implementations' entries on is no implementation's, but Shapley values
    average over such states too, so it is defined so: where an
    implementation's *dominant* entries (NLTK's zero-precision entries,
    ``NLTK-ZERO-MATCH-TINY``, ``NLTK-METHOD1-ZERO-EPSILON``: a score for a zero
    precision, where the card's and sacreBLEU's formulas give 0 or almost 0)
    change its score, that score stands, in its arithmetic as its model defines
    it; elsewhere the implementation of the float order decides with its entries
    (the card's order: the first implementation in registry order with entries
    on, in the card's arithmetic).

    Raises:
        UnreproducedError: a model raises where the library scores.
    """
    specs = _specs()
    floats = _floats()
    own: dict[str, frozenset[str]] = {}
    for lib, spec in specs:
        ids = frozenset(e for e in on if e in spec.switches)
        if float_order == lib.name and lib.name in floats:
            ids |= {floats[lib.name]}
        own[lib.name] = ids
    active = [lib for lib, _ in specs if own[lib.name]]

    def run(lib: Any, ids: frozenset[str]) -> float:
        out = lib.evaluate(SMOOTH_TOOL, "as_called", request, ids, {})
        if "error" in out:
            raise UnreproducedError(f"the {lib.model} model raises {out['error']}")
        value = float(out["bleu"])
        if not math.isfinite(value):
            raise UnreproducedError(f"the {lib.model} model gives {value} on {request}")
        return value

    if not active:
        return _card_value(request)
    if len(active) == 1:
        return run(active[0], own[active[0].name])
    for lib in active:
        dominant = own[lib.name] & frozenset(lib.decomposition.dominant)
        if dominant:
            with_dominant = run(lib, own[lib.name])
            if with_dominant != run(lib, own[lib.name] - dominant):
                return with_dominant
    decider = next((lib for lib in active if lib.name == float_order), active[0])
    return run(decider, own[decider.name])


def _own_smoothing_value(method: str, value: Any, request: dict[str, Any],
                         last_segment: Callable[[], Any]) -> float:
    """The score (0–1) of a smoothing outside the cards (``"<implementation>:<method>"``),
    as that implementation computes it, end to end, from the state's statistics: its dialect
    model's ``own_smoothing`` (the state's float order and catalog entries do not apply: the
    implementation's own arithmetic is part of the method).

    Raises:
        UnreproducedError: where the library raises (e.g. NLTK's method6 without a trigram match).
    """
    impl, _, own = method.partition(":")
    lib = _library(impl)
    try:
        out = float(lib.model_module().own_smoothing(own, value, request, last_segment))
    except (ArithmeticError, AssertionError, IndexError, ValueError) as exc:
        raise UnreproducedError(f"{lib.display_name}'s {own} raises {type(exc).__name__}: "
                                f"{exc}") from None
    if not math.isfinite(out):
        raise UnreproducedError(f"{lib.display_name}'s {own} gives {out}")
    return out


@dataclass(frozen=True)
class _Factor:
    name: str
    key: str
    a: Any
    b: Any


class UnreproducedError(Exception):
    """A dialect model does not give a library's number (the pair is UNEXPECTED)."""


class _Evaluator:
    def __init__(self, stats: _Statistics, max_order: int) -> None:
        self.stats, self.max_order = stats, max_order
        self._memo: dict[tuple[Any, ...], float] = {}
        self._changed: dict[tuple[Any, ...], Stats] = {}

    def statistics(self, state: dict[str, Any]) -> Stats:
        """The corpus statistics of ``state``: its tokenization's, with its statistics changes
        applied in :func:`_order`'s order (computed once per combination)."""
        tok, case = state["tokenization"], state["case"]
        kinds = tuple(kind for name, kind in _statistics().items() if state[name])
        key = (tok, case, state["whitespace"], state["chop"], kinds)
        if key not in self._changed:
            total, rows = self.stats.get(tok, case, state["whitespace"], state["chop"])
            stats: Stats = {"matches": list(total.matches), "totals": list(total.totals),
                            "candidate_length": total.hyp_len, "reference_length": total.ref_len}
            counted = Counted(rows, self.max_order, tok, case,
                              functools.partial(self.stats.ref_lengths, tok, case,
                                                state["whitespace"], state["chop"]))
            for kind in kinds:
                stats = STATISTICS_KINDS[kind].apply(stats, counted)
            self._changed[key] = stats
        return self._changed[key]

    def pooled_statistics(self, state: dict[str, Any]) -> list[Stats]:
        """Per hypothesis, its statistics against the pooled references, with the state's
        statistics changes applied to each (a hypothesis is a corpus of one)."""
        tok, case = state["tokenization"], state["case"]
        kinds = tuple(kind for name, kind in _statistics().items() if state[name])
        key = ("pooled", tok, case, kinds)
        if key not in self._changed:
            rows, lengths = self.stats.pooled(tok, case)
            n = self.max_order
            out = []
            for row in rows:
                stats: Stats = {"matches": row[:n], "totals": row[n:2 * n],
                                "candidate_length": row[2 * n], "reference_length": row[2 * n + 1]}
                counted = Counted([row], n, tok, case, lambda lengths=lengths: [lengths])
                for kind in kinds:
                    stats = STATISTICS_KINDS[kind].apply(stats, counted)
                out.append(stats)
            self._changed[key] = out  # type: ignore[assignment]
        return self._changed[key]  # type: ignore[return-value]

    def score(self, state: dict[str, Any], stats: Stats) -> float:
        """The score of corpus statistics ``stats`` in ``state``'s arithmetic (its smoothing,
        effective order, float order and catalog entries)."""
        method, eps = state["smoothing"]
        on = frozenset(e for ids in _switches().values() for e in ids if state[e])
        request = {"matches": list(stats["matches"]), "totals": list(stats["totals"]),
                   "candidate_length": stats["candidate_length"],
                   "reference_length": stats["reference_length"],
                   "smoothing": method, "epsilon": eps,
                   "effective_order": state["effective order"]}
        if ":" in method:  # a smoothing outside the cards: its implementation computes it
            return _own_smoothing_value(method, eps, request, functools.partial(
                self.stats.last_segment, state["tokenization"], state["case"],
                state["whitespace"], state["chop"]))
        return _arithmetic(request, state[FLOAT_KEY], on)

    def segment(self, state: dict[str, Any], row: Sequence[int], lengths: Any) -> Stats:
        """One segment's statistics in ``state``: its row with the state's statistics changes
        (each kind is a sum over segments, so a corpus's statistics are the sum of these)."""
        n = self.max_order
        stats: Stats = {"matches": list(row[:n]), "totals": list(row[n:2 * n]),
                        "candidate_length": row[2 * n], "reference_length": row[2 * n + 1]}
        kinds = tuple(kind for name, kind in _statistics().items() if state[name])
        counted = Counted([list(row)], n, state["tokenization"], state["case"],
                          lambda: [lengths])
        for kind in kinds:
            stats = STATISTICS_KINDS[kind].apply(stats, counted)
        return stats

    def value(self, state: dict[str, Any]) -> float:
        key = tuple(sorted(state.items(), key=lambda kv: kv[0]))
        if key in self._memo:
            return self._memo[key]

        def score(stats: Stats) -> float:
            return self.score(state, stats)

        if state[POOLED]:  # the mean of each hypothesis' score against the pooled references
            values = [score(stats) for stats in self.pooled_statistics(state)]
            self._memo[key] = sum(values) / len(values)
        else:
            self._memo[key] = score(self.statistics(state))
        return self._memo[key]


def _end_state(cfg: Configuration) -> dict[str, Any]:
    lib = _library(cfg.implementation)
    mine = {name for name, _ in lib.decomposition.statistics} if lib is not None else set()
    state: dict[str, Any] = {
        "case": cfg.lowercase,
        "tokenization": cfg.stats_tokenize,
        "whitespace": cfg.whitespace,
        "chop": cfg.chop,
        "smoothing": cfg.card_smoothing,
        "effective order": cfg.effective_order,
        POOLED: cfg.aggregation == "pooled-mean",
    }
    for name in _statistics():
        state[name] = name in mine
    state[FLOAT_KEY] = cfg.implementation
    for impl, ids in _switches().items():
        for e in ids:
            state[e] = cfg.implementation == impl
    return state


#: the state key of the aggregation: each hypothesis against the pooled references, then
#: the mean (fast-bleu), against the corpus statistics (off)
POOLED = "pooled references"
#: the request's factors, in the order of the sequential steps (the statistics changes
#: follow, then the arithmetic)
_REQUEST_ORDER = ("case", "tokenization", "whitespace", "chop", "smoothing", "effective order",
                  POOLED)
#: the factors that change the tokens (their lines: the segments whose statistics change)
_TEXT_FACTORS = ("tokenization", "case", "whitespace", "chop")


def _order() -> tuple[str, ...]:
    """The order of the sequential steps that change the request or the statistics."""
    return _REQUEST_ORDER + tuple(_statistics())


#: exact Shapley values are given for at most this many factors that move the score
MAX_SHAPLEY = 8
#: factors are tested for moving the score (every subset evaluated) up to this many
MAX_ENUMERATED = 12


def _display_id(entry: str, cfg: Configuration) -> str:
    """The catalog id as the configuration meets it: without smoothing, the corpus entry.

    NLTK's ``corpus_bleu`` without a smoothing function and sacreBLEU's
    ``smooth_method='none'`` are the bleu-corpus-compute entries
    (``NLTK-FLOAT-ORDER``, ``NLTK-ZERO-MATCH-TINY``, ``SACREBLEU-FLOAT-ORDER``);
    the models evaluated are the bleu-smoothing-compute ones, which with method
    ``none`` are the same computation (each implementation's ``corpus_ids``).
    """
    if cfg.card_smoothing[0] != "none":
        return entry
    for _, spec in _specs():
        if entry in spec.corpus_ids:
            return spec.corpus_ids[entry]
    return entry


def _factors(a: Configuration, b: Configuration, sa: dict[str, Any], sb: dict[str, Any]
             ) -> list[_Factor]:
    """The factors that differ between the two ends, in the order of the sequential steps.

    The request's factors and the statistics changes (:func:`_order`), then
    ``a``'s own catalog entries switched off, the float order, and ``b``'s
    entries switched on: every state the steps pass through is one
    implementation's dialect (or the card).

    The float order is one factor: each implementation's ``...-FLOAT-ORDER``
    entry is the whole score evaluated in its order of operations, so two of
    them cannot be on at once (no score is evaluated in two orders); between
    two implementations the factor is the bundle of both ids (e.g.
    ``SACREBLEU-FLOAT-ORDER / NLTK-FLOAT-ORDER``: sacreBLEU's order -> NLTK's).
    Every other entry is its own factor, named by its catalog id.
    """
    floats, own = _floats(), _switches()
    out = [_Factor(name, name, sa[name], sb[name]) for name in _order() if sa[name] != sb[name]]
    for e in own.get(a.implementation, ()):
        if sa[e] != sb[e]:
            out.append(_Factor(_display_id(e, a), e, sa[e], sb[e]))
    if sa[FLOAT_KEY] != sb[FLOAT_KEY]:
        names = [_display_id(floats[impl], cfg) for impl, cfg in
                 ((sa[FLOAT_KEY], a), (sb[FLOAT_KEY], b)) if impl in floats]
        out.append(_Factor(" / ".join(names), FLOAT_KEY, sa[FLOAT_KEY], sb[FLOAT_KEY]))
    for e in own.get(b.implementation, ()):
        if sa[e] != sb[e] and e not in own.get(a.implementation, ()):
            out.append(_Factor(_display_id(e, b), e, sa[e], sb[e]))
    return out


def _describe(name: str, value: Any) -> str:
    if name == "case":
        return {False: "mixed case", True: "lowercased", "ascii": "A-Z lowercased (ASCII only)",
                "perl": "lowercased per character (Perl lc: no final sigma)"}[value]
    if name == "whitespace":
        return {"python": "Python's str.split() whitespace",
                "perl": "Perl's \\s (not U+001C-U+001F; no rstrip)",
                "ascii": "ASCII whitespace only (Perl on bytes)"}[value]
    if name == "chop":
        return {"off": "last line kept", "byte": "chop: last byte of a file without a final "
                "newline dropped", "char": "chop: last character of a file without a final "
                "newline dropped"}[value]
    if name == "tokenization":
        if _is_moses(value):
            from bleu_compat.tokenizers.moses import tokenizer_for

            t = tokenizer_for(value)
            return f"{value} (tokenizer.perl -l {t.language}{' -a' if t.aggressive else ''})"
        return "str.split()" if value == "none" else value
    if name == "smoothing":
        method, eps = value
        if ":" in method:  # outside the cards
            impl, _, own = method.partition(":")
            lib = _library(impl)
            who = lib.display_name if lib is not None else impl
            shown = f" ({eps:g})" if eps is not None else ""
            return f"{who} {own}{shown}, outside the cards"
        return f"{method} (epsilon {eps:g})" if method == "method1" else method
    if name == "effective order":
        return "yes" if value else "no"
    if name == FLOAT_KEY:
        if value == CARD:
            return "the card's"
        lib = _library(value)
        name = lib.display_name if lib is not None else value
        return f"{name}'" if name.endswith("s") else f"{name}'s"
    return "on" if value else "off"


@dataclass(frozen=True)
class Cause:
    """One factor of a decomposition.

    Attributes:
        cause: its name (``"tokenization"``, ``"NLTK-DENOMINATOR-FLOOR"``,
            ``"NLTK-ZERO-MATCH-TINY"``, ...: the request's factors by name, the
            libraries' quirks by catalog id).
        change: ``"13a -> str.split()"``, in words.
        start: the score before this step (0–1 scale).
        end: the score after it (0–1 scale).
        contribution: ``end - start`` (0–1 scale; exact as ``Fraction(end) - Fraction(start)``).
        shapley: the exact Shapley value (a Fraction, 0–1 scale), or None when
            not computed (:attr:`Decomposition.shapley_note` says why).
        lines: 1-based input lines behind the cause, as evaluated at this step
            (:func:`segment_behind` decides each line).
        lines_note: where those lines were evaluated (e.g. ``"on str.split() tokens"``).
        lines_other: the same cause's lines at the other end (``{note: lines}``).
        line_effects: ``(line, effect)`` for each line of ``lines``, ranked by size
            (:func:`_line_effects`: the step made for that line alone; exact, 0–1 scale).
        other_effects: the same for ``lines_other``, at that end (``{note: ranked}``).
        alone: the factor's effect made first, from the start (exact, 0–1 scale), when
            every subset was evaluated; else None.
        partner: ``(factor, effect)``: the factor this one interacts with most (the
            largest ``v({i, j}) - v({i}) - v({j}) + v({})``) and this factor's effect made
            right after that one alone; None with fewer than two moving factors.
    """

    cause: str
    change: str
    start: float
    end: float
    shapley: Fraction | None
    lines: tuple[int, ...] = ()
    lines_note: str = ""
    lines_other: dict[str, tuple[int, ...]] = field(default_factory=dict)
    line_effects: tuple[tuple[int, Fraction], ...] = ()
    other_effects: dict[str, tuple[tuple[int, Fraction], ...]] = field(default_factory=dict)
    alone: Fraction | None = None
    partner: tuple[str, Fraction] | None = None

    @property
    def contribution(self) -> Fraction:
        """``end - start`` exactly (0–1 scale)."""
        return Fraction(self.end) - Fraction(self.start)


@dataclass(frozen=True)
class Decomposition:
    """The gap between two configurations, step by step (``frm`` -> ``to``).

    Attributes:
        frm, to: the configurations' names.
        start, end: their real libraries' numbers (0–1 scale), which the models
            reproduce bit for bit (else ``unexpected`` says why and ``causes`` is empty).
        causes: the sequential steps in order, one per factor that moves the
            score; contributions telescope to ``end - start``.
        inert: factors that differ between the two ends but move the score in no
            state at all (every subset of the other factors evaluated): their
            steps and Shapley values are exactly 0, so they are named, not stepped.
        unexpected: None, or why no decomposition is given.
        not_decomposable: None, or why the gap has no decomposition although both
            numbers are the libraries' own (e.g. a sentence average against a corpus
            BLEU: different aggregation); not UNEXPECTED.
        shapley_note: None, or why there are no Shapley values (too many factors).
        factors: the names of every factor that differs between the two ends, in the
            order of :attr:`values`' bits (bit i = factor i), inert ones included.
        values: the score (0–1 scale) of every subset of :attr:`factors` switched to
            ``to``'s value (index = bit mask), as evaluated; empty when not enumerated.
            What the steps, the inert list and the Shapley values were computed from,
            kept so that an independent check (:mod:`bleu_compat.harness.decomposition_check`)
            can recompute them.
    """

    frm: str
    to: str
    start: float
    end: float
    causes: tuple[Cause, ...]
    unexpected: str | None = None
    inert: tuple[str, ...] = ()
    shapley_note: str | None = None
    not_decomposable: str | None = None
    factors: tuple[str, ...] = ()
    values: tuple[float, ...] = ()

    @property
    def difference(self) -> Fraction:
        """``end - start`` exactly (0–1 scale)."""
        return Fraction(self.end) - Fraction(self.start)


@dataclass(frozen=True)
class ConfigRun:
    """One configuration's real number.

    Attributes:
        config: the configuration.
        bleu: on the card's 0–1 scale (sacreBLEU's ``score / 100``, as the adapter gives it).
        points: ``BLEU`` on the 0–100 scale: sacreBLEU's own ``score``; NLTK's and the
            card's value times 100.
    """

    config: Configuration
    bleu: float
    points: float


@dataclass(frozen=True)
class CompareResult:
    """:func:`compare`'s result: each configuration's number and each pair's decomposition.

    Attributes:
        system: the system file.
        runs: one :class:`ConfigRun` per configuration, in the order given.
        decompositions: one :class:`Decomposition` per pair (i < j).
        token_mismatches: per sacreBLEU tokenizer run on the raw text (tokenizer and
            ``-lc``) whose tokens differ from ours for the installed release, the first
            line where they do (:class:`bleu_compat.tokenizers.check.TokenMismatch`);
            each is UNEXPECTED; the Moses tokenizations, checked against the user's
            tokenizer.perl, are among them.
        token_notes: sentences on the tokens no library made: each Moses tokenization
            (ours), and whether the real tokenizer.perl checked it (on how many lines) or
            why not.
        refused: ``(configuration, why)`` for each configuration whose library gives no
            number on these files (``compare(..., refused_ok=True)``: it takes one
            reference file, it raises, its number is not finite); they are in no
            ``runs`` and no pair.
    """

    system: str
    runs: tuple[ConfigRun, ...]
    decompositions: tuple[Decomposition, ...]
    token_mismatches: tuple[Any, ...] = ()
    token_notes: tuple[str, ...] = ()
    refused: tuple[tuple[Configuration, str], ...] = ()

    @property
    def unexpected(self) -> bool:
        """True when some pair's numbers are not reproduced by the models, or the installed
        sacreBLEU tokenized some line otherwise than our tokenizer for its release
        (:attr:`token_mismatches`, :mod:`bleu_compat.tokenizers.check`)."""
        return any(d.unexpected for d in self.decompositions) or bool(self.token_mismatches)

    def segment_causes(self) -> Callable[[int], dict[str, list[str]]]:
        """``line -> {"sacrebleu -> nltk": ["tokenization", ...], ...}`` (1-based lines).

        The causes each input line is behind, per pair: exactly the lines each
        cause lists (:attr:`Cause.lines`, one definition); pairs where the line is
        behind nothing are left out. Holds one set per cause with lines.
        """
        table = [(f"{d.frm} -> {d.to}", c.cause, frozenset(c.lines))
                 for d in self.decompositions for c in d.causes if c.lines]

        def causes(line: int) -> dict[str, list[str]]:
            out: dict[str, list[str]] = {}
            for pair, cause, lines in table:
                if line in lines:
                    out.setdefault(pair, []).append(cause)
            return out

        return causes


def segment_behind(cause: str, max_order: int, row: Sequence[int],
                   other: Sequence[int] | None = None, ref_lengths: Any = None) -> bool:
    """Whether one segment is behind ``cause`` (the one definition of "lines behind a cause").

    Args:
        cause: a factor's name.
        max_order: N.
        row: the segment's statistics where the step is evaluated,
            ``[m_1..m_N, l_1..l_N, hyp_len, ref_len]``.
        other: the same segment's statistics after the step (tokenization, case).

    Returns:
        A statistics change (e.g. ``NLTK-DENOMINATOR-FLOOR``): its kind's rule
        (the floor: the hypothesis is shorter than N tokens, its order-N total is
        floored to 1); ``tokenization``, ``case``: the segment's statistics
        change; every other cause is a corpus-level one: False.
    """
    kind = _statistics().get(cause)
    if kind is not None:
        return STATISTICS_KINDS[kind].behind(row, max_order, ref_lengths)
    if cause in _TEXT_FACTORS:
        return other is not None and list(row) != list(other)
    return False


def _lines_behind(name: str, state: dict[str, Any], nxt: dict[str, Any], ev: _Evaluator
                  ) -> tuple[tuple[int, ...], str]:
    n = ev.max_order
    kind = _statistics().get(name)
    if kind is not None:
        _, rows = ev.stats.get(state["tokenization"], state["case"], state["whitespace"],
                               state["chop"])
        tok = _describe("tokenization", state["tokenization"])
        lengths = (ev.stats.ref_lengths(state["tokenization"], state["case"], state["whitespace"],
                                        state["chop"])
                   if STATISTICS_KINDS[kind].needs_lengths else [None] * len(rows))
        return (tuple(k + 1 for k, (row, ls) in enumerate(zip(rows, lengths))
                      if segment_behind(name, n, row, ref_lengths=ls)),
                STATISTICS_KINDS[kind].lines(n, tok))
    if name in _TEXT_FACTORS:
        _, r1 = ev.stats.get(state["tokenization"], state["case"], state["whitespace"], state["chop"])
        _, r2 = ev.stats.get(nxt["tokenization"], nxt["case"], nxt["whitespace"], nxt["chop"])
        return (tuple(k + 1 for k, (x, y) in enumerate(zip(r1, r2))
                      if segment_behind(name, n, x, y)),
                "segments whose statistics change")
    return (), ""


def _shifted(stats: Stats, minus: Stats, plus: Stats) -> Stats:
    """``stats - minus + plus``, field by field (corpus statistics are sums over segments)."""
    return {
        "matches": [s - a + b for s, a, b in zip(stats["matches"], minus["matches"], plus["matches"])],
        "totals": [s - a + b for s, a, b in zip(stats["totals"], minus["totals"], plus["totals"])],
        "candidate_length": stats["candidate_length"] - minus["candidate_length"]
        + plus["candidate_length"],
        "reference_length": stats["reference_length"] - minus["reference_length"]
        + plus["reference_length"],
    }


def _line_effects(key: str, state: dict[str, Any], nxt: dict[str, Any],
                  lines: Sequence[int], ev: _Evaluator) -> tuple[tuple[int, Fraction], ...]:
    """How much each line behind a cause moves the score, ranked (issue 23).

    A line's effect is the change of the score at ``state`` when the cause's step
    (``state`` -> ``nxt``) is made for that line alone: the corpus statistics of
    ``state`` with that segment's statistics replaced by its statistics in ``nxt``,
    scored in ``state``'s arithmetic; exact (``Fraction`` of the two doubles),
    0–1 scale. Ranked by size, largest first, ties by line. Empty for the pooled
    aggregation (a mean of per-hypothesis scores, no corpus statistics).

    Raises:
        UnreproducedError: a model raises.
    """
    if not lines or state[POOLED] or nxt[POOLED]:
        return ()
    text = key in _TEXT_FACTORS
    _, rows_a = ev.stats.get(state["tokenization"], state["case"], state["whitespace"],
                             state["chop"])
    rows_b = rows_a
    if text:
        _, rows_b = ev.stats.get(nxt["tokenization"], nxt["case"], nxt["whitespace"], nxt["chop"])
    needs = any(STATISTICS_KINDS[kind].needs_lengths
                for name, kind in _statistics().items() if state[name] or nxt[name])
    len_a = (ev.stats.ref_lengths(state["tokenization"], state["case"], state["whitespace"],
                                  state["chop"]) if needs else None)
    len_b = (ev.stats.ref_lengths(nxt["tokenization"], nxt["case"], nxt["whitespace"], nxt["chop"])
             if needs and text else len_a)
    corpus = ev.statistics(state)
    base = Fraction(ev.score(state, corpus))
    effects = []
    for line in lines:
        k = line - 1
        before = ev.segment(state, rows_a[k], None if len_a is None else len_a[k])
        after = ev.segment(nxt, rows_b[k], None if len_b is None else len_b[k])
        effects.append((line, Fraction(ev.score(state, _shifted(corpus, before, after))) - base))
    effects.sort(key=lambda item: (-abs(item[1]), item[0]))
    return tuple(effects)


def _subset_values(factors: list[_Factor], base: dict[str, Any], ev: _Evaluator) -> list[float]:
    """``values[mask]``: the score with the factors in ``mask`` (bit i = factor i) at ``b``."""
    values = []
    for mask in range(1 << len(factors)):
        state = dict(base)
        for i, f in enumerate(factors):
            if mask >> i & 1:
                state[f.key] = f.b
        values.append(ev.value(state))
    return values


def _shapley(k: int, members: list[int], values: list[float]) -> dict[int, Fraction]:
    """Exact Shapley values of the factors ``members`` (indices into the 2**k table).

    Factors outside ``members`` are left at their start value (they move nothing).
    """
    size = len(members)
    exact = {}
    out: dict[int, Fraction] = {}
    for i in members:
        others = [j for j in members if j != i]
        total = Fraction(0)
        for r in range(size):
            weight = Fraction(math.factorial(r) * math.factorial(size - r - 1), math.factorial(size))
            for subset in combinations(others, r):
                mask = sum(1 << j for j in subset)
                for m in (mask, mask | 1 << i):
                    if m not in exact:
                        exact[m] = Fraction(values[m])
                total += weight * (exact[mask | 1 << i] - exact[mask])
        out[i] = total
    return out


def decompose(a: Configuration, b: Configuration, a_bleu: float, b_bleu: float,
              ev: _Evaluator) -> Decomposition:
    """Decompose ``b_bleu - a_bleu`` (0–1 scale) into the factors that differ.

    Every subset of the factors is evaluated (up to :data:`MAX_ENUMERATED`
    factors); a factor that changes the score in none of them is *inert*
    (its steps and Shapley value are exactly 0) and is named, not stepped.
    The others are stepped one at a time, in :func:`_factors`' order, and get
    exact Shapley values when they are at most :data:`MAX_SHAPLEY`.
    """
    if "sentence-mean" in (a.aggregation, b.aggregation):
        return Decomposition(
            a.name, b.name, a_bleu, b_bleu, (),
            not_decomposable=(
                f"different aggregation ({a.aggregation} vs {b.aggregation}): a mean of "
                "sentence BLEU scores is not a corpus BLEU (BLEU of the summed statistics), "
                "so no chain of corpus-level factors leads from one to the other"
                if a.aggregation != b.aggregation and "pooled-mean" not in (a.aggregation, b.aggregation)
                else f"different aggregation ({a.aggregation} vs {b.aggregation}): means of "
                "sentence BLEU scores of different kinds"
                if a.aggregation != b.aggregation else
                "both are means of sentence BLEU scores; the decomposition is of corpus BLEU"
            ),
        )
    sa, sb = _end_state(a), _end_state(b)
    try:
        got_a, got_b = ev.value(sa), ev.value(sb)
    except UnreproducedError as exc:
        return Decomposition(a.name, b.name, a_bleu, b_bleu, (), str(exc))
    for cfg, got, real in ((a, got_a, a_bleu), (b, got_b, b_bleu)):
        if got != real:
            return Decomposition(
                a.name, b.name, a_bleu, b_bleu, (),
                f"the {cfg.implementation} model gives {got!r} for {cfg.name}, "
                f"the library {real!r}: not reproduced",
            )
    factors = _factors(a, b, sa, sb)
    k = len(factors)
    note = None
    try:
        if k <= MAX_ENUMERATED:
            values = _subset_values(factors, sa, ev)
            moving = [i for i in range(k)
                      if any(values[m] != values[m | 1 << i] for m in range(1 << k) if not m >> i & 1)]
        else:
            values, moving = [], list(range(k))
            note = (f"{k} factors: more than {MAX_ENUMERATED}, so neither tested for "
                    "moving the score nor given Shapley values")
    except UnreproducedError as exc:
        return Decomposition(a.name, b.name, a_bleu, b_bleu, (), str(exc))
    shap: dict[int, Fraction] = {}
    if values and len(moving) <= MAX_SHAPLEY:
        shap = _shapley(k, moving, values)
    elif values:
        note = (f"{len(moving)} factors move the score: more than {MAX_SHAPLEY}, "
                "no Shapley values (their exact average over every order is not computed)")
    causes = []
    state = dict(sa)

    def interaction(i: int) -> tuple[Fraction | None, tuple[str, Fraction] | None]:
        if not values:
            return None, None
        v = [Fraction(x) for x in values]  # masks over all k factors, the others at a
        alone = v[1 << i] - v[0]
        best: tuple[Fraction, int] | None = None
        for j in moving:
            if j != i:
                size = abs(v[1 << i | 1 << j] - v[1 << i] - v[1 << j] + v[0])
                if best is None or size > best[0]:
                    best = (size, j)
        if best is None:
            return alone, None
        j = best[1]
        return alone, (factors[j].name, v[1 << i | 1 << j] - v[1 << j])

    for i in moving:
        f = factors[i]
        nxt = dict(state)
        nxt[f.key] = f.b
        lines, lnote = _lines_behind(f.key, state, nxt, ev)
        effects = _line_effects(f.key, state, nxt, lines, ev)
        other: dict[str, tuple[int, ...]] = {}
        other_effects: dict[str, tuple[tuple[int, Fraction], ...]] = {}
        if f.key in _statistics():  # the same change's lines in the other tokenization
            for s in (sa, sb):
                if any(s[k] != state[k] for k in _TEXT_FACTORS):
                    l2, n2 = _lines_behind(f.key, s, s, ev)
                    other[n2] = l2
                    off, on = dict(s), dict(s)
                    off[f.key], on[f.key] = f.a, f.b
                    other_effects[n2] = _line_effects(f.key, off, on, l2, ev)
        alone, partner = interaction(i)
        change = f"{_describe(f.key, f.a)} -> {_describe(f.key, f.b)}"
        if f.key == "smoothing":  # in the libraries' own words, then the card's
            change = f"{a.smoothing} -> {b.smoothing} (card: {change})"
        causes.append(Cause(
            f.name, change, ev.value(state), ev.value(nxt), shap.get(i) if shap else None,
            lines, lnote, other, effects, other_effects, alone, partner,
        ))
        state = nxt
    inert = tuple(factors[i].name for i in range(k) if i not in moving)
    for i in range(k):
        if i not in moving:
            state[factors[i].key] = factors[i].b
    assert ev.value(state) == b_bleu  # the steps end at the library's number, bit for bit
    return Decomposition(a.name, b.name, a_bleu, b_bleu, tuple(causes), inert=inert,
                         shapley_note=note, factors=tuple(f.name for f in factors),
                         values=tuple(values))


def compare(hypothesis: str, references: Sequence[str],
            configs: Sequence[str | Configuration] = DEFAULT_COMPARE, *,
            card_tokenize: str = "13a", card_lowercase: bool = False,
            progress: Callable[[str], Any] | None = None,
            refused_ok: bool = False) -> CompareResult:
    """Run each configuration's real library on the files and decompose every pair's gap.

    Args:
        hypothesis: the system output file (one segment per line; the reading rules of
            :mod:`bleu_compat.corpus_io`).
        references: one file per reference, line-aligned with ``hypothesis``.
        configs: built-in names, specs (:data:`CONFIG_SYNTAX`) or :class:`Configuration`s.
        card_tokenize: the built-in ``card``'s tokenizer; card_lowercase: whether it lowercases.
        progress: called with a short description before each slow step.
        refused_ok: a configuration whose library gives no number on the files (it
            cannot take them, raises on them, or gives a number that is not finite) is
            left out with the reason (:attr:`CompareResult.refused`) instead of raising.

    Returns:
        A :class:`CompareResult` (scores on the 0–1 scale as ``bleu``, 0–100 as ``points``).

    Raises:
        ValueError: a bad configuration spec; without ``refused_ok``, a library that gives
            no number.
        CorpusReadError: a file cannot be read.
        OracleUnavailableError / ImportError: a library is not installed.

    Example::

        >>> import bleu_compat
        >>> r = bleu_compat.compare("sys.txt", ["ref.txt"])        # doctest: +SKIP
        >>> [(run.config.name, run.points) for run in r.runs]      # doctest: +SKIP
        [('sacrebleu', 28.30...), ('nltk', 23.38...), ('card', 28.30...)]
    """
    from bleu_compat.corpus_io import read_lines

    cfgs = [c if isinstance(c, Configuration)
            else parse_config(c, card_tokenize=card_tokenize, card_lowercase=card_lowercase)
            for c in configs]
    orders = {c.max_order for c in cfgs}
    if len(orders) != 1:
        raise ValueError("configurations compared must share one max order")
    max_order = orders.pop()
    hyp_lines = read_lines(hypothesis).lines
    ref_lines = [read_lines(r).lines for r in references]
    runs = []
    refused: list[tuple[Configuration, str]] = []
    for c in cfgs:
        if progress:
            progress(f"running {c.name} ({c.implementation})")
        lib = _library(c.implementation)
        who = lib.display_name if lib is not None else c.implementation
        try:
            points = library_points(c, hyp_lines, ref_lines, (hypothesis, list(references)))
        except (ArithmeticError, AssertionError, IndexError) as exc:  # the library refuses
            why = f"{who} raises {type(exc).__name__} on these files ({exc}): it gives no number"
            if not refused_ok:
                raise ValueError(f"{c.name}: {why}") from None
            refused.append((c, why))
            continue
        except ValueError as exc:  # the adapter: the library cannot take these files
            from bleu_compat.errors import ConfigError

            # a ConfigError is the set-up's (a segmenter's model missing, ...): the run stops
            if not refused_ok or isinstance(exc, ConfigError):
                raise
            text = str(exc)
            refused.append((c, text[len(c.name) + 2:] if text.startswith(f"{c.name}: ") else text))
            continue
        if not math.isfinite(points):  # add-k with value=1e308: the library's own overflow
            why = (f"{who} gives BLEU = {points} on these files (its own arithmetic does not "
                   "give a finite number): no number to compare")
            if not refused_ok:
                raise ValueError(f"{c.name}: {why}")
            refused.append((c, why))
            continue
        bleu, shown = scaled(lib, points)
        runs.append(ConfigRun(c, bleu, shown))
    cfgs = [run.config for run in runs]
    mismatches = _token_check(cfgs, hypothesis, hyp_lines, references, ref_lines, progress)
    moses_mismatches, notes = _moses_check(cfgs, hypothesis, hyp_lines, references, ref_lines,
                                           progress)
    mismatches += moses_mismatches
    stats = _Statistics(hypothesis, references, max_order)
    try:
        ev = _Evaluator(stats, max_order)
        decs = []
        for i, j in combinations(range(len(cfgs)), 2):
            if progress:
                progress(f"decomposing {cfgs[i].name} -> {cfgs[j].name}")
            decs.append(decompose(cfgs[i], cfgs[j], runs[i].bleu, runs[j].bleu, ev))
    finally:
        stats.close()
    return CompareResult(hypothesis, tuple(runs), tuple(decs), mismatches, notes,
                         tuple(refused))


def _moses_check(cfgs: Sequence[Configuration], hypothesis: str, hyp_lines: Sequence[str],
                 references: Sequence[str], ref_lines: Sequence[Sequence[str]],
                 progress: Callable[[str], Any] | None) -> tuple[tuple[Any, ...], tuple[str, ...]]:
    """Each Moses tokenization compared: our tokenizer.perl's lines against the user's real
    tokenizer.perl (:mod:`bleu_compat.libraries.tokenizer_perl`) on every line of the files,
    when there is one. Returns (the first differing line per tokenization, as UNEXPECTED
    :class:`~bleu_compat.tokenizers.check.TokenMismatch`, and one sentence per tokenization)."""
    names = list(dict.fromkeys(c.tokenize for c in cfgs if _is_moses(c.tokenize)))
    if not names:
        return (), ()
    from bleu_compat.errors import OracleUnavailableError
    from bleu_compat.libraries import tokenizer_perl
    from bleu_compat.tokenizers.moses import MOSES_COMMIT, tokenizer_for

    script = tokenizer_perl.script_path()
    sources = [(hypothesis, hyp_lines), *zip(references, ref_lines)]
    n_lines = sum(len(lines) for _, lines in sources)
    mismatches, notes = [], []
    for name in names:
        tok = tokenizer_for(name)
        ours = (f"{name}: tokens by bleu-compat's Moses tokenizer (mosesdecoder "
                f"{MOSES_COMMIT[:8]} tokenizer.perl's rules, -l {tok.language}"
                f"{' -a' if tok.aggressive else ''}), each library then run on them as on "
                "tokenized text")
        if tok.warning:
            ours += f" ({tok.warning.rstrip('.')}: as tokenizer.perl, the English prefixes)"
        if script is None:
            notes.append(f"{ours}; not checked against the real tokenizer.perl: "
                         f"{tokenizer_perl.not_found_reason()}")
            continue
        if progress:
            progress(f"checking tokenizer.perl's {name} tokens against ours")
        try:
            found = tokenizer_perl.check_tokens(sources, name, script)
        except OracleUnavailableError as exc:
            notes.append(f"{ours}; not checked against the real tokenizer.perl: {exc}")
            continue
        if found is None:
            notes.append(f"{ours}; {script} ({tokenizer_perl.release_label(script)}) prints the "
                         f"same on all {n_lines} lines")
        else:
            mismatches.append(found)
            notes.append(f"{ours}; {script} ({tokenizer_perl.release_label(script)}) differs "
                         "(UNEXPECTED, below)")
    return tuple(mismatches), tuple(notes)


def _token_check(cfgs: Sequence[Configuration], hypothesis: str, hyp_lines: Sequence[str],
                 references: Sequence[str], ref_lines: Sequence[Sequence[str]],
                 progress: Callable[[str], Any] | None) -> tuple[Any, ...]:
    """The installed libraries' tokens against ours, once per tokenizer a library ran on raw text.

    Issue 20: our tokenizers are the judge's; a library whose tokenizer lost a rule
    gives other tokens, and that must be reported, not explained. Only libraries that
    tokenize raw text (a plug-in with a ``tokens`` hook) are asked.
    """
    from bleu_compat.tokenizers.check import check_library

    sources = [(hypothesis, hyp_lines), *zip(references, ref_lines)]
    seen: set[tuple[str, str, bool]] = set()
    out = []
    for c in cfgs:
        lib = _library(c.implementation)
        if lib is None or lib.tokens is None:
            continue
        tok = c.stats_tokenize  # split runs the library's own "none" on the raw lines
        if _is_moses(tok):  # the library split our tokenizer.perl's output: _moses_check
            continue
        key = (lib.name, tok, c.lowercase)
        if key in seen:
            continue
        seen.add(key)
        if progress:
            progress(f"checking {lib.display_name}'s {tok} tokens against ours")
        mismatch = check_library(lib, sources, tok, c.lowercase)
        if mismatch is not None:
            out.append(mismatch)
    return tuple(out)


def first_lines(lines: Sequence[int], limit: int = FIRST_LINES) -> str:
    """``"258, 383, 398, ... (22 lines)"``: the first ``limit`` lines, then the count."""
    if not lines:
        return "none"
    shown = ", ".join(map(str, lines[:limit]))
    more = ", ..." if len(lines) > limit else ""
    return f"{shown}{more} ({len(lines)} line{'s' if len(lines) != 1 else ''})"
