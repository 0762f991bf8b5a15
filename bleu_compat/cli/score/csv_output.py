"""CSV output: one row per system, full doubles, the signature in every row."""

from __future__ import annotations

from typing import Any

from bleu_compat.bleu import BleuResult
from bleu_compat.cli.score.text_output import length_ratio
from bleu_compat.rounding import js_number_str

__all__ = ["csv_text"]


def csv_text(names: list[str], results: list[BleuResult], comparisons: list[Any], max_order: int,
         sig: str) -> str:
    import csv
    import io

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    header = ["system", "BLEU", *[f"p{n}" for n in range(1, max_order + 1)],
              "bp", "ratio", "hyp_len", "ref_len", "signature"]
    if comparisons:
        for lib in comparisons[0].libraries:
            header += [f"{lib.library}_BLEU", f"{lib.library}_ulps", f"{lib.library}_unexpected"]
    writer.writerow(header)
    for k, (n, r) in enumerate(zip(names, results)):
        ratio = length_ratio(r)
        row = [n, js_number_str(100 * r.bleu), *[js_number_str(100 * p) for p in r.precisions],
               js_number_str(r.brevity_penalty), js_number_str(ratio) if ratio is not None else "",
               r.stats.hyp_len, r.stats.ref_len, sig]
        if comparisons:
            for lib in comparisons[k].libraries:
                d = next((d for d in lib.differences if d.field == "bleu"), None)
                row += [
                    js_number_str(lib.score) if lib.score is not None else "",
                    (d.ulps if d is not None and d.ulps is not None else 0),
                    str(lib.unexpected).lower(),
                ]
        writer.writerow(row)
    return buf.getvalue()
