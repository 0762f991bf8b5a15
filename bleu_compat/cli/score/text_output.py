"""Plain-text output: multi-bleu.perl's one-line summary and the aligned table of systems."""

from __future__ import annotations

from typing import Sequence

from bleu_compat.bleu import BleuResult
from bleu_compat.rounding import to_fixed_str

__all__ = ["summary_line", "summary_line_at", "length_ratio", "table_header", "rounded_row", "aligned",
           "roles_line"]


def summary_line(result: BleuResult) -> str:
    """The familiar one-line summary (multi-bleu.perl's form), BLEU on the 0–100 scale.

    ``BLEU = 23.17, 53.8/29.6/17.6/10.3 (BP=1.000, ratio=1.074, hyp_len=1989, ref_len=1852)``;
    numbers are rounded like JavaScript ``toFixed``.
    """
    return summary_line_at(result, 2)


def summary_line_at(result: BleuResult, decimals: int) -> str:
    s = result.stats
    precisions = "/".join(to_fixed_str(100 * p, 1) for p in result.precisions)
    ratio = to_fixed_str(s.hyp_len / s.ref_len, 3) if s.ref_len else ("inf" if s.hyp_len else "n/a")
    return (
        f"BLEU = {to_fixed_str(100 * result.bleu, decimals)}, {precisions} "
        f"(BP={to_fixed_str(result.brevity_penalty, 3)}, ratio={ratio}, "
        f"hyp_len={s.hyp_len}, ref_len={s.ref_len})"
    )


def length_ratio(result: BleuResult) -> float | None:
    s = result.stats
    return s.hyp_len / s.ref_len if s.ref_len else None


def table_header(max_order: int) -> list[str]:
    return ["System", "BLEU", *[f"P{n}" for n in range(1, max_order + 1)],
            "BP", "ratio", "hyp_len", "ref_len"]


def rounded_row(name: str, result: BleuResult, decimals: int) -> list[str]:
    ratio = length_ratio(result)
    return [
        name,
        to_fixed_str(100 * result.bleu, decimals),
        *[to_fixed_str(100 * p, 1) for p in result.precisions],
        to_fixed_str(result.brevity_penalty, 3),
        to_fixed_str(ratio, 3) if ratio is not None else "inf",
        str(result.stats.hyp_len),
        str(result.stats.ref_len),
    ]


def aligned(rows: list[list[str]], left: Sequence[int] = (0,)) -> str:
    """Columns padded to one width; those in ``left`` left-justified, the others right."""
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [c.ljust(w) if k in left else c.rjust(w)
                 for k, (c, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def roles_line(hypothesis: str, references: Sequence[str]) -> str:
    """card-score's line naming each file's role (its order is not multi-bleu.perl's)."""
    plural = "s" if len(references) > 1 else ""
    return (f"hypothesis: {hypothesis}; reference{plural}: {', '.join(references)} "
            "(card-score's HYP REF order; sacreBLEU's is REF -i HYP)")
