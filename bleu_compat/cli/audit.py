"""Command ``audit``: which configuration gives each number of a results table (issue 33).

``bleu-compat audit TABLE`` reads a TSV or CSV table (columns ``score``, ``hypothesis``,
``references``; ``label`` and ``scale`` optional: :mod:`bleu_compat.audit`), checks every
row first, then for each row lists the configurations whose number is its score (most
common first, as ``identify`` ranks them) or "none" with the closest numbers. Output:
``--format text`` (one line per row, then ``N of M reproduced``), ``json``, ``markdown`` or
``html`` on standard output, and ``--json``/``--markdown``/``--html FILE`` written whole or
not at all (:mod:`bleu_compat.atomic`). Exit 0 when every row is reproduced, 1 when some
row is not, 2 on bad input (one line naming the row and the column; nothing written).
``--cluster ADDRESS`` spreads the rows over Dask, rows that share files together, with the
same output.
"""

from __future__ import annotations

import argparse
import contextlib
import html
import json
import sys
import tempfile
from typing import IO, Any, Iterator

from bleu_compat.cli.usage import report_usage_errors

__all__ = ["register", "cmd_audit"]


def register(subparsers: Any) -> None:
    """Add the ``audit`` command."""
    p = subparsers.add_parser(
        "audit", help="which configuration gives each number of a results table",
        description=(
            "For each row of TABLE (TSV or CSV; a header naming score, hypothesis and "
            "references, optionally label and scale; reference paths separated by ';' or "
            "spaces, relative to the table's folder), the configurations whose own number "
            "on the row's files is its score, most common first (as identify searches and "
            "ranks them), or none with the closest numbers. Every row is checked before "
            "anything is computed. Exit 0 when every row is reproduced, 1 when some row is "
            "not, 2 on bad input."),
    )
    p.add_argument("table", metavar="TABLE", help="the table (.tsv: tab-separated, .csv: commas)")
    p.add_argument("--format", choices=("text", "json", "markdown", "html"), default="text",
                   help="standard output's format (text: one line per row, then 'N of M reproduced')")
    p.add_argument("--json", metavar="FILE", help="also write the JSON report to FILE")
    p.add_argument("--markdown", metavar="FILE", help="also write the Markdown report to FILE")
    p.add_argument("--html", metavar="FILE", help="also write the HTML page to FILE")
    reading = p.add_mutually_exclusive_group()
    reading.add_argument("--exact", dest="exact", action="store_const", const=True, default=None,
                         help="every score is a double: match it exactly")
    reading.add_argument("--rounded", dest="exact", action="store_const", const=False,
                         help="every score is rounded at its decimals, however many it has")
    p.add_argument("--top", type=_positive, default=None, metavar="N",
                   help="configurations listed per row (default 10; every one is counted)")
    p.add_argument("--cluster", metavar="ADDRESS", default=None,
                   help="run the rows on Dask: local, local:N or a scheduler address "
                        "(rows sharing a hypothesis file run together)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (there is one on a terminal)")
    p.set_defaults(func=cmd_audit)
    report_usage_errors(p)


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= n <= 10_000:
        raise argparse.ArgumentTypeError(f"{text}: between 1 and 10000")
    return n


def _error(message: str) -> int:
    print(f"bleu-compat audit: {' '.join(message.split())}", file=sys.stderr)
    return 2


# ----------------------------------------------------------------------------- renderers


def _short(row: dict[str, Any]) -> str:
    """``row 3 (en-cs ONLINE-W bleu-all)``"""
    return f"row {row['row']}" + (f" ({row['label']})" if row["label"] else "")


def _refs_note(m: dict[str, Any]) -> str:
    return "" if m["all_references"] else f" [references: {', '.join(m['references'])} only]"


def _number(x: float) -> str:
    from bleu_compat.jsonio import js_number_str

    return js_number_str(x)


def _config(m: dict[str, Any]) -> str:
    return f"{m['spec']} ({m['implementation']} {m['release_label']}){_refs_note(m)}"


def verdict(row: dict[str, Any]) -> str:
    """The row's answer in words: the first configuration and how many more, or none and
    the closest."""
    if row["reproduced"]:
        more = row["n_matches"] - 1
        return f"{_config(row['matches'][0])}" + (f" and {more} more" if more else "")
    closest = "; ".join(f"{_number(m['number'])} {_config(m)}" for m in row["closest"])
    return "none" + (f"; closest: {closest}" if closest else "")


class _Text:
    def __init__(self, out: IO[str]) -> None:
        self.out = out

    def start(self, table: str, total: int) -> None:
        pass

    def row(self, r: dict[str, Any]) -> None:
        self.out.write(f"{_short(r)} {r['score']}: {verdict(r)}\n")
        self.out.flush()

    def finish(self, reproduced: int, total: int, notes: list[str]) -> None:
        self.out.write(f"{reproduced} of {total} reproduced\n")


class _Json:
    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.first = True

    def start(self, table: str, total: int) -> None:
        self.out.write('{"table": ' + json.dumps(table, ensure_ascii=False) + ', "rows": [')

    def row(self, r: dict[str, Any]) -> None:
        from bleu_compat.jsonio import dumps_js

        self.out.write(("\n  " if self.first else ",\n  ") + dumps_js(r))
        self.first = False

    def finish(self, reproduced: int, total: int, notes: list[str]) -> None:
        self.out.write("\n], " + f'"reproduced": {reproduced}, "rows_total": {total}, '
                       + '"not_searched": ' + json.dumps(notes, ensure_ascii=False) + "}\n")


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


class _Markdown:
    def __init__(self, out: IO[str]) -> None:
        self.out = out

    def start(self, table: str, total: int) -> None:
        self.out.write(f"# bleu-compat audit of `{_md(table)}`\n\n"
                       "| row | label | score | reproduced | configurations (most common first) |\n"
                       "|---:|---|---:|---|---|\n")

    def row(self, r: dict[str, Any]) -> None:
        yes = "yes" if r["reproduced"] else "**no**"
        self.out.write(f"| {r['row']} | {_md(r['label'])} | {_md(r['score'])} | {yes} | "
                       f"{_md(verdict(r))} |\n")

    def finish(self, reproduced: int, total: int, notes: list[str]) -> None:
        for note in notes:
            self.out.write(f"\nNot searched: {_md(note)}\n")
        self.out.write(f"\n{reproduced} of {total} reproduced\n")


_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1200px;color:#222;padding:0 1em}
h1{font-size:1.4em}table{border-collapse:collapse;font-size:.85em;margin:1em 0}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}.no{color:#d62728;font-weight:bold}
.yes{color:#4c9a2a}.summary{font-size:1.2em}ul.notes li{color:#8a4b00;font-size:.85em}
code{font-size:.9em}
"""


class _Html:
    """The page: a summary, then one table row per row (spooled to a temporary file, so the
    page's summary can come first with bounded memory)."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.spool = tempfile.TemporaryFile("w+", encoding="utf-8")
        self.table = ""

    def start(self, table: str, total: int) -> None:
        self.table = table

    def row(self, r: dict[str, Any]) -> None:
        e = html.escape
        yes = '<span class="yes">yes</span>' if r["reproduced"] else '<span class="no">no</span>'
        configs = "".join(
            f"<li><code>{e(m['spec'])}</code> {e(m['implementation'])} {e(m['release_label'])}: "
            f"{e(_number(m['number']))}{e(_refs_note(m))}</li>" for m in r["matches"])
        if r["reproduced"] and r["n_matches"] > len(r["matches"]):
            configs += f"<li>... and {r['n_matches'] - len(r['matches'])} more</li>"
        if not r["reproduced"]:
            configs = "<li>none; closest:</li>" + "".join(
                f"<li><code>{e(m['spec'])}</code> {e(m['implementation'])} "
                f"{e(m['release_label'])}: {e(_number(m['number']))}{e(_refs_note(m))}</li>"
                for m in r["closest"])
        for m in r["unscored"]:
            configs += (f"<li>not an answer: <code>{e(m['spec'])}</code> would give "
                        f"{e(_number(m['number']))}, but its library does not score these "
                        f"files: {e(m['does'])}</li>")
        files = e(r["hypothesis"]) + " vs " + e(", ".join(r["references"]))
        self.spool.write(f"<tr><td class=\"n\">{r['row']}</td><td>{e(r['label'])}</td>"
                         f"<td class=\"n\">{e(r['score'])}</td><td>{yes}</td>"
                         f"<td><ul>{configs}</ul></td><td>{files}<br><small>{e(r['read'])}"
                         "</small></td></tr>\n")

    def finish(self, reproduced: int, total: int, notes: list[str]) -> None:
        e = html.escape
        title = f"bleu-compat audit of {self.table}"
        self.out.write("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                       f"<title>{e(title)}</title><style>{_STYLE}</style></head><body>\n"
                       f"<h1>{e(title)}</h1>\n<p class=\"summary\">{reproduced} of {total} "
                       "reproduced</p>\n<p>Each row's score against every registered BLEU "
                       "implementation's configurations (its own number, on the scale it "
                       "prints), most common first. Made by <code>bleu-compat audit</code>."
                       "</p>\n<table><thead><tr><th>row</th><th>label</th><th>score</th>"
                       "<th>reproduced</th><th>configurations</th><th>files</th></tr></thead>"
                       "<tbody>\n")
        self.spool.seek(0)
        while True:
            chunk = self.spool.read(1 << 16)
            if not chunk:
                break
            self.out.write(chunk)
        self.spool.close()
        self.out.write("</tbody></table>\n")
        if notes:
            self.out.write("<h2>Not searched</h2><ul class=\"notes\">"
                           + "".join(f"<li>{e(n)}</li>" for n in notes) + "</ul>\n")
        self.out.write(f"<p class=\"summary\">{reproduced} of {total} reproduced</p>\n"
                       "</body></html>\n")


_RENDERERS = {"text": _Text, "json": _Json, "markdown": _Markdown, "html": _Html}


# ----------------------------------------------------------------------------- the command


@contextlib.contextmanager
def _progress(total: int, enabled: bool) -> Iterator[Any]:
    """A rich progress bar on standard error (a terminal), or nothing."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("audit"), BarColumn(), MofNCompleteColumn(), TextColumn("rows"),
                  TimeElapsedColumn(), TextColumn("{task.description}"),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("", total=total)
        yield lambda description=None, advance=0: bar.update(
            task, advance=advance, **({"description": description} if description else {}))


def cmd_audit(args: argparse.Namespace) -> int:
    from bleu_compat.atomic import atomic_open
    from bleu_compat.audit import TOP, TableError, audit, audit_cluster, check_table
    from bleu_compat.corpus_io import CorpusReadError
    from bleu_compat.errors import ConfigError

    top = args.top or TOP
    files = [(path, kind) for kind, path in (("json", args.json), ("markdown", args.markdown),
                                              ("html", args.html)) if path]
    spec = None
    if args.cluster is not None:
        from bleu_compat.cluster import parse_cluster

        try:
            spec = parse_cluster(args.cluster)
        except ConfigError as exc:
            return _error(str(exc))
    try:
        total = check_table(args.table, exact=args.exact)
    except TableError as exc:
        return _error(str(exc))
    show = sys.stderr.isatty() and not args.no_progress
    reproduced = 0
    notes: list[str] = []
    try:
        with contextlib.ExitStack() as stack:
            outputs = [_RENDERERS[args.format](sys.stdout)]
            for path, kind in files:
                handle = stack.enter_context(atomic_open(path, "w", encoding="utf-8"))
                outputs.append(_RENDERERS[kind](handle))
            for o in outputs:
                o.start(args.table, total)
            bar = stack.enter_context(_progress(total, show))
            if spec is None:
                rows = audit(args.table, exact=args.exact, top=top,
                             progress=(lambda d: bar(description=d)) if bar else None)
            else:
                from bleu_compat.cluster import open_client

                client = stack.enter_context(open_client(spec))
                rows = audit_cluster(args.table, client, exact=args.exact, top=top,
                                     on_row=(lambda r: bar(advance=1)) if bar else None)
            for r in rows:
                reproduced += r["reproduced"]
                notes += [n for n in r["not_searched"] if n not in notes]
                for o in outputs:
                    o.row(r)
                if bar and spec is None:
                    bar(advance=1, description="")
            for o in outputs:
                o.finish(reproduced, total, notes)
    except (TableError, CorpusReadError, ConfigError) as exc:
        return _error(str(exc))
    except OSError as exc:
        return _error(f"{getattr(exc, 'filename', None) or args.table}: {exc.strerror or exc}")
    return 0 if reproduced == total else 1
