"""Build configuration beyond pyproject.toml: the optional C kernel (issue 20).

``bleu_compat._ckernel`` (``bleu_compat/_ckernel.c``) is the whole-block fast
path of ``bleu-compat score``: 13a/zh/char tokens and exact BLEU counts.
It is *optional*: where no C compiler is available the install goes on
without it, and bleu-compat uses its pure-Python and numpy paths, which give
the same tokens and the same counts (``oracle_tests/test_tokenizers.py``
compares them).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "bleu_compat._ckernel",
            ["bleu_compat/_ckernel.c"],
            optional=True,
        )
    ]
)
