"""Command ``catalog``: render the divergence catalog (and the implementations' factors) to Markdown.

``bleu-compat catalog`` writes the catalog (bleu_compat.catalog.ENTRIES) as
Markdown on standard output; ``--out FILE`` writes it to FILE;
``--check`` compares the rendering with FILE (default
``reports/divergences.md``) and exits 1 if the file is missing or stale.
The output depends only on the catalog (entries and the releases each was
verified on; no dates, not the installed releases), so it is deterministic.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bleu_compat.catalog import (
    ENTRIES, LIBRARY_NAMES, MEASURED, TOKENIZER_ENTRIES, CatalogEntry, dialect_label, known_dialects,
)
from bleu_compat.cli.usage import asks_for, refuse, report_usage_errors
from bleu_compat.jsonio import dumps_js

__all__ = ["register", "render_markdown", "render_json", "factors_table", "DEFAULT_OUT", "JSON_FORMAT"]

DEFAULT_OUT = "reports/divergences.md"
JSON_FORMAT = "bleu-compat-catalog/1"


def register(subparsers: Any) -> None:
    """Add the ``catalog`` command."""
    p = subparsers.add_parser(
        "catalog", help="render the divergence catalog to Markdown",
        description=(
            "Render every divergence catalog entry (id, library and version range, tool, "
            "fields, modes, explanation, runnable reproducer, the card's value and the "
            "library's value) as Markdown. Without --out it is written on standard output. "
            f"--check compares it with --out (default {DEFAULT_OUT}) and exits 1 if that "
            "file is missing or stale."
        ),
    )
    p.add_argument("--out", metavar="FILE", help="write the Markdown (or JSON) to FILE")
    p.add_argument("--format", "-f", choices=("markdown", "json"), default="markdown",
                   help="markdown (default) or json: every entry as data")
    p.add_argument("--check", action="store_true",
                   help=f"exit 1 if FILE (default {DEFAULT_OUT}) differs from a fresh rendering")
    p.set_defaults(func=cmd_catalog)
    report_usage_errors(p, json=asks_for("--format", "-f", value="json"))


def _version(lib: Any) -> str:
    """The installed release of the implementation ``lib`` (for the JSON form), or "not installed"."""
    try:
        return str(lib.installed_version())
    except ImportError:  # not installed, or a script the environment does not name
        return "not installed"


def _versions_table(e: Any) -> list[str]:
    """The entry's row over every measured release of its library (SPEC.md section 7); ``e`` is a
    :class:`CatalogEntry` or a tokenizer entry (both have ``library`` and ``verified``)."""
    versions = MEASURED.get(e.library, ())
    return [
        f"| {LIBRARY_NAMES.get(e.library, e.library)} | " + " | ".join(versions) + " |",
        "|---|" + "---|" * len(versions),
        "| model verified | " + " | ".join("yes" if v in e.verified else "–" for v in versions) + " |",
    ]


def _value(x: Any) -> str:
    return dumps_js(x) if not isinstance(x, str) else x


def _entry_markdown(e: CatalogEntry) -> list[str]:
    request = dumps_js(e.reproducer)
    lines = [
        f"## {e.id}",
        "",
        f"**{e.title}**",
        "",
        "| | |",
        "|---|---|",
        f"| library | {e.library}; model verified on {', '.join(e.verified)} |",
        f"| tool | `{e.tool_id}` |",
        f"| fields | {', '.join('`' + f + '`' for f in e.fields)} |",
        f"| modes | {', '.join(e.modes)} |",
    ]
    lines += [
        "",
        e.explanation,
        "",
        "Releases (the crosscheck ran with the entry in that release's dialect, nothing UNEXPECTED):",
        "",
        *_versions_table(e),
        "",
        "Reproducer (a valid card request):",
        "",
        "```json",
        request,
        "```",
        "",
        "Run it:",
        "",
        "```sh",
        f"bleu-compat run {e.tool_id} <<'EOF'",
        dumps_js(e.reproducer),
        "EOF",
        "```",
        "",
        f"| `{e.reproducer_field}` | value |",
        "|---|---|",
        f"| card | `{_value(e.card_value)}` |",
        f"| {e.library} ({', '.join(e.modes)}) | `{_value(e.library_value)}` |",
        "",
        *_library_side(e),
    ]
    return lines


def _library_side(e: Any) -> list[str]:
    """The entry's library code, as its users call it with its newest verified release."""
    return [
        f"The library side, as its users call it with {', '.join(e.verified[-1:])} "
        f"(prints `{e.library_prints}`):",
        "",
        "```python",
        e.library_code,
        "```",
        "",
    ]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def factors_table() -> list[str]:
    """``## Implementations and their factors``: a table of factors × registered implementations,
    each cell the value and (in italics) its source (Markdown lines)."""
    from bleu_compat.libraries.plugin import FACTOR_NAMES
    from bleu_compat.libraries.registry import libraries

    libs = list(libraries())
    head = [f"{lib.display_name} {lib.verified[-1]}" if lib.verified else lib.display_name
            for lib in libs]
    lines = [
        "## Implementations and their factors",
        "",
        "What makes each implementation's number what it is, called the way its users call it "
        "(the release named is the newest one measured). Each cell gives the value, then in "
        "italics where it comes from: the library's file and function in that release, or the "
        "catalog entry whose model reproduces it. `score --compare` decomposes a gap between two "
        "implementations into these factors.",
        "",
        "| factor | " + " | ".join(head) + " |",
        "|---|" + "---|" * len(libs),
    ]
    for name in FACTOR_NAMES:
        cells = [f"{_cell(lib.factors[name].value)}<br>*{_cell(lib.factors[name].source)}*"
                 for lib in libs]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def render_markdown() -> str:
    """The catalog as Markdown (deterministic for given library versions)."""
    lines = [
        "# Divergence catalog",
        "",
        "Generated by `bleu-compat catalog --out reports/divergences.md`; do not edit by hand",
        "(`bleu-compat catalog --check` fails when this file is stale).",
        "",
        "Every entry records the library releases its model was verified on (`bleu-compat matrix`",
        "ran the crosscheck in an environment per release with the entry in that release's",
        "dialect, and nothing was UNEXPECTED). A release's *dialect* is the card plus the models of",
        "the entries verified on it; an output of a release never measured is matched against",
        "every known dialect. Measured: "
        + "; ".join(f"{LIBRARY_NAMES[lib]} {', '.join(vs)}" for lib, vs in MEASURED.items()) + ".",
        "",
        "Each reproducer below is run against the installed release, when the entry is verified",
        "on it, by `oracle_tests/test_catalog.py`, which asserts the card's value, the library's",
        "value, that the library's output is reproduced bit for bit by its dialect (the card plus",
        "the entry's model, `bleu_compat/libraries/<library>/model.py`) and that the library-side",
        "code prints what is shown, so a library upgrade that changes a behaviour fails and names",
        "the entry. An entry explains a difference only when its model reproduces it: no",
        "tolerance, no ULP bound.",
        "",
        "Values are on the card's 0-1 scale; the library's value is the adapter's output in the",
        "modes listed (for errors, the exception). Modes: `as_called` is the library called the",
        "usual way, `mapped` is the adapter's best effort to compute the card's semantics.",
        "",
        "## Dialects",
        "",
        "| dialect | entries |",
        "|---|---|",
    ]
    for lib in MEASURED:
        for versions, entries in known_dialects(lib):
            lines.append(f"| {dialect_label(lib, versions)} ({', '.join(versions)}) | "
                         + ", ".join(f"`{x.id}`" for x in entries) + " |")
    lines += ["", *factors_table()]
    lines += [
        "",
        "## Entries",
        "",
        "| id | library | releases | tool | fields | modes |",
        "|---|---|---|---|---|---|",
    ]
    for e in ENTRIES:
        lines.append(
            f"| [{e.id}](#{e.id.lower()}) | {e.library} | {', '.join(e.verified)} | `{e.tool_id}` | "
            f"{', '.join(e.fields)} | {', '.join(e.modes)} |"
        )
    lines.append("")
    for e in ENTRIES:
        lines += _entry_markdown(e)
    lines += _tokenizer_markdown()
    return "\n".join(lines).rstrip("\n") + "\n"


def _tokenizer_markdown() -> list[str]:
    """The tokenizer differences between releases (issue 20)."""
    from bleu_compat.tokenizers.releases import NEWEST

    lines = [
        "## Tokenizers: differences between releases",
        "",
        "bleu-compat tokenizes with its own `none`, `13a`, `intl`, `zh` and `char`",
        "(`bleu_compat/tokenizers/`), exact to each measured sacreBLEU release. Measured in an",
        "environment per release (1.2.21 to 2.6.0): `none`, `13a` and `zh` tokenize alike in all of",
        "them (sacreBLEU #298's zh ranges included: they are in every release); `char` exists from",
        "1.4.14; `intl` changed in 2.0.0 (below). Where `score --compare` or `crosscheck` runs",
        "sacreBLEU on raw text, its tokens are compared with ours for its release on every line, and",
        f"a difference is UNEXPECTED. The reference is our tokenizer for sacreBLEU {NEWEST}.",
        "",
        "| id | tokenizer | releases | model |",
        "|---|---|---|---|",
    ]
    for e in TOKENIZER_ENTRIES:
        lines.append(f"| [{e.id}](#{e.id.lower()}) | `{e.tokenizer}` | {', '.join(e.verified)} | "
                     f"`{e.model}` |")
    lines.append("")
    for e in TOKENIZER_ENTRIES:
        lines += [
            f"### {e.id}", "", f"**{e.title}**", "", e.explanation, "",
            *_versions_table(e),
            "",
            f"Reproducer: the line `{e.reproducer}`, tokenized with `{e.tokenizer}`:",
            "",
            "| release | tokens |",
            "|---|---|",
            f"| {NEWEST} (ours for it) | `{dumps_js(list(e.newest_tokens))}` |",
            f"| {', '.join(e.verified)} (ours for them, the model) | `{dumps_js(list(e.library_tokens))}` |",
            "",
            *_library_side(e),
        ]
    return lines


def render_json() -> dict[str, Any]:
    """The catalog as data (``bleu-compat-catalog/1``; deterministic for given library versions).

    Each entry has every :class:`~bleu_compat.harness.dialect.CatalogEntry` field
    except ``facts`` (code), plus ``command``: the shell command running its
    reproducer through ours. Values are on the card's 0–1 scale.
    """
    entries = []
    for e in ENTRIES:
        entries.append({
            "id": e.id, "library": e.library, "verified": list(e.verified), "tool_id": e.tool_id,
            "fields": list(e.fields), "modes": list(e.modes), "title": e.title,
            "explanation": e.explanation, "reproducer": e.reproducer,
            "reproducer_field": e.reproducer_field, "card_value": e.card_value,
            "library_value": e.library_value, "library_code": e.library_code,
            "library_prints": e.library_prints, "tags": list(e.tags),
            "command": f"bleu-compat run {e.tool_id} <<'EOF'\n{dumps_js(e.reproducer)}\nEOF",
        })
    tokenizer_entries = [
        {"id": e.id, "library": e.library, "verified": list(e.verified), "tokenizer": e.tokenizer,
         "model": e.model, "title": e.title, "explanation": e.explanation,
         "reproducer": e.reproducer, "newest_tokens": list(e.newest_tokens),
         "library_tokens": list(e.library_tokens), "library_code": e.library_code,
         "library_prints": e.library_prints}
        for e in TOKENIZER_ENTRIES
    ]
    from bleu_compat.libraries.registry import libraries

    return {"format": JSON_FORMAT,
            "versions": {lib.name: _version(lib) for lib in libraries()},
            "entries": entries, "tokenizer_entries": tokenizer_entries,
            "implementations": {lib.name: {"display_name": lib.display_name,
                                           "verified": list(lib.verified),
                                           "factors": {k: {"value": f.value, "source": f.source}
                                                       for k, f in lib.factors.items()}}
                                for lib in libraries()}}


def cmd_catalog(args: argparse.Namespace) -> int:
    if args.format == "json" and args.check:
        return refuse("bleu-compat catalog",
                      "--check compares the Markdown file; it takes no --format json", json=True)
    if args.out is not None and not args.out.strip():
        return refuse("bleu-compat catalog", "--out is empty; give a file name "
                      f"(e.g. {DEFAULT_OUT})", json=args.format == "json")
    text = render_markdown() if args.format == "markdown" else dumps_js(render_json(), indent=2) + "\n"
    if args.check:
        path = Path(args.out or DEFAULT_OUT)
        if path.is_dir():
            return refuse("bleu-compat catalog", f"--out {path} is a directory; --check compares a "
                          f"file (default {DEFAULT_OUT})")
        try:
            current = path.read_text(encoding="utf-8")
        except OSError as exc:
            print(f"bleu-compat catalog: cannot read {path}: {exc.strerror}", file=sys.stderr)
            return 1
        except UnicodeDecodeError:
            current = None  # not even UTF-8: certainly not the catalog
        if current != text:
            print(f"bleu-compat catalog: {path} is stale; regenerate it with "
                  f"`bleu-compat catalog --out {path}`", file=sys.stderr)
            return 1
        print(f"{path} is up to date ({len(ENTRIES)} entries)")
        return 0
    if args.out:
        path = Path(args.out)
        from bleu_compat.atomic import output_problem

        # every command's rule for an output file: a directory, a pipe with no reader, a loop
        # of symbolic links, a missing directory (never made) are refused before writing
        problem = output_problem(args.out)
        if problem:
            return refuse("bleu-compat catalog", f"--out: {problem}", json=args.format == "json")
        try:
            from bleu_compat.atomic import write_atomic

            write_atomic(path, text)
        except OSError as exc:
            return refuse("bleu-compat catalog", f"cannot write {path}: {exc.strerror or exc}",
                          json=args.format == "json")
        print(f"wrote {path} ({len(ENTRIES)} entries)")
        return 0
    sys.stdout.write(text)
    return 0
