"""multi-bleu-detok.perl adapter: the user's copy of the script, run as its users run it.

``perl multi-bleu-detok.perl [-lc] STEM < HYP``, exactly as multi-bleu.perl
(:mod:`bleu_compat.libraries.multi_bleu.adapter`: the hypothesis file on standard input,
the references copied byte for byte as ``STEM`` or ``STEM0``, ``STEM1``, ...; arguments,
never a shell; a timeout). Which file: ``multi-bleu-detok.perl:path=FILE`` (``score
--compare``), else ``$BLEU_COMPAT_MOSES_SCRIPTS/multi-bleu-detok.perl``; its release is
its SHA-256 in ``entries.RELEASES``; another known script's file is refused naming it; an
unknown file only with the opt-in of :mod:`bleu_compat.foreign`, then judged against every
known dialect.

Card requests: ``bleu-corpus-compute`` (max order 4, the same number of references per
segment): ``as_called`` writes each token list as a line (the script tokenizes it again
with mteval-v13a's tokenizer), ``mapped`` an id per distinct token (``t1``, ``t2``...,
which that tokenizer leaves alone); ``bleu-smoothing-compute`` for one-segment statistics.
"""

from __future__ import annotations

from typing import Any, Sequence

from bleu_compat.libraries import AdapterResult, dispatch
from bleu_compat.libraries.multi_bleu import adapter as multi_bleu_adapter
from bleu_compat.libraries.multi_bleu.adapter import Script, configure_script

__all__ = ["run", "score_lines", "score_files", "configure", "installed_version", "SCRIPT"]

LIBRARY = "multi-bleu-detok"


class _Detok(Script):
    library = LIBRARY
    filename = "multi-bleu-detok.perl"
    config_name = "multi-bleu-detok.perl"

    def entries(self) -> Any:
        from bleu_compat.libraries.multi_bleu_detok import entries

        return entries

    def model_prints(self, dialect: str, hypothesis: str, references: Sequence[str],
                     cfg: Any) -> str | None:
        from bleu_compat.libraries.multi_bleu_detok.model import DIALECTS, detok_run

        hyp, numbered, plain = multi_bleu_adapter._files_read(hypothesis, references)
        out = detok_run(DIALECTS[dialect], hyp, numbered, plain, lowercase=bool(cfg.lowercase))
        return multi_bleu_adapter._printed_bleu(out.stdout)


SCRIPT: Script = _Detok()


def installed_version() -> str:
    """The release of the script this process runs (the declaration's ``version``)."""
    return SCRIPT.version()


def _rules(rel: Any, cfg: Any) -> tuple[str, Any, str, str]:
    from bleu_compat.libraries.multi_bleu_detok.model import DIALECTS, LATEST

    decoded = (DIALECTS[rel.dialect] if rel is not None else LATEST).decoded
    case: Any = False
    if cfg.lowercase:
        case = "perl" if decoded else "ascii"
    return "13a", case, ("perl" if decoded else "ascii"), ("char" if decoded else "byte")


def configure(cfg: Any) -> Any:
    """``multi-bleu-detok.perl[:path=FILE][,lc=yes]``: the file, its release and its text
    rules (mteval-v13a's tokenizer without lowercasing; ``chop``; Unicode whitespace and
    Perl's ``lc`` from 2019-02-27, ASCII before)."""
    if cfg.tokenize != "13a":
        raise ValueError(f"{cfg.name}: multi-bleu-detok.perl tokenizes with its own copy of "
                         "mteval-v13a's tokenizer (13a): give it detokenized text")
    return configure_script(SCRIPT, cfg, _rules)


def score_files(cfg: Any, hypothesis: str, references: Sequence[str]) -> float:
    """The BLEU the script prints (0-100) on the user's files (their bytes, final newline or not).

    Raises:
        ScriptError: the script gives no number (its die message is named).
    """
    return multi_bleu_adapter.score_files(cfg, hypothesis, references, SCRIPT)


def score_lines(cfg: Any, hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]]) -> float:
    """The BLEU the script prints (0-100) on lines (written with a final newline each)."""
    return multi_bleu_adapter.score_lines(cfg, hyp_lines, ref_lines, SCRIPT)


def _corpus(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    return multi_bleu_adapter._corpus(mode, request, raw, SCRIPT)


def _smoothing(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    return multi_bleu_adapter._smoothing(mode, request, raw, SCRIPT)


def run(mode: str, tool_id: str, request: dict[str, Any]) -> AdapterResult:
    """Run the script on a card request (see the module docstring)."""
    return dispatch(LIBRARY, mode, tool_id, request, {
        "bleu-corpus-compute": _corpus, "bleu-smoothing-compute": _smoothing,
        "bleu-brevity-penalty": multi_bleu_adapter._brevity})
