"""HTML reports people look at: ``crosscheck.html`` and ``score --compare --html FILE``.

One self-contained file that renders offline: no script, stylesheet, font or
image is fetched; the charts are inline SVG drawn by matplotlib (its SVG
backend, text kept as ``<text>`` so the page stays small and searchable).
matplotlib rather than plotly: the charts here are static bar charts, and
inline SVG costs tens of kilobytes per report where embedding plotly.js costs
about 3.5 MB per file; nothing needs zooming or hovering.

Both files are deterministic for the same data (no dates; matplotlib's SVG
ids are salted with a constant).

* :func:`to_html` renders a crosscheck report (the dict of
  :func:`bleu_compat.harness.report.build_report`): per tool × implementation
  a summary (table and stacked bar chart), counts per catalog entry (chart and
  table), ULP histograms (one chart per tool), the kinds of difference, the
  real corpora, and every UNEXPECTED difference with its shrunk reproducer and
  the command that runs it.
* :func:`compare_to_html` renders ``score --compare`` (the content of
  :func:`bleu_compat.cli.score.html_output.page_doc`, the text output's own
  strings): per system the number to report, each configuration's number (chart
  and table), each pair's causes ranked by Shapley value with the folded ones, a
  waterfall of the chain whose steps too small to draw are markers labelled with
  their value, each input line's effect on the largest causes, and the libraries'
  gaps to the card on the same tokens (chart and table).

Raises :class:`HtmlUnavailable` when matplotlib is not installed
(the ``html`` extra: ``pip install '.[html]'`` in bleu-compat's directory).
"""

from __future__ import annotations

import html
import io
import json
import re
from typing import Any, Sequence

from .report import card_text

__all__ = ["HtmlUnavailable", "to_html", "compare_to_html", "waterfall_svg"]

OUTCOME_COLOURS = {"agree": "#4c9a2a", "explained": "#3b75af", "unexpected": "#d62728",
                   "not_representable": "#b0b0b0"}


class HtmlUnavailable(RuntimeError):
    """matplotlib, which draws the charts, is not installed."""


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as exc:
        raise HtmlUnavailable("matplotlib is not installed (the html extra: pip install '.[html]' "
                              "in bleu-compat's directory)") from exc
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    matplotlib.rcParams.update({
        "svg.fonttype": "none",  # text stays text: small, selectable, findable in the DOM
        "svg.hashsalt": "bleu-compat",  # deterministic ids
        "font.size": 9,
        "font.family": "sans-serif",
    })
    return plt


def _svg(fig: Any) -> str:
    plt = _pyplot()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]  # drop the XML prolog and DOCTYPE: inline SVG
    return re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)  # RDF boilerplate


def _e(x: Any) -> str:
    return html.escape(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False))


def _json_block(x: Any) -> str:
    from bleu_compat.jsonio import dumps_js

    return f"<pre>{html.escape(dumps_js(x, indent=2))}</pre>"


def _figure(chart_id: str, caption: str, svg: str) -> str:
    return (f'<figure class="chart" id="{chart_id}">{svg}'
            f"<figcaption>{_e(caption)}</figcaption></figure>")


_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1200px;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0;font-size:.85em}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.unexpected{color:#d62728;font-weight:bold}.ok{color:#4c9a2a}
pre{background:#f6f6f6;padding:.5em;overflow-x:auto;font-size:.8em;max-height:24em}
figure.chart{margin:1em 0}figure.chart svg{max-width:100%;height:auto}
figcaption{font-size:.8em;color:#555}.scroll{overflow-x:auto;max-width:100%}
.case{border-left:4px solid #d62728;padding-left:1em;margin:1em 0}
h3{font-size:1.05em;margin-top:1.6em}li{margin:.25em 0;font-size:.9em}
.report{font-size:1.1em}.headline{font-size:1.3em}.warning{color:#b35900;font-weight:bold}
ul.folded li{color:#555}ul.notes li{color:#8a4b00}
"""


def _page(title: str, body: list[str]) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>"
            + "\n".join(body) + "</body></html>\n")


def _table(head: Sequence[str], rows: Sequence[Sequence[Any]], numeric: Sequence[int] = ()) -> str:
    out = ['<div class="scroll"><table><thead><tr>' + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr></thead><tbody>"]
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            cls = ' class="n"' if i in numeric else ""
            cells.append(f"<td{cls}>{cell if isinstance(cell, _Raw) else _e(cell)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "".join(out) + "</tbody></table></div>"


class _Raw(str):
    """Already-escaped HTML for a table cell."""


# --- crosscheck.html ----------------------------------------------------------------


def _summary_chart(summary: dict[str, dict[str, dict[str, int]]]) -> str:
    plt = _pyplot()
    labels, rows = [], []
    for tool, impls in summary.items():
        for impl, row in impls.items():
            labels.append(f"{tool}  {impl}")
            rows.append(row)
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(labels) + 1.2))
    left = [0] * len(labels)
    for outcome, colour in OUTCOME_COLOURS.items():
        values = [r.get(outcome, 0) for r in rows]
        ax.barh(range(len(labels)), values, left=left, color=colour, label=outcome.replace("_", " "))
        left = [a + b for a, b in zip(left, values)]
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel("cases")
    ax.legend(loc="lower right", fontsize=8, ncols=4, bbox_to_anchor=(1, 1.0))
    return _svg(fig)


#: the words for the colours implementations declare (others: their code)
_COLOUR_WORDS = {"#3b75af": "blue", "#e08a2c": "orange", "#3a923a": "green", "#c03d3e": "red",
                 "#9372b2": "purple", "#845b53": "brown", "#d684bd": "pink", "#7f7f7f": "grey"}


def _colour_legend() -> str:
    """``"blue sacreBLEU, orange NLTK"``: each registered implementation's colour in the charts."""
    from bleu_compat.libraries.registry import libraries

    return ", ".join(f"{_COLOUR_WORDS.get(lib.colour, lib.colour)} {lib.display_name}"
                     for lib in libraries())


def _entries_chart(entries: dict[str, dict[str, Any]]) -> str:
    plt = _pyplot()
    names = list(entries)
    fig, ax = plt.subplots(figsize=(9, 0.3 * len(names) + 1))
    counts = [entries[n]["count"] for n in names]
    from bleu_compat.catalog import ENTRIES
    from bleu_compat.libraries.registry import libraries

    colour = {lib.name: lib.colour for lib in libraries()}
    library_of = {e.id: e.library for e in ENTRIES}
    colours = [colour.get(library_of.get(n, ""), "#7f7f7f") for n in names]
    ax.barh(range(len(names)), counts, color=colours)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlabel("differences reproduced")
    return _svg(fig)


def _ulp_chart(tool: str, rows: list[dict[str, Any]]) -> str:
    plt = _pyplot()
    buckets = list(rows[0]["histogram"])
    fields = list(dict.fromkeys(r["field"] for r in rows))
    impls = list(dict.fromkeys(r["implementation"] for r in rows))
    colours = {impl: plt.cm.tab10(k % 10) for k, impl in enumerate(impls)}
    fig, axes = plt.subplots(1, len(fields), figsize=(4.6 * len(fields) + 1.8, 2.6), squeeze=False)
    for ax, f in zip(axes[0], fields):
        series = [r for r in rows if r["field"] == f]
        width = 0.8 / len(series)
        for k, row in enumerate(series):
            xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(buckets))]
            ax.bar(xs, [row["histogram"][b] or 0 for b in buckets], width=width,
                   color=colours[row["implementation"]],
                   label=f"{row['implementation']} (max {row['max']})")
        ax.set_xticks(range(len(buckets)), buckets, fontsize=7)
        ax.set_xlabel("ULPs from the correctly rounded exact value")
        ax.set_yscale("symlog")
        ax.set_title(f"{tool}: {f}")
        ax.legend(fontsize=6, loc="upper right")
    axes[0][0].set_ylabel("cases")
    return _svg(fig)


def to_html(report: dict[str, Any]) -> str:
    """``crosscheck.html``: a crosscheck report as one self-contained HTML page.

    Args:
        report: a ``bleu-compat-crosscheck/1`` report (:func:`~bleu_compat.harness.report.build_report`).

    Raises:
        HtmlUnavailable: matplotlib is not installed.
    """
    _pyplot()
    v = report["versions"]
    n_unexpected = report["unexpected_count"]
    body = [
        "<h1>bleu-compat crosscheck</h1>",
        f'<p id="run-id">Run <code>{_e(report.get("run_id", "unknown"))}</code> (crosscheck.json, '
        ".md, .junit.xml and .timing.json of the same run carry the same id).</p>",
        f"<p>Seed {_e(report['seed'])}; generated cases: "
        + _e(", ".join(f"{t} {n}" for t, n in report["cases"].items()))
        + f"; real corpora: {len(report['real'])}. Implementations: "
        + _e(", ".join(report["implementations"])) + ".</p>",
        "<p>Versions: " + _e(", ".join(f"{k} {x}" for k, x in v.items())) + ".</p>",
        f'<p id="verdict" class="{"unexpected" if n_unexpected else "ok"}">'
        f"UNEXPECTED differences: {n_unexpected}.</p>",
        f'<p id="too-broad-verdict" class="{"unexpected" if report.get("too_broad") else "ok"}">'
        f"Catalog entries too broad: {report.get('too_broad_count', 0)}.</p>",
    ]
    if report.get("judging"):  # a user's implementation against its target (issue 36)
        body.append('<h2 id="targets">Your implementations: target, allowances, verdict</h2>')
        body.append(_table(
            ["implementation", "target", "allowed", "verdict", "cases judged", "findings"],
            [[impl, j["target"] + (f" ({j['library']} {j['release']})" if j.get("library") else ""),
              ", ".join(j["allowed"]) or "nothing",
              _Raw(f'<span class="{"ok" if j["status"] == "pass" else "unexpected"}">'
                   f'{_e(j["status"].upper())}</span>'), j["judged"], j["failing"]]
             for impl, j in report["judging"].items()], numeric=(4, 5)))
        for j in report["judging"].values():
            body.append(f'<p class="{"ok" if j["status"] == "pass" else "unexpected"}">'
                        f"{_e(j['message'])}</p>")
        for g in report.get("finding_reproducers") or ():
            u = g["first"]
            body.append(f'<div class="case"><p>Finding: <b>{_e(u["case_id"])}</b> '
                        f'{_e(g["implementation"])} <code>{_e(g["field"])}</code>: target '
                        f'{_e(card_text(dict(u, field=g["field"]), str))}, got '
                        f'<span class="unexpected">{_e(u["library_value"])}</span></p>'
                        + (f"<pre>{_e(g['command'])}</pre>" if g.get("command") else "") + "</div>")
    body.append('<h2 id="summary">Summary per tool and implementation</h2>')
    if report["summary"]:
        body.append(_figure("chart-summary", "Cases per tool × implementation: agree, explained "
                            "(reproduced by catalog models), UNEXPECTED, not representable.",
                            _summary_chart(report["summary"])))
    rows = [[tool, impl, row["agree"], row["explained"],
             _Raw(f'<span class="unexpected">{row["unexpected"]}</span>') if row["unexpected"]
             else row["unexpected"], row["not_representable"]]
            for tool, impls in report["summary"].items() for impl, row in impls.items()]
    body.append(_table(["tool", "implementation", "agree", "explained", "UNEXPECTED",
                        "not representable"], rows, numeric=(2, 3, 4, 5)))
    if report.get("invalid"):
        body.append('<h2 id="invalid">Invalid requests (ours against the truth\'s SPEC.md §2 checks)</h2>')
        body.append(_table(["tool", "cases", "same error code and path", "UNEXPECTED"],
                           [[t, r["cases"], r["agree"], r["unexpected"]]
                            for t, r in report["invalid"].items()], numeric=(1, 2, 3)))
    body.append('<h2 id="entries">Catalog entries (differences reproduced by each entry\'s model)</h2>')
    if report["entries"]:
        body.append(_figure("chart-entries", "Differences per catalog entry ("
                            + _colour_legend() + ").", _entries_chart(report["entries"])))
        body.append(_table(
            ["entry", "count", "title", "example (case, implementation, field: card → value)"],
            [[e, row["count"], row["title"],
              f"{row['example'].get('case_id')}, {row['example'].get('implementation')}, "
              f"{row['example'].get('field')}: {_short(row['example'].get('card_value'))} → "
              f"{_short(row['example'].get('library_value'))}"]
             for e, row in report["entries"].items()], numeric=(1,)))
    else:
        body.append("<p>No difference was reproduced by a catalog entry.</p>")
    body.append('<h2 id="too-broad">Catalog entries too broad (model consistency)</h2>')
    if report.get("too_broad"):
        body.append(_table(
            ["entry", "tool", "implementation", "release", "cases", "first case", "entries on",
             "model gives", "library gives"],
            [[t["entry"], t["tool"], t["implementation"], t["example"].get("release"), t["count"],
              t["example"].get("case_id"), " + ".join(t["example"].get("with", ())),
              _short(t["example"].get("model")), _short(t["example"].get("library"))]
             for t in report["too_broad"]], numeric=(4,)))
    else:
        body.append("<p>None: every claimed entry is consistent with its library on every case.</p>")
    dec = report.get("decompositions") or {}
    body.append('<h2 id="decompositions">Decompositions (score --compare, checked independently)</h2>')
    body.append(f'<p id="decompositions-verdict" class="{"unexpected" if dec.get("failures") else "ok"}">'
                f"Checked: {_e(dec.get('checked', 0))}; failed checks: "
                f"{_e(len(dec.get('failures', ())))} (end states, factors, inert, telescoping, "
                "Shapley; <code>bleu_compat.harness.decomposition_check</code>).</p>")
    if dec.get("failures"):
        body.append(_table(["check", "pair", "corpus", "detail"],
                           [[f["check"], f["pair"], f.get("corpus"), _short(f["detail"])]
                            for f in dec["failures"]]))
    exact = report.get("exact_side") or {}
    body.append('<h2 id="exact-side">The truth\'s exact side, recomputed by a second route</h2>')
    body.append(f'<p id="exact-side-verdict" class="{"unexpected" if exact.get("findings") else "ok"}">'
                f"Cases: {_e(exact.get('checked', 0))}; aimed at its special ranges: "
                + _e(", ".join(f"{k} {n}" for k, n in exact.get("regimes", {}).items()) or "none")
                + f"; differing: {_e(len(exact.get('findings', ())))}.</p>")
    if exact.get("findings"):
        body.append(_table(["case", "field", "truth", "second route", "c", "r"],
                           [[f["case_id"], f["field"], _short(f["truth"]), _short(f["direct"]),
                             f.get("candidate_length"), f.get("reference_length")]
                            for f in exact["findings"]]))
    body.append('<h2 id="never-reproduced">Entries of the installed releases never reproduced</h2>')
    if report.get("never_reproduced"):
        body.append(_table(["entry", "library", "release", "reachable by the generators", "why not"],
                           [[n["entry"], n["library"], n["release"], "yes" if n["reachable"] else "no",
                             n["why"] or ""] for n in report["never_reproduced"]]))
    else:
        body.append("<p>None: every entry of the installed releases' dialects was reproduced.</p>")
    body.append('<h2 id="ulps">Floating-point accuracy: ULPs from the exact value</h2>')
    by_tool: dict[str, list[dict[str, Any]]] = {}
    for row in report["ulps_vs_exact"]:
        by_tool.setdefault(row["tool"], []).append(row)
    for k, (tool, rows_u) in enumerate(by_tool.items()):
        body.append(_figure(f"chart-ulps-{k}", f"{tool}: distance in ULPs of each unrounded float "
                            "to the correctly rounded exact value (symlog scale).",
                            _ulp_chart(tool, rows_u)))
    if not by_tool:
        body.append("<p>No float was measured.</p>")
    body.append('<h2 id="kinds">Kinds of difference</h2>')
    body.append(_table(["kind (tool | implementation | field | entries)", "count"],
                       [[k["name"], k["count"]] for k in report["kinds"]], numeric=(1,)))
    if report["not_representable"]:
        body.append('<h2 id="not-representable">Not representable</h2>')
        body.append(_table(["tool", "implementation", "reason", "cases"],
                           [[r["tool"], r["implementation"], r["reason"], r["count"]]
                            for r in report["not_representable"]], numeric=(3,)))
    if report["real"]:
        body.append('<h2 id="real">Real corpora (BLEU, 0–1 scale, full doubles)</h2>')
        impls = sorted({i for r in report["real"] for i in r["scores"]})
        body.append(_table(["corpus", "segments", "published"] + impls,
                           [[r["name"], r["segments"], r["published"]]
                            + [_short(r["scores"].get(i)) for i in impls] for r in report["real"]],
                           numeric=tuple(range(3, 3 + len(impls)))))
    tok = report.get("tokenizers") or {}
    if tok:
        body.append('<h2 id="tokenizers">Our tokenizers against their peers</h2>')
        body.append(_table(["tokenizer", "peer", "paths", "same"],
                           [[c["tokenizer"], c["peer"], ", ".join(c["paths"]),
                             "yes" if c["same"] else _Raw('<span class="unexpected">no</span>')]
                            for c in tok.get("checked", ())]
                           + [[n["tokenizer"], "not checked here", n["why"], "—"]
                              for n in tok.get("not_checked", ())]))
    body.append(f'<h2 id="unexpected">UNEXPECTED differences ({n_unexpected})</h2>')
    if not report["unexpected"]:
        body.append("<p>None: every difference is reproduced by a catalog entry's model.</p>")
    from .report import _case_list, group_reproducers

    groups = report.get("reproducers")
    if groups is None:
        groups = group_reproducers(report["unexpected"])
    for k, g in enumerate(groups):
        u = dict(g["first"], implementation=g["implementation"], field=g["field"],
                 reproducer=g["reproducer"], command=g["command"])
        cases = (f"{g['count']} cases ({_case_list(g)}); the first, " if g["count"] > 1 else "")
        near = u.get("nearest")
        near_text = ""
        if near and near.get("entries"):
            dialect = f"{near['dialect']} with " if near.get("dialect") else ""
            near_text = (f"<p>No dialect reproduces it; the nearest, {_e(dialect)}"
                         f"{_e(' + '.join(near['entries']))}, gives {_e(near.get('value'))}.</p>")
        elif near:
            near_text = ("<p>No dialect reproduces it; the nearest is the card itself "
                         f"({_e(near.get('value'))}).</p>")
        body.append(
            f'<div class="case" id="unexpected-{k}"><p>{_e(cases)}<b>{_e(u["case_id"])}</b> '
            f'{_e(u["implementation"])} <code>{_e(u["field"])}</code>: card {_e(card_text(u, str))}, '
            f'got <span class="unexpected">{_e(u["library_value"])}</span>'
            + (f" ({u['ulps']} ULPs)" if isinstance(u.get("ulps"), int) else "") + "</p>"
            + near_text
            + ("<p>Minimal reproducer (shrunk):</p>" + _json_block(u["reproducer"])
               if u.get("reproducer") is not None else
               f"<p>{_e(u.get('token_check') or u.get('self_check'))}</p>"
               if u.get("token_check") or u.get("self_check") else
               "<p>(real corpus: no shrunk reproducer)</p>")
            + (f"<p>Run it through ours:</p><pre>{_e(u['command'])}</pre>" if u.get("command") else "")
            + "</div>")
    return _page("bleu-compat crosscheck", body)


def _short(v: Any) -> str:
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    return text if len(text) <= 100 else text[:97] + "…"


# --- score --compare --html ---------------------------------------------------------

#: a bar shorter than this share of its axis would be a sliver: it gets a marker instead
TINY_SHARE = 0.01
_UP, _DOWN, _FLAT = "#4c9a2a", "#d62728", "#777777"
#: at most this many spikes in a chart of each line's effect (wider than the chart's pixels)
SPIKE_COLUMNS = 500


def _wrap(name: str) -> str:
    return name.replace(" / ", " /\n")


def waterfall_svg(start_label: str, start: float, steps: Sequence[dict[str, Any]], end_label: str,
                  end: float, start_value: str = "", end_value: str = "") -> str:
    """A waterfall chart (inline SVG): ``start``, each step of the chain, the end value.

    Args:
        start_label, end_label: the two configurations' names; start, end: their numbers
            (0–100 scale); start_value, end_value: those numbers as the text prints them.
        steps: ``{"cause", "after", "contribution", "label"}`` in chain order: the score
            after the step and the step (points, 0–100), ``label`` the step as the text
            prints it.

    The axis spans the levels the chain passes through (not 0–100): each step's bar is
    drawn to scale and labelled with its value; a step shorter than :data:`TINY_SHARE`
    of the axis (a floating-point order, +0) is a triangle (up or down) or a dot (0) at
    its level with its value beside it, never an invisible sliver.
    """
    plt = _pyplot()
    levels = [start] + [x["after"] for x in steps] + [end]
    lo, hi = min(levels), max(levels)
    span = hi - lo
    # a quarter of the span each side; a span at floating-point noise gets a millionth of
    # the score instead (the steps are then markers, their values beside them)
    pad = max(0.25 * span, 1e-6 * max(1.0, abs(hi)))
    bottom, top = lo - pad, hi + pad
    tiny = TINY_SHARE * 1.12 * (top - bottom)  # of the axis drawn (set_ylim below)
    labels = [start_label] + [_wrap(x["cause"]) for x in steps] + [end_label]
    fig, ax = plt.subplots(figsize=(max(7.0, 1.6 * len(labels)), 3.8))
    ax.bar(0, start - bottom, bottom=bottom, color=_FLAT, width=0.6)
    ax.text(0, start + 0.02 * (top - bottom), start_value or f"{start:.6f}", ha="center",
            va="bottom", fontsize=8)
    level = start
    for i, x in enumerate(steps, start=1):
        d, after = x["contribution"], x["after"]
        colour = _UP if d > 0 else _DOWN if d < 0 else _FLAT
        ax.plot([i - 1.3, i - 0.3], [level, level], color="#999999", linewidth=0.7, linestyle=":")
        if abs(after - level) >= tiny:
            ax.bar(i, abs(after - level), bottom=min(level, after), color=colour, width=0.6)
            ax.text(i, max(level, after) + 0.02 * (top - bottom), x["label"], ha="center",
                    va="bottom", fontsize=8)
        else:  # too small to draw to scale: a marker at its level, its value beside it
            ax.plot([i], [after], marker="^" if d > 0 else "v" if d < 0 else "o", color=colour,
                    markersize=9, markeredgecolor="#222222", markeredgewidth=0.6)
            ax.text(i, after + 0.05 * (top - bottom), x["label"], ha="center", va="bottom",
                    fontsize=8, color="#222222",
                    bbox={"boxstyle": "round,pad=0.2", "facecolor": "#fff6cc", "edgecolor": colour,
                          "linewidth": 0.6})
        level = after
    n = len(labels) - 1
    ax.plot([n - 1.3, n - 0.3], [level, level], color="#999999", linewidth=0.7, linestyle=":")
    ax.bar(n, end - bottom, bottom=bottom, color="#3b75af", width=0.6)
    ax.text(n, end + 0.02 * (top - bottom), end_value or f"{end:.6f}", ha="center", va="bottom",
            fontsize=8)
    ax.set_ylim(bottom, top + 0.12 * (top - bottom))
    ax.ticklabel_format(axis="y", useOffset=False, style="plain")
    ax.set_xticks(range(len(labels)), labels, rotation=15, ha="right", fontsize=8)
    ax.set_xlim(-0.6, n + 0.6)
    ax.set_ylabel("BLEU (0–100)")
    fig.tight_layout()
    return _svg(fig)


def _hbars(ax: Any, names: Sequence[str], values: Sequence[float], labels: Sequence[str],
           colours: Sequence[str], zero_line: bool) -> None:
    """Horizontal bars with their values as labels; a bar shorter than TINY_SHARE of the
    axis is a marker at its end (the label still beside it)."""
    lo, hi = min(0.0, *values), max(0.0, *values)
    if hi == lo:
        hi, lo = 1.0, -1.0
    span = hi - lo
    left, right = lo - 0.05 * span - (0.45 * span if lo < 0 else 0), hi + 0.45 * span
    ax.set_xlim(left, right)
    for i, (v, text, colour) in enumerate(zip(values, labels, colours)):
        if abs(v) >= TINY_SHARE * (right - left):
            ax.barh(i, v, color=colour, height=0.6)
        else:
            ax.plot([v], [i], marker=">" if v > 0 else "<" if v < 0 else "o", color=colour,
                    markersize=8, markeredgecolor="#222222", markeredgewidth=0.6)
        ax.text(max(v, 0.0) + 0.02 * span if v >= 0 or not zero_line else v - 0.02 * span, i,
                text, va="center", ha="left" if v >= 0 or not zero_line else "right", fontsize=8)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    if zero_line:
        ax.axvline(0, color="#222222", linewidth=0.8)


def _configurations_chart(bars: Sequence[Sequence[Any]]) -> str:
    """Each configuration's BLEU (0–100), labelled as the text prints it."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(bars) + 1.0))
    _hbars(ax, [b[0] for b in bars], [b[1] for b in bars], [b[2] for b in bars],
           ["#3b75af"] * len(bars), zero_line=False)
    ax.set_xlabel("BLEU (0–100)")
    fig.tight_layout()
    return _svg(fig)


def _gap_chart(card: float, libs: Sequence[Sequence[Any]], labels: Sequence[str]) -> str:
    """Each library's gap to the card on the same tokens (points), labelled as the text
    prints it; a gap too small to draw to scale is a marker with its value."""
    plt = _pyplot()
    diffs = [s - card for _, s in libs]
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(libs) + 1.0))
    _hbars(ax, [n for n, _ in libs], diffs, labels,
           [_UP if d > 0 else _DOWN if d < 0 else _FLAT for d in diffs], zero_line=True)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(5))
    ax.ticklabel_format(axis="x", useOffset=False)
    ax.set_xlabel("library − card (BLEU points)")
    fig.tight_layout()
    return _svg(fig)


def _segments_chart(cause: str, effects: Sequence[Sequence[float]], top: int = 20) -> str:
    """Left: each line's effect on ``cause`` (the step made for that line alone, points)
    by line number, the five largest named (:data:`SPIKE_COLUMNS` at most: beyond, one
    spike per column of neighbouring lines, from their lowest effect to their highest);
    right: the ``top`` largest, ranked."""
    plt = _pyplot()
    import math

    by_line = sorted(effects)
    xs: list[float] = []
    ys: list[float] = []
    # one path of spikes (a bar per line would be thousands of elements); beyond
    # SPIKE_COLUMNS lines, one spike per column of lines from its lowest to its highest
    # effect: what a chart this wide can show, at a tenth of the size
    columns: dict[int, list[float]] = {}
    first, last = by_line[0][0], by_line[-1][0]
    per = max(1, math.ceil((last - first + 1) / SPIKE_COLUMNS))
    for line, e in by_line:
        columns.setdefault((line - first) // per, []).append(e)
    for col, values in sorted(columns.items()):
        x = first + col * per + (per - 1) / 2
        xs += [x, x, math.nan]
        ys += [min(0.0, *values), max(0.0, *values), math.nan]
    fig, (ax, ranked) = plt.subplots(1, 2, figsize=(11, 3.6), gridspec_kw={"width_ratios": [3, 2]})
    ax.plot(xs, ys, color="#3b75af", linewidth=0.8)
    ax.axhline(0, color="#222222", linewidth=0.6)
    width = max(1, by_line[-1][0] - by_line[0][0]) if by_line else 1
    named: list[float] = []
    for k, (line, e) in enumerate(effects[:5]):  # staggered: neighbouring lines stay legible
        if any(abs(line - other) < 0.03 * width for other in named):
            continue  # a number drawn over another helps no one: the ranked panel has it
        named.append(line)
        ax.annotate(str(line), (line, e), xytext=(4 * (k % 2) - 2, (3 + 8 * (k % 3)) * (1 if e >= 0 else -1)),
                    textcoords="offset points", fontsize=7, ha="center",
                    va="bottom" if e >= 0 else "top", color="#d62728")
    ax.set_xlabel("input line")
    ax.set_ylabel("effect of the line alone (points)")
    ax.ticklabel_format(axis="y", useOffset=False)
    ax.set_title(f"{cause}: every line behind it ({len(effects)})", fontsize=8)
    head = list(effects[:top])
    ranked.barh(range(len(head)), [e for _, e in head],
                color=[_UP if e > 0 else _DOWN if e < 0 else _FLAT for _, e in head], height=0.7)
    ranked.set_yticks(range(len(head)), [f"line {line}" for line, _ in head], fontsize=7)
    ranked.invert_yaxis()
    ranked.axvline(0, color="#222222", linewidth=0.6)
    from matplotlib.ticker import MaxNLocator

    ranked.xaxis.set_major_locator(MaxNLocator(4))
    ranked.set_xlabel("points")
    ranked.set_title(f"the {len(head)} lines that move it most", fontsize=8)
    fig.tight_layout()
    return _svg(fig)


def _list(items: Sequence[str], cls: str = "") -> str:
    if not items:
        return ""
    c = f' class="{cls}"' if cls else ""
    return f"<ul{c}>" + "".join(f"<li>{_e(x)}</li>" for x in items) + "</ul>"


def _cmp_table(rows: Sequence[Sequence[str]], numeric: Sequence[int], table_id: str) -> str:
    head, body = rows[0], rows[1:]
    marked = [[_Raw(f'<span class="unexpected">{_e(cell)}</span>') if cell == "UNEXPECTED" else cell
               for cell in row] for row in body]
    return f'<div id="{table_id}">' + _table(head, marked, numeric=numeric) + "</div>"


def _largest(pair: dict[str, Any]) -> str:
    """``"; largest cause: tokenization (-4.915795)"`` from the pair's ranked table, or a
    word on why there is none."""
    if "unexpected" in pair:
        return '; <span class="unexpected">UNEXPECTED</span>'
    if "not_decomposable" in pair:
        return "; not decomposable"
    rows = pair["parts"]["rows"]
    if rows is None:
        return "; no cause of 1e-9 points or more" if pair["parts"]["chain"] else "; the same number"
    return f"; largest cause: {_e(rows[1][0])} ({_e(rows[1][2] if rows[1][2] != '-' else rows[1][3])})"


def compare_to_html(doc: dict[str, Any]) -> str:
    """``score --compare --html FILE``: the comparison as one self-contained HTML page.

    Args:
        doc: :func:`bleu_compat.cli.score.html_output.page_doc`'s dict: ``configurations_title``,
            ``parity_title``, ``unexpected`` and ``systems``, each with ``name``,
            ``report`` (the number to report: ``BLEU``, ``signature``, ``implementation``,
            ``configuration``, optional ``warning``; or ``why``), ``configurations``
            (``rows``: the text's table, header first; ``words``, ``mismatches``:
            sentences; ``bars``: ``[name, points, label]``), ``pairs`` (``from``, ``to``,
            ``head``; ``unexpected`` or ``not_decomposable`` (a sentence), or ``parts``
            (:func:`~bleu_compat.cli.score.compare_render.decomposition_parts`),
            ``waterfall`` (``start``, ``end``, ``start_label``, ``end_label``, ``steps``)
            and ``segments`` (``[{"cause", "note", "largest", "effects": [[line, points]]}]``,
            ranked)), and ``parity`` (``rows``, ``notes``, ``card`` and ``libraries``:
            ``[label, score or None]``). Every sentence and table cell is the text
            output's own string; the charts draw the numbers beside them.

    Raises:
        HtmlUnavailable: matplotlib is not installed.
    """
    _pyplot()
    body = ["<h1>bleu-compat score --compare</h1>",
            "<p>Each configuration's number as its implementation computes it, the number to "
            "report, each gap between two configurations decomposed into named causes (ranked "
            "by the size of their Shapley value, the chain of steps as a waterfall, the input "
            "lines behind each cause), and the libraries against the card on the same tokens. "
            "BLEU on the 0–100 scale. The same content as the text output.</p>",
            f'<p id="verdict" class="{"unexpected" if doc["unexpected"] else "ok"}">'
            + ("Some difference is UNEXPECTED." if doc["unexpected"]
               else "Every difference is reproduced by a catalog entry.") + "</p>"]
    for k, system in enumerate(doc["systems"]):
        body.append(f'<h2 id="system-{k}">{_e(system["name"])}</h2>')
        rep = system["report"]
        body.append(f'<h3 id="report-{k}">To report</h3>')
        if rep.get("configuration") is None:
            body.append(f"<p>{_e(rep['why'])}</p>")
        else:
            body.append(f'<p class="report">BLEU = <b class="headline">{_e(rep["BLEU"])}</b> '
                        f'<code>{_e(rep["signature"])}</code> ({_e(rep["implementation"])}, '
                        f'configuration {_e(rep["configuration"])})</p>')
            if rep.get("warning"):
                body.append(f'<p class="warning">WARNING: {_e(rep["warning"])}</p>')
        conf = system["configurations"]
        body.append(f'<h3 id="configurations-{k}">{_e(doc["configurations_title"])}</h3>')
        body.append(_figure(f"chart-configurations-{k}", "Each configuration's BLEU (0–100), "
                            "its implementation's own number.", _configurations_chart(conf["bars"])))
        body.append(_cmp_table(conf["rows"], (1,), f"configurations-table-{k}"))
        body.append(_list(conf["words"]))
        body.append(_list(conf["mismatches"], "unexpected"))
        if len(system["pairs"]) > 1:  # an index: the page of eleven configurations has 55 pairs
            body.append(f'<p id="pairs-{k}">The gaps between the configurations (each links to '
                        "its decomposition; the largest cause by the size of its Shapley "
                        "value):</p><ul class=\"index\">" + "".join(
                            f'<li><a href="#pair-{k}-{j}">{_e(pair["head"])}</a>'
                            + _largest(pair) + "</li>"
                            for j, pair in enumerate(system["pairs"])) + "</ul>")
        for j, pair in enumerate(system["pairs"]):
            body.append(f'<h3 id="pair-{k}-{j}">{_e(pair["from"])} → {_e(pair["to"])}</h3>')
            if "unexpected" in pair:
                body.append(f'<p class="unexpected">{_e(pair["unexpected"])}</p>')
                continue
            if "not_decomposable" in pair:
                body.append(f"<p>{_e(pair['not_decomposable'])}</p>")
                continue
            parts = pair["parts"]
            body.append(f"<p>{_e(parts['intro'])}</p>")
            if parts["rows"] is not None:
                body.append(_cmp_table(parts["rows"], (2, 3, 4), f"causes-{k}-{j}"))
            body.append(_list([x for x in (parts["empty"], parts["folded"]) if x], "folded"))
            w = pair["waterfall"]
            if w["steps"]:
                body.append(_figure(
                    f"chart-waterfall-{k}-{j}",
                    "The chain, one factor at a time in its order: each step drawn to scale and "
                    "labelled with its value in points (green up, red down); a step too small "
                    "to draw (under 1% of the axis) is a triangle or a dot with its value in a "
                    "yellow box. The axis spans the levels the chain passes through, not 0–100.",
                    waterfall_svg(pair["from"], w["start"], w["steps"], pair["to"], w["end"],
                                  w["start_label"], w["end_label"])))
            body.append(_list([parts["chain"]] if parts["chain"] else []))
            body.append(_list(parts["notes"], "notes"))
            body.append(_list(parts["lines"]))
            for m, seg in enumerate(pair.get("segments", ())):
                which = "the largest cause" if seg["largest"] else "a cause"
                body.append(_figure(
                    f"chart-segments-{k}-{j}-{m}",
                    f"Each input line's effect on {seg['cause']}, {which} of this gap "
                    f"({seg['note']}): the step made for that line alone, in points, by "
                    "line number (left; the largest numbered where the numbers do not overlap; "
                    f"beyond {SPIKE_COLUMNS} lines, one spike per column of neighbouring lines) "
                    "and the largest ranked (right).", _segments_chart(seg["cause"], seg["effects"])))
        par = system["parity"]
        body.append(f'<h3 id="parity-{k}">{_e(doc["parity_title"])}</h3>')
        libs = [(label, score) for label, score in par["libraries"] if score is not None]
        if libs:
            labels = [row[2] for row in par["rows"][2:] if row[1] != "-"]
            body.append(_figure(f"chart-gaps-{k}", "Each library's gap to the card on the "
                                "same tokens, in points, labelled as in the table; a gap too "
                                "small to draw to scale is a marker.",
                                _gap_chart(par["card"], libs, labels)))
        body.append(_cmp_table(par["rows"], (1, 2, 3), f"parity-table-{k}"))
        body.append(_list(par["notes"]))
    return _page("bleu-compat score --compare", body)
