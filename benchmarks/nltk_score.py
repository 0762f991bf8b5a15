"""What an NLTK user runs to score files: read, split, ``corpus_bleu`` (the NLTK side of whole_process.py).

Usage::

    python benchmarks/nltk_score.py HYP REF [REF ...] [--tokenize none|13a]

Reads each file as UTF-8, one segment per line (``str.splitlines`` would also
split at U+2028 and form feeds, so lines are split at LF only, as bleu-compat
reads them), tokens by ``str.split`` (``none``) or by sacreBLEU's 13a
tokenizer then ``str.split`` (``13a``, as ``sacrebleu -tok 13a`` and
``bleu-compat score --tokenize 13a`` do), and prints NLTK's ``corpus_bleu``
(default weights, no smoothing) on the 0-100 scale. Not a test.
"""

from __future__ import annotations

import argparse
import sys


def read(path: str) -> list[str]:
    with open(path, encoding="utf-8", newline="") as handle:
        text = handle.read()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("hypothesis")
    parser.add_argument("references", nargs="+")
    parser.add_argument("--tokenize", choices=("none", "13a"), default="none")
    args = parser.parse_args(argv)

    from nltk.translate.bleu_score import corpus_bleu

    if args.tokenize == "13a":
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

        tok13a = Tokenizer13a()

        def tokenize(line: str) -> list[str]:
            return tok13a(line.rstrip()).split()
    else:
        tokenize = str.split
    hyps = [tokenize(line) for line in read(args.hypothesis)]
    ref_streams = [[tokenize(line) for line in read(path)] for path in args.references]
    refs = [list(seg) for seg in zip(*ref_streams)]
    print(f"BLEU = {100 * corpus_bleu(refs, hyps):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
