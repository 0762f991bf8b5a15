"""HTML output: ``score --compare --html FILE``, one self-contained page (harness.html draws it).

:func:`page_doc` gathers what the page shows from the same functions the text
output uses (:mod:`bleu_compat.cli.score.compare_render`): the number to report,
the configurations table, each pair's ranked causes, folded causes, chain,
interaction sentences and lines behind each cause, and the parity table, as the
very strings the text prints; plus the numbers the charts draw (each step of the
chain, each line's effect on the largest causes). :func:`bleu_compat.harness.html.compare_to_html`
draws it.
"""

from __future__ import annotations

from typing import Any, Sequence

from bleu_compat.cli.score.arguments import fail

__all__ = ["write_compare_html", "page_doc"]


def page_doc(names: Sequence[str], comparisons: Sequence[Any], versions: dict[str, str],
             decompositions: Sequence[Any], reports: Sequence[dict[str, Any]],
             resolved: Sequence[Any] = (), n_refs: int = 1) -> dict[str, Any]:
    """The page's content (a JSON-able dict, the shape :func:`compare_to_html` documents).

    Args:
        names: the systems' names; comparisons: :func:`bleu_compat.parity.compare_system`'s
            results; decompositions: :func:`bleu_compat.decompose.compare`'s, one per system;
        reports: :func:`~bleu_compat.cli.score.compare_render.to_report`'s, one per system;
        resolved: the configurations as resolved against the options given; n_refs: the
            number of references.
    """
    from bleu_compat.cli.score.compare_render import (
        CONFIGURATIONS_TITLE,
        _points,
        _pts,
        configuration_rows,
        decomposition_parts,
        pair_head,
        parity_rows,
        parity_title,
        ranked_causes,
    )
    from bleu_compat.decompose import FIRST_LINES

    systems = []
    for name, c, res, rep in zip(names, comparisons, decompositions, reports):
        rows, words, mismatches = configuration_rows(res, versions, resolved, n_refs)
        pairs = []
        for d in res.decompositions:
            a = next(r for r in res.runs if r.config.name == d.frm)
            b = next(r for r in res.runs if r.config.name == d.to)
            head = pair_head(d, res)
            pair: dict[str, Any] = {"from": d.frm, "to": d.to, "head": head}
            if d.unexpected:
                pair["unexpected"] = f"UNEXPECTED {head}: {d.unexpected}"
            elif d.not_decomposable:
                pair["not_decomposable"] = f"{head}: not decomposable: {d.not_decomposable}"
            else:
                pair["parts"] = decomposition_parts(d, _points(a.points), head)
                pair["waterfall"] = {
                    "start": a.points, "end": b.points,
                    "start_label": _points(a.points), "end_label": _points(b.points),
                    "steps": [{"cause": x.cause, "after": float(100 * x.end),
                               "contribution": float(100 * x.contribution),
                               "label": _pts(x.contribution)} for x in d.causes]}
                shown, _ = ranked_causes(d)
                # each line's effect, drawn for the largest cause that has lines and for
                # every cause whose lines the text cuts to the top FIRST_LINES
                pair["segments"] = [
                    {"cause": x.cause, "note": x.lines_note, "largest": k == 0,
                     "effects": [[line, float(100 * e)] for line, e in x.line_effects]}
                    for k, x in enumerate([x for x in shown if x.line_effects])
                    if k == 0 or len(x.line_effects) > FIRST_LINES]
            pairs.append(pair)
        p_rows, notes = parity_rows(c)
        systems.append({
            "name": name, "report": rep,
            "configurations": {"rows": rows, "words": words, "mismatches": mismatches,
                               "bars": [[run.config.name, run.points, _points(run.points)]
                                        for run in res.runs]},
            "pairs": pairs,
            "parity": {"rows": p_rows, "notes": notes, "card": c.card_score,
                       "libraries": [[row[0], lib.score] for row, lib
                                     in zip(p_rows[2:], c.libraries)]},
        })
    unexpected = (any(c.unexpected for c in comparisons)
                  or any(d.unexpected for d in decompositions))
    return {"configurations_title": CONFIGURATIONS_TITLE, "parity_title": parity_title(versions),
            "unexpected": unexpected, "systems": systems}


def write_compare_html(path: str, names: list[str], comparisons: list[Any],
                       versions: dict[str, str], decompositions: list[Any],
                       reports: Sequence[dict[str, Any]], resolved: Sequence[Any] = (),
                       n_refs: int = 1) -> int:
    """Write ``score --compare --html FILE``; 0, or 2 (message on stderr) when it cannot."""
    from bleu_compat.harness.html import HtmlUnavailable, compare_to_html

    doc = page_doc(names, comparisons, versions, decompositions, reports, resolved, n_refs)
    try:
        text = compare_to_html(doc)
        _write(path, text)
    except HtmlUnavailable as exc:
        return fail(f"--html: {exc}")
    except OSError as exc:
        return fail(f"--html {path}: cannot write: {exc.strerror or exc}")
    return 0


def _write(path: str, text: str) -> None:
    # a regular (or new) file appears whole or not at all; a device or a pipe with a reader is
    # written to; a pipe with none is refused, never waited on (bleu_compat.atomic's rule)
    from bleu_compat.atomic import write_atomic

    write_atomic(path, text)
