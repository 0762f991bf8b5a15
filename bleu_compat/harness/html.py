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
* :func:`compare_to_html` renders ``score --compare``: per system the card's
  BLEU and each library's (chart and table) and each difference with the
  catalog entries that reproduce it. A system whose ``compare`` data has a
  ``decomposition`` (the gap split into named causes, issue 13) also gets a
  waterfall chart and the input lines behind each cause.

Raises :class:`HtmlUnavailable` when matplotlib is not installed
(``pip install 'bleu-compat[html]'``).
"""

from __future__ import annotations

import html
import io
import json
import re
from typing import Any, Sequence

__all__ = ["HtmlUnavailable", "to_html", "compare_to_html", "waterfall_svg"]

OUTCOME_COLOURS = {"agree": "#4c9a2a", "explained": "#3b75af", "unexpected": "#d62728",
                   "not_representable": "#b0b0b0"}


class HtmlUnavailable(RuntimeError):
    """matplotlib, which draws the charts, is not installed."""


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as exc:
        raise HtmlUnavailable("matplotlib is not installed (pip install 'bleu-compat[html]')") from exc
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
        '<h2 id="summary">Summary per tool and implementation</h2>',
    ]
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
            f'{_e(u["implementation"])} <code>{_e(u["field"])}</code>: card {_e(u["card_value"])}, '
            f'got <span class="unexpected">{_e(u["library_value"])}</span>'
            + (f" ({u['ulps']} ULPs)" if isinstance(u.get("ulps"), int) else "") + "</p>"
            + near_text
            + ("<p>Minimal reproducer (shrunk):</p>" + _json_block(u["reproducer"])
               if u.get("reproducer") is not None else "<p>(real corpus: no shrunk reproducer)</p>")
            + (f"<p>Run it through ours:</p><pre>{_e(u['command'])}</pre>" if u.get("command") else "")
            + "</div>")
    return _page("bleu-compat crosscheck", body)


def _short(v: Any) -> str:
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    return text if len(text) <= 100 else text[:97] + "…"


# --- score --compare --html ---------------------------------------------------------


def waterfall_svg(start_label: str, start: float, causes: Sequence[dict[str, Any]], end_label: str) -> str:
    """A waterfall chart (inline SVG): ``start``, each cause's contribution, the end value.

    Args:
        start_label, end_label: names of the two scores (e.g. ``"bleu-compat"``, ``"NLTK"``).
        start: the first score (0–100 scale); causes: ``{"cause", "contribution"}`` in
            order, contributions in points that add up to end − start.
    """
    plt = _pyplot()
    labels = [start_label] + [c["cause"] for c in causes] + [end_label]
    fig, ax = plt.subplots(figsize=(max(5, 1.1 * len(labels)), 3.2))
    level = start
    ax.bar(0, start, color="#777777")
    for i, c in enumerate(causes, start=1):
        d = c["contribution"]
        ax.bar(i, abs(d), bottom=min(level, level + d), color="#4c9a2a" if d >= 0 else "#d62728")
        level += d
    ax.bar(len(labels) - 1, level, color="#3b75af")
    ax.set_xticks(range(len(labels)), labels, rotation=20, ha="right")
    ax.set_ylabel("BLEU (0–100)")
    return _svg(fig)


def _scores_chart(system: str, card: float, libs: list[tuple[str, float]]) -> str:
    """Left: BLEU per implementation; right: each library's gap to the card, in points."""
    plt = _pyplot()
    names = ["bleu-compat (card)"] + [n for n, _ in libs]
    values = [card] + [s for _, s in libs]
    fig, (ax, gap) = plt.subplots(1, 2, figsize=(10, 0.45 * len(names) + 1.1),
                                  gridspec_kw={"width_ratios": [1, 1]})
    ax.barh(range(len(names)), values, color=["#777777"] + ["#3b75af"] * len(libs))
    for i, value in enumerate(values):
        ax.text(value, i, f" {value:.4f}", va="center", fontsize=8)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlabel("BLEU (0–100)")
    ax.set_title(system, fontsize=8)
    diffs = [s - card for _, s in libs]
    gap.barh(range(len(libs)), diffs, color=["#4c9a2a" if d >= 0 else "#d62728" for d in diffs])
    for i, d in enumerate(diffs):
        gap.text(d, i, f" {d:+.3g}", va="center", fontsize=8)
    gap.axvline(0, color="#222222", linewidth=0.8)
    from matplotlib.ticker import MaxNLocator

    gap.xaxis.set_major_locator(MaxNLocator(4))
    gap.margins(x=0.35)
    gap.set_yticks(range(len(libs)), [n for n, _ in libs])
    gap.invert_yaxis()
    gap.set_xlabel("library − card (BLEU points)")
    gap.set_title("gap to the card", fontsize=8)
    fig.tight_layout()
    return _svg(fig)


def compare_to_html(doc: dict[str, Any]) -> str:
    """``score --compare --html FILE``: the comparison as one self-contained HTML page.

    Args:
        doc: ``score --compare --format json``'s document: ``versions`` and
            ``systems``, each with ``name``/``bleu`` and ``compare`` (``card``,
            ``unexpected``, ``libraries`` with ``score`` on the 0–100 scale and
            ``differences`` with their ``explanations``); optionally
            ``compare["decomposition"]``: a list of ``{"from", "to", "start",
            "causes": [{"cause", "contribution", "lines"}]}`` (0–100 points).

    Raises:
        HtmlUnavailable: matplotlib is not installed.
    """
    _pyplot()
    from bleu_compat.libraries.registry import libraries

    names = {lib.name: lib.display_name for lib in libraries()}
    versions = ", ".join(f"{names.get(k, k)} {x}" for k, x in doc.get("versions", {}).items())
    body = ["<h1>bleu-compat score --compare</h1>",
            f"<p>The same tokens through each library as its users call it ({_e(versions)}). "
            "BLEU on the 0–100 scale; ULPs on the card's 0–1 scale.</p>"]
    any_unexpected = False
    for k, system in enumerate(doc["systems"]):
        c = system.get("compare")
        if c is None:
            continue
        any_unexpected |= bool(c["unexpected"])
        card = 100 * c["card"]["bleu"]
        title = system.get("name") or system.get("system") or f"system {k + 1}"
        body.append(f'<h2 id="system-{k}">{_e(title)}</h2>')
        libs = [(f"{names.get(lib['library'], lib['library'])} {lib['version']}", lib["score"])
                for lib in c["libraries"] if isinstance(lib.get("score"), (int, float))]
        body.append(_figure(f"chart-scores-{k}", "BLEU per implementation (0–100) and each "
                            "library's gap to the card in points.",
                            _scores_chart(title, card, libs)))
        rows = [["bleu-compat (card)", _short(card), "", ""]]
        for lib in c["libraries"]:
            verdict = ("identical" if not lib["differences"] else
                       "UNEXPECTED" if any(d["unexpected"] for d in lib["differences"]) else "explained")
            score = lib.get("score")
            rows.append([f"{names.get(lib['library'], lib['library'])} {lib['version']}",
                         _short(score) if score is not None else "-",
                         f"{score - card:+.6g}" if isinstance(score, (int, float)) else "",
                         _Raw(f'<span class="unexpected">{verdict}</span>') if verdict == "UNEXPECTED"
                         else verdict])
        body.append(_table(["implementation", "BLEU", "diff (points)", "verdict"], rows, numeric=(1, 2)))
        diff_rows = []
        for lib in c["libraries"]:
            for d in lib["differences"]:
                why = ("; ".join(f"{e['id']}: {e.get('facts') or e['title']}" for e in d["explanations"])
                       or "UNEXPECTED: no catalog entry reproduces it")
                diff_rows.append([names.get(lib["library"], lib["library"]), d["field"],
                                  _short(d["card_value"]), _short(d["library_value"]),
                                  d["ulps"] if d["ulps"] is not None else "", why])
        if diff_rows:
            body.append(_table(["library", "field", "card", "library", "ULPs", "reproduced by"], diff_rows))
        for j, dec in enumerate(c.get("decomposition") or ()):
            body.append(f"<h3>Gap {_e(dec['from'])} → {_e(dec['to'])}, decomposed</h3>")
            body.append(_figure(f"chart-waterfall-{k}-{j}", "Each cause's contribution in points.",
                                waterfall_svg(dec["from"], dec["start"], dec["causes"], dec["to"])))
            body.append(_table(["cause", "contribution (points)", "input lines"],
                               [[x["cause"], f"{x['contribution']:+.6f}",
                                 ", ".join(str(n) for n in x.get("lines", ())[:50])
                                 + (" …" if len(x.get("lines", ())) > 50 else "")]
                                for x in dec["causes"]], numeric=(1,)))
    body.insert(2, f'<p id="verdict" class="{"unexpected" if any_unexpected else "ok"}">'
                + ("Some difference is UNEXPECTED." if any_unexpected
                   else "Every difference is reproduced by a catalog entry.") + "</p>")
    return _page("bleu-compat score --compare", body)
