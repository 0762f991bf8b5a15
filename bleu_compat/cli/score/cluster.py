"""``card-score --cluster``: corpus BLEU of sharded files, one Dask task per shard (issue 16).

``bleu-compat card-score --cluster local:2 'hyp.*.txt' 'ref.*.txt'``: HYP and
each REF are globs (or plain paths) matching the same number of files,
sorted by name, shard k of each aligned with shard k of the others. Every
shard is checked and counted on a worker
(:func:`bleu_compat.cluster.sharded_corpus_stats`); the sufficient
statistics (integers) are summed and BLEU is computed once from the sum,
so the output is the single-process ``score`` of the concatenated files,
byte for byte, in the ``line`` form (default) and ``--json``.
"""

from __future__ import annotations

import argparse
import sys

from bleu_compat.bleu import bleu_from_stats
from bleu_compat.cli.score.arguments import PROG, fail
from bleu_compat.cli.score.json_output import result_json
from bleu_compat.cli.score.settings import MAX_ORDER, signature
from bleu_compat.cli.score.text_output import roles_line, summary_line_at
from bleu_compat.errors import BleuCompatError
from bleu_compat.jsonio import dumps_js

__all__ = ["cmd_score_cluster"]


def cmd_score_cluster(args: argparse.Namespace) -> int:
    """Run ``card-score --cluster``; exit 0, or 2 on a usage or input error (message on stderr)."""
    from bleu_compat.cluster import open_client, parse_cluster, sharded_corpus_stats
    from bleu_compat.tokenizers import get_tokenizer

    unsupported = [flag for flag, dest in (
        ("-i", "systems"), ("--compare", "compare"), ("--segments", "segments"), ("--html", "html"),
        ("-lc", "lowercase"), ("--config", "config"),
    ) if getattr(args, dest, None) not in (None, False, [])
        or (dest == "compare" and getattr(args, dest, None) is not None)]
    if unsupported:
        return fail(f"--cluster scores one sharded system (HYP REF [REF ...]): "
                     f"{', '.join(unsupported)} not supported with it")
    if getattr(args, "smooth_method", None) not in (None, "none"):
        return fail(f"--cluster scores the card's unsmoothed corpus BLEU, not -s {args.smooth_method}")
    if getattr(args, "format", None) not in (None, "line"):
        return fail(f"--cluster writes the line summary or --json, not --format {args.format}")
    fmt = "json" if getattr(args, "json", False) else "line"
    if len(args.files) < 2:
        return fail("give HYP and at least one REF (globs of aligned shards)")
    if not 1 <= args.max_order <= MAX_ORDER:
        return fail(f"--max-order={args.max_order} must be between 1 and {MAX_ORDER} (the cards' "
                    "largest n-gram order)")
    decimals = 2 if args.decimals is None else args.decimals
    if not 0 <= decimals <= 15:
        flag = getattr(args, "decimals_flag", "--width")
        return fail(f"{flag} {decimals}: must be between 0 and 15")
    # the HYP REF form: pre-tokenized text split on whitespace unless -tok says otherwise (SPEC.md §8)
    tokenize = args.tokenize or "none"
    from bleu_compat.tokenizers import is_moses

    if is_moses(tokenize):  # the language: -l's target, else tokenizer.perl's en (issue 32)
        from bleu_compat.tokenizers.moses import parse_name

        target = (args.langpair or "").partition("-")[2] or None
        tokenize = parse_name(tokenize).resolved(target)
    try:
        spec = parse_cluster(args.cluster)
        get_tokenizer(tokenize)
        with open_client(spec) as client:
            segments, stats, shards = sharded_corpus_stats(
                client, args.files[0], args.files[1:], tokenize=tokenize,
                max_order=args.max_order)
    except (BleuCompatError, ImportError) as exc:
        return fail(str(exc))
    result = bleu_from_stats(stats)
    print(f"{PROG}: {len(shards)} shards, {segments} segments", file=sys.stderr)
    sig = "signature: " + signature(len(args.files) - 1, lowercase=False, tokenize=tokenize,
                                    smooth=args.smooth_method or "none", smooth_value=args.smooth_value,
                                    max_order=args.max_order)
    roles = roles_line(args.files[0], args.files[1:])
    if fmt == "json":  # the card's output object on stdout, the signature beside it (SPEC.md §8)
        print(dumps_js(result_json(result), indent=2))
        print(sig, file=sys.stderr)
        print(roles, file=sys.stderr)
    else:
        print(summary_line_at(result, decimals))
        print(roles)
        print(sig)
    return 0
