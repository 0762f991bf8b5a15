"""mteval-v13a.pl adapter: the user's copy, run on SGML the adapter writes.

``perl mteval-v13a.pl -b [-c] -r REF.sgm -s SRC.sgm -t TST.sgm``: ``-b`` for BLEU only (the
NIST score is another metric, and its length penalty divides by the reference unigram
count); ``-c`` when the configuration does not lowercase (``lc=no``); the default
lowercases A–Z as the script does. The SGML: one document, each line a segment
(``<seg id="k">``), the text as it is except ``</`` written ``&lt;/`` (the script's
entity step gives it back, so its view of every line is the line's; Moses'
wrap-xml.perl escapes more, which changes lines holding entities). The number read is
``BLEU score = X`` (0–1, 4 decimals). Which file and its release: as multi-bleu.perl's
adapter (``path=``, ``$BLEU_COMPAT_MOSES_SCRIPTS``, SHA-256 against ``entries.RELEASES``).

Card requests: ``bleu-corpus-compute`` (``-c``; any max order up to 9, read from the
cumulative row; ``as_called`` writes the tokens joined by spaces, ``mapped`` an id per
distinct token), ``bleu-smoothing-compute`` method3 for one-segment statistics.
"""

from __future__ import annotations

import os
import re
import tempfile
from typing import Any, Sequence

from bleu_compat.libraries import AdapterResult, NotRepresentable, dispatch
from bleu_compat.libraries.multi_bleu.adapter import (
    PerlDie, Script, configure_script, corpus_lines, one_segment,
)
from bleu_compat.libraries.perl_runner import ScriptError, die_message, run_perl

__all__ = ["run", "score_lines", "score_files", "configure", "installed_version", "SCRIPT",
           "write_sgml", "run_mteval"]

LIBRARY = "mteval-v13a"


class _Mteval(Script):
    library = LIBRARY
    filename = "mteval-v13a.pl"
    config_name = "mteval-v13a"

    def entries(self) -> Any:
        from bleu_compat.libraries.mteval_v13a import entries

        return entries

    def model_prints(self, dialect: str, hypothesis: str, references: Sequence[str],
                     cfg: Any) -> str | None:
        from bleu_compat.libraries.mteval_v13a.model import DIALECTS, mteval_run

        hyp, refs = _read(hypothesis, references)
        return _printed_score(mteval_run(DIALECTS[dialect], hyp, refs, not cfg.lowercase).stdout)


def _read(hypothesis: str, references: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    from bleu_compat.corpus_io import read_lines

    return read_lines(hypothesis).lines, [read_lines(r).lines for r in references]


def _printed_score(stdout: str) -> str | None:
    m = re.search(r"BLEU score = (\S+)", stdout)
    return m.group(1) if m else None


SCRIPT: Script = _Mteval()


def installed_version() -> str:
    """The release of the script this process runs."""
    return SCRIPT.version()


def _escape(text: str) -> str:
    return text.replace("</", "&lt;/")


def write_sgml(folder: str, hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]]) -> None:
    """src.sgm, ref.sgm (one refset per reference) and tst.sgm in ``folder``."""
    def doc(tag: str, attrs: str, sysid: str, lines: Sequence[str]) -> str:
        segs = "".join(f'<seg id="{k}">{_escape(line)}</seg>\n' for k, line in enumerate(lines, 1))
        return f'<{tag} {attrs}>\n<doc docid="d1" sysid="{sysid}">\n{segs}</doc>\n</{tag}>\n'

    with open(os.path.join(folder, "src.sgm"), "w", encoding="utf-8", newline="\n") as f:
        f.write(doc("srcset", 'setid="bleu-compat" srclang="any"', "src", [""] * len(hyp_lines)))
    with open(os.path.join(folder, "ref.sgm"), "w", encoding="utf-8", newline="\n") as f:
        for k, lines in enumerate(ref_lines):
            f.write(doc("refset", f'setid="bleu-compat" srclang="any" trglang="xx" refid="ref{k}"',
                        f"ref{k}", lines))
    with open(os.path.join(folder, "tst.sgm"), "w", encoding="utf-8", newline="\n") as f:
        f.write(doc("tstset", 'setid="bleu-compat" srclang="any" trglang="xx" sysid="system"',
                    "system", hyp_lines))


_SCORE = re.compile(r"BLEU score = (\S+) for system")
_RATIO = re.compile(r"^length ratio: \S+ \((\d+)/(\d+)\)")
_CUM = re.compile(r"^ BLEU:((?:\s+\S+){9})")


def run_mteval(script: str, hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]],
               preserve_case: bool, options: Sequence[str] = ()) -> dict[str, Any]:
    """Run mteval on the lines; ``{"bleu_printed", "cumulative", "hyp_len"?, "ref_len"?}`` or
    ``{"error": die message}``. ``options``: more of its switches (v14's
    ``--international-tokenization``).

    Raises:
        ScriptError: no number (timeout, XML::Twig missing, compile error, no line).
    """
    with tempfile.TemporaryDirectory(prefix="bleu-compat-mteval-") as d:
        write_sgml(d, hyp_lines, ref_lines)
        args = ["-b"] + (["-c"] if preserve_case else []) + list(options) + [
            "-r", "ref.sgm", "-s", "src.sgm", "-t", "tst.sgm"]
        res = run_perl(script, args, cwd=d)
    m = _SCORE.search(res.stdout)
    if m is None:
        die = die_message(res.stderr)
        if die is not None and res.status != 0:
            return {"error": die}
        shown = (res.stdout.strip() or res.stderr.strip())[-200:]
        raise ScriptError(f"{script}: printed no 'BLEU score = ...' line (exit status "
                          f"{res.status}): {shown!r}")
    try:
        out: dict[str, Any] = {"bleu_printed": float(m.group(1))}
    except ValueError:
        raise ScriptError(f"{script}: cannot read its score {m.group(1)!r}") from None
    rows = [r for r in res.stdout.splitlines() if _CUM.match(r)]
    if len(rows) >= 2:
        out["cumulative"] = [float(x) for x in rows[-1].split(":")[1].split()[:9]]
    for line in res.stdout.splitlines():
        r = _RATIO.match(line)
        if r:
            out.update(hyp_len=int(r.group(1)), ref_len=int(r.group(2)))
    return out


def _rules(rel: Any, cfg: Any) -> tuple[str, Any, str, str]:
    if rel is not None and rel.dialect == "v13a-line-break":
        raise ValueError(f"{cfg.name}: release {rel.label} (in Moses {', '.join(rel.moses_releases) or rel.where}) "
                         "does not compile on Perl 5.30 or later (\\p{Line_Break} without a value); "
                         "the 2018-06-23 release fixes it")
    return "13a", ("ascii" if cfg.lowercase else False), "perl", "off"


def configure(cfg: Any) -> Any:
    """``mteval-v13a[:path=FILE][,lc=no]``: the file, its release and its text rules
    (A-Z lowercased unless ``lc=no`` = ``-c``; Perl's Unicode whitespace)."""
    if cfg.tokenize != "13a":
        raise ValueError(f"{cfg.name}: mteval uses its own tokenizer (the 13a one)")
    return configure_script(SCRIPT, cfg, _rules)


def score_lines(cfg: Any, hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]],
                script: Script | None = None, options: Sequence[str] = ()) -> float:
    """The 'BLEU score' the script prints (0-1) on the lines."""
    path = dict(cfg.settings).get("path") or (script or SCRIPT).path()
    res = run_mteval(path, hyp_lines, ref_lines, preserve_case=not cfg.lowercase, options=options)
    if "error" in res:
        raise ScriptError(f"{path}: the script died: {res['error']}")
    return float(res["bleu_printed"])


def score_files(cfg: Any, hypothesis: str, references: Sequence[str],
                script: Script | None = None, options: Sequence[str] = ()) -> float:
    """As :func:`score_lines`, on the files' lines (the SGML is written from them); a file
    that is no known release is judged against every known release's model (a note on
    standard error)."""
    from bleu_compat.libraries.multi_bleu.adapter import note_if_unknown

    script = script or SCRIPT
    hyp, refs = _read(hypothesis, references)
    value = score_lines(cfg, hyp, refs, script, options)
    path = dict(cfg.settings).get("path") or script.path()
    note_if_unknown(script, path, f"{value:.4f}", hypothesis, references, cfg)
    return value


def _corpus(mode: str, request: dict[str, Any], raw: dict[str, Any],
            script: Script | None = None) -> dict[str, Any]:
    n = request.get("max_order", 4)
    if n > 9:
        raise NotRepresentable("mteval counts 9 orders at most")
    hyp, refs = corpus_lines(mode, dict(request, max_order=4))
    res = run_mteval((script or SCRIPT).path(), hyp, refs, preserve_case=True)
    raw.update(res)
    if "error" in res:
        raise PerlDie(res["error"])
    bleu = res["bleu_printed"] if n == 4 else res["cumulative"][n - 1]
    out: dict[str, Any] = {"bleu": bleu, "max_order": n}
    if "hyp_len" in res:
        out.update(candidate_length=res["hyp_len"], reference_length=res["ref_len"])
    return out


def _smoothing(mode: str, request: dict[str, Any], raw: dict[str, Any],
               script: Script | None = None) -> dict[str, Any]:
    if request["smoothing"] != "method3":
        raise NotRepresentable("mteval smooths with method3 (its default) only")
    hyp, ref = one_segment(dict(request, smoothing="none"))
    res = run_mteval((script or SCRIPT).path(), [hyp], [[ref]], preserve_case=True)
    raw.update(res)
    if "error" in res:
        raise PerlDie(res["error"])
    return {"bleu": res["bleu_printed"]}


def _brevity(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    raise NotRepresentable("the script takes text, not lengths")


def run(mode: str, tool_id: str, request: dict[str, Any]) -> AdapterResult:
    """Run the script on a card request (see the module docstring)."""
    return dispatch(LIBRARY, mode, tool_id, request, {
        "bleu-corpus-compute": _corpus, "bleu-smoothing-compute": _smoothing,
        "bleu-brevity-penalty": _brevity})
