"""Start-up costs only what the command uses (issue 12, item 2).

Each check runs the command in a fresh interpreter (``python -c`` calling
``bleu_compat.cli.main``) and reads ``sys.modules`` at its end: building the
parser must import neither the harness, Hypothesis, jsonschema, numpy,
sacreBLEU nor NLTK unless the chosen command needs them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: third-party packages and bleu_compat modules (with their submodules) a command must not load
#: unless it needs them. The implementation registry and its declarations
#: (bleu_compat.libraries, .registry, .plugin, .<name>) are data, read for help texts; an
#: implementation's adapter, model or entries module is heavy (LIBRARY_PARTS).
HEAVY = ("bleu_compat.harness", "hypothesis", "jsonschema", "fastjsonschema", "numpy", "sacrebleu",
         "nltk", "starlette", "uvicorn", "bleu_compat.catalog", "dask",
         "distributed", "bleu_compat.cluster")

#: the modules of an implementation that import (or prepare to import) the library itself
LIBRARY_PARTS = ("adapter", "model", "entries")


def imported_after(argv: list[str], cwd: Path, stdin: str = "") -> tuple[int, set[str]]:
    """(exit status, heavy modules in sys.modules) after ``bleu-compat ARGV`` in a fresh process."""
    code = (
        "import io, json, sys\n"
        "from bleu_compat.cli import main\n"
        f"status = main({argv!r})\n"
        f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r} or m in {HEAVY!r}\n"
        f"               or any(m.startswith(h + '.') for h in {HEAVY!r})\n"
        f"               or m.startswith('bleu_compat.libraries.')\n"
        f"               and m.rsplit('.', 1)[1] in {LIBRARY_PARTS!r})\n"
        "sys.stdout.flush()\n"
        "print('\\nIMPORTS ' + json.dumps([status, heavy]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd,
                          input=stdin, timeout=120)
    line = [x for x in proc.stdout.splitlines() if x.startswith("IMPORTS ")]
    assert line, proc.stderr
    status, heavy = json.loads(line[-1][len("IMPORTS "):])
    return status, set(heavy)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "hyp.txt").write_text("the cat sat on the mat\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text("the cat is on the mat\n", encoding="utf-8")
    return tmp_path


def test_import_bleu_compat_is_light() -> None:
    """``import bleu_compat`` imports no jsonschema and no numpy; names load on first use."""
    code = ("import sys, bleu_compat\n"
            "light = not any(m in sys.modules for m in ('jsonschema', 'numpy'))\n"
            "from bleu_compat import corpus_bleu, execute\n"
            "print(light, corpus_bleu([['a', 'b', 'c', 'd']], [[['a', 'b', 'c', 'd']]]).bleu,\n"
            "      'jsonschema' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["True", "1.0", "False"], proc.stderr


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["score", "--help"], ["run", "--help"],
                                  ["tools"], ["serve", "--help"], ["bigram", "--help"], [],
                                  ["crosscheck", "--help"], ["gate", "--help"],
                                  ["explain", "--help"], ["matrix", "--help"]])
def test_help_imports_nothing_heavy(argv: list[str], tmp_path: Path) -> None:
    """--help, --version and a command's --help build only what they print.

    (``crosscheck --help`` prints the harness's default sizes: they come from
    :mod:`bleu_compat.harness_defaults`, not from the harness.)
    """
    status, heavy = imported_after(argv, tmp_path)
    assert status == (2 if argv == [] else 0)
    assert heavy == set()


def test_score_on_a_small_corpus_imports_nothing_heavy(corpus: Path) -> None:
    """``card-score HYP REF`` on one line: no numpy (the standard-library kernel), no oracle, no
    harness."""
    status, heavy = imported_after(["card-score", "hyp.txt", "ref.txt"], corpus)
    assert (status, heavy) == (0, set())
    status, heavy = imported_after(["score", "ref.txt", "-i", "hyp.txt", "-tok", "none",
                                    "--segments", "s.jsonl"], corpus)
    assert (status, heavy) == (0, set())


def test_score_dash_i_default_13a_imports_no_sacrebleu(corpus: Path) -> None:
    """``score REF -i SYS`` tokenizes with 13a by default (SPEC.md section 8), with our own
    tokenizer (issue 20): no sacreBLEU, no NLTK, no harness."""
    status, heavy = imported_after(["score", "ref.txt", "-i", "hyp.txt"], corpus)
    assert (status, heavy) == (0, set())


@pytest.mark.parametrize("tok", ["none", "13a", "intl", "zh", "char", "moses"])
@pytest.mark.parametrize("extra", [[], ["-lc"], ["--segments", "s.jsonl"], ["-lc", "-b"]])
def test_score_never_imports_sacrebleu(corpus: Path, tok: str, extra: list[str]) -> None:
    """Every tokenizer, with -lc and --segments: scoring imports nothing heavy (issue 20, item 4)."""
    status, heavy = imported_after(["score", "ref.txt", "-i", "hyp.txt", "-tok", tok, *extra], corpus)
    assert (status, heavy) == (0, set())


@pytest.mark.parametrize("pure_python", [False, True], ids=["kernel", "pure-python"])
def test_score_on_a_large_corpus_imports_only_numpy(tmp_path: Path, monkeypatch, pure_python: bool) -> None:
    """A corpus large enough for the vectorised kernel adds numpy, and only numpy; with the C
    kernel (issue 20) not even numpy."""
    from bleu_compat.tokenizers.block import kernel

    if not pure_python and kernel() is None:
        pytest.skip("the C kernel is not built here")
    if pure_python:
        monkeypatch.setenv("BLEU_COMPAT_PURE_PYTHON", "1")
    (tmp_path / "hyp.txt").write_text("the cat sat on the mat\n" * 500, encoding="utf-8")
    (tmp_path / "ref.txt").write_text("the cat is on the mat\n" * 500, encoding="utf-8")
    status, heavy = imported_after(["score", "ref.txt", "-i", "hyp.txt", "-tok", "none"], tmp_path)
    numpy = {"numpy"} | {m for m in heavy if m.startswith("numpy.")} if pure_python else set()
    assert (status, heavy) == (0, numpy)


def test_score_on_a_large_corpus_with_13a_imports_no_sacrebleu(tmp_path: Path) -> None:
    """A corpus large enough for the block kernels, with 13a: still no sacreBLEU."""
    (tmp_path / "hyp.txt").write_text("the cat, 3-4 sat on the mat.\n" * 500, encoding="utf-8")
    (tmp_path / "ref.txt").write_text("the cat is on the mat!\n" * 500, encoding="utf-8")
    status, heavy = imported_after(["score", "ref.txt", "-i", "hyp.txt"], tmp_path)
    assert status == 0 and not {m.split(".")[0] for m in heavy} - {"numpy"}, heavy


def test_run_imports_the_validator_but_no_oracle(tmp_path: Path) -> None:
    """``run`` on a valid small request: fastjsonschema only (jsonschema words errors), no numpy."""
    request = json.dumps({"hypotheses": [["a", "b"]], "references": [[["a", "b"]]]})
    status, heavy = imported_after(["run", "bleu-corpus-compute"], tmp_path, stdin=request)
    assert status == 0
    tops = {m.split(".")[0] for m in heavy} | {m for m in heavy if m.startswith("bleu_compat.")}
    assert tops <= {"fastjsonschema"}, heavy


def test_command_table_matches_the_modules() -> None:
    """The lazy table's names, order and help are what the command modules register."""
    import argparse

    from bleu_compat.cli import COMMANDS, build_parser

    full = build_parser(full=True)
    lazy = build_parser([])
    sub_full = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    sub_lazy = next(a for a in lazy._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub_full.choices) == [name for name, _, _ in COMMANDS] == list(sub_lazy.choices)
    helps_full = {a.dest: a.help for a in sub_full._choices_actions}
    helps_lazy = {a.dest: a.help for a in sub_lazy._choices_actions}
    assert helps_full == helps_lazy == {name: help for name, _, help in COMMANDS}


def test_crosscheck_and_score_without_cluster_import_no_dask(corpus: Path) -> None:
    """Without --cluster, a crosscheck (process pool, checkpoint or not) and score import no Dask."""
    argv = ["crosscheck", "--tools", "bleu-brevity-penalty", "--cases", "5", "--invalid", "0",
            "--no-real", "--no-html", "--no-progress", "--workers", "1", "--out", "out"]
    status, heavy = imported_after(argv, corpus)
    assert status == 0 and "bleu_compat.harness" in heavy
    assert not {m for m in heavy if m.split(".")[0] in ("dask", "distributed")}
    assert "bleu_compat.cluster" not in heavy
    status, heavy = imported_after([*argv, "--checkpoint", "ck"], corpus)
    assert status == 0 and (corpus / "ck" / "manifest.json").is_file()
    assert not {m for m in heavy if m.split(".")[0] in ("dask", "distributed")}


@pytest.mark.parametrize("preset, expected", [(None, "1"), ("3", "3")])
def test_cli_asks_openblas_for_one_thread_unless_the_user_chose(preset, expected) -> None:
    """main() sets OPENBLAS_NUM_THREADS=1 before numpy loads OpenBLAS; a user's value is kept."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if preset is not None:
        env["OPENBLAS_NUM_THREADS"] = preset
    code = ("import os, sys\n"
            "from bleu_compat.cli import main\n"
            "status = main(['tools'])\n"
            "print('BLAS', status, os.environ.get('OPENBLAS_NUM_THREADS'), 'numpy' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=60)
    line = [x for x in proc.stdout.splitlines() if x.startswith("BLAS ")]
    assert line == [f"BLAS 0 {expected} False"], proc.stderr


def test_crosscheck_help_shows_the_harness_defaults(tmp_path: Path) -> None:
    """The defaults crosscheck --help prints are the ones the harness runs with."""
    import contextlib
    import io

    from bleu_compat.cli import main
    from bleu_compat.harness.run import DEFAULT_CASES, DEFAULT_INVALID, DEFAULT_SEED

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["crosscheck", "--help"]) == 0
    text = " ".join(out.getvalue().split())
    assert f"generator seed (default {DEFAULT_SEED})" in text
    assert f"(default {DEFAULT_CASES['bleu-corpus-compute']})" in text
    assert f"(default {DEFAULT_INVALID}, or --cases when that is smaller" in text  # --invalid spells its default out
