"""HTML output: ``score --compare --html FILE``, one self-contained page (harness.html draws it)."""

from __future__ import annotations

from typing import Any

from bleu_compat.cli.score.arguments import fail
from bleu_compat.cli.score.json_output import compare_json

__all__ = ["write_compare_html"]


def write_compare_html(path: str, names: list[str], comparisons: list[Any],
                        versions: dict[str, str], decompositions: list[Any]) -> int:
    """Write ``score --compare --html FILE``; 0, or 2 (message on stderr) when it cannot."""
    from bleu_compat.harness.html import HtmlUnavailable, compare_to_html

    doc = {"versions": versions,
           "systems": [{"name": n, "compare": compare_json(c, d)}
                       for n, c, d in zip(names, comparisons, decompositions)]}
    for system in doc["systems"]:  # the page draws each pair as a waterfall of its causes:
        # a pair that has none by nature (a sentence average) is not drawn as "decomposed"
        cmp = system["compare"]
        cmp["decomposition"] = [x for x in cmp.get("decomposition", ()) if not x["not_decomposable"]]
    try:
        text = compare_to_html(doc)
        _write(path, text)
    except HtmlUnavailable as exc:
        return fail(f"--html: {exc}")
    except OSError as exc:
        return fail(f"--html {path}: cannot write: {exc.strerror or exc}")
    return 0


def _write(path: str, text: str) -> None:
    # a regular (or new) file appears whole or not at all; a device or a pipe is written to
    import os
    import stat

    from bleu_compat.atomic import write_atomic

    if os.path.lexists(path) and not stat.S_ISREG(os.stat(path).st_mode):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        write_atomic(path, text)
