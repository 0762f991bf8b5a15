"""sacreBLEU's own tokens of a line, as its BLEU makes them, for the run-time check (issue 20).

bleu-compat tokenizes with its own tokenizers (:mod:`bleu_compat.tokenizers`);
this is the library side the run-time check (:mod:`bleu_compat.tokenizers.check`)
compares them with, on every line where sacreBLEU runs on raw text. It calls
the installed release through its own API, as its BLEU does per segment, for
each API the matrix's releases have.
"""

from __future__ import annotations

from typing import Callable

__all__ = ["library_tokenizer"]


def library_tokenizer(name: str, lowercase: bool = False) -> Callable[[str], list[str]]:
    """The installed sacreBLEU's tokens of one line, as its BLEU counts them.

    2.x: ``BLEU(tokenize=name, lowercase=lowercase)._preprocess_segment(line).split()``
    (the method its ``corpus_score`` calls on every segment). 1.4-1.5:
    ``sacrebleu.tokenizers.TOKENIZERS[name]()`` after the lowercasing and
    ``rstrip()`` that its ``corpus_bleu`` applies. 1.2-1.3: the module's
    ``TOKENIZERS[name]`` function, the same way.

    Raises:
        ImportError: sacreBLEU is not installed.
        KeyError: the release has no tokenizer ``name``.
    """
    try:
        from sacrebleu.metrics.bleu import BLEU, _get_tokenizer  # noqa: F401  (2.x)
    except ImportError:
        try:  # 1.4-1.5: a table of tokenizer classes
            from sacrebleu.tokenizers import TOKENIZERS as classes
            tok = classes[name]()
        except ImportError:  # 1.2-1.3: one module with a table of functions
            import sacrebleu

            tok = sacrebleu.TOKENIZERS[name]

        def old(line: str) -> list[str]:
            return tok((line.lower() if lowercase else line).rstrip()).split()

        return old
    import logging

    from bleu_compat.libraries.sacrebleu.adapter import check_spm_model

    check_spm_model(name)  # sacreBLEU downloads a missing SentencePiece model: never here
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)  # its language advice
    metric = BLEU(tokenize=name, lowercase=lowercase)
    preprocess = metric._preprocess_segment
    return lambda line: preprocess(line).split()
