"""mteval-v14.pl adapter: the user's copy, run on SGML the adapter writes.

``perl mteval-v14.pl -b [-c] [--international-tokenization] -r REF.sgm -s SRC.sgm -t
TST.sgm``, as mteval-v13a.pl's adapter runs v13a
(:mod:`bleu_compat.libraries.mteval_v13a.adapter`: one document, each line a segment,
``</`` written ``&lt;/``; ``-c`` when the configuration does not lowercase;
``BLEU score = X`` read, 0-1 with 4 decimals). ``tok=intl`` adds
``--international-tokenization``. Which file: ``mteval-v14:path=FILE``, else
``$BLEU_COMPAT_MOSES_SCRIPTS/mteval-v14.pl``; its release is its SHA-256 in
``entries.RELEASES``. It needs XML::Twig and Sort::Naturally (Debian: libxml-twig-perl,
libsort-naturally-perl): a missing one is named.

Card requests: as v13a's adapter (``bleu-corpus-compute`` with ``-c``, the default
tokenizer; ``bleu-smoothing-compute`` method3 for one-segment statistics).
"""

from __future__ import annotations

from typing import Any, Sequence

from bleu_compat.libraries import AdapterResult, dispatch
from bleu_compat.libraries.mteval_v13a import adapter as v13a_adapter
from bleu_compat.libraries.multi_bleu.adapter import Script, configure_script

__all__ = ["run", "score_lines", "score_files", "configure", "installed_version", "SCRIPT",
           "INTERNATIONAL"]

LIBRARY = "mteval-v14"
#: the switch of v14's international tokenization
INTERNATIONAL = "--international-tokenization"


class _MtevalV14(Script):
    library = LIBRARY
    filename = "mteval-v14.pl"
    config_name = "mteval-v14"

    def entries(self) -> Any:
        from bleu_compat.libraries.mteval_v14 import entries

        return entries

    def model_prints(self, dialect: str, hypothesis: str, references: Sequence[str],
                     cfg: Any) -> str | None:
        from bleu_compat.libraries.mteval_v14.model import mteval_v14_run

        hyp, refs = v13a_adapter._read(hypothesis, references)
        out = mteval_v14_run(hyp, refs, not cfg.lowercase, cfg.tokenize == "intl")
        return v13a_adapter._printed_score(out.stdout)


SCRIPT: Script = _MtevalV14()


def installed_version() -> str:
    """The release of the script this process runs."""
    return SCRIPT.version()


def _rules(rel: Any, cfg: Any) -> tuple[str, Any, str, str]:
    if cfg.tokenize == "intl":  # Perl's lc on decoded text: every character
        return "intl", ("perl" if cfg.lowercase else False), "perl", "off"
    return "13a", ("ascii" if cfg.lowercase else False), "perl", "off"


def configure(cfg: Any) -> Any:
    """``mteval-v14[:path=FILE][,lc=no][,tok=intl]``: the file, its release and its text rules
    (default tokenizer: 13a, A-Z lowercased unless ``lc=no``; ``tok=intl``:
    ``--international-tokenization``, Perl's ``lc``)."""
    if cfg.tokenize not in ("13a", "intl"):
        raise ValueError(f"{cfg.name}: mteval-v14 has two tokenizers: its default (tok=13a) "
                         "and --international-tokenization (tok=intl)")
    return configure_script(SCRIPT, cfg, _rules)


def _options(cfg: Any) -> tuple[str, ...]:
    return (INTERNATIONAL,) if cfg.tokenize == "intl" else ()


def score_lines(cfg: Any, hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]]) -> float:
    """The 'BLEU score' the script prints (0-1) on the lines."""
    return v13a_adapter.score_lines(cfg, hyp_lines, ref_lines, SCRIPT, _options(cfg))


def score_files(cfg: Any, hypothesis: str, references: Sequence[str]) -> float:
    """As :func:`score_lines`, on the files' lines (the SGML is written from them); an unknown
    file is judged against the known release's model (a note on standard error)."""
    return v13a_adapter.score_files(cfg, hypothesis, references, SCRIPT, _options(cfg))


def _corpus(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    return v13a_adapter._corpus(mode, request, raw, SCRIPT)


def _smoothing(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    return v13a_adapter._smoothing(mode, request, raw, SCRIPT)


def run(mode: str, tool_id: str, request: dict[str, Any]) -> AdapterResult:
    """Run the script on a card request (see the module docstring)."""
    return dispatch(LIBRARY, mode, tool_id, request, {
        "bleu-corpus-compute": _corpus, "bleu-smoothing-compute": _smoothing,
        "bleu-brevity-penalty": v13a_adapter._brevity})
