"""JSON output: the card's result object, a system's row, and the --compare document."""

from __future__ import annotations

from typing import Any

from bleu_compat.bleu import BleuResult
from bleu_compat.cli.score.text_output import length_ratio

__all__ = ["result_json", "system_json", "compare_json"]


def result_json(result: BleuResult) -> dict[str, Any]:
    """The result in bleu-corpus-compute's output shape (full doubles)."""
    return {
        "bleu": result.bleu,
        "brevity_penalty": result.brevity_penalty,
        "candidate_length": result.stats.hyp_len,
        "reference_length": result.stats.ref_len,
        "max_order": result.max_order,
        "matches": list(result.stats.matches),
        "totals": list(result.stats.totals),
    }


def system_json(name: str, result: BleuResult) -> dict[str, Any]:
    row: dict[str, Any] = {"system": name, "BLEU": 100 * result.bleu}
    row.update(result_json(result))
    row["precisions"] = [100 * p for p in result.precisions]
    row["ratio"] = length_ratio(result)
    return row


def _decomposition_json(res: Any) -> list[dict[str, Any]]:
    """Each pair's decomposition in points (0-100) with its exact values (0-1 fractions)."""
    points = {run.config.name: run.points for run in res.runs}
    out = []
    for d in res.decompositions:
        out.append({
            "from": d.frm, "to": d.to,
            "start": points[d.frm], "end": points[d.to],
            "start_bleu": d.start, "end_bleu": d.end,
            "unexpected": d.unexpected,
            "causes": [
                {
                    "cause": c.cause, "change": c.change,
                    "bleu_before": c.start, "bleu_after": c.end,
                    "contribution": float(100 * c.contribution),
                    "shapley": None if c.shapley is None else float(100 * c.shapley),
                    "lines": list(c.lines), "lines_note": c.lines_note,
                    "lines_other": {k: list(v) for k, v in c.lines_other.items()},
                    # issue 23: exact values (0-1 scale, as fractions), the lines ranked by
                    # how much each moves the score alone (points), the interaction
                    "contribution_exact": str(c.contribution),
                    "shapley_exact": None if c.shapley is None else str(c.shapley),
                    "line_effects": [[line, float(100 * e)]
                                     for line, e in getattr(c, "line_effects", ())],
                    "other_line_effects": {
                        k: [[line, float(100 * e)] for line, e in v]
                        for k, v in getattr(c, "other_effects", {}).items()},
                    "alone": None if getattr(c, "alone", None) is None
                    else float(100 * c.alone),
                    "interacts_with": None if getattr(c, "partner", None) is None else {
                        "cause": c.partner[0], "after_it": float(100 * c.partner[1])},
                }
                for c in d.causes
            ],
            "inert": list(d.inert),
            "not_decomposable": d.not_decomposable,
            "shapley_note": d.shapley_note,
        })
    return out


def _configuration_json(cfg: Any) -> dict[str, Any]:
    return {"name": cfg.name, "implementation": cfg.implementation,
            "tokenize": cfg.tokenize, "lowercase": cfg.lowercase,
            "smoothing": cfg.smoothing, "smooth_value": cfg.smooth_value,
            "effective_order": cfg.effective_order, "max_order": cfg.max_order,
            "aggregation": cfg.aggregation, "settings": cfg.signature()}


def _configurations_json(res: Any) -> list[dict[str, Any]]:
    """Each configuration run (its BLEU), then each that gave no number (``BLEU`` null and
    ``no_number``: why, issue 34)."""
    return [{**_configuration_json(run.config), "BLEU": run.points, "bleu": run.bleu}
            for run in res.runs] + [
        {**_configuration_json(cfg), "BLEU": None, "bleu": None, "no_number": why}
        for cfg, why in getattr(res, "refused", ())]


def compare_json(c: Any, res: Any = None) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if res is not None:
        extra = {"configurations": _configurations_json(res),
                 "decomposition": _decomposition_json(res),
                 "token_mismatches": [m.to_json() for m in getattr(res, "token_mismatches", ())],
                 "token_notes": list(getattr(res, "token_notes", ()))}
    return {
        **extra,
        "card": c.card,
        "unexpected": c.unexpected or bool(res is not None and res.unexpected),
        "libraries": [
            {
                "library": lib.library,
                "version": lib.version,
                "mode": "as_called",
                "BLEU": lib.score,
                "output": lib.output,
                "error": lib.error,
                "not_representable": lib.not_representable,
                "differences": [
                    {
                        "field": d.field,
                        "card_value": d.card_value,
                        "library_value": d.library_value,
                        "ulps": d.ulps,
                        "unexpected": d.unexpected,
                        "explanations": [
                            {"id": e.id, "title": e.title, "facts": e.facts}
                            for e in d.explanations
                        ],
                    }
                    for d in lib.differences
                ],
            }
            for lib in c.libraries
        ],
    }
