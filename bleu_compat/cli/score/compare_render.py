"""Text and Markdown rendering of ``--compare``: the configurations, each pair's causes, parity."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

from bleu_compat.cli.score.markdown_output import markdown_table
from bleu_compat.cli.score.text_output import aligned
from bleu_compat.rounding import js_number_str, to_fixed_str

__all__ = ["display", "compare_text", "configurations_text", "fmt_points", "parity_rows",
           "parity_title", "configuration_rows", "pair_head", "ranked_causes",
           "decomposition_parts", "CONFIGURATIONS_TITLE"]


def display(name: str) -> str:
    """How implementation ``name`` spells itself (the registry's display name)."""
    from bleu_compat.libraries.registry import display_name

    return display_name(name)


def _fmt_pair(a: Any, b: Any) -> tuple[str, str]:
    """Two values of one field: floats to 6 decimals unless that hides the difference."""
    if isinstance(a, float) and isinstance(b, float):
        sa, sb = to_fixed_str(a, 6), to_fixed_str(b, 6)
        return (sa, sb) if sa != sb else (js_number_str(a), js_number_str(b))
    return _fmt_plain(a), _fmt_plain(b)


def _fmt_plain(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_fmt_plain(v) for v in value) + "]"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return js_number_str(value)
    return str(value)


def fmt_points(d: float) -> str:
    if d == 0:
        return "+0"
    return f"{d:+.6f}" if abs(d) >= 1e-6 else f"{d:+.1e}"


#: ULP distances above this are not arithmetic noise: shown as "-" (the
#: difference is in the statistics or the formula, a count of ULPs means nothing)
_ULP_SHOWN = 1 << 20


def _ulps_str(ulps: int | None) -> str:
    if ulps is None:
        return "-"
    return str(ulps) if ulps <= _ULP_SHOWN else "-"


def _difference_lines(lib: Any, card_score: float) -> list[str]:
    """One line per UNEXPECTED field and one per catalog entry (with every field it explains)."""
    name = display(lib.library)
    lines = []
    by_entry: dict[str, list[str]] = {}
    facts: dict[str, str] = {}
    for d in lib.differences:
        if d.field == "bleu" and lib.score is not None:  # both on the 0-100 scale
            lib_s, card_s = _fmt_pair(lib.score, card_score)
            where = f"BLEU {lib_s} vs {card_s}"
        else:
            lib_s, card_s = _fmt_pair(d.library_value, d.card_value)
            where = f"{d.field} {lib_s} vs {card_s}"
        ulps = f", {d.ulps} ULP{'s' if d.ulps != 1 else ''}" if (
            d.ulps is not None and d.ulps <= _ULP_SHOWN) else ""
        if d.unexpected:
            why = f"; {d.catalog_error}" if d.catalog_error else ""
            lines.append(
                f"UNEXPECTED {name}: {where}{ulps}: no catalog entry explains it{why}"
            )
            continue
        for e in d.explanations:
            by_entry.setdefault(e.id, []).append(where + ulps)
            facts[e.id] = e.facts or e.title
    for entry_id, wheres in by_entry.items():
        lines.append(f"{name}: {facts[entry_id]} ({entry_id}): {'; '.join(wheres)}")
    return lines


def parity_rows(c: Any) -> tuple[list[list[str]], list[str]]:
    """One system's parity table (header first) and the notes under it, as the text prints them
    (the page shows the same rows)."""
    rows = [["", "BLEU", "diff (points)", "ULPs", "verdict"],
            ["bleu-compat (card)", js_number_str(c.card_score), "", "", ""]]
    notes: list[str] = []
    for lib in c.libraries:
        label = f"{display(lib.library)} {lib.version}"
        if lib.score is None:
            rows.append([label, "-", "", "", "UNEXPECTED" if lib.unexpected else "explained"])
        else:
            bleu_diff = next((d for d in lib.differences if d.field == "bleu"), None)
            ulps = bleu_diff.ulps if bleu_diff is not None else 0
            verdict = (
                "identical" if not lib.differences
                else "UNEXPECTED" if lib.unexpected else "explained"
            )
            rows.append([
                label, js_number_str(lib.score), fmt_points(lib.score - c.card_score),
                _ulps_str(ulps), verdict,
            ])
            if bleu_diff is None and lib.score != c.card_score:
                notes.append(
                    f"{display(lib.library)}: the same double as the "
                    "card on the 0-1 scale; the 0-100 values differ only by the rounding "
                    "of the card's x 100 against the library's own percentage"
                )
        notes += _difference_lines(lib, c.card_score)
    return rows, notes


def parity_title(versions: dict[str, str]) -> str:
    """The parity section's title (the libraries and their releases)."""
    libs = ", ".join(f"{display(k)} {v}" for k, v in versions.items())
    return (f"Parity on the same tokens, libraries as users call them ({libs}); "
            "card = bleu-compat; BLEU and points on the 0-100 scale, ULPs on the card's 0-1 scale "
            "(shown only when the difference is one of arithmetic)")


def compare_text(comparisons: Sequence[Any], versions: dict[str, str], markdown: bool) -> str:
    out = ["", ("## " if markdown else "") + parity_title(versions)]
    for c in comparisons:
        out.append("")
        out.append(f"### {c.system}" if markdown else c.system)
        rows, notes = parity_rows(c)
        if markdown:
            out.append(markdown_table(rows))
            out += [f"- {n}" for n in notes]
        else:
            out.append("\n".join("  " + line for line in aligned(rows).splitlines()))
            out += [f"    {n}" for n in notes]
    return "\n".join(out)


def _points(x: float) -> str:
    return to_fixed_str(x, 6)


def own_words(cfg: Any, n_refs: int) -> str:
    """A configuration in its implementation's own words, as its adapter's ``call_text``
    writes them (sacreBLEU's signature, NLTK's call), or ``""`` (no such hook)."""
    from bleu_compat.decompose import _library

    lib = _library(cfg.implementation)
    call = getattr(lib.adapter_module(), "call_text", None) if lib is not None else None
    from bleu_compat.tokenizers import is_moses

    if call is not None and is_moses(cfg.tokenize):  # the library ran on tokenized text
        from dataclasses import replace

        return (f"{call(replace(cfg, tokenize='none'), n_refs)}, on the files as "
                f"{cfg.tokenize} tokenized them (tokenizer.perl's output)")
    return call(cfg, n_refs) if call is not None else ""


def _reference_implementation() -> str:
    """The implementation of the first default configuration: the one whose number users
    report (the registry's first ``in_default_compare`` implementation)."""
    from bleu_compat.decompose import BUILTIN, DEFAULT_COMPARE

    return BUILTIN[DEFAULT_COMPARE[0]].implementation


CONFIGURATIONS_TITLE = ("The configurations compared (BLEU, 0-100 scale; each number is the "
                        "implementation's own; the options given apply to every configuration "
                        "that can have them, docs/score.md)")


def configuration_rows(res: Any, versions: dict[str, str], resolved: Sequence[Any] = (),
                       n_refs: int = 1) -> tuple[list[list[str]], list[str], list[str]]:
    """One system's configurations table (header first; the "not applied" column only when
    some option was not applied) and the sentences under it (each configuration in its
    implementation's own words, the options it could not take) and the UNEXPECTED token
    mismatches, as the text prints them (the page shows the same)."""
    from bleu_compat.libraries import library_version

    def impl(name: str, release: str = "") -> str:
        if name == "card":
            return "bleu-compat"
        # a configuration that names its release (a script's file) runs that one
        version = release or versions.get(name) or library_version(name) or ""
        return f"{display(name)} {version}".strip()

    by_name = {r.config.name: r for r in resolved}
    rows = [["configuration", "BLEU", "implementation", "settings", "not applied"]]
    words: list[str] = []
    for run in res.runs:
        r = by_name.get(run.config.name)
        missing = ", ".join(flag for flag, _ in r.not_applied) if r is not None else ""
        rows.append([run.config.name, _points(run.points),
                     impl(run.config.implementation, run.config.release),
                     run.config.signature(), missing or "-"])
        own = own_words(run.config, n_refs)
        if own:
            words.append(f"{run.config.name}: {own}")
        if r is not None:
            words += [f"{run.config.name}: {flag} not applied: {why}"
                      for flag, why in r.not_applied]
            words += [f"{run.config.name}: {flag} not applied: the configuration sets "
                      f"{key}= itself" for flag, key in r.kept]
    for cfg, why in getattr(res, "refused", ()):  # issue 34: no number, and why
        r = by_name.get(cfg.name)
        missing = ", ".join(flag for flag, _ in r.not_applied) if r is not None else ""
        rows.append([cfg.name, "no number", impl(cfg.implementation, cfg.release),
                     cfg.signature(), missing or "-"])
        words.append(f"{cfg.name}: no number: {why}")
    if all(row[4] == "-" for row in rows[1:]):  # every option given was applied everywhere
        rows = [row[:4] for row in rows]
    words += list(getattr(res, "token_notes", ()))  # issue 32: the Moses tokens (ours)
    # issue 20: the library's tokens
    mismatches = [f"UNEXPECTED {m.message()}" for m in getattr(res, "token_mismatches", ())]
    return rows, words, mismatches


def pair_head(d: Any, res: Any) -> str:
    """``"sacrebleu -> nltk: 28.301225 -> 23.383356, -4.917869 points"``."""
    a = next(r for r in res.runs if r.config.name == d.frm)
    b = next(r for r in res.runs if r.config.name == d.to)
    return (f"{d.frm} -> {d.to}: {_points(a.points)} -> {_points(b.points)}, "
            f"{fmt_points(float(100 * d.difference))} points")


def configurations_text(names: list[str], results: list[Any], versions: dict[str, str],
                        markdown: bool, resolved: Sequence[Any] = (), n_refs: int = 1) -> str:
    """The configurations compared (each number, implementation, settings in full, the options
    it could not take) and each pair's decomposition, per system."""
    bullet = "- " if markdown else "  "
    out = ["", ("## " if markdown else "") + CONFIGURATIONS_TITLE]
    for name, res in zip(names, results):
        out.append("")
        out.append(f"### {name}" if markdown else name)
        rows, words, mismatches = configuration_rows(res, versions, resolved, n_refs)
        out.append(markdown_table(rows) if markdown else
                   "\n".join("  " + line for line in aligned(rows, (0, 2, 3, 4)).splitlines()))
        out += [bullet + w for w in words]
        out += [("- " if markdown else "") + m for m in mismatches]
        for d in res.decompositions:
            a = next(r for r in res.runs if r.config.name == d.frm)
            head = pair_head(d, res)
            out.append("")
            if d.unexpected:
                out.append(f"UNEXPECTED {head}: {d.unexpected}")
                continue
            if d.not_decomposable:
                out.append(f"{head}: not decomposable: {d.not_decomposable}")
                continue
            out += decomposition_lines(d, _points(a.points), markdown, head)
    return "\n".join(out)


#: causes whose step and Shapley value are both smaller than this (points, 0-100) are folded
#: into one line per pair (the JSON keeps every exact value)
FOLD_BELOW_POINTS = 1e-9


def _sign(x: Fraction | None) -> int:
    if x is None or abs(float(100 * x)) < FOLD_BELOW_POINTS:
        return 0
    return 1 if x > 0 else -1


def _pts(x: Fraction) -> str:
    return fmt_points(float(100 * x))


def _ranked_lines(effects: Sequence[tuple[int, Fraction]], limit: int) -> str:
    shown = ", ".join(f"{line} ({_pts(e)})" for line, e in effects[:limit])
    more = f", ... (the top {limit} of {len(effects)})" if len(effects) > limit else ""
    return shown + more


def ranked_causes(d: Any) -> tuple[list[Any], list[Any]]:
    """``(shown, folded)``: a pair's causes sorted by the size of their Shapley value (by
    the size of their step when there are none; ties in chain order), split into those shown
    and those whose step and Shapley value are both below :data:`FOLD_BELOW_POINTS`."""
    order = {id(c): k for k, c in enumerate(d.causes, 1)}

    def size(c: Any) -> Fraction:
        return abs(c.shapley) if c.shapley is not None else abs(c.contribution)

    ranked = sorted(d.causes, key=lambda c: (-size(c), order[id(c)]))
    shown = [c for c in ranked if abs(float(100 * c.contribution)) >= FOLD_BELOW_POINTS
             or (c.shapley is not None and abs(float(100 * c.shapley)) >= FOLD_BELOW_POINTS)]
    return shown, [c for c in ranked if c not in shown]


def decomposition_parts(d: Any, start: str, head: str) -> dict[str, Any]:
    """One pair's decomposition as the text and the page show it (issue 23, item 4).

    The causes sorted by the size of their Shapley value (by the size of their step
    when there are no Shapley values); those whose step and Shapley value are both
    below :data:`FOLD_BELOW_POINTS` folded into one sentence with the factors that move the
    score in no combination; the chain of steps in its order; a sentence for each cause
    whose step and Shapley value disagree in sign, and each pair they rank differently
    (the interaction behind it); the lines behind each cause ranked by how much each
    moves the score alone, the top ones first.

    Returns a dict: ``intro`` (the heading sentence), ``rows`` (the ranked table,
    header first; ``None`` when there is no cause), ``empty`` (the sentence instead of
    an empty table, or None), ``folded``, ``chain`` (sentences or None), ``notes``
    (the Shapley note and the disagreement sentences) and ``lines`` (the lines-behind
    sentences), every sentence exactly as the text prints it after its bullet.
    """
    from bleu_compat.decompose import FIRST_LINES

    parts: dict[str, Any] = {"intro": head, "rows": None, "empty": None, "folded": None,
                             "chain": None, "notes": [], "lines": []}
    if not d.causes:
        parts["intro"] = f"{head}: the same number, nothing to decompose"
        if d.inert:
            parts["folded"] = ("differ but move the score in no combination of the factors "
                               "(steps and Shapley values exactly 0): " + ", ".join(d.inert))
        return parts
    order = {id(c): k for k, c in enumerate(d.causes, 1)}
    shown, folded = ranked_causes(d)
    by = "Shapley value" if any(c.shapley is not None for c in d.causes) else "step"
    parts["intro"] = (head + f"; the causes by the size of their {by} (the Shapley value: the "
                      "factor's average share over every order of the steps; the step: its "
                      "effect at its place in the chain below):")
    rows = [["cause", "change", "Shapley (points)", "step (points)", "step no."]]
    for c in shown:
        rows.append([c.cause, c.change, "-" if c.shapley is None else _pts(c.shapley),
                     _pts(c.contribution), str(order[id(c)])])
    if shown:
        parts["rows"] = rows
    else:
        parts["empty"] = "no cause moves the score by 1e-9 points or more"
    if folded or d.inert:
        said = []
        if folded:
            said.append("below 1e-9 points (step and Shapley value; every "
                        "exact value in -f json): " + ", ".join(
                            f"{c.cause} (step {_pts(c.contribution)}, Shapley "
                            f"{'-' if c.shapley is None else _pts(c.shapley)})" for c in folded))
        if d.inert:
            said.append("moving the score in no combination of the factors (exactly 0): "
                        + ", ".join(d.inert))
        parts["folded"] = "folded: " + "; ".join(said)
    chain = " -> ".join(f"{c.cause} -> {_points(100 * c.end)}" for c in d.causes)
    total = sum((c.contribution for c in d.causes), start=Fraction(0))
    parts["chain"] = (f"the chain, one factor at a time: {start} -> {chain}; the steps add up "
                      f"to {_pts(total)} points exactly (rational sum of the steps = {d.to} - "
                      f"{d.frm}: {'yes' if total == d.difference else 'NO'})")
    if d.shapley_note:
        parts["notes"].append(d.shapley_note)
    parts["notes"] += _disagreements(shown)
    for c in shown:
        if c.lines_note:
            parts["lines"].append(_lines_sentence(c.cause, c.lines_note, c.lines,
                                                  c.line_effects, FIRST_LINES))
        for note, lines in c.lines_other.items():
            parts["lines"].append(_lines_sentence(c.cause, note, lines,
                                                  c.other_effects.get(note, ()), FIRST_LINES)
                                  + " (evaluated at the other end)")
    return parts


def decomposition_lines(d: Any, start: str, markdown: bool, head: str) -> list[str]:
    """One pair's decomposition in text: :func:`decomposition_parts`, one line each."""
    bullet = "- " if markdown else "  "
    p = decomposition_parts(d, start, head)
    out = [p["intro"]]
    if p["rows"] is not None:
        out.append(markdown_table(p["rows"]) if markdown else
                   "\n".join("  " + line for line in aligned(p["rows"], (0, 1)).splitlines()))
    if p["empty"]:
        out.append(bullet + p["empty"])
    if p["folded"]:
        out.append(bullet + p["folded"])
    if p["chain"]:
        out.append(bullet + p["chain"])
    return out + [bullet + s for s in p["notes"] + p["lines"]]


def _lines_sentence(cause: str, note: str, lines: Sequence[int],
                    effects: Sequence[tuple[int, Fraction]], limit: int) -> str:
    from bleu_compat.decompose import first_lines

    count = f"{len(lines)} line{'s' if len(lines) != 1 else ''}"
    if not effects:
        return f"lines behind {cause} ({note}): {first_lines(lines, limit)}"
    return (f"lines behind {cause} ({note}: {count}), those that move the score most first "
            f"(each line alone, points): {_ranked_lines(effects, limit)}")


def _why(c: Any) -> str:
    """The interaction behind a cause's step and Shapley value differing, in words."""
    if c.partner is None or c.alone is None:
        return "its effect depends on the factors stepped before it"
    other, after = c.partner
    return (f"it interacts most with {other}: made first it moves the score by "
            f"{_pts(c.alone)} points, right after {other} by {_pts(after)}")


def _disagreements(shown: Sequence[Any]) -> list[str]:
    """A sentence per cause whose step and Shapley value disagree in sign, and per pair of
    causes the two rank differently."""
    out = []
    with_shapley = [c for c in shown if c.shapley is not None]
    for c in with_shapley:
        if _sign(c.contribution) != _sign(c.shapley):
            out.append(f"{c.cause}: its step ({_pts(c.contribution)}) and its Shapley value "
                       f"({_pts(c.shapley)}) disagree in sign: {_why(c)}. The step is its "
                       "effect at its place in the chain, the Shapley value its share averaged "
                       "over every order: read the Shapley value for its share of the gap.")
    for i, x in enumerate(with_shapley):
        for y in with_shapley[i + 1:]:
            if abs(y.contribution) > abs(x.contribution) and abs(x.shapley) > abs(y.shapley):
                out.append(f"{x.cause} and {y.cause} rank one way by Shapley value ({x.cause} "
                           f"larger) and the other by step ({y.cause} larger): for "
                           f"{x.cause}, {_why(x)}; for {y.cause}, {_why(y)}.")
    return out


def to_report(res: Any, n_refs: int, width: int, versions: dict[str, str], headline: Any,
              reference_text: str | None) -> dict[str, Any]:
    """The number a paper prints, per system: sacreBLEU's, for the configuration that is
    sacreBLEU's (issue 23).

    The sacreBLEU corpus-BLEU configuration compared whose settings are the headline's
    (``headline``: a Configuration), else the first one compared; its number as
    ``sacrebleu`` prints it (``width`` decimals, Python's rounding), its signature as
    sacreBLEU writes it, and the warning when the references' script calls for another
    tokenizer (:mod:`bleu_compat.cli.score.script_check`). Without a sacreBLEU
    configuration: ``{"configuration": None, "why": ...}``.
    """
    from bleu_compat.cli.score.script_check import tokenizer_warning
    from bleu_compat.decompose import _library

    def key(c: Any) -> tuple[Any, ...]:
        return (c.tokenize, c.lowercase, c.smoothing, c.smooth_value, c.effective_order,
                c.max_order)

    reference = _reference_implementation()
    lib = _library(reference)
    sign = getattr(lib.adapter_module(), "signature_text", None) if lib is not None else None
    ours = [run for run in res.runs
            if run.config.implementation == reference and run.config.aggregation == "corpus"]
    if not ours or sign is None:
        return {"configuration": None,
                "why": f"no {display(reference)} configuration compared (add {reference} to "
                       f"--compare for the number and signature {display(reference)} prints)"}
    run = next((r for r in ours if key(r.config) == key(headline)), ours[0])
    version = versions.get(reference, "")
    out: dict[str, Any] = {
        "configuration": run.config.name,
        "BLEU": f"{run.points:.{width}f}",
        "score": run.points,
        "signature": sign(run.config, n_refs),
        "implementation": f"{display(reference)} {version}",
    }
    warning = tokenizer_warning(reference_text, run.config.tokenize) if reference_text else None
    if warning:
        out["warning"] = warning
    return out


def report_text(names: Sequence[str], reports: Sequence[dict[str, Any]], markdown: bool) -> str:
    """``To report`` above the decomposition: each system's number and signature (and warning)."""
    bullet = "- " if markdown else "  "
    out = ["", ("## " if markdown else "")
           + "To report (the number and the signature a paper prints: sacreBLEU's own, for "
           "the configuration that is sacreBLEU's)"]
    for name, rep in zip(names, reports):
        if rep.get("configuration") is None:
            out.append(f"{bullet}{name}: {rep['why']}")
            continue
        out.append(f"{bullet}{name}: BLEU = {rep['BLEU']}  {rep['signature']}  "
                   f"({rep['implementation']}, configuration {rep['configuration']})")
        if rep.get("warning"):
            out.append(f"{bullet}WARNING: {rep['warning']}")
    return "\n".join(out)
