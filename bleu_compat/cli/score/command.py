"""The ``score`` command: check the request, read the inputs in one pass, score, compare, print.

The two forms (docs/score.md):

* sacreBLEU's, ``score REF [REF ...] -i SYS [SYS ...]`` (or the system on
  standard input: ``score REF < SYS``): sacreBLEU's defaults and, in its
  formats (json, text, latex, ``-b``), its bytes
  (:mod:`bleu_compat.cli.score.sacrebleu_form`);
* bleu-compat's, ``card-score HYP REF [REF ...]``: the card's defaults and
  multi-bleu.perl's line, the roles of the files printed under it.

bleu-compat's own formats (line, table, markdown, csv, ``--json``) print the
card's numbers in either form, with the card's signature.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
# typing is not imported at run time (issue 34: 2 ms of every command's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator, Sequence

from bleu_compat.cli.score.arguments import (
    MAX_WIDTH,
    PROG,
    SACREBLEU_FORMATS,
    UNSUPPORTED,
    fail,
)
from bleu_compat.cli.score.inputs import (
    TUNE_MALLOC_BYTES,
    InputError,
    Spool,
    keep_freed_memory,
    lowercase_block,
    open_reader,
    size_of,
)
from bleu_compat.cli.score.progress import progress_on_stderr
from bleu_compat.cli.score.sacrebleu_form import (
    sacrebleu_bleu,
    several_systems,
    signature_fields,
    single_system,
)
from bleu_compat.corpus_io import CorpusReadError, LineChecker, aligned_blocks, read_lines
from bleu_compat.errors import BleuCompatError
from bleu_compat import stream as _stream
from bleu_compat.tokenizers import ALL_TOKENIZERS, get_tokenizer, is_moses, tokenize_lines

if TYPE_CHECKING:
    from bleu_compat.bleu import BleuResult
    from bleu_compat.cli.score.segments import SegmentWriter
    from bleu_compat.stats import SufficientStats

# sacreBLEU's formats (the default run) need the modules above only: the card's
# arithmetic, bleu-compat's own formats, --compare and --segments import theirs where
# they are used (issue 34: each module a run does not use is start-up time it spends).

__all__ = ["cmd_score"]

#: sacreBLEU's default tokenizer for a target language given with -l (others: 13a)
_TARGET_TOKENIZER = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}


def cmd_score(args: argparse.Namespace) -> int:
    """Run ``score``; return the exit status (0, 1 on UNEXPECTED with --compare, 2 on bad input)."""
    # --max-order given or not: with --compare, a given option applies to every configuration
    args.max_order_given = getattr(args, "max_order", None) is not None
    if not args.max_order_given:
        args.max_order = 4
    from bleu_compat.cli.score import arguments

    card = bool(getattr(args, "card_form", False))
    arguments.PROG = "bleu-compat card-score" if card else "bleu-compat score"
    if getattr(args, "cluster", None) is not None and not card:
        return fail("--cluster scores the card's form, hypothesis first: bleu-compat card-score "
                    "--cluster ADDRESS HYP REF [REF ...]")
    if getattr(args, "cluster", None) is not None:  # issue 16
        from bleu_compat.cli.crosscheck import cluster_problem
        from bleu_compat.cli.score.cluster import cmd_score_cluster

        problem = cluster_problem(args.cluster)  # the same refusals as crosscheck, before any work
        if problem:
            return fail(problem)
        if getattr(args, "effective_order", False):
            return fail("--effective-order is not computed with --cluster (the shards' sums "
                        "are scored without it): score the files without --cluster")
        from bleu_compat.tokenizers.segmenters import SPM

        if getattr(args, "spm_model", None) is not None or args.tokenize in SPM:
            # each worker would read whatever model file its own machine has
            return fail(f"--cluster: -tok {args.tokenize or 'none'}"
                        f"{' --spm-model' if getattr(args, 'spm_model', None) else ''}: the "
                        "SentencePiece tokenizers are not run on a cluster (the workers' model "
                        "file could not be checked to be this one); score the files without "
                        "--cluster")

        return cmd_score_cluster(args)
    try:
        plan = _plan(args)
    except _Refusal as exc:
        return fail(str(exc))
    try:
        # only --compare reads its inputs again: the spool copies what cannot be (bounded,
        # removed on every exit); without --compare it stays empty
        with Spool() if plan.configs is not None else contextlib.nullcontext() as spool:
            status = _run(args, plan, spool)
        sys.stdout.flush()  # a write error on standard output is reported here, not at exit
        return status
    except (CorpusReadError, InputError, _Refusal) as exc:
        message = str(exc)
        if (plan.stdin_implicit and len(plan.ref_paths) > 1 and isinstance(exc, CorpusReadError)
                and ("line counts differ" in message or message.startswith("-:"))):
            # sacreBLEU's `REF1 REF2 < SYS`; said for whoever meant the former `score HYP REF`
            message += ("; with no -i every file is a reference and the system is standard "
                        "input, as in sacreBLEU (bleu-compat's former `score HYP REF` is now "
                        "`bleu-compat card-score HYP REF`)")
        return fail(message)
    except OSError as exc:
        if exc.filename is None and exc.errno is not None:  # standard output (e.g. /dev/full)
            _discard_stdout()
            return fail(f"cannot write to standard output: {exc.strerror or exc}")
        raise


def _discard_stdout() -> None:
    """Point standard output at /dev/null, so that the flush at exit cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


class _Refusal(Exception):
    """A usage error found after parsing (the message is the one line printed)."""


class _Plan:
    """What the command line asks for, resolved (defaults of the form filled in).

    Attributes (after the constructor's positional ones):
        warnings: printed before reading.
        resolved: with --compare, each configuration as run (the options applied), in
            ``configs``' order.
        script_warning: the references' script calls for another tokenizer (set after
            reading), or None.
        script_sample: each reference's first bytes, as read (the script check's).
        notes: how the run computes what the outputs cannot say (the SentencePiece model
            file used).
        stdin_implicit: the system is standard input because no -i was given
            (sacreBLEU's reading of it: universal newlines, one system per
            tab-separated column).
        num_refs: -nr N (the one reference file holds N tab-separated references).
        encoding: -e ENC when it is not UTF-8 (inputs are decoded from it), else None.
        mode: what is computed: "corpus" (BLEU per system), "sentence" (-sl), "ci"
            (-ci), "bs" (--paired-bs), "ar" (--paired-ar).
    """

    def __init__(self, sacre: bool, system_paths: list[str], ref_paths: list[str],
                 tokenize: str, smooth: str, smooth_value: float | None, width: int, fmt: str,
                 configs: list[str] | None, warnings: list[str] | None = None, *,
                 stdin_implicit: bool = False, num_refs: int = 1, encoding: str | None = None,
                 mode: str = "corpus") -> None:
        self.sacre = sacre  # sacreBLEU's form
        self.system_paths, self.ref_paths = system_paths, ref_paths
        self.tokenize, self.smooth, self.smooth_value = tokenize, smooth, smooth_value
        self.width = width
        # json/text/latex (sacreBLEU's), bc-json, card-json, line, table, markdown, csv
        self.fmt = fmt
        self.configs = configs
        self.warnings: list[str] = [] if warnings is None else warnings
        self.resolved: list[Any] = []
        self.script_warning: str | None = None
        self.script_sample: list[bytearray] = []
        self.notes: list[str] = []
        self.stdin_implicit, self.num_refs = stdin_implicit, num_refs
        self.encoding, self.mode = encoding, mode

    @property
    def sacrebleu_output(self) -> bool:
        return self.sacre and self.fmt in SACREBLEU_FORMATS

    @property
    def n_refs(self) -> int:
        """References per segment: one per file, or -nr's count in the one file."""
        return self.num_refs if self.num_refs > 1 else len(self.ref_paths)


def _plan(args: argparse.Namespace) -> _Plan:
    """Check the command line and resolve each form's defaults; raise _Refusal when it cannot run."""
    if args.test_set is not None:
        raise _Refusal(
            f"-t/--test-set {args.test_set}: bleu-compat downloads nothing (there is no "
            "network access for test sets here); pass the files instead: "
            "`bleu-compat score REF [REF ...] -i SYS [SYS ...]` (e.g. a test set's reference "
            "and a system's output as plain text, as `sacrebleu -t NAME -l PAIR --echo ref` "
            "prints them on a machine that has it; the WMT17 en-de reference and "
            "uedin-nmt's output are bundled in fixtures/real/wmt17-en-de-uedin-nmt/)"
        )
    for flags, _, why in UNSUPPORTED:
        if getattr(args, "unsupported_" + flags[-1].lstrip("-").replace("-", "_"), None) \
                not in (None, False):
            raise _Refusal(f"{'/'.join(flags)}: sacreBLEU's option is not supported here: {why}")
    from bleu_compat.cli.score.sacrebleu_input import encoding_name

    try:
        encoding: str | None = encoding_name(args.encoding)
    except LookupError as exc:
        raise _Refusal(f"-e/--encoding {args.encoding}: {exc}") from None
    if encoding == "utf-8":
        encoding = None
    card = bool(getattr(args, "card_form", False))
    mode = _mode(args)
    if not args.files:
        swallowed = [c for c in (args.compare or ()) if os.path.exists(c)]
        hint = (f"; --compare [CONFIG ...] took {swallowed[0]!r} as a configuration: put --compare "
                "after the files") if swallowed else ""
        wanted = "HYP REF [REF ...]" if card else "REF [REF ...] -i SYS [SYS ...], or REF [REF ...] < SYS"
        raise _Refusal(f"the following arguments are required: FILE ({wanted}){hint}")
    if args.systems is not None and not args.systems:
        raise _Refusal("-i/--input needs at least one system file (-i SYS [SYS ...]; - is "
                       "standard input)")
    stdin_implicit = False
    if card:
        if args.systems is not None:
            raise _Refusal("card-score takes HYP REF [REF ...], the hypothesis first; -i is "
                           "sacreBLEU's form: bleu-compat score REF [REF ...] -i SYS [SYS ...]")
        if len(args.files) < 2:
            raise _Refusal("card-score needs HYP and at least one REF (HYP REF [REF ...], the "
                           "hypothesis first); sacreBLEU's form is bleu-compat score REF -i SYS")
        sacre = False
        system_paths, ref_paths = args.files[:1], args.files[1:]
    else:
        sacre = True
        system_paths, ref_paths = list(args.systems or ["-"]), list(args.files)
        if args.systems is None:
            stdin_implicit = True
            if sys.stdin is None or sys.stdin.isatty():
                raise _Refusal(_terminal_message(len(args.files)))
        seen: set[str] = set()
        unique: list[str] = []
        for k, path in enumerate(system_paths):
            if path in seen:
                if mode in ("bs", "ar") and path == system_paths[0]:
                    # sacreBLEU's paired tests skip a system that is the baseline again
                    _warn(args, f"{path!r} is the baseline too: ignored as a system, as "
                          "sacreBLEU ignores it")
                    continue
                raise _Refusal(f"{path!r} is given twice as a system (as sacreBLEU, each system "
                               "needs its own file name)")
            seen.add(path)
            unique.append(path)
        system_paths = unique
    if [*system_paths, *ref_paths].count("-") > 1:
        raise _Refusal("standard input (-) can be given only once")
    num_refs = args.num_refs
    if num_refs != 1:
        if num_refs < 1:
            raise _Refusal(f"-nr/--num-refs {num_refs}: give the number of tab-separated "
                           "references on each line of the reference file, 1 or more")
        if len(ref_paths) > 1:
            raise _Refusal("-nr/--num-refs: the tab-separated references are in one file, so "
                           "give one reference file with it (as sacreBLEU requires)")
    warnings: list[str] = []
    # SPEC.md section 8: sacreBLEU's form tokenizes raw text with 13a; multi-bleu's splits
    tokenize = args.tokenize or ("13a" if sacre else "none")
    target = None
    if args.langpair is not None:
        parts = args.langpair.split("-")
        if len(parts) < 2:  # sacreBLEU takes the target after the first '-'
            raise _Refusal(f"-l/--language-pair {args.langpair!r}: give SRC-TRG, e.g. en-de")
        target = parts[1]
        wanted = _TARGET_TOKENIZER.get(target)
        if args.tokenize is None and wanted is not None and sacre:
            tokenize = wanted  # as sacreBLEU's BLEU(trg_lang=...): zh, ja-mecab, ko-mecab
        elif wanted is not None and tokenize != wanted:
            warnings.append(f"-l {args.langpair}: consider the {wanted!r} tokenizer for this "
                            "target language (sacreBLEU's advice)")
    if is_moses(tokenize):  # issue 32: the language is -l's target, else tokenizer.perl's en
        tokenize = _moses_tokenize(tokenize, target, args.langpair, warnings)
        if sacre:  # the signature names sacreBLEU's release: say what it did not do
            from bleu_compat.cli.score.sacrebleu_form import SACREBLEU_RELEASE
            from bleu_compat.tokenizers.moses import MOSES_COMMIT

            warnings.append(
                f"tok:{tokenize} is not a sacreBLEU tokenizer: bleu-compat's Moses tokenizer "
                f"(mosesdecoder {MOSES_COMMIT[:8]} tokenizer.perl's rules) tokenized the "
                f"system and the references, and the BLEU is sacreBLEU {SACREBLEU_RELEASE}'s on "
                "its output (what `sacrebleu -tok none` prints on tokenizer.perl's files"
                f"{', lowercased after' if args.lowercase else ''})")
    smooth = args.smooth_method or ("exp" if sacre else "none")
    value = args.smooth_value
    if value is not None and not math.isfinite(value):
        raise _Refusal(f"-sv/--smooth-value {value}: must be a finite number")
    if value is not None and smooth in ("floor", "add-k") and value < 0:
        raise _Refusal(f"-sv/--smooth-value {value:g}: must not be negative")
    width = args.decimals if args.decimals is not None else (1 if sacre else 2)
    if not 0 <= width <= MAX_WIDTH:
        flag = getattr(args, "decimals_flag", "--width")
        raise _Refusal(f"{flag} {width}: must be between 0 and {MAX_WIDTH} (-w, --width and "
                       "--decimals are one option)")
    configs: list[str] | None = None
    if args.compare is not None or args.config:
        from bleu_compat.decompose import DEFAULT_COMPARE, parse_config

        from bleu_compat.cli.score.arguments import COMPARE_DEFAULTS

        named = [spec for c in (args.compare or [COMPARE_DEFAULTS])
                 for spec in (DEFAULT_COMPARE if c == COMPARE_DEFAULTS else (c,))]
        # every --compare and --config adds; a configuration named twice is compared once
        configs = list(dict.fromkeys(named + list(args.config or ())))

        for spec in configs:
            try:
                parse_config(spec, card_tokenize=tokenize)
            except ValueError as exc:
                # a file name taken as a configuration: --compare [CONFIG ...] swallowed it
                hint = " (put --compare after the files)" if os.path.exists(spec) else ""
                flag = "--config" if spec in (args.config or ()) else "--compare"
                raise _Refusal(f"{flag}: {exc}{hint}") from None
    if configs is not None:
        from bleu_compat.decompose import with_reference

        configs = with_reference(configs)
    elif getattr(args, "defaults", False):
        raise _Refusal("--defaults is --compare's: give --compare too")
    compare = configs is not None
    if compare and encoding is not None:  # the libraries compared read the files as UTF-8
        raise _Refusal(f"-e/--encoding {args.encoding}: --compare runs the libraries on the "
                       "files as UTF-8; convert them first (e.g. with iconv)")
    if compare and num_refs != 1:  # the libraries compared take one file per reference
        raise _Refusal("-nr/--num-refs: --compare runs the libraries on one file per "
                       "reference; split the tab-separated references into files first")
    fmt = args.format
    if sacre:
        env = os.environ.get("SACREBLEU_FORMAT", "").lower()
        if env in SACREBLEU_FORMATS and fmt in (None, *SACREBLEU_FORMATS) and not compare:
            fmt = env  # as sacreBLEU: the variable overrides -f
        if fmt is None:
            fmt = "bc-json" if args.json else "table" if compare else "json"
        elif fmt == "json" and (args.json or compare):
            fmt = "bc-json"
        elif fmt in ("text", "latex") and compare:
            fmt = "table"
        if args.detail and fmt == "json" and not args.json:
            fmt = "text"  # as sacreBLEU: -d's lines would break the JSON
    else:
        if fmt is None:
            fmt = "card-json" if args.json else "line"
        elif fmt == "text":
            fmt = "line" if len(system_paths) == 1 else "table"
        elif fmt == "json":
            fmt = "bc-json"
        elif fmt == "latex":
            raise _Refusal("-f latex is sacreBLEU's table: use its form, REF -i SYS SYS ...")
    plan = _Plan(sacre, system_paths, ref_paths, tokenize, smooth, value, width, fmt, configs,
                 warnings, stdin_implicit=stdin_implicit, num_refs=num_refs, encoding=encoding,
                 mode=mode)
    _check_mode(args, plan)
    if configs is not None:
        from bleu_compat.cli.score.compare_options import (
            GivenOptions,
            OptionRefused,
            resolve_configurations,
        )

        # -l xx-zh/ja/ko chooses the tokenizer as sacreBLEU does: given, as -tok would be;
        # a Moses tokenization with the language -l gave it (tokenize, resolved)
        chosen = tokenize if args.tokenize else (
            tokenize if args.langpair is not None and sacre and tokenize != "13a" else None)
        from_language = args.tokenize is None and chosen is not None
        given = GivenOptions(tokenize=chosen,
                             tokenize_flag=f"-l {args.langpair}" if from_language else None,
                             lowercase=args.lowercase,
                             smooth=args.smooth_method, smooth_value=args.smooth_value,
                             effective_order=bool(getattr(args, "effective_order", False)),
                             max_order=args.max_order if args.max_order_given else None)
        try:
            plan.resolved = resolve_configurations(
                configs, given, defaults=getattr(args, "defaults", False),
                card_tokenize=tokenize, card_lowercase=args.lowercase, card_smooth=smooth,
                card_smooth_value=value, max_order=args.max_order)
        except OptionRefused as exc:
            raise _Refusal(f"--compare: {exc}") from None
        except ValueError as exc:
            raise _Refusal(f"--compare: {exc}") from None
        plan.resolved = [_moses_language(r, target, args.langpair, warnings)
                         for r in plan.resolved]
    card_numbers = not plan.sacrebleu_output or compare or args.segments
    if card_numbers and smooth == "add-k" and value not in (None, 1.0):
        where = (f"; to compare sacreBLEU's add-k with k = {value:g}, name it as a "
                 f"configuration: --compare sacrebleu:smooth=add-k,value={value:g}"
                 if compare else "; sacreBLEU's formats (-f json/text/latex, REF -i SYS) "
                 "compute any k")
        raise _Refusal(f"-sv/--smooth-value={value:g}: add-k has a card equivalent (method2) "
                       "only with k = 1" + (" (the card's row and the headline in --compare "
                                            f"cannot be add-k with k = {value:g})" if compare
                                            else "") + where)
    if card_numbers and smooth == "floor" and value is not None and not 0 <= value <= 1:
        raise _Refusal(f"-sv/--smooth-value={value:g}: the card's floor takes an epsilon in "
                       "[0, 1]; sacreBLEU's formats (-f json/text/latex, REF -i SYS) take any")
    if getattr(args, "html", None) and not compare:
        raise _Refusal("--html writes the --compare report: give --compare too")
    if compare and args.score_only:  # the comparison would run and never be shown
        raise _Refusal("-b/--score-only prints the score alone, so --compare's report would be "
                       "computed and not printed: drop -b, or --compare")
    # the outputs are checked before anything runs: a comparison is not run only to be lost
    outputs = [(flag, target) for flag, target in
               (("--segments", args.segments), ("--html", getattr(args, "html", None)))
               if target is not None]
    for flag, target in outputs:
        from bleu_compat.cli.score.output_files import output_problem

        problem = output_problem(target, [*system_paths, *ref_paths],
                                 [t for f, t in outputs if f != flag])
        if problem:
            raise _Refusal(f"{flag}: {problem}")
    from bleu_compat.tokenizers import SEGMENTERS

    used = [tokenize, *(r.config.tokenize for r in plan.resolved)]
    segmenters: Any = None
    if getattr(args, "spm_model", None) is not None or any(t in SEGMENTERS for t in used):
        from bleu_compat.tokenizers import segmenters  # only where one is used (start-up)

        segmenters.use_model_file(getattr(args, "spm_model", None))
    if getattr(args, "spm_model", None) is not None and tokenize not in segmenters.SPM and not any(
            r.config.tokenize in segmenters.SPM for r in plan.resolved):
        raise _Refusal(f"--spm-model {args.spm_model}: used only by the SentencePiece "
                       f"tokenizers ({', '.join(segmenters.SPM)}); this run tokenizes with "
                       f"{tokenize}")
    # the command's tokenizer and every configuration's that is one of ours (a library's own,
    # e.g. NLTK's treebank, is its adapter's to check)
    for tok in dict.fromkeys([tokenize, *(r.config.tokenize for r in plan.resolved)]):
        if tok not in ALL_TOKENIZERS:
            continue
        try:
            get_tokenizer(tok)
        except (BleuCompatError, ImportError) as exc:
            raise _Refusal(str(exc)) from None
        if segmenters is not None and tok in segmenters.SPM:  # which model file it used
            plan.notes.append(segmenters.spm_model(tok).describe(tok))
        if tok == "spm":  # sacreBLEU's own warning for its old name
            plan.warnings.append("-tok spm: sacreBLEU's tokenizer 'spm' has been changed to "
                                 "'flores101' (the same model; signature flores101), and may be "
                                 "removed in the future")
    return plan


def _moses_tokenize(name: str, target: str | None, langpair: str | None,
                    warnings: list[str]) -> str:
    """A Moses tokenization with its language: ``moses-de`` for ``-tok moses -l en-de`` (the
    language a name gives wins; none and no -l: tokenizer.perl's default, en, said in a
    warning); a language without nonbreaking prefixes gets tokenizer.perl's warning.

    Raises:
        _Refusal: a bad name, or a target that is not a language code.
    """
    from bleu_compat.errors import ConfigError
    from bleu_compat.tokenizers.moses import MosesTokenizer, parse_name

    try:
        parsed = parse_name(name)
        if parsed.language is None and target is not None:
            MosesTokenizer(target)  # checks the code
    except ConfigError as exc:
        where = f" (the target language of -l {langpair})" if langpair else ""
        raise _Refusal(f"-tok {name}{where}: {exc}") from None
    resolved = parsed.resolved(target)
    if parsed.language is None and target is None:
        warning = (f"-tok {name}: no -l SRC-TRG given: tokenizer.perl's default language, en "
                   "(its English prefixes and apostrophe rules); give -l SRC-TRG, or -tok "
                   f"{name}-LANG (e.g. {name}-de)")
        if warning not in warnings:
            warnings.append(warning)
    tok = MosesTokenizer(resolved.rpartition("-")[2])
    if tok.warning and tok.warning not in warnings:
        warnings.append(f"{resolved}: tokenizer.perl's own words: {tok.warning}")
    return resolved


def _moses_language(resolved: Any, target: str | None, langpair: str | None,
                    warnings: list[str]) -> Any:
    """A --compare configuration with ``tok=moses`` or ``tok=moses-a`` (no language): the
    language of ``-l`` (else en), as for ``-tok``."""
    from dataclasses import replace

    cfg = resolved.config
    if not is_moses(cfg.tokenize) or cfg.tokenize not in ("moses", "moses-a"):
        return resolved
    name = _moses_tokenize(cfg.tokenize, target, langpair, warnings)
    return replace(resolved, config=replace(cfg, tokenize=name))


def _terminal_message(n_files: int) -> str:
    """The refusal when no -i is given and standard input is a terminal."""
    files = ("the file is the reference" if n_files == 1 else
             f"the {n_files} files are references, as in sacreBLEU")
    old = ("; bleu-compat's former `score HYP REF` (hypothesis first) is now `bleu-compat "
           "card-score HYP REF`" if n_files > 1 else "")
    return (f"no -i: {files} and the system is read from standard input, which is a terminal "
            "here (sacreBLEU would wait for it to be typed); give -i SYS or pipe the system "
            f"in (score REF [REF ...] < SYS){old}")


#: sacreBLEU's sentence-level and statistical options: what each is called in messages
_MODE_FLAGS = {"sentence": "-sl/--sentence-level", "ci": "-ci/--confidence",
               "bs": "--paired-bs", "ar": "--paired-ar"}


def _mode(args: argparse.Namespace) -> str:
    """What is computed (:attr:`_Plan.mode`), refusing what sacreBLEU refuses; checks that
    need the number of systems are :func:`_check_systems`'."""
    metrics = list(dict.fromkeys(getattr(args, "metrics", None) or ["bleu"]))
    others = [m for m in metrics if m != "bleu"]
    if others:
        raise _Refusal(f"-m/--metrics {' '.join(others)}: bleu-compat computes BLEU only "
                       "(sacreBLEU's chrF and TER are not reproduced); score them with "
                       "sacrebleu itself, or give -m bleu")
    paired = "bs" if args.paired_bs else "ar" if args.paired_ar else None
    if args.sentence_level and (args.confidence or paired):
        raise _Refusal("-sl/--sentence-level: statistical tests are unavailable in "
                       "sentence-level mode (as in sacreBLEU)")
    if args.sentence_level:
        return "sentence"
    if paired:
        n = args.paired_bs_n if paired == "bs" else args.paired_ar_n
        flag = "--paired-bs-n" if paired == "bs" else "--paired-ar-n"
        if n > 1_000_000:  # a bound of ours: sacreBLEU would try, for hours
            raise _Refusal(f"{flag} {n}: at most 1,000,000 here")
        if args.paired_jobs < 0:
            raise _Refusal(f"-j/--paired-jobs {args.paired_jobs}: give 0 (one per system) or "
                           "more")
        return paired
    if args.confidence:
        if args.confidence_n > 1_000_000:
            raise _Refusal(f"-cin/--confidence-n {args.confidence_n}: at most 1,000,000 here")
        return "ci"
    return "corpus"


def _check_mode(args: argparse.Namespace, plan: _Plan) -> None:
    """The modes and the options of bleu-compat's own that they cannot go with."""
    if plan.mode == "corpus":
        return
    flag = _MODE_FLAGS[plan.mode]
    if not plan.sacre:
        raise _Refusal(f"{flag} is sacreBLEU's: give its form, bleu-compat score REF -i SYS")
    if plan.configs is not None:
        raise _Refusal(f"{flag} prints sacreBLEU's output; --compare is bleu-compat's: give "
                       "one or the other")
    if not plan.sacrebleu_output:
        raise _Refusal(f"{flag} prints sacreBLEU's output: -f json, text or latex (not "
                       f"{'--json' if args.json else '-f ' + str(args.format)})")
    if plan.mode in ("ci", "bs", "ar"):
        from bleu_compat.cli.score.significance import SeedError, seed_setting

        try:
            seed_setting()
        except SeedError as exc:
            raise _Refusal(str(exc)) from None
    if not plan.stdin_implicit:  # standard input's columns are counted when it is opened
        _check_systems(plan, len(plan.system_paths))


def _check_systems(plan: _Plan, n_systems: int) -> None:
    """sacreBLEU's refusals that depend on how many systems there are."""
    if plan.mode == "sentence" and n_systems > 1:
        raise _Refusal("-sl/--sentence-level: only one system can be evaluated in "
                       "sentence-level mode (as in sacreBLEU)")
    if plan.mode in ("bs", "ar") and n_systems == 1:
        raise _Refusal(f"{_MODE_FLAGS[plan.mode]}: paired tests require multiple input systems "
                       "given to --input (-i): the first is the baseline")
    if plan.mode == "ci" and n_systems > 1:
        raise _Refusal("-ci/--confidence: use paired tests (--paired-bs or --paired-ar) for "
                       "multiple systems (as sacreBLEU)")


def _warn(args: argparse.Namespace, message: str) -> None:
    if not args.quiet:
        print(f"{PROG}: warning: {message}", file=sys.stderr)


def _open_inputs(plan: _Plan, paths: list[str]) -> tuple[list[Any], list[Any]]:
    """Open ``paths`` (what to read for ``plan.ref_paths + plan.system_paths``) as
    sacreBLEU reads them: one LineStream per reference and per system (-nr's file gives
    N, standard input without -i one per tab-separated column), and the objects to close.

    With no -i, the system names become sacreBLEU's for standard input when it holds
    several columns (``System 1``, ...), and the checks that depend on the number of
    systems run (:func:`_check_systems`).

    Raises:
        InputError, CorpusReadError, _Refusal: an input cannot be opened or read.
    """
    from bleu_compat.cli.score.sacrebleu_input import (
        TabColumns,
        Transcoded,
        UniversalNewlines,
        first_fields,
    )
    from bleu_compat.corpus_io import LineStream

    names = [*plan.ref_paths, *plan.system_paths]
    n_files = len(plan.ref_paths)
    streams: list[Any] = []
    closers: list[Any] = []
    try:
        for k, (name, path) in enumerate(zip(names, paths)):
            reader, closing = open_reader(path)
            closers.append(closing)
            if plan.encoding is not None:
                reader = Transcoded(name, reader, plan.encoding)
            if plan.stdin_implicit and k >= n_files:
                source = LineStream(name, UniversalNewlines(reader))
                head, columns = first_fields(source)
                if head == b"":
                    plan.warnings.append("standard input is empty: read as one empty line, as "
                                         "sacreBLEU reads it")

                def mismatch(line: int, found: int, expected: int = columns) -> str:
                    return (f"-: line {line} has {found} tab-separated field"
                            f"{'s' if found > 1 else ''} where line 1 has {expected}: with no -i, "
                            "standard input holds one system per tab-separated column, as "
                            "sacreBLEU reads it (give the system with -i to keep its tabs)")

                split = TabColumns(source, columns, -1, mismatch, head=head)
                if columns > 1:
                    plan.system_paths = (
                        ["Baseline", *(f"System {i + 1}" for i in range(columns - 1))]
                        if plan.mode in ("bs", "ar") else
                        [f"System {i + 1}" for i in range(columns)])
                    if plan.configs is not None:
                        raise _Refusal("standard input holds several tab-separated systems: "
                                       "--compare reads files; give each system as a file "
                                       "after -i")
                _check_systems(plan, columns)
                for i in range(columns):
                    streams.append(LineStream(name if columns == 1 else plan.system_paths[i],
                                              split.column(i)))
            elif plan.num_refs > 1 and k < n_files:
                n = plan.num_refs

                def expected(line: int, found: int, name: str = name, n: int = n) -> str:
                    return (f"{name}: line {line} has {found} tab-separated field"
                            f"{'s' if found > 1 else ''}; -nr {n} expects {n} references on "
                            "every line (sacreBLEU: FATAL: expected N fields)")

                split = TabColumns(LineStream(name, reader), n, n - 1, expected)
                streams += [LineStream(f"{name} (reference {i + 1} of -nr {n})", split.column(i))
                            for i in range(n)]
            else:
                streams.append(LineStream(name, reader))
    except BaseException:
        for closing in closers:
            if closing is not None:
                closing.close()
        raise
    return streams, closers


def _read_and_count(args: argparse.Namespace, plan: _Plan, paths: list[str],
                    segments: Any, copies: list[Any] | None = None,
                    sample: list[bytearray] | None = None,
                    opened: tuple[list[Any], list[Any]] | None = None,
                    rows_out: list[list[Any]] | None = None,
                    ) -> tuple[list[_Sums], int, list[str]]:
    """One pass over the references and every system together: each system's statistics.

    ``paths``: what to open for ``plan.ref_paths + plan.system_paths`` (the same, or
    their spooled copies); names in messages are the paths as given. ``segments``:
    a :class:`SegmentWriter` or None. ``copies``: per input, a
    :class:`~bleu_compat.cli.score.inputs.SpoolCopy` that receives its blocks as read
    (for --compare), or None. ``sample``: one bytearray per reference, filled with that
    reference's first bytes (:func:`_script_warning` reads them), or None. ``opened``:
    the inputs opened already (:func:`_open_inputs`), else they are opened here.
    ``rows_out``: one list per system, extended with each segment's row
    ``[m_1..m_N, l_1..l_N, hyp_len, ref_len]``, or None.
    Returns (statistics per system, segments, warnings).

    Raises:
        CorpusReadError, InputError: an input cannot be read (named), or the line counts differ.
    """
    n_refs = plan.n_refs
    streams, opened_handles = opened if opened is not None else _open_inputs(plan, paths)
    names = [s.name for s in streams]
    try:
        if sum(size_of(p) for p in paths) >= TUNE_MALLOC_BYTES:
            keep_freed_memory()
        # a Moses tokenization rewrites each block first (tokenizer.perl's output); -lc and
        # the counting then act on it, as on tokenized text (tok none)
        moses = _moses_block(plan.tokenize) if is_moses(plan.tokenize) else None
        count_tokenize = _counted_as(plan.tokenize)
        tokenizer = get_tokenizer(count_tokenize)
        n = args.max_order
        per_segment = segments is not None or rows_out is not None
        sums = [([0] * n, [0] * n, [0, 0]) for _ in plan.system_paths]
        checkers = [LineChecker(name) for name in names]
        block = {"lines": _stream._FIRST_BLOCK_LINES}
        first = 0
        with progress_on_stderr() as progress:
            progress("scoring " + ", ".join(plan.system_paths))
            for n_lines, chunks in aligned_blocks(streams, lambda: block["lines"], checkers):
                for copy, chunk in zip(copies or (), chunks):
                    if copy is not None:
                        copy.write(chunk)
                for kept, chunk in zip(sample or (), chunks):
                    if len(kept) < _SAMPLE_BYTES:
                        kept += chunk[:_SAMPLE_BYTES - len(kept)]
                if moses is not None:
                    chunks = [moses(c) for c in chunks]
                if args.lowercase:
                    chunks = [lowercase_block(c) for c in chunks]
                refs = chunks[:n_refs]
                n_tokens = 0
                for k, system in enumerate(plan.system_paths):
                    hyp = chunks[n_refs + k]
                    m, t, h, r, rows, tokens = _stream.count_block(
                        [hyp, *refs], n_lines, tokenizer, tokenize=count_tokenize, max_order=n,
                        per_segment=per_segment)
                    n_tokens = n_tokens or tokens
                    matches, totals, lengths = sums[k]
                    for j in range(n):
                        matches[j] += int(m[j])
                        totals[j] += int(t[j])
                    lengths[0] += int(h)
                    lengths[1] += int(r)
                    if segments is not None:
                        segments.write(system, first, rows, hyp, refs)
                    if rows_out is not None:
                        rows_out[k].extend(rows)
                first += n_lines
                block["lines"] = _stream.next_block_lines(_stream.STREAM_BLOCK_TOKENS, n_lines, n_tokens)
    finally:
        for closing in opened_handles:
            if closing is not None:
                closing.close()
    warnings: list[str] = []
    for checker in checkers:
        for warning in checker.warnings():
            if warning not in warnings:
                warnings.append(warning)
    stats = [_Sums(tuple(m), tuple(t), lengths[0], lengths[1]) for m, t, lengths in sums]
    return stats, first, warnings


def _counted_as(tokenize: str) -> str:
    """The tokenizer the blocks are counted (and --segments' tokens split) with: a Moses
    tokenization has rewritten each block already (:func:`_moses_block`), so ``none``."""
    return "none" if is_moses(tokenize) else tokenize


def _moses_block(name: str) -> Callable[[bytes], bytes]:
    """``block -> tokenizer.perl's output for its lines`` (UTF-8, a line feed after each)."""
    from bleu_compat.corpus_io import decode_block
    from bleu_compat.tokenizers.moses import tokenizer_for

    line_of = tokenizer_for(name).line

    def block(data: bytes) -> bytes:
        return "".join(line_of(line) + "\n" for line in decode_block(data)).encode("utf-8")

    return block


class _Sums:
    """One system's corpus statistics as counted (matches, totals, hyp_len, ref_len): what
    sacreBLEU's formats need; :meth:`stats` makes the card's SufficientStats of them."""

    __slots__ = ("matches", "totals", "hyp_len", "ref_len")

    def __init__(self, matches: tuple[int, ...], totals: tuple[int, ...], hyp_len: int,
                 ref_len: int) -> None:
        self.matches, self.totals, self.hyp_len, self.ref_len = matches, totals, hyp_len, ref_len

    def stats(self) -> SufficientStats:
        from bleu_compat.stats import SufficientStats

        return SufficientStats(self.matches, self.totals, self.hyp_len, self.ref_len)


@contextlib.contextmanager
def _segments_file(path: str | None) -> Iterator[Any]:
    """The ``--segments`` file open for writing (None: no file): complete or absent.

    A regular or new file is written to a temporary file beside it
    (``.bleu-compat-tmp.PID.HOST.NAME.…``, removed by a later run if this one is killed; a
    symbolic link's target is the file replaced) and renamed into place when the block
    ends without an exception: a run killed at any moment, ``SIGKILL`` included, leaves
    the earlier file or the new one, whole, never a prefix of lines that looks complete;
    a run that fails removes its temporary file and leaves the earlier file as it was. A
    device or a pipe with a reader (``/dev/stdout``) is written as the lines come
    (:mod:`bleu_compat.atomic`'s rule).

    Raises:
        CorpusReadError: the file cannot be opened or written (its message names it).
    """
    if path is None:
        yield None
        return
    from bleu_compat.atomic import atomic_open

    try:  # a device or a pipe with a reader is written as it is; a pipe with none refused
        with atomic_open(path, "w", newline="\n") as handle:
            yield handle
    except OSError as exc:
        raise CorpusReadError(f"--segments {path}: cannot write: {exc.strerror or exc}") from None


#: the bytes of each reference kept for the script check (enough for its characters)
_SAMPLE_BYTES = 4 * 1_000_000


def _script_warning(plan: _Plan, sample: list[bytearray], tokenize: str) -> str | None:
    """The warning when the references' script calls for another tokenizer than ``tokenize``
    (:mod:`bleu_compat.cli.score.script_check`), unless ``-l`` already gave it."""
    from bleu_compat.cli.score.script_check import SAMPLE_CHARACTERS, advice

    share = SAMPLE_CHARACTERS // max(1, len(sample))
    text = "\n".join(bytes(b).decode("utf-8", "ignore")[:share] for b in sample)
    found = advice(text)
    if found is None or any(f"{found.tokenizer!r} tokenizer" in w for w in plan.warnings):
        return None
    return found.warning(tokenize)


def _print_sacrebleu(args: argparse.Namespace, plan: _Plan, names: list[str],
                     stats: list[_Sums], rows: list[list[Any]] | None,
                     eff: bool) -> int:
    """Print what the ``sacrebleu`` command prints for this run (its formats); return 0."""
    def fields(resampling: Sequence[tuple[str, str]] = (), effective: bool = eff
               ) -> list[tuple[str, str]]:
        return signature_fields(plan.n_refs, lowercase=args.lowercase, tokenize=plan.tokenize,
                                smooth_method=plan.smooth, smooth_value=plan.smooth_value,
                                max_order=args.max_order, effective_order=effective,
                                resampling=resampling)

    def bleu(m: Any, t: Any, h: int, r: int, effective: bool = eff) -> Any:
        return sacrebleu_bleu(m, t, h, r, smooth_method=plan.smooth,
                              smooth_value=plan.smooth_value, effective_order=effective)

    color = (sys.stdout.isatty() and not args.no_color and not os.environ.get("NO_COLOR"))
    scores = [bleu(s.matches, s.totals, s.hyp_len, s.ref_len) for s in stats]
    if plan.mode == "sentence":  # sacreBLEU forces effective order there
        from bleu_compat.cli.score.sacrebleu_form import signature as sacre_signature

        n = args.max_order
        sig = sacre_signature(fields(effective=True), args.short)
        out = sys.stdout
        for row in (rows or [[]])[0]:
            one = bleu(row[:n], row[n:2 * n], row[2 * n], row[2 * n + 1], effective=True)
            text = f"{one.score:.{plan.width}f}"
            out.write(text + "\n" if args.score_only else f"BLEU|{sig} = {text} {one.verbose()}\n")
        return 0
    if plan.mode in ("ci", "bs", "ar"):
        from bleu_compat.cli.score.significance import (
            DEFAULT_SAMPLES,
            confidence,
            paired_table,
            paired_test,
            sacrebleu_rows,
            seed_setting,
        )

        seed = seed_setting()
        per_system = [sacrebleu_rows(r, args.max_order) for r in rows or []]
        if plan.mode == "ci" and args.confidence_n > 1:
            mean, half = confidence(per_system[0], args.confidence_n, seed, args.max_order,
                                    plan.smooth, plan.smooth_value, eff)
            resampling = [("bs", str(args.confidence_n)), ("seed", seed.text.lower())]
            print(single_system(scores[0], fields(resampling), width=plan.width, fmt=plan.fmt,
                                score_only=args.score_only, short=args.short,
                                confidence=(mean, half), color=color))
            if args.detail:
                print(_NO_SUBSETS)
            return 0
        if plan.mode in ("bs", "ar"):
            given_n = args.paired_bs_n if plan.mode == "bs" else args.paired_ar_n
            n_samples = given_n if given_n > 0 else DEFAULT_SAMPLES[plan.mode]
            results = paired_test(plan.mode, per_system, [s.score for s in scores], n_samples,
                                  seed, args.max_order, plan.smooth, plan.smooth_value, eff)
            shown = list(names)
            if not plan.stdin_implicit:
                shown[0] = f"Baseline: {shown[0]}"
            from bleu_compat.cli.score.sacrebleu_form import signature as sacre_signature

            sig = sacre_signature(fields([(plan.mode, str(n_samples)),
                                          ("seed", seed.paired_text)]), args.short)
            print(paired_table(shown, results, sig, kind=plan.mode, n_given=given_n,
                               width=plan.width, fmt=plan.fmt, color=color))
            return 0
    if len(scores) == 1:
        print(single_system(scores[0], fields(), width=plan.width, fmt=plan.fmt,
                            score_only=args.score_only, short=args.short))
        if args.detail:
            print(_NO_SUBSETS)
    else:
        print(several_systems(names, scores, fields(), width=plan.width, fmt=plan.fmt,
                              short=args.short, color=color))
    return 0


#: what ``sacrebleu -d`` prints after the score when no test set gives origlang subsets
_NO_SUBSETS = "No subset information found. Consider using --origlang argument."


def _run(args: argparse.Namespace, plan: _Plan, spool: Spool) -> int:
    compare = plan.configs is not None
    given = [*plan.ref_paths, *plan.system_paths]
    copies: list[Any] = [None] * len(given)
    if compare:  # what cannot be read again is copied during the one pass (bounded)
        copies = [None if spool.readable_as_is(p) else spool.copy(p, k)
                  for k, p in enumerate(given)]
    paths = [p if c is None else c.path for p, c in zip(given, copies)]
    opened = _open_inputs(plan, given)
    from bleu_compat.tokenizers.block import missing_kernel_note

    note = missing_kernel_note()  # issue 34: said, never silently slow
    for message in plan.warnings + ([note] if note else []):
        _warn(args, message)
    if not args.quiet:
        for note in plan.notes:
            print(f"{PROG}: note: {note}", file=sys.stderr)
    rows: list[list[Any]] | None = (
        None if plan.mode == "corpus" else [[] for _ in plan.system_paths])
    # with --compare the segments are written after the comparison (they carry its causes)
    with _segments_file(None if compare else args.segments) as handle:
        writer = None
        if handle is not None:
            from bleu_compat.cli.score.segments import SegmentWriter

            writer = SegmentWriter(handle, args.max_order, _counted_as(plan.tokenize),
                                   plan.smooth, plan.smooth_value)
        sample = [bytearray() for _ in range(plan.n_refs)]
        try:
            stats, n_segments, warnings = _read_and_count(args, plan, given, writer, copies,
                                                          sample, opened, rows)
        finally:
            for copy in copies:
                if copy is not None:
                    copy.close()
    plan.script_warning = _script_warning(plan, sample, plan.tokenize)
    plan.script_sample = sample
    if plan.script_warning:
        warnings = [*warnings, plan.script_warning]
    for warning in warnings:
        _warn(args, warning)
    names = list(plan.system_paths)
    eff = bool(getattr(args, "effective_order", False))
    if plan.sacrebleu_output:
        return _print_sacrebleu(args, plan, names, stats, rows, eff)
    from bleu_compat.bleu import bleu_from_stats
    from bleu_compat.cli.score.json_output import compare_json, result_json, system_json
    from bleu_compat.cli.score.settings import signature
    from bleu_compat.cli.score.text_output import roles_line

    results = [_smoothed(bleu_from_stats(s.stats()), plan, eff) for s in stats]
    sig = signature(plan.n_refs, lowercase=args.lowercase, tokenize=plan.tokenize,
                    smooth=plan.smooth, smooth_value=plan.smooth_value, max_order=args.max_order,
                    effective_order=eff)
    roles = None if plan.sacre else roles_line(plan.system_paths[0], plan.ref_paths)

    comparisons: list[Any] = []
    decompositions: list[Any] = []
    versions: dict[str, str] = {}
    reports: list[dict[str, Any]] = []
    if compare:
        status = _compare(args, plan, paths, comparisons, decompositions, versions)
        if status:
            return status
        from bleu_compat.cli.score.compare_render import to_report

        headline = next((r.config for r in plan.resolved if r.config.name == "card"), None)
        if headline is None:
            from bleu_compat.decompose import Configuration

            headline = Configuration("headline", "card", plan.tokenize,
                                     lowercase=args.lowercase, smoothing=plan.smooth,
                                     smooth_value=plan.smooth_value, max_order=args.max_order)
        # the headline in sacreBLEU's names (the card row's smoothing is the card's method)
        from dataclasses import replace as _replace

        headline = _replace(headline, smoothing=plan.smooth, smooth_value=plan.smooth_value)
        text = "\n".join(bytes(b).decode("utf-8", "ignore") for b in plan.script_sample)
        reports = [to_report(d, plan.n_refs, plan.width, versions, headline, text)
                   for d in decompositions]

    # Every output carries the signature (SPEC.md section 8). Where standard output is a
    # bare value scripts capture (-b) or the card's output object (`card-score HYP REF --json`),
    # the signature goes to standard error.
    from bleu_compat.jsonio import dumps_js

    if args.score_only:
        from bleu_compat.rounding import to_fixed_str

        for r in results:
            print(to_fixed_str(100 * r.bleu, plan.width))
        print(f"signature: {sig}", file=sys.stderr)
    elif plan.fmt == "card-json":
        print(dumps_js(result_json(results[0]), indent=2))  # the original `score --json`
        print(f"signature: {sig}", file=sys.stderr)
        if roles:
            print(roles, file=sys.stderr)
    elif plan.fmt == "bc-json":
        doc: dict[str, Any] = {
            "signature": sig,
            "scale": "BLEU: 0-100 (sacreBLEU's and multi-bleu's); bleu: 0-1 (the card's)",
            "tokenize": plan.tokenize,
            "lowercase": args.lowercase,
            "smooth_method": plan.smooth,
            "effective_order": eff,
            "max_order": args.max_order,
            "references": list(plan.ref_paths),
            "segments": n_segments,
            "systems": [system_json(n, r) for n, r in zip(names, results)],
            "warnings": sorted(warnings),
        }
        if plan.notes:
            doc["notes"] = list(plan.notes)
        if plan.smooth in ("floor", "add-k"):
            doc["smooth_value"] = plan.smooth_value if plan.smooth_value is not None else (
                0.1 if plan.smooth == "floor" else 1)
        if compare:
            doc["versions"] = versions
            doc["options_not_applied"] = {  # issue 23: what each configuration could not take
                r.config.name: [{"option": flag, "why": why} for flag, why in r.not_applied]
                + [{"option": flag, "why": f"the configuration sets {key}= itself"}
                   for flag, key in r.kept]
                for r in plan.resolved}
            for row, c, d, rep in zip(doc["systems"], comparisons, decompositions, reports):
                row["compare"] = compare_json(c, d)
                row["compare"]["to_report"] = rep
        print(dumps_js(doc, indent=2))
    elif plan.fmt == "csv":
        from bleu_compat.cli.score.csv_output import csv_text

        print(csv_text(names, results, comparisons, args.max_order, sig), end="")
    else:
        from bleu_compat.cli.score.text_output import (
            aligned,
            rounded_row,
            summary_line_at,
            table_header,
        )

        if plan.fmt == "line":
            for n, r in zip(names, results):
                line = summary_line_at(r, plan.width)
                print(line if len(names) == 1 else f"{n}: {line}")
        else:
            rows = [table_header(args.max_order)] + [
                rounded_row(n, r, plan.width) for n, r in zip(names, results)
            ]
            if plan.fmt == "markdown":
                from bleu_compat.cli.score.markdown_output import markdown_table

                print(markdown_table(rows))
            else:
                print(aligned(rows))
        if roles:
            print(roles)
        print(f"signature: {sig}")
        if compare:
            from bleu_compat.cli.score.compare_render import (
                compare_text,
                configurations_text,
                report_text,
            )

            print(report_text(names, reports, plan.fmt == "markdown"))
            print(configurations_text(names, decompositions, versions, plan.fmt == "markdown",
                                      plan.resolved, plan.n_refs))
            print(compare_text(comparisons, versions, plan.fmt == "markdown"))
    if getattr(args, "html", None):
        from bleu_compat.cli.score.html_output import write_compare_html

        status = write_compare_html(args.html, names, comparisons, versions, decompositions,
                                    reports, plan.resolved, plan.n_refs)
        if status:
            return status
    unexpected = any(c.unexpected for c in comparisons) or any(d.unexpected for d in decompositions)
    return 1 if unexpected else 0


def _compare(args: argparse.Namespace, plan: _Plan, paths: list[str], comparisons: list[Any],
             decompositions: list[Any], versions: dict[str, str]) -> int:
    """Run --compare on the (re-readable) ``paths``; fill the lists; 0 or 2 (message printed)."""
    from bleu_compat.decompose import compare as compare_configs
    from bleu_compat.libraries import library_version
    from bleu_compat.parity import compare_system

    n_refs = plan.n_refs
    ref_sources, sys_sources = paths[:n_refs], paths[n_refs:]

    def lines(path: str) -> list[str]:
        text = read_lines(path).lines
        if is_moses(plan.tokenize):  # lowercased after tokenizer.perl (tokenize_lines)
            return text
        return [line.lower() for line in text] if args.lowercase else text

    def tokenize_lines(texts: list[str], name: str) -> list[list[str]]:
        from bleu_compat.tokenizers import tokenize_lines as tokenized

        return tokenized(texts, name, lowercase=bool(args.lowercase and is_moses(name)))

    parity = parity_libraries(plan.configs or ())
    try:
        with progress_on_stderr() as progress:
            versions.update({lib: library_version(lib) for lib in parity})
            for src in sys_sources:
                decompositions.append(compare_configs(
                    src, ref_sources, [r.config for r in plan.resolved],
                    card_tokenize=plan.tokenize, progress=progress,
                    card_lowercase=args.lowercase, refused_ok=True,
                ))
            # issue 34: a configuration that cannot take these files is a row saying why
            # (compare_configs' refused); a library compared only for such configurations is
            # not run on the card's tokens either (the row says why it has no number)
            if decompositions and not any(d.runs for d in decompositions):
                reasons = "; ".join(f"{cfg.name}: {why}" for cfg, why in decompositions[0].refused)
                return fail(f"--compare: no configuration gives a number on these files "
                            f"({reasons})")
            ran = {run.config.implementation for d in decompositions for run in d.runs}
            dropped = {cfg.implementation for d in decompositions for cfg, _ in d.refused} - ran
            always = set(parity_libraries(()))
            parity = [lib for lib in parity if lib not in dropped or lib in always]
            for lib in dropped - set(parity):
                versions.pop(lib, None)
            progress(f"{_names_of(parity)} on the card's tokens")
            # the libraries take every token at once: read the files whole
            ref_tokens = [tokenize_lines(lines(src), plan.tokenize) for src in ref_sources]
            references = [list(seg) for seg in zip(*ref_tokens)]
            comparisons.extend(
                compare_system(name, tokenize_lines(lines(src), plan.tokenize), references,
                               max_order=args.max_order, libraries=parity)
                for name, src in zip(plan.system_paths, sys_sources)
            )
    except CorpusReadError as exc:
        return fail(str(exc))
    except ValueError as exc:
        return fail(f"--compare: {exc}")
    except (BleuCompatError, ImportError) as exc:
        return fail(f"--compare: {exc}")
    if _failed_checks(decompositions, sys_sources, ref_sources):
        return 1
    if args.segments:
        with _segments_file(args.segments) as handle:
            from bleu_compat.cli.score.segments import SegmentWriter, line_causes

            writer = SegmentWriter(handle, args.max_order, _counted_as(plan.tokenize), plan.smooth,
                                   plan.smooth_value)
            for k, (name, dec) in enumerate(zip(plan.system_paths, decompositions)):
                # one system at a time, each with its own causes
                one = _Plan(plan.sacre, [name], plan.ref_paths, plan.tokenize, plan.smooth,
                            plan.smooth_value, plan.width, plan.fmt, None)
                _read_and_count(args, one, [*ref_sources, sys_sources[k]],
                                _WithCauses(writer, line_causes(dec)))
    return 0


def _failed_checks(results: Sequence[Any], sys_sources: Sequence[str],
                   ref_sources: Sequence[str]) -> bool:
    """Judge every decomposition with the independent check (issue 25:
    :mod:`bleu_compat.harness.decomposition_check`: the ends against the libraries' numbers
    compare ran, the factors, inert ones, the telescoping steps, the Shapley values
    recomputed); print one line per failed check and pair on standard error. True when any
    failed: the command then prints no decomposition and exits 1. A pair whose numbers a
    model does not reproduce is not a failure here: it is printed as UNEXPECTED (exit 1)."""
    from bleu_compat.harness.decomposition_check import check_compare

    bad = False
    for result, src in zip(results, sys_sources):
        configs = [run.config for run in result.runs]
        numbers = {id(run.config): run.bleu for run in result.runs}
        _, failures = check_compare(result, src, ref_sources, configs,
                                    real=lambda cfg: numbers[id(cfg)], unreproduced=False)
        for f in failures:
            bad = True
            print(f"bleu-compat score: --compare: the decomposition {f['pair']} fails the "
                  f"independent check of its {f['check']}: {f['detail']} (an internal error "
                  "of bleu-compat's; no decomposition printed)", file=sys.stderr)
    return bad


class _WithCauses:
    """A SegmentWriter that adds one system's --compare causes to each line."""

    def __init__(self, writer: SegmentWriter, causes: Any) -> None:
        self._writer, self._causes = writer, causes

    def write(self, system: str, first: int, rows: list[list[int]], hyp: bytes,
              refs: list[bytes]) -> None:
        self._writer.write(system, first, rows, hyp, refs, self._causes)


def _smoothed(result: BleuResult, plan: _Plan, effective_order: bool = False) -> BleuResult:
    """The card's score with ``-s`` (and ``--effective-order``): bleu-smoothing-compute on the
    corpus statistics."""
    if plan.smooth == "none" and not effective_order:
        return result
    import dataclasses

    from bleu_compat.bleu import smoothed_bleu

    s = result.stats
    from bleu_compat.cli.score.settings import SMOOTH_CARD

    method = SMOOTH_CARD[plan.smooth]
    eps = plan.smooth_value if method == "method1" else None
    sm = smoothed_bleu(s.matches, s.totals, s.hyp_len, s.ref_len, smoothing=method, epsilon=eps,
                       effective_order=effective_order)
    return dataclasses.replace(result, bleu=sm.bleu)


def parity_libraries(configs: Sequence[str]) -> list[str]:
    """The implementations ``--compare`` runs on the card's tokens, in registry order: those
    declared ``in_default_compare`` and those of the configurations compared."""
    from bleu_compat.decompose import parse_config
    from bleu_compat.libraries.registry import libraries

    wanted = {parse_config(spec).implementation for spec in configs}
    return [lib.name for lib in libraries() if lib.in_default_compare or lib.name in wanted]


def _names_of(names: Sequence[str]) -> str:
    from bleu_compat.libraries.registry import display_name, join_names

    return join_names([display_name(n) for n in names]) or "no library"
