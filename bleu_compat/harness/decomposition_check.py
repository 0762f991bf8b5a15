"""An independent check of ``score --compare``'s decompositions (issue 25, item 3).

:mod:`bleu_compat.decompose` decomposes the gap between two configurations into
named steps and exact Shapley values. This module judges a decomposition it is
given, recomputing what can be recomputed without any of that module's code
(it imports nothing of :mod:`bleu_compat.decompose`; ``oracle_tests/test_layering.py``
enforces it):

``end states``
    the decomposition's two ends are the real implementations' numbers, bit
    for bit (:func:`real_bleu` runs each implementation's adapter itself, or
    the truth for bleu-compat's own card), and so are the first and the last
    value of the table of subset values it was computed from;
``factors``
    the factors that differ between the two configurations, derived here from
    the configurations and the plug-ins' declarations
    (:class:`bleu_compat.libraries.plugin.DecompositionSpec`), are exactly the
    table's factors, and each is a step or listed inert, never both, once;
``inert``
    a factor is listed inert exactly when it changes the score in no row of the
    table (every subset of the others); the others are the steps, in the
    table's order;
``telescoping``
    step t starts where step t − 1 ended (the first at the start, the last ends
    at the end), each step's ends are the table's values before and after its
    factor is switched, and the step is named after that factor;
``Shapley``
    each step's Shapley value equals the one recomputed here from the table
    (weights ``|S|! (k − |S| − 1)! / k!`` in :class:`fractions.Fraction`, over
    bit masks rather than combinations), and the values sum exactly to the gap;
``attribution``
    what ``--compare`` says of each step beyond its numbers (issue 36): its effect made
    *alone* from the start (``v({i}) − v({})``, exact), the factor it *interacts most
    with* (a moving factor j ≠ i of the largest ``|v({i, j}) − v({i}) − v({j}) + v({})|``;
    any of them on a tie) and its effect made right after that one (``v({i, j}) − v({j})``),
    none with fewer than two moving factors, all recomputed from the table; the
    ``change`` it names runs from the start configuration's side to the end's (an entry
    or statistics change ``off -> on`` when the end's implementation has it, the
    tokenizers and smoothing methods by name, the effective order ``no``/``yes``); the
    lines behind it are input lines (1 to the corpus' length, each once) and its ranked
    line effects are those lines, largest effect first (ties by line).

A decomposition the module could not give (``unexpected``: a model does not
reproduce a library) fails ``end states``; a gap declared "not decomposable"
must be one whose configurations really aggregate differently (a mean of
sentence scores).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable, Sequence

__all__ = ["CHECKS", "check_decomposition", "factor_names", "real_bleu", "shapley_values"]

#: the names of the checks, as findings name them
CHECKS = ("end states", "factors", "inert", "telescoping", "Shapley", "attribution")
#: the request's factors, as the decomposition names them
_REQUEST_FACTORS = ("case", "tokenization", "whitespace", "chop", "smoothing", "effective order",
                    "pooled references")
CARD = "card"



def _worded(change: str, start: str, end: str) -> bool:
    """Whether ``change`` says ``start -> end``: each value whole (followed by the end of
    the text or a space), words about a value after it allowed ("exp -> none (card: method3
    -> none)", "moses-de (tokenizer.perl -l de) -> moses-a-de (tokenizer.perl -l de -a)")."""
    def whole(text: str, value: str) -> str | None:
        if text == value:
            return ""
        return text[len(value):] if text.startswith(value + " ") else None

    rest = whole(change, start)
    if rest is None:
        return False
    if rest.startswith(" -> "):  # the plain form: "start -> end..."
        tail = whole(rest[4:], end)
        if tail is not None:
            return True
    # "start (words) -> end...": the words about start hold no arrow
    k = rest.find(" -> ")
    if k < 0 or " -> " in rest[:k].strip() or not rest[:k].strip().startswith("("):
        return False
    return whole(rest[k + 4:], end) is not None

def _library(name: str) -> Any:
    from bleu_compat.libraries.registry import libraries

    return next((lib for lib in libraries() if lib.name == name), None)


def _smoothing_value(cfg: Any) -> tuple[str, Any]:
    """The configuration's smoothing as the card's method and value (SPEC.md §4), or
    ``"<implementation>:<method>"`` for a method the cards do not have."""
    lib = _library(cfg.implementation)
    method = cfg.smoothing
    if lib is not None:
        card = lib.smoothing.get(method)
        other_k = card == "method2" and method != card and cfg.smooth_value not in (None, 1, 1.0)
        if method in lib.own_smoothing and (card is None or other_k):
            return f"{lib.name}:{method}", cfg.smooth_value
        method = card
    eps = cfg.smooth_value if method == "method1" and cfg.smooth_value is not None else 0.1
    return method, float(eps)


def _state(cfg: Any) -> dict[str, Any]:
    """Every factor's value at ``cfg``: the request's, each declared statistics change and
    catalog entry (on for the configuration's own implementation), the float order."""
    from bleu_compat.libraries.registry import libraries

    state: dict[str, Any] = {
        "case": cfg.lowercase,
        "tokenization": "none" if cfg.tokenize == "split" else cfg.tokenize,
        "whitespace": cfg.whitespace, "chop": cfg.chop,
        "smoothing": _smoothing_value(cfg),
        "effective order": cfg.effective_order,
        "pooled references": cfg.aggregation == "pooled-mean",
    }
    for lib in libraries():
        spec = lib.decomposition
        for name, _ in spec.statistics:  # a name several implementations declare: on for each
            state[("stat", name)] = state.get(("stat", name), False) or lib.name == cfg.implementation
        for e in spec.switches:
            state[("entry", e)] = lib.name == cfg.implementation
    state["float"] = cfg.implementation
    return state


def _shown(entry: str, cfg: Any) -> str:
    """An entry's id as a configuration without smoothing meets it (the corpus entry)."""
    from bleu_compat.libraries.registry import libraries

    if _smoothing_value(cfg)[0] != "none":
        return entry
    for lib in libraries():
        if entry in lib.decomposition.corpus_ids:
            return lib.decomposition.corpus_ids[entry]
    return entry


def factor_names(a: Any, b: Any) -> list[str]:
    """The names of the factors that differ between configurations ``a`` and ``b``."""
    sa, sb = _state(a), _state(b)
    out = [k for k in _REQUEST_FACTORS if sa[k] != sb[k]]
    out += [k[1] for k in sa if isinstance(k, tuple) and k[0] == "stat" and sa[k] != sb[k]]
    own = {cfg.implementation: (_library(cfg.implementation).decomposition.switches
                                if _library(cfg.implementation) is not None else ())
           for cfg in (a, b)}
    for e in own[a.implementation]:
        if sa[("entry", e)] != sb[("entry", e)]:
            out.append(_shown(e, a))
    if sa["float"] != sb["float"]:
        names = []
        for cfg in (a, b):
            lib = _library(cfg.implementation)
            if lib is not None and lib.decomposition.float_entry:
                names.append(_shown(lib.decomposition.float_entry, cfg))
        out.append(" / ".join(names))
    for e in own[b.implementation]:
        if sa[("entry", e)] != sb[("entry", e)] and e not in own[a.implementation]:
            out.append(_shown(e, b))
    return out


def shapley_values(values: Sequence[float], members: Sequence[int]) -> dict[int, Fraction]:
    """Exact Shapley values of the factors ``members`` from the table ``values`` (index = bit
    mask over every factor; the others stay at their start value).

    For factor i: the sum over subsets S of the other members of
    ``|S|! (n - |S| - 1)! / n! * (v(S + i) - v(S))``, n = len(members), in exact rationals
    of the doubles (Shapley 1953), enumerated over bit masks of the other members.
    """
    n = len(members)
    exact = [Fraction(v) for v in values]
    weights = [Fraction(math.factorial(s) * math.factorial(n - s - 1), math.factorial(n))
               for s in range(n)]
    out = {}
    for i in members:
        others = [j for j in members if j != i]
        total = Fraction(0)
        for pick in range(1 << len(others)):
            mask = 0
            for b, j in enumerate(others):
                if pick >> b & 1:
                    mask |= 1 << j
            total += weights[bin(pick).count("1")] * (exact[mask | 1 << i] - exact[mask])
        out[i] = total
    return out


def _same(x: Any, y: Any) -> bool:
    """Bit for bit: equal doubles of the same sign (0.0 and -0.0 differ)."""
    return isinstance(x, float) and isinstance(y, float) and x == y and math.copysign(1, x) == math.copysign(1, y)


def _interactions(values: Sequence[float], i: int, moving: Sequence[int]) -> dict[int, Fraction]:
    """j -> ``v({i, j}) - v({i}) - v({j}) + v({})`` (exact) for every moving j other than i."""
    v0, vi = Fraction(values[0]), Fraction(values[1 << i])
    return {j: Fraction(values[1 << i | 1 << j]) - vi - Fraction(values[1 << j]) + v0
            for j in moving if j != i}


def _expected_change(name: str, a: Any, b: Any) -> tuple[str, str] | None:
    """The two ends of a factor's ``change`` as ``--compare`` words them, where they follow
    from the configurations alone (None: a factor whose words are its own)."""
    sa, sb = _state(a), _state(b)
    if name == "tokenization":
        words = {"none": "str.split()"}
        return words.get(sa[name], sa[name]), words.get(sb[name], sb[name])
    if name == "effective order":
        return ("yes" if sa[name] else "no"), ("yes" if sb[name] else "no")
    if name == "smoothing":
        return a.smoothing, b.smoothing
    for key in sa:
        if isinstance(key, tuple) and key[1] == name or (
                isinstance(key, tuple) and key[0] == "entry" and (_shown(key[1], a) == name
                                                                  or _shown(key[1], b) == name)):
            return ("on" if sa[key] else "off"), ("on" if sb[key] else "off")
    return None


def _attribution(dec: Any, a: Any, b: Any, values: Sequence[float], names: Sequence[str],
                 moving: Sequence[int], pair: str) -> list[dict[str, str]]:
    """The ``attribution`` check (module docstring) of every step of ``dec``."""
    out: list[dict[str, str]] = []

    def fail(detail: str) -> None:
        out.append({"check": "attribution", "pair": pair, "detail": detail})

    for c in dec.causes:
        if c.cause not in names:
            continue  # named after no factor: the factors check says so
        i = names.index(c.cause)
        alone = getattr(c, "alone", None)
        if alone is not None and alone != Fraction(values[1 << i]) - Fraction(values[0]):
            fail(f"{c.cause} made alone moves the score by {float(alone)!r} given, "
                 f"{float(Fraction(values[1 << i]) - Fraction(values[0]))!r} in the table")
        partner = getattr(c, "partner", None)
        inter = _interactions(values, i, moving) if i in moving else {}
        if not inter:
            if partner is not None:
                fail(f"{c.cause} is said to interact most with {partner[0]}, but no other "
                     "factor moves the score")
        elif partner is None:
            if alone is not None:
                fail(f"{c.cause}: no factor it interacts most with is named; the table has "
                     f"{len(inter)} other moving factor(s)")
        else:
            largest = max(abs(x) for x in inter.values())
            strongest = [names[j] for j, x in inter.items() if abs(x) == largest]
            if partner[0] not in names or names.index(partner[0]) not in inter:
                fail(f"{c.cause} is said to interact most with {partner[0]}, which is no "
                     "other factor that moves the score")
            else:
                j = names.index(partner[0])
                if abs(inter[j]) != largest:
                    fail(f"{c.cause} is said to interact most with {partner[0]} (interaction "
                         f"{float(inter[j])!r}); the table's strongest is {', '.join(strongest)} "
                         f"({float(largest)!r} in size)")
                after = Fraction(values[1 << i | 1 << j]) - Fraction(values[1 << j])
                if partner[1] != after:
                    fail(f"{c.cause} right after {partner[0]}: {float(partner[1])!r} given, "
                         f"{float(after)!r} in the table")
        ends = _expected_change(c.cause, a, b)
        change = getattr(c, "change", None)
        if ends is not None and isinstance(change, str):
            head = f"{ends[0]} -> {ends[1]}"
            # each side is the value, then perhaps words about it after a space (a Moses
            # tokenization says its tokenizer.perl command: "moses-de (tokenizer.perl -l de)")
            if not _worded(change, ends[0], ends[1]):
                fail(f"{c.cause}: the change is worded {change!r}; from {a.name} to {b.name} "
                     f"it runs {head}")
        lines = list(getattr(c, "lines", ()))
        if len(set(lines)) != len(lines) or any(not isinstance(x, int) or x < 1 for x in lines):
            fail(f"{c.cause}: the lines behind it {lines[:10]} are not distinct input lines")
        effects = list(getattr(c, "line_effects", ()))
        if effects:
            if sorted(x for x, _ in effects) != sorted(lines):
                fail(f"{c.cause}: its line effects are of lines {[x for x, _ in effects][:10]}, "
                     f"the lines behind it are {lines[:10]}")
            ranked = sorted(effects, key=lambda item: (-abs(item[1]), item[0]))
            if [x for x, _ in ranked] != [x for x, _ in effects]:
                fail(f"{c.cause}: its lines are not ranked by the size of their effect "
                     f"({[x for x, _ in effects][:10]}; by size {[x for x, _ in ranked][:10]})")
    return out


def check_decomposition(dec: Any, a: Any, b: Any, real_a: float, real_b: float,
                        max_shapley: int = 12, unreproduced: bool = True) -> list[dict[str, str]]:
    """The checks ``dec`` (a decomposition of ``a`` -> ``b``) fails; empty when it passes.

    Args:
        dec: the decomposition (``frm``, ``to``, ``start``, ``end``, ``causes``, ``inert``,
            ``factors``, ``values``, ``unexpected``, ``not_decomposable``; 0–1 scale).
        a, b: the two configurations (their attributes only are read).
        real_a, real_b: the real implementations' numbers for them (0–1 scale).
        max_shapley: Shapley values are recomputed for at most this many moving factors
            (2^(k-1) subsets each); a decomposition may give none when more move than its
            own limit, saying so (``shapley_note``), never for a single moving factor. The
            sum is checked whenever they are given.
        unreproduced: whether a decomposition not given because a model does not reproduce a
            library (``unexpected``) fails ``end states`` (``score --compare`` reports those
            as UNEXPECTED itself, exit 1).

    Returns:
        ``[{"check": one of CHECKS, "pair": "a -> b", "detail": ...}]``.
    """
    pair = f"{dec.frm} -> {dec.to}"
    out: list[dict[str, str]] = []

    def fail(check: str, detail: str) -> None:
        out.append({"check": check, "pair": pair, "detail": detail})

    if dec.not_decomposable:
        if "sentence-mean" not in (a.aggregation, b.aggregation):
            fail("end states", f"declared not decomposable, but both aggregate as "
                 f"{a.aggregation}/{b.aggregation}")
        return out
    if dec.unexpected:
        if unreproduced:
            fail("end states", f"not reproduced: {dec.unexpected}")
        return out
    for side, got, real in (("start", dec.start, real_a), ("end", dec.end, real_b)):
        if not _same(float(got), float(real)):
            fail("end states", f"the {side} is {got!r}, the implementation gives {real!r}")
    names = list(dec.factors)
    expected = factor_names(a, b)
    if sorted(names) != sorted(expected) or len(set(names)) != len(names):
        fail("factors", f"the table's factors {names} are not the ones that differ, {expected}")
    causes = [c.cause for c in dec.causes]
    listed = causes + list(dec.inert)
    if sorted(listed) != sorted(expected):
        missing = sorted(set(expected) - set(listed))
        extra = sorted(set(listed) - set(expected))
        fail("factors", f"steps and inert factors {listed} are not each differing factor once"
             + (f" (missing: {missing})" if missing else "") + (f" (not differing: {extra})" if extra else ""))
    # telescoping: each step starts where the previous ended, the last ends at the end
    previous = float(dec.start)
    for t, c in enumerate(dec.causes):
        if not _same(float(c.start), previous):
            fail("telescoping", f"step {t + 1} ({c.cause}) starts at {c.start!r}, the previous "
                 f"step ended at {previous!r}")
        previous = float(c.end)
    if not _same(previous, float(dec.end)):
        fail("telescoping", f"the steps end at {previous!r}, the decomposition at {dec.end!r}")
    values = list(dec.values)
    k = len(names)
    if not values:
        return out  # too many factors to enumerate: the decomposition says so (shapley_note)
    if len(values) != 1 << k:
        fail("factors", f"{len(values)} subset values for {k} factors (expected {1 << k})")
        return out
    if not _same(values[0], float(real_a)) or not _same(values[-1], float(real_b)):
        fail("end states", f"the table runs from {values[0]!r} to {values[-1]!r}, the "
             f"implementations give {real_a!r} and {real_b!r}")
    moving = [i for i in range(k)
              if any(values[m] != values[m | 1 << i] for m in range(1 << k) if not m >> i & 1)]
    if sorted(dec.inert) != sorted(names[i] for i in range(k) if i not in moving):
        fail("inert", f"listed inert {list(dec.inert)}; the table says "
             f"{[names[i] for i in range(k) if i not in moving]}")
    if causes != [names[i] for i in moving]:
        fail("inert", f"the steps {causes} are not the factors that move the score, in order, "
             f"{[names[i] for i in moving]}")
    # each step's ends are the table's values before and after its factor is switched
    mask = 0
    for t, (c, i) in enumerate(zip(dec.causes, moving)):
        before, after = values[mask], values[mask | 1 << i]
        mask |= 1 << i
        if not (_same(float(c.start), before) and _same(float(c.end), after)):
            fail("telescoping", f"step {t + 1} ({c.cause}) runs {c.start!r} -> {c.end!r}; "
                 f"switching {names[i]} runs {before!r} -> {after!r}")
        if c.cause != names[i]:
            fail("telescoping", f"step {t + 1} is named {c.cause}; the factor it switches "
                 f"is {names[i]}")
    out += _attribution(dec, a, b, values, names, moving, pair)
    gap = Fraction(float(dec.end)) - Fraction(float(dec.start))
    given = [c.shapley for c in dec.causes]
    if None in given:  # not computed (too many factors move): all absent, and the reason given
        if any(g is not None for g in given) or not dec.shapley_note:
            fail("Shapley", "some steps have no Shapley value and the decomposition does not "
                 "say why")
        elif len(moving) == 1:
            fail("Shapley", "no Shapley value for the one factor that moves the score")
        return out
    mine = shapley_values(values, moving) if len(moving) <= max_shapley else None
    for t, c in enumerate(dec.causes):
        if mine is not None and t < len(moving) and c.shapley != mine[moving[t]]:
            fail("Shapley", f"{c.cause}: {float(c.shapley)!r} given, {float(mine[moving[t]])!r} "
                 "recomputed (as exact rationals they differ)")
    if sum(given, Fraction(0)) != gap:
        fail("Shapley", f"the Shapley values sum to {float(sum(given, Fraction(0)))!r}, the gap "
             f"is {float(gap)!r}")
    return out


def real_bleu(cfg: Any, hypothesis: str, references: Sequence[str]) -> float:
    """The real implementation's number for configuration ``cfg`` on the files (0–1 scale).

    A registered implementation: its adapter, as its users call it (``score_files`` on
    the files when the adapter has one, else ``score_lines``), divided by 100 when its
    own scale is 0–100. The card (bleu-compat's own formula): the truth
    (:mod:`bleu_compat.harness.truth`, the card's doubles in card order) on the tokens
    of :mod:`bleu_compat.tokenizers` (``split``: ``str.split()``).

    Raises:
        OracleUnavailableError / ImportError: the implementation is not installed.
        ValueError: a card configuration with a smoothing the cards do not have.
    """
    from bleu_compat.corpus_io import read_lines

    from bleu_compat.tokenizers import is_moses

    hyp_lines = read_lines(hypothesis).lines
    ref_lines = [read_lines(r).lines for r in references]
    lib = _library(cfg.implementation)
    if lib is not None and is_moses(cfg.tokenize):
        # the Moses pipeline: tokenizer.perl's output (ours: the tokenizers are the judge's),
        # then the library on it as on tokenized text
        import dataclasses
        import tempfile
        from pathlib import Path

        from bleu_compat.tokenizers.moses import tokenize_text, tokenizer_for

        tok = tokenizer_for(cfg.tokenize)
        with tempfile.TemporaryDirectory(prefix="bleu-compat-check-") as d:
            files = []
            for k, lines in enumerate([hyp_lines, *ref_lines]):
                files.append(str(Path(d) / f"{k}.tok"))
                Path(files[-1]).write_text(tokenize_text("".join(x + "\n" for x in lines), tok),
                                           encoding="utf-8")
            return real_bleu(dataclasses.replace(cfg, tokenize="none"), files[0], files[1:])
    if lib is not None:
        adapter = lib.adapter_module()
        if hasattr(adapter, "score_files"):
            points = float(adapter.score_files(cfg, hypothesis, list(references)))
        else:
            points = float(adapter.score_lines(cfg, hyp_lines, ref_lines))
        return points / 100 if lib.native.scale == "0-100" else points
    return _card_bleu(cfg, hyp_lines, ref_lines)


def _card_bleu(cfg: Any, hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]]) -> float:
    from bleu_compat.harness.truth import corpus_truth_stats, truth

    from bleu_compat.tokenizers import get_tokenizer, is_moses

    def tokens(line: str) -> list[str]:
        if is_moses(cfg.tokenize):  # tokenizer.perl first, then -lc on its output
            return list(get_tokenizer(cfg.tokenize, lowercase=bool(cfg.lowercase))(line))
        if cfg.lowercase:
            line = line.lower()
        if cfg.tokenize == "split":
            return line.split()
        return list(get_tokenizer(cfg.tokenize)(line))

    hyps = [tokens(h) for h in hyp_lines]
    refs = [[tokens(r) for r in seg] for seg in zip(*ref_lines)]
    method = cfg.smoothing
    if method == "none" and not cfg.effective_order:
        return float(truth("bleu-corpus-compute", {"hypotheses": hyps, "references": refs,
                                                    "max_order": cfg.max_order}).unrounded["bleu"])
    if method not in ("none", "method1", "method2", "method3"):
        raise ValueError(f"the card has no smoothing {method!r}")
    m, t, c, r = corpus_truth_stats(hyps, refs, cfg.max_order)
    request: dict[str, Any] = {"matches": m, "totals": t, "candidate_length": c,
                               "reference_length": r, "smoothing": method,
                               "effective_order": cfg.effective_order}
    if method == "method1" and cfg.smooth_value is not None:
        request["epsilon"] = cfg.smooth_value
    return float(truth("bleu-smoothing-compute", request).unrounded["bleu"])


def check_compare(result: Any, hypothesis: str, references: Sequence[str],
                  configs: Sequence[Any], real: Callable[[Any], float] | None = None,
                  unreproduced: bool = True) -> tuple[int, list[dict[str, str]]]:
    """Check every decomposition of a compare result (``result.decompositions``, the pairs
    i < j of ``configs`` in order).

    Args:
        real: configuration -> its real number (default :func:`real_bleu` on the files,
            each configuration run once).
        unreproduced: as :func:`check_decomposition`.

    Returns:
        (decompositions checked, failures).
    """
    cache: dict[int, float] = {}

    def number(k: int) -> float:
        if k not in cache:
            cache[k] = real(configs[k]) if real else real_bleu(configs[k], hypothesis, references)
        return cache[k]

    failures: list[dict[str, str]] = []
    decs = iter(result.decompositions)
    checked = 0
    for i in range(len(configs)):
        for j in range(i + 1, len(configs)):
            dec = next(decs)
            checked += 1
            failures += check_decomposition(dec, configs[i], configs[j], number(i), number(j),
                                            unreproduced=unreproduced)
    return checked, failures
