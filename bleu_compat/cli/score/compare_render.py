"""Text and Markdown rendering of ``--compare``: the configurations, each pair's causes, parity."""

from __future__ import annotations

from typing import Any, Sequence

from bleu_compat.cli.score.markdown_output import markdown_table
from bleu_compat.cli.score.text_output import aligned
from bleu_compat.rounding import js_number_str, to_fixed_str

__all__ = ["display", "compare_text", "configurations_text", "fmt_points"]


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


def compare_text(comparisons: Sequence[Any], versions: dict[str, str], markdown: bool) -> str:
    libs = ", ".join(f"{display(k)} {v}" for k, v in versions.items())
    out = [
        "",
        ("## " if markdown else "")
        + f"Parity on the same tokens, libraries as users call them ({libs}); "
        "card = bleu-compat; BLEU and points on the 0-100 scale, ULPs on the card's 0-1 scale "
        "(shown only when the difference is one of arithmetic)",
    ]
    for c in comparisons:
        out.append("")
        out.append(f"### {c.system}" if markdown else c.system)
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
        if markdown:
            out.append(markdown_table(rows))
            out += [f"- {n}" for n in notes]
        else:
            out.append("\n".join("  " + line for line in aligned(rows).splitlines()))
            out += [f"    {n}" for n in notes]
    return "\n".join(out)


def _points(x: float) -> str:
    return to_fixed_str(x, 6)


def configurations_text(names: list[str], results: list[Any], versions: dict[str, str],
                  markdown: bool) -> str:
    from bleu_compat.decompose import first_lines

    from bleu_compat.libraries import library_version

    def impl(name: str, release: str = "") -> str:
        if name == "card":
            return "bleu-compat"
        # a configuration that names its release (a script's file) runs that one
        version = release or versions.get(name) or library_version(name)
        return f"{display(name)} {version}".strip()

    out = ["", ("## " if markdown else "")
           + "The libraries as their users run them (BLEU, 0-100 scale; each number is the "
           "library's own)"]
    for name, res in zip(names, results):
        out.append("")
        out.append(f"### {name}" if markdown else name)
        rows = [["configuration", "BLEU", "implementation", "settings"]]
        for run in res.runs:
            rows.append([run.config.name, _points(run.points), impl(run.config.implementation,
                                                             run.config.release),
                         run.config.signature()])
        out.append(markdown_table(rows) if markdown else
                   "\n".join("  " + line for line in aligned(rows, (0, 2, 3)).splitlines()))
        for mismatch in getattr(res, "token_mismatches", ()):  # issue 20: the library's tokens
            out.append(("- " if markdown else "") + f"UNEXPECTED {mismatch.message()}")
        for d in res.decompositions:
            a = next(r for r in res.runs if r.config.name == d.frm)
            b = next(r for r in res.runs if r.config.name == d.to)
            out.append("")
            head = (f"{d.frm} -> {d.to}: {_points(a.points)} -> {_points(b.points)}, "
                    f"{fmt_points(float(100 * d.difference))} points")
            if d.unexpected:
                out.append(f"UNEXPECTED {head}: {d.unexpected}")
                continue
            if d.not_decomposable:
                out.append(f"{head}: not decomposable: {d.not_decomposable}")
                continue
            inert = ""
            if d.inert:
                inert = (("- " if markdown else "  ") + "differ but move the score in no "
                         "combination of the factors (steps and Shapley values exactly 0): "
                         + ", ".join(d.inert))
            if not d.causes:
                out.append(f"{head}: the same number, nothing to decompose")
                if inert:
                    out.append(inert)
                continue
            out.append(head + "; one factor at a time (step), and each factor's Shapley "
                       "value (the average over every order of the steps):")
            rows = [["step", "cause", "change", "BLEU after", "step (points)", "Shapley (points)"]]
            notes = []
            for k, c in enumerate(d.causes, 1):
                rows.append([str(k), c.cause, c.change, _points(100 * c.end),
                             fmt_points(float(100 * c.contribution)),
                             "-" if c.shapley is None else fmt_points(float(100 * c.shapley))])
                if c.lines_note:
                    notes.append(f"{c.cause}: {c.lines_note}: lines {first_lines(c.lines)}")
                for note, lines in c.lines_other.items():
                    notes.append(f"{c.cause}: {note}: lines {first_lines(lines)}")
            out.append(markdown_table(rows) if markdown else
                       "\n".join("  " + line for line in aligned(rows, (0, 1, 2)).splitlines()))
            total = sum((c.contribution for c in d.causes), start=type(d.difference)(0))
            out.append(("- " if markdown else "  ")
                       + f"the steps add up to {fmt_points(float(100 * total))} points exactly "
                       f"(rational sum of the steps = {d.to} - {d.frm}: "
                       f"{'yes' if total == d.difference else 'NO'})")
            if inert:
                out.append(inert)
            if d.shapley_note:
                out.append(("- " if markdown else "  ") + d.shapley_note)
            out += [("- " if markdown else "  ") + n for n in notes]
    return "\n".join(out)
