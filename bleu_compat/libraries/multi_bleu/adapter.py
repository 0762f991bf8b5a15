"""multi-bleu.perl adapter: the user's copy of the script, run as its users run it.

``perl multi-bleu.perl [-lc] STEM < HYP``: the hypothesis file on standard input, the
references as ``STEM`` (one) or ``STEM0``, ``STEM1``, ... (several), copied byte for byte
into a directory of our own (so a file's final newline, which old releases ``chop``, is
the user's). Arguments, never a shell; a timeout (:mod:`bleu_compat.libraries.perl_runner`).

Which file: ``multi-bleu.perl:path=FILE`` (``score --compare``; :func:`configure`), else
``$BLEU_COMPAT_MOSES_SCRIPTS/multi-bleu.perl``; neither is "not installed". Its release is
its SHA-256 in ``entries.RELEASES``; a file of another known script is refused naming it;
an unknown file is refused unless the user opted in to unknown code (:mod:`bleu_compat.foreign`:
``--allow-unknown-code`` and ``BLEU_COMPAT_ALLOW_UNKNOWN_CODE=1``), then run and its number
judged against every known dialect (the notice says so).

Card requests (crosscheck): ``bleu-corpus-compute`` with ``max_order`` 4 and the same
number of references for every segment; ``as_called`` writes each token list as a line
(tokens joined by one space), ``mapped`` writes an id per distinct token (``t1``, ``t2``,
...; the script's split and ``lc`` cannot change it). ``bleu-smoothing-compute`` only for
statistics one segment can have (its first L tokens matching); the brevity tool is not
representable. The fields read from the line: ``bleu`` (printed / 100),
``brevity_penalty``, ``candidate_length``, ``reference_length``.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

from bleu_compat.libraries import AdapterResult, NotRepresentable, dispatch
from bleu_compat.libraries.perl_runner import (
    ScriptError, check_script_path, die_message, run_perl, sha256_of,
)

__all__ = ["run", "score_lines", "score_files", "configure", "installed_version", "script_path",
           "identify", "ENV", "Script", "PerlDie"]

#: the directory holding the scripts (as mosesdecoder's scripts/generic)
ENV = "BLEU_COMPAT_MOSES_SCRIPTS"
LIBRARY = "multi-bleu"
_LINE = re.compile(r"^BLEU = (\S+), (\S+)/(\S+)/(\S+)/(\S+) \(BP=(\S+), ratio?n?=(\S+?)"
                   r"(?:i?, (?:hyp_len=(\d+), ref_len=(\d+)|\d+ sents, \d+ refs))?\)\s*$")


class PerlDie(Exception):
    """The script died (its ``die`` message, without `` at FILE line N.``): an error result."""


class Script:
    """What an adapter of the family needs to know about its script (subclassed per script)."""

    library = LIBRARY
    filename = "multi-bleu.perl"
    config_name = "multi-bleu.perl"
    _configured: dict[str, str] = {}

    def entries(self) -> Any:
        from bleu_compat.libraries.multi_bleu import entries

        return entries

    # -------------------------------------------------------------- which file, which release
    def path(self) -> str:
        """The script to run: the configured one, else ``$BLEU_COMPAT_MOSES_SCRIPTS/<file>``.

        Raises:
            OracleUnavailableError: neither is given (or the file is not there).
        """
        from bleu_compat.errors import OracleUnavailableError

        if self.library in Script._configured:
            return Script._configured[self.library]
        folder = os.environ.get(ENV, "").strip()
        if not folder:
            raise OracleUnavailableError(
                f"{self.filename} is not installed: give {self.config_name}:path=FILE, or set "
                f"{ENV} to the directory holding it (mosesdecoder's scripts/generic)")
        candidate = os.path.join(folder, self.filename)
        if not os.path.isfile(candidate):
            raise OracleUnavailableError(f"{self.filename} is not installed: {ENV}={folder} "
                                         f"has no {self.filename}")
        return candidate

    def identify(self, path: str) -> tuple[Any, str]:
        """(its release or None when unknown, its SHA-256).

        Raises:
            ScriptError: the file is missing/unreadable, or is another known script.
        """
        check_script_path(path)
        sha = sha256_of(path)
        mine = self.entries().by_sha256(sha)
        if mine is not None:
            return mine, sha
        from bleu_compat.libraries.registry import libraries

        for lib in libraries():
            other = getattr(lib.adapter_module(), "SCRIPT", None)
            if other is None or other.library == self.library:
                continue
            rel = other.entries().by_sha256(sha)
            if rel is not None:
                raise ScriptError(
                    f"{path} is {other.filename} (release {rel.label}, sha256 {sha[:16]}...), not "
                    f"{self.filename}: give it as {other.config_name}:path={path}")
        for name, facts in getattr(self.entries(), "OTHER_SCRIPTS", {}).items():
            if sha in facts:
                raise ScriptError(f"{path} is {name} ({facts[sha]}): bleu-compat models "
                                  f"{self.filename}, not that script")
        return None, sha

    def model_prints(self, dialect: str, hypothesis: str, references: Sequence[str],
                     cfg: Any) -> str | None:
        """What the model of ``dialect`` prints as the number on these files (its printed
        digits), or None when it dies."""
        from bleu_compat.libraries.multi_bleu.model import DIALECTS, multi_bleu_run

        return _printed_bleu(multi_bleu_run(DIALECTS[dialect], *_files_read(hypothesis, references),
                                            lowercase=bool(cfg.lowercase)).stdout)

    def judge_unknown(self, path: str, printed: str, hypothesis: str,
                      references: Sequence[str], cfg: Any) -> str:
        """The note for a file that is no known release: which known releases' models print
        the same number on these files (each dialect modelled is run on them)."""
        by_dialect: dict[str, list[str]] = {}
        for rel in self.entries().RELEASES:
            by_dialect.setdefault(rel.dialect, []).append(rel.label)
        same: list[str] = []
        others: list[str] = []
        for dialect, labels in by_dialect.items():
            try:
                theirs = self.model_prints(dialect, hypothesis, references, cfg)
            except Exception:  # a dialect whose model cannot take these files is not a match
                theirs = None
            (same if theirs == printed else others).extend(labels)
        sha = sha256_of(path)
        head = (f"note: {path} is not a known {self.filename} release (sha256 {sha[:16]}...): "
                f"it was run as given and printed {printed}; ")
        if same:
            return head + (f"the models of {len(same)} of the {len(same) + len(others)} known "
                           f"releases print the same on these files ({', '.join(same)})")
        return head + (f"no model of the {len(others)} known releases prints that on these "
                       "files: the decomposition uses the last release's rules")

    def version(self) -> str:
        """The release label of the script to run (``unknown-<sha256[:12]>`` for an unknown file)."""
        rel, sha = self.identify(self.path())
        return rel.label if rel is not None else f"unknown-{sha[:12]}"


SCRIPT = Script()


def installed_version() -> str:
    """The release of the script this process runs (the declaration's ``version``)."""
    return SCRIPT.version()


def script_path() -> str:
    """The script this process runs."""
    return SCRIPT.path()


def identify(path: str) -> tuple[Any, str]:
    """(release or None, sha256) of a multi-bleu.perl file (:meth:`Script.identify`)."""
    return SCRIPT.identify(path)


def configure_script(script: Script, cfg: Any, text_rules: Any) -> Any:
    """Check a configuration's own keys, register its path, complete it with its release's rules.

    ``text_rules(release) -> (tokenize, lowercase, whitespace, chop)`` for the script's
    decomposition (``lowercase`` already mapped from the config's ``lc``).

    Raises:
        ValueError: a bad path, another script's file, a setting the script has no switch for.
    """
    options = dict(cfg.settings)
    path = options.get("path")
    try:
        if path is not None:
            rel, sha = script.identify(path)
            Script._configured.setdefault(script.library, path)
        else:
            path = script.path()
            rel, sha = script.identify(path)
        if rel is None:  # refused now, before anything runs, unless the user opted in
            from bleu_compat.foreign import refuse_unknown

            refuse_unknown(f"{path}", sha, f"the {len(script.entries().RELEASES)} known releases "
                           f"of {script.filename}")
    except Exception as exc:  # ScriptError, OracleUnavailableError: a usage error here
        raise ValueError(str(exc)) from None
    if cfg.max_order != 4:
        raise ValueError(f"{cfg.name}: {script.filename} always uses 4 n-gram orders (order=4)")
    tokenize, lowercase, whitespace, chop = text_rules(rel, cfg)
    label = rel.label if rel is not None else f"unknown file, sha256 {sha[:16]}..."
    return replace(cfg, tokenize=tokenize, lowercase=lowercase, whitespace=whitespace, chop=chop,
                   release=label, settings=tuple(sorted({**options, "path": path}.items())))


def _rules(rel: Any, cfg: Any) -> tuple[str, Any, str, str]:
    from bleu_compat.libraries.multi_bleu.model import DIALECTS

    dialect = DIALECTS[rel.dialect] if rel is not None else DIALECTS["2018-07-03"]
    if cfg.lowercase and not dialect.lowercase:
        raise ValueError(f"{cfg.name}: release {rel.label} has no -lc")
    return "none", ("ascii" if cfg.lowercase else False), "ascii", (
        "byte" if dialect.chop else "off")


def configure(cfg: Any) -> Any:
    """``multi-bleu.perl[:path=FILE][,lc=yes]``: the file, its release and its text rules
    (ASCII whitespace; ``chop`` before 2018-07-03; ``-lc`` lowercases A-Z)."""
    if cfg.tokenize not in ("none", "split"):
        raise ValueError(f"{cfg.name}: multi-bleu.perl takes no tokenizer (it splits on "
                         "whitespace): tokenize the files first")
    return configure_script(SCRIPT, cfg, _rules)


# ------------------------------------------------------------------ running it


def _parse(path: str, out: str, status: int, err: str) -> dict[str, Any]:
    line = next((x for x in out.splitlines() if x.startswith("BLEU = ")), None)
    if line is None:
        die = die_message(err)
        if die is not None:
            return {"error": die}
        shown = (out.strip() or err.strip())[:200]
        raise ScriptError(f"{path}: printed no 'BLEU = ...' line (exit status {status}): "
                          f"{shown!r}")
    m = _LINE.match(line)
    if line.startswith("BLEU = 0, 0/0/0/0"):
        return {"bleu_printed": 0.0, "bp": 0.0, "hyp_len": 0, "ref_len": 0, "line": line,
                "status": status}
    if m is None:
        raise ScriptError(f"{path}: cannot read its line {line[:200]!r}")
    try:
        bleu, bp = float(m.group(1)), float(m.group(6))
    except ValueError:
        raise ScriptError(f"{path}: cannot read its line {line[:200]!r}") from None
    out_d: dict[str, Any] = {"bleu_printed": bleu, "bp": bp, "line": line, "status": status}
    if m.group(8) is not None:
        out_d.update(hyp_len=int(m.group(8)), ref_len=int(m.group(9)))
    return out_d


def run_on_files(script: str, hypothesis: str | Path, references: Sequence[str | Path],
                 lowercase: bool = False, runner: str = "stem") -> dict[str, Any]:
    """Run ``perl SCRIPT [-lc] STEM < hypothesis`` with the references copied as STEM or
    STEM0.., and read its line: ``{"bleu_printed", "bp", "hyp_len", "ref_len", "line"}`` or
    ``{"error": die message}``.

    Raises:
        ScriptError: the script cannot give a number (timeout, missing module, no line).
    """
    with tempfile.TemporaryDirectory(prefix="bleu-compat-perl-") as d:
        if len(references) == 1:
            shutil.copyfile(references[0], os.path.join(d, "ref"))
        else:
            for k, r in enumerate(references):
                shutil.copyfile(r, os.path.join(d, f"ref{k}"))
        args = (["-lc"] if lowercase else []) + ["ref"]
        result = run_perl(script, args, cwd=d, stdin=hypothesis)
    return _parse(str(script), result.stdout, result.status, result.stderr)


def _write_lines(path: str, lines: Sequence[str]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(line + "\n" for line in lines))


def score_files(cfg: Any, hypothesis: str, references: Sequence[str],
                script: Script | None = None) -> float:
    """The BLEU the script prints (0-100) on the user's files, as ``score --compare`` runs it.

    Raises:
        ScriptError: the script gives no number (its die message is named).
    """
    script = script or SCRIPT
    path = dict(cfg.settings).get("path") or script.path()
    res = run_on_files(path, hypothesis, references, lowercase=bool(cfg.lowercase))
    if "error" in res:
        raise ScriptError(f"{path}: the script died: {res['error']}")
    note_if_unknown(script, path, _printed_bleu(res["line"]) or "", hypothesis, references, cfg)
    return float(res["bleu_printed"])


def note_if_unknown(script: Script, path: str, printed: str, hypothesis: str,
                    references: Sequence[str], cfg: Any) -> None:
    """For a file that is no known release, say so on standard error (one line): which known
    releases' models print the same number (:meth:`Script.judge_unknown`)."""
    import sys

    if script.entries().by_sha256(sha256_of(path)) is None:
        print(script.judge_unknown(path, printed, hypothesis, references, cfg), file=sys.stderr)


def _printed_bleu(line: str) -> str | None:
    m = re.match(r"BLEU = ([^,]+),", line or "")
    return m.group(1) if m else None


def _files_read(hypothesis: str, references: Sequence[str]) -> tuple[bytes, list[bytes], bytes | None]:
    """(hypothesis bytes, numbered reference bytes, plain reference bytes) as the adapter
    gives them to the script (one reference as STEM, several as STEM0, STEM1, ...)."""
    hyp = Path(hypothesis).read_bytes()
    refs = [Path(r).read_bytes() for r in references]
    return (hyp, [], refs[0]) if len(refs) == 1 else (hyp, refs, None)


def score_lines(cfg: Any, hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]],
                script: Script | None = None) -> float:
    """The BLEU the script prints (0-100) on lines (written with a final newline each)."""
    with tempfile.TemporaryDirectory(prefix="bleu-compat-lines-") as d:
        hyp = os.path.join(d, "hyp")
        _write_lines(hyp, hyp_lines)
        refs = []
        for k, lines in enumerate(ref_lines):
            refs.append(os.path.join(d, f"r{k}"))
            _write_lines(refs[-1], lines)
        return score_files(cfg, hyp, refs, script)


# ------------------------------------------------------------------ card requests


def _safe_ids(request: dict[str, Any]) -> dict[str, str]:
    ids: dict[str, str] = {}
    for seq in [*request["hypotheses"], *(r for seg in request["references"] for r in seg)]:
        for t in seq:
            ids.setdefault(t, f"t{len(ids) + 1}")
    return ids


def corpus_lines(mode: str, request: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """(hypothesis lines, reference files' lines) the adapter writes for a corpus request.

    Raises:
        NotRepresentable: max order other than 4, unequal reference counts, text that is
            not UTF-8.
    """
    if request.get("max_order", 4) != 4:
        raise NotRepresentable("the script always uses 4 n-gram orders")
    counts = {len(seg) for seg in request["references"]}
    if len(counts) != 1 or 0 in counts:
        raise NotRepresentable("reference files are line-aligned: every segment needs the same "
                               "number of references (at least one)")
    k = counts.pop()
    if mode == "mapped":
        ids = _safe_ids(request)
        hyp = [" ".join(ids[t] for t in h) for h in request["hypotheses"]]
        refs = [[" ".join(ids[t] for t in seg[j]) for seg in request["references"]]
                for j in range(k)]
    else:
        hyp = [" ".join(h) for h in request["hypotheses"]]
        refs = [[" ".join(seg[j]) for seg in request["references"]] for j in range(k)]
    for line in [*hyp, *(x for r in refs for x in r)]:
        if "\n" in line or "\r" in line:
            raise NotRepresentable("a token holds a line break: a line is a segment")
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:
            raise NotRepresentable("a token is not UTF-8 text (a lone surrogate)") from None
    return hyp, refs


def _run_lines(hyp: Sequence[str], refs: Sequence[Sequence[str]], raw: dict[str, Any],
               script: Script | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bleu-compat-card-") as d:
        hp = os.path.join(d, "hyp")
        _write_lines(hp, hyp)
        rps = []
        for k, lines in enumerate(refs):
            rps.append(os.path.join(d, f"r{k}"))
            _write_lines(rps[-1], lines)
        res = run_on_files((script or SCRIPT).path(), hp, rps)
    raw.update(res)
    if "error" in res:
        raise PerlDie(res["error"])
    return res


def _corpus(mode: str, request: dict[str, Any], raw: dict[str, Any],
            script: Script | None = None) -> dict[str, Any]:
    hyp, refs = corpus_lines(mode, request)
    res = _run_lines(hyp, refs, raw, script)
    return {"bleu": res["bleu_printed"] / 100, "brevity_penalty": res["bp"],
            "candidate_length": res["hyp_len"], "reference_length": res["ref_len"], "max_order": 4}


def one_segment(request: dict[str, Any]) -> tuple[str, str]:
    """(hypothesis, reference) lines of one segment with the request's statistics.

    Raises:
        NotRepresentable: statistics no such segment has.
    """
    m, t = list(request["matches"]), list(request["totals"])
    c, r = request["candidate_length"], request["reference_length"]
    if len(m) != 4 or request.get("effective_order") or request["smoothing"] != "none":
        raise NotRepresentable("the script computes 4 orders without smoothing")
    length = m[0]
    if t != [max(0, c - n + 1) for n in range(1, 5)] or m != [max(0, length - n + 1)
                                                            for n in range(1, 5)] or r < length:
        raise NotRepresentable("the script takes text: only the statistics of one segment whose "
                               "first L tokens match are written as text")
    hyp = [f"t{i}" for i in range(1, c + 1)]
    ref = hyp[:length] + [f"r{i}" for i in range(1, r - length + 1)]
    return " ".join(hyp), " ".join(ref)


def _smoothing(mode: str, request: dict[str, Any], raw: dict[str, Any],
               script: Script | None = None) -> dict[str, Any]:
    hyp, ref = one_segment(request)
    res = _run_lines([hyp], [[ref]], raw, script)
    return {"bleu": res["bleu_printed"] / 100, "brevity_penalty": res["bp"]}


def _brevity(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    raise NotRepresentable("the script takes text, not lengths")


def run(mode: str, tool_id: str, request: dict[str, Any]) -> AdapterResult:
    """Run the script on a card request (see the module docstring)."""
    return dispatch(LIBRARY, mode, tool_id, request, {
        "bleu-corpus-compute": _corpus, "bleu-smoothing-compute": _smoothing,
        "bleu-brevity-penalty": _brevity})
