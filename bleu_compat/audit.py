"""Which configuration gives each number of a results table? (``bleu-compat audit``, issue 33)

A reviewer has a paper's table; WMT publishes ``automatic-scores.tsv`` with hundreds of
rows. :func:`read_table` reads a TSV or CSV whose header names at least ``score``,
``hypothesis`` and ``references`` (reference paths separated by ``;``, or by spaces when
there is no ``;``; relative to the table's folder), optionally ``label``, ``scale``
(``0-1``/``0-100``) and ``pair`` (``SRC-TRG``: the Moses tokenizations of the target
language are searched too, as ``identify -l``), one row at a time; :func:`check_table` checks every row before
anything is computed (the score, each file under the reading rules, the line counts);
:func:`audit` gives, row by row in the table's order, the configurations whose number is
the row's score (:mod:`bleu_compat.identify`, most common first) or "none" with the
closest numbers.

With several references, a row is searched against all of them, and against each
non-empty subset only when they together do not give its number (a table's "all
references" number that is one reference's).

Rows that share files share the counting: a :class:`bleu_compat.identify.Searcher` keeps
the token blocks of the files met last, and a row whose references are a subset of an
earlier row's (WMT's ``bleu-A`` after ``bleu-all``) takes that row's search, which
searched every subset. Memory is bounded by the files of a few rows, whatever the
table's length.

Each row's result is a JSON-able dict (:func:`row_result`), the same whether the row ran
here or on a Dask worker (:func:`audit_cluster`); the renderers
(:mod:`bleu_compat.cli.audit`) read only those dicts.
"""

from __future__ import annotations

import csv
import os
import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

__all__ = ["TableError", "AuditRow", "read_table", "check_table", "audit", "row_result",
           "audit_cluster", "REQUIRED", "TOP"]

#: the columns a table must have (case and surrounding spaces aside)
REQUIRED = ("score", "hypothesis", "references")
#: the optional ones (``pair``: SRC-TRG, its target language for the Moses tokenizations)
OPTIONAL = ("label", "scale", "pair")
#: configurations listed per row (every one is counted)
TOP = 10
#: closest numbers listed for a row no configuration reproduces
CLOSEST = 3
#: what a row's report says when its references together give its number
SUBSETS_NOTE = ("subsets of the references: searched only for a row that all its references "
                "together do not reproduce")
#: a table's cell may hold at most this many characters (a path list, a label)
MAX_CELL = 1 << 16


class TableError(ValueError):
    """A table that cannot be audited: the message is one line naming the row and column."""


@dataclass(frozen=True)
class AuditRow:
    """One row of a table.

    Attributes:
        number: the row's number among the data rows (1 = the first after the header).
        line: its first line in the file (the header is line 1).
        label: the ``label`` cell, or "".
        score: the ``score`` cell, as written.
        hypothesis: the system output's path (relative paths resolved against the table's
            folder); references: the references' paths, in the cell's order.
        scale: ``"0-1"``, ``"0-100"`` or None (decided by the score).
        language: the ``pair`` cell's target language (``en-de``: ``de``), or None.
    """

    number: int
    line: int
    label: str
    score: str
    hypothesis: str
    references: tuple[str, ...]
    scale: str | None = None
    language: str | None = None

    def where(self, column: str | None = None) -> str:
        """``"row 7 (line 8)"``, with ``", column references"``."""
        return f"row {self.number} (line {self.line})" + (f", column {column}" if column else "")


def _dialect(path: str, first: str) -> str:
    low = path.lower()
    if low.endswith((".tsv", ".tab")):
        return "\t"
    if low.endswith(".csv"):
        return ","
    return "\t" if "\t" in first else ","


def read_table(path: str) -> Iterator[AuditRow]:
    """The rows of a TSV or CSV table, one at a time (see the module docstring).

    Raises:
        TableError: the table cannot be read, is not UTF-8, lacks a required column, or a
            row has a cell too long or too few cells (the message names the row and
            column); ``scale`` not ``0-1``/``0-100``.
    """
    folder = os.path.dirname(os.path.abspath(path))
    try:
        handle = open(path, encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise TableError(f"{path}: cannot read: {exc.strerror or exc}") from None
    with handle:
        try:
            first = handle.readline()
        except UnicodeDecodeError:
            raise TableError(f"{path}: line 1 is not UTF-8") from None
        except OSError as exc:
            raise TableError(f"{path}: cannot read: {exc.strerror or exc}") from None
        handle.seek(0)
        delimiter = _dialect(path, first)
        csv.field_size_limit(MAX_CELL)
        reader = csv.reader(handle, delimiter=delimiter)
        try:
            header = next(reader, None)
        except (csv.Error, UnicodeDecodeError) as exc:
            raise TableError(f"{path}: line 1 (the header): {_why(exc)}") from None
        if not header or not any(cell.strip() for cell in header):
            raise TableError(f"{path}: no header line (it needs the columns "
                             f"{', '.join(REQUIRED)}; label optional)")
        names = [cell.strip().lower() for cell in header]
        missing = [c for c in REQUIRED if c not in names]
        if missing:
            found = ", ".join(repr(c) for c in header) or "none"
            kind = "tab" if delimiter == "\t" else "comma"
            raise TableError(f"{path}: the header lacks the column{'s' if len(missing) > 1 else ''} "
                             f"{', '.join(missing)} (read as {kind}-separated; its columns: {found})")
        for name in (*REQUIRED, *OPTIONAL):
            if names.count(name) > 1:
                raise TableError(f"{path}: the header names the column {name} twice")
        col = {name: names.index(name) for name in (*REQUIRED, *OPTIONAL) if name in names}
        number = 0
        while True:
            line = reader.line_num + 1
            try:
                cells = next(reader, None)
            except csv.Error as exc:
                raise TableError(f"{path}: row {number + 1} (line {line}): {_why(exc)}") from None
            except UnicodeDecodeError:
                raise TableError(f"{path}: row {number + 1} (line {line}): not UTF-8") from None
            if cells is None:
                return
            if not any(cell.strip() for cell in cells):
                continue  # a blank line
            number += 1
            row = AuditRow(number, line, "", "", "", ())
            short = [name for name, k in col.items() if k >= len(cells) and name in REQUIRED]
            if short:
                raise TableError(f"{path}: {row.where(short[0])}: the row has {len(cells)} "
                                 f"cell{'s' if len(cells) != 1 else ''}, no {short[0]}")

            def cell(name: str) -> str:
                k = col.get(name)
                return cells[k].strip() if k is not None and k < len(cells) else ""

            scale = cell("scale") or None
            if scale is not None and scale not in ("0-1", "0-100"):
                raise TableError(f"{path}: {row.where('scale')}: {scale!r} is not 0-1 or 0-100")
            hyp = cell("hypothesis")
            refs_cell = cell("references")
            if not hyp:
                raise TableError(f"{path}: {row.where('hypothesis')}: empty")
            parts = [p.strip() for p in (refs_cell.split(";") if ";" in refs_cell
                                         else refs_cell.split())]
            parts = [p for p in parts if p]
            if not parts:
                raise TableError(f"{path}: {row.where('references')}: no reference file")
            pair = cell("pair")
            language = None
            if pair:
                halves = pair.split("-")
                if len(halves) != 2 or not all(halves):
                    raise TableError(f"{path}: {row.where('pair')}: {pair!r} is not SRC-TRG "
                                     "(e.g. en-de)")
                language = halves[1]
            resolve = (lambda p: p if os.path.isabs(p) else os.path.join(folder, p))
            yield AuditRow(number, line, cell("label"), cell("score"), resolve(hyp),
                           tuple(resolve(p) for p in parts), scale, language)


def _why(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:200]


def check_table(path: str, *, exact: bool | None = None,
                progress: Callable[[int], Any] | None = None) -> int:
    """Check every row before anything is computed: its score (:func:`bleu_compat.identify.
    parse_score`, on the row's scale), each file under the reading rules (read once however
    many rows name it: :func:`bleu_compat.corpus_io.scan_file`), equal line counts.

    Returns:
        The number of rows.

    Raises:
        TableError: the first bad row, one line naming it and its column.
    """
    from bleu_compat.corpus_io import CorpusReadError, scan_file
    from bleu_compat.identify import parse_score

    lines: dict[str, int | str] = {}

    def count(p: str) -> int | str:
        if p not in lines:
            if os.path.isdir(p):
                lines[p] = f"{p}: is a directory"
            else:
                try:
                    lines[p] = scan_file(p).n_lines
                except CorpusReadError as exc:
                    lines[p] = str(exc)
        return lines[p]

    from bleu_compat.identify import moses_tokenizers

    n = 0
    languages: dict[str, str | None] = {}
    for row in read_table(path):
        n = row.number
        try:
            parse_score(row.score, row.scale, exact=exact)
        except ValueError as exc:
            raise TableError(f"{path}: {row.where('score')}: {exc}") from None
        if row.language is not None and row.language not in languages:
            try:
                moses_tokenizers(row.language)
                languages[row.language] = None
            except ValueError as exc:
                languages[row.language] = str(exc)
        if row.language is not None and languages[row.language]:
            raise TableError(f"{path}: {row.where('pair')}: {languages[row.language]}")
        hyp = count(row.hypothesis)
        if isinstance(hyp, str):
            raise TableError(f"{path}: {row.where('hypothesis')}: {hyp}")
        for ref in row.references:
            got = count(ref)
            if isinstance(got, str):
                raise TableError(f"{path}: {row.where('references')}: {got}")
            if got != hyp:
                raise TableError(f"{path}: {row.where('references')}: line counts differ: "
                                 f"{row.hypothesis} has {hyp} lines, {ref} has {got}")
        if progress:
            progress(n)
    if n == 0:
        raise TableError(f"{path}: no rows under the header")
    return n


class _Searches:
    """The searches of the rows met last, so that a row on the same files (its references
    the same or a subset) reuses one, and a :class:`~bleu_compat.identify.Searcher` that
    keeps the files' token blocks."""

    def __init__(self, keep: int = 4, progress: Callable[[str], Any] | None = None,
                 exact: bool | None = None) -> None:
        from bleu_compat.identify import Searcher

        self.searcher = Searcher(progress=progress, keep=8)
        self.keep = keep
        self.exact = exact
        self._last: list[Any] = []

    def for_row(self, row: AuditRow) -> Any:
        from bleu_compat.identify import restricted

        from bleu_compat.identify import parse_score

        for language, s in self._last:
            if s.system == row.hypothesis and language == row.language and \
                    s.covers(row.references):
                return restricted(s, row.references)
        s = self.searcher.search(row.hypothesis, list(row.references), subsets=False,
                                 no_subsets_note=SUBSETS_NOTE, language=row.language)
        if len(set(row.references)) > 1 and not s.matching(
                parse_score(row.score, row.scale, exact=self.exact), closest=0).matches:
            s = self.searcher.search(row.hypothesis, list(row.references), language=row.language)
        self._last = [(row.language, s), *self._last][:self.keep]
        return s


def row_result(row: AuditRow, search: Any, *, exact: bool | None = None, top: int = TOP,
               table: str = "") -> dict[str, Any]:
    """One row's audit as a JSON-able dict: the reading, ``reproduced``, ``n_matches``, the
    first ``top`` matches (:func:`bleu_compat.cli.identify.match_json`), the closest numbers
    when there is none, the configurations that would give it but whose library does not
    score these files, and what was not searched."""
    from bleu_compat.cli.identify import match_json
    from bleu_compat.identify import parse_score

    reading = parse_score(row.score, row.scale, exact=exact)
    r = search.matching(reading, closest=CLOSEST)
    refs = tuple(row.references)

    def shown(p: str) -> str:
        base = os.path.dirname(os.path.abspath(table)) if table else ""
        rel = os.path.relpath(p, base) if base else p
        return rel if not rel.startswith("..") else p

    def match(m: Any) -> dict[str, Any]:
        d = match_json(m, refs)
        d["number"] = m.on(reading.scale)
        d["release_label"] = m.release_label
        d["references"] = [shown(p) for p in m.references]
        return d

    return {
        "row": row.number, "line": row.line, "label": row.label, "score": row.score,
        "hypothesis": shown(row.hypothesis), "references": [shown(p) for p in refs],
        "scale": reading.scale, "read": reading.how, "exact": reading.exact,
        "reproduced": bool(r.matches), "n_matches": len(r.matches),
        "matches": [match(m) for m in r.matches[:top]],
        "closest": [match(m) for m in r.closest],
        "unscored": [dict(match(m), does=what) for m, what in r.unscored[:top]],
        "not_searched": list(r.not_searched),
    }


def audit(path: str, *, exact: bool | None = None, top: int = TOP,
          progress: Callable[[str], Any] | None = None) -> Iterator[dict[str, Any]]:
    """Each row's :func:`row_result`, in the table's order (check the table first:
    :func:`check_table`).

    Raises:
        TableError: a row that no longer reads (the table changed since it was checked).
        CorpusReadError: a file that no longer reads.
    """
    searches = _Searches(progress=progress, exact=exact)
    for row in read_table(path):
        try:
            search = searches.for_row(row)
        except ValueError as exc:  # line counts that changed since the check
            raise TableError(f"{path}: {row.where('references')}: {exc}") from None
        yield row_result(row, search, exact=exact, top=top, table=path)


def _groups(rows: Iterable[AuditRow]) -> list[list[AuditRow]]:
    """Rows in groups that share files (one per hypothesis), in the order they first appear."""
    groups: dict[str, list[AuditRow]] = {}
    for row in rows:
        groups.setdefault(row.hypothesis, []).append(row)
    return list(groups.values())


def _audit_group(rows: list[AuditRow], exact: bool | None, top: int, table: str) -> list[dict[str, Any]]:
    """A Dask task: the results of rows that share a hypothesis file (counted once), or a
    one-item list ``[{"error": message}]``."""
    from bleu_compat.corpus_io import CorpusReadError

    searches = _Searches(exact=exact)
    out = []
    for row in sorted(rows, key=lambda r: (-len(r.references), r.number)):
        try:
            out.append(row_result(row, searches.for_row(row), exact=exact, top=top, table=table))
        except (ValueError, CorpusReadError) as exc:
            return [{"error": f"{table}: {row.where('references')}: {exc}"}]
    return out


def audit_cluster(path: str, client: Any, *, exact: bool | None = None, top: int = TOP,
                  on_row: Callable[[dict[str, Any]], Any] | None = None) -> Iterator[dict[str, Any]]:
    """:func:`audit` on a Dask cluster: one task per group of rows sharing a hypothesis file
    (their files counted once, on one worker); results yielded in the table's order, as
    they become contiguous (every worker must see the files at the same paths).

    Raises:
        TableError: a row that no longer reads; ClusterError: the cluster failed.
    """
    from bleu_compat.cluster import map_ordered

    groups = _groups(read_table(path))
    jobs = [(_audit_group, (g, exact, top, path)) for g in groups]
    done: dict[int, dict[str, Any]] = {}
    pending: list[dict[str, Any]] = []
    error: list[str] = []

    def store(i: int, results: list[dict[str, Any]]) -> None:
        if results and "error" in results[0]:
            error.append(results[0]["error"])
            return
        for r in results:
            done[r["row"]] = r
            if on_row:
                on_row(r)

    map_ordered(client, jobs, store)
    if error:
        raise TableError(error[0])
    for number in sorted(done):
        pending.append(done.pop(number))
    yield from pending
