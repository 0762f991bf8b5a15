"""Commands ``score`` and ``card-score``: corpus BLEU of one or more systems.

* ``bleu-compat score REF [REF ...] -i SYS [SYS ...]`` (or ``< SYS``) —
  sacreBLEU's command line, with its meaning for every command line it
  accepts: positional files are references; by default its JSON, its bytes;
* ``bleu-compat card-score HYP REF [REF ...]`` — the card's form, hypothesis
  first (``score HYP REF`` before issue 34); by default prints multi-bleu.perl's
  one-line summary.

``--compare`` adds, per system, sacreBLEU's and NLTK's values on the same
tokens (as users call them) and the catalog entries that explain every
difference (:mod:`bleu_compat.parity`); an unexplained difference exits 1.

The parts, one module each:

* :mod:`.arguments` — the parser and its options; one-line usage errors;
* :mod:`.inputs` — reading the inputs (standard input, pipes, compressed files);
* :mod:`.output_files` — checks on the files written (``--segments``, ``--html``);
* :mod:`.settings` — what changes the number (smoothing, max order) and the signature;
* :mod:`.command` — the command itself: check, read, score, compare, print;
* :mod:`.text_output`, :mod:`.markdown_output`, :mod:`.json_output`,
  :mod:`.csv_output`, :mod:`.html_output` — one output format each;
* :mod:`.compare_render` — ``--compare`` as text or Markdown;
* :mod:`.segments` — the ``--segments`` writer;
* :mod:`.progress` — the delayed spinner on standard error;
* :mod:`.cluster` — ``--cluster``: sharded corpora on Dask (issue 16);
* :mod:`.sacrebleu_input` — sacreBLEU's reading: ``-e``, standard input's columns, ``-nr``;
* :mod:`.significance` — ``-ci``, ``--paired-bs``, ``--paired-ar`` (numpy, imported then only).
"""

from __future__ import annotations

# typing is not imported at run time (issue 34: 2 ms of every command's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from bleu_compat.cli.score.arguments import build
from bleu_compat.cli.score.command import cmd_score

__all__ = ["register", "register_only", "summary_line", "result_json", "cmd_score", "signature"]

#: names re-exported from the modules that define them, imported on first use (PEP 562),
#: so that a run imports only the output modules it prints with
_LAZY = {"summary_line": "text_output", "result_json": "json_output", "signature": "settings"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def register(subparsers: Any) -> None:
    """Add the ``score`` and ``card-score`` commands to the top-level sub-parsers."""
    build(subparsers).set_defaults(func=cmd_score)
    build(subparsers, "card-score").set_defaults(func=cmd_score)


def register_only(subparsers: Any, name: str) -> None:
    """Add the one command ``name`` (``score`` or ``card-score``): the command line chose it."""
    build(subparsers, name).set_defaults(func=cmd_score)
