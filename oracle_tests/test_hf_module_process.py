"""Issue 35: the cached HF evaluate ``bleu`` module runs in a child process bounded in time,
memory and output, never in bleu-compat's own.

The module is foreign code (files of the Hugging Face modules cache). A module planted in a
cache laid out as evaluate lays it out is no known release, so each test gives both opt-ins
(``--allow-unknown-code`` and ``BLEU_COMPAT_ALLOW_UNKNOWN_CODE=1``) and then checks the bound
the project's standard asks for: a module that loops is stopped at its CPU time, one that sleeps
at the wall clock, one that allocates by its memory limit, one that prints by the output cap;
one that forks leaves no process behind, one that ends its process (``os._exit``,
``sys.exit``) does not end bleu-compat's, one that reads the environment sees an allow-list.
Each failed on main, where the module ran in the command's own process: the loop hung it, the
allocation took its memory, the prints went to its standard output, the forked process
outlived it, ``os._exit(0)`` ended it with status 0.

The module's results cross exactly: a planted module returns floats of every kind (checked bit
for bit against the literals it returns) with the process id it ran in; with the real module's
published files (``BLEU_COMPAT_HF_BLEU_FILES``, as test_nmt_family.py takes them, or a cached
known release), the test runs their code in its own process and compares every result, and the
exception an empty output raises, with what bleu-compat's child process gives.

No test waits on the clock for its verdict: a bound is asserted by the run ending (each
subprocess has a generous timeout only a hang reaches) and by what it printed.
"""

from __future__ import annotations

import os
import shutil
import signal
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bleu_compat.libraries.hf_bleu import cache

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux processes")

ROOT = Path(__file__).resolve().parent.parent
WMT17 = ROOT / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"
#: a generous bound only a hang reaches (a run takes a few seconds, beside a CPU hog too)
HANG = 60
#: a result of compute_bleu's shape, for the planted modules that return one
RESULT = "(0.5, [0.5, 0.5, 0.5, 0.5], 1.0, 1.0, 10, 10)"
#: the command's own address space, so that a module that allocates in it (main) cannot take
#: the machine's memory
COMMAND_MEMORY = 2 << 30


def _plant(cache_dir: Path, nmt_bleu: str) -> Path:
    """A module folder in evaluate's cache layout (no known release) whose ``nmt_bleu.py`` is
    ``nmt_bleu`` and whose tokenizer splits on whitespace."""
    folder = cache_dir / "evaluate_modules" / "metrics" / "evaluate-metric--bleu" / ("d" * 64)
    folder.mkdir(parents=True)
    (folder / "bleu.py").write_text("# not evaluate's bleu.py\n", encoding="utf-8")
    (folder / "nmt_bleu.py").write_text(textwrap.dedent(nmt_bleu), encoding="utf-8")
    (folder / "tokenizer_13a.py").write_text(
        "class Tokenizer13a:\n    def __call__(self, line):\n        return line.split()\n",
        encoding="utf-8")
    return folder


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("BLEU_COMPAT_", "HF_")) or k == "BLEU_COMPAT_HF_BLEU_FILES"}
    env.update(extra)
    return env


def _limit_command_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (COMMAND_MEMORY, COMMAND_MEMORY))


@pytest.fixture()
def small(tmp_path: Path) -> Path:
    (tmp_path / "ref.txt").write_text("the cat sat on the mat\na b c d\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("the cat sat on a mat\na b c d\n", encoding="utf-8")
    return tmp_path


def _score(small: Path, nmt_bleu: str, timeout: float = HANG, **env: str) -> subprocess.CompletedProcess[str]:
    """``score ref.txt -i hyp.txt --compare hf-bleu`` on a planted module, both opt-ins given."""
    _plant(small / "hf", nmt_bleu)
    return subprocess.run(
        [sys.executable, "-m", "bleu_compat", "score", str(small / "ref.txt"), "-i",
         str(small / "hyp.txt"), "--compare", "hf-bleu", "--allow-unknown-code"],
        capture_output=True, text=True, timeout=timeout, preexec_fn=_limit_command_memory,
        env=_env(HF_MODULES_CACHE=str(small / "hf"), BLEU_COMPAT_ALLOW_UNKNOWN_CODE="1", **env))


def _one_line(proc: subprocess.CompletedProcess[str]) -> str:
    lines = [x for x in proc.stderr.splitlines() if x.strip() and not x.startswith("note: ")]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    return lines[0]


# ------------------------------------------------------------------ time


@pytest.mark.parametrize("where", ["call", "import"])
def test_a_module_that_loops_forever_is_stopped_at_its_cpu_time(small: Path, where: str) -> None:
    """``while True: pass`` in compute_bleu, or at the module's top level: stopped after its
    CPU seconds (BLEU_COMPAT_HF_TIMEOUT=1), one line naming the module, the bound and its
    variable, exit 2 (main: the command never ended)."""
    loop = "while True:\n    pass\n"
    source = (loop + f"def compute_bleu(*a, **k):\n    return {RESULT}\n" if where == "import"
              else "def compute_bleu(*a, **k):\n" + textwrap.indent(loop, "    "))
    proc = _score(small, source, BLEU_COMPAT_HF_TIMEOUT="1")
    assert proc.returncode == 2, proc.stdout + proc.stderr[-2000:]
    line = _one_line(proc)
    assert "HF evaluate bleu module" in line and "1 s of CPU time" in line, line
    assert "stopped" in line and "BLEU_COMPAT_HF_TIMEOUT" in line, line


def test_a_module_that_sleeps_is_stopped_at_the_wall_clock(small: Path) -> None:
    """A module that waits without computing uses no CPU time: stopped after 10 times its limit
    of wall-clock time (0.3 s: 3 s), one line, exit 2."""
    proc = _score(small, "import time\ndef compute_bleu(*a, **k):\n    time.sleep(10 ** 6)\n",
                  BLEU_COMPAT_HF_TIMEOUT="0.3")
    assert proc.returncode == 2, proc.stdout + proc.stderr[-2000:]
    line = _one_line(proc)
    assert "3 s of wall-clock time" in line and "BLEU_COMPAT_HF_TIMEOUT" in line, line


def test_a_bad_time_limit_is_refused_before_anything_runs(small: Path) -> None:
    marker = small / "RAN"
    proc = _score(small, f"open({str(marker)!r}, 'w')\ndef compute_bleu(*a, **k):\n    return {RESULT}\n",
                  BLEU_COMPAT_HF_TIMEOUT="soon")
    assert proc.returncode == 2 and not marker.exists(), proc.stdout + proc.stderr[-2000:]
    line = _one_line(proc)
    assert "BLEU_COMPAT_HF_TIMEOUT='soon'" in line and "not run" in line, line


# ------------------------------------------------------------------ memory


def test_a_module_that_allocates_without_end_is_stopped_by_its_memory_limit(small: Path) -> None:
    """An allocation loop under BLEU_COMPAT_HF_MEMORY=256: the module's process runs out of its
    256 MiB (one line naming the limit and its variable, exit 2); the command's own memory is
    untouched (main: the command itself ran out of memory, an internal error)."""
    source = """\
        def compute_bleu(*a, **k):
            hog = []
            while True:
                hog.append(bytearray(1 << 24))
        """
    proc = _score(small, source, BLEU_COMPAT_HF_MEMORY="256")
    assert proc.returncode == 2, proc.stdout + proc.stderr[-2000:]
    line = _one_line(proc)
    assert "256 MiB of memory" in line and "BLEU_COMPAT_HF_MEMORY" in line, line


# ------------------------------------------------------------------ output


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_module_that_prints_without_end_is_capped(small: Path, stream: str) -> None:
    """A module printing 64 MiB (far past the cap of 1 MiB a call): stopped at the cap, one
    line, exit 2, and nothing of it on the command's outputs (main: all 64 MiB on them)."""
    source = f"""\
        import sys
        def compute_bleu(*a, **k):
            line = "x" * 4095 + "\\n"
            for _ in range(16384):
                sys.{stream}.write(line)
            return {RESULT}
        """
    proc = _score(small, source)
    assert len(proc.stdout) + len(proc.stderr) < 65536, (len(proc.stdout), len(proc.stderr))
    assert proc.returncode == 2, proc.stdout + proc.stderr[-2000:]
    line = _one_line(proc)
    assert "printed more than 1048576 bytes" in line and "stopped" in line, line


# ------------------------------------------------------------------ processes


def _gone(pid: int) -> bool:
    """The process ``pid`` has ended (a zombie waiting for its reaper counts as ended)."""
    for _ in range(100):  # the kill is sent before the call returns; reaping may lag
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except (OSError, IndexError):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("leaves", ["in its group", "in a session of its own"])
def test_a_module_that_forks_leaves_nothing(small: Path, leaves: str) -> None:
    """compute_bleu forks a process that sleeps (holding the module's outputs), in the module's
    process group or after setsid, then returns: the command ends with the module's number and
    the forked process is gone (main: it outlived the command, forked from its own process)."""
    pidfile = small / "forked.pids"
    setsid = "os.setsid()" if leaves != "in its group" else "pass"
    source = f"""\
        import os, time
        def compute_bleu(*a, **k):
            read, write = os.pipe()
            if os.fork() == 0:
                {setsid}
                with open({str(pidfile)!r}, "a") as f:
                    f.write(str(os.getpid()) + "\\n")
                os.write(write, b"1")
                time.sleep(1000)
                os._exit(0)
            os.read(read, 1)  # its pid is written
            return {RESULT}
        """
    out, err = small / "out.txt", small / "err.txt"
    _plant(small / "hf", source)
    with open(out, "w") as o, open(err, "w") as e:  # files, not pipes: the forked process holds
        proc = subprocess.run(                       # main's outputs, a pipe would never end
            [sys.executable, "-m", "bleu_compat", "score", str(small / "ref.txt"), "-i",
             str(small / "hyp.txt"), "--compare", "hf-bleu", "--allow-unknown-code"],
            stdout=o, stderr=e, timeout=HANG,
            env=_env(HF_MODULES_CACHE=str(small / "hf"), BLEU_COMPAT_ALLOW_UNKNOWN_CODE="1"))
    forked = [int(x) for x in pidfile.read_text().split()]  # one a call (main called it often)
    try:
        assert forked and all(_gone(pid) for pid in forked), \
            f"the module's forked processes ({leaves}) were left running"
    finally:
        for pid in forked:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert proc.returncode in (0, 1), out.read_text() + err.read_text()
    assert "hf-bleu        50.000000" in out.read_text(), out.read_text()


@pytest.mark.parametrize("ending", ["os._exit(0)", "sys.exit(0)"])
def test_a_module_that_ends_its_process_does_not_end_the_command(small: Path, ending: str) -> None:
    """``os._exit(0)`` (or ``sys.exit(0)``) in compute_bleu: the command says so in one line and
    exits 2 (main: bleu-compat itself ended with status 0 and printed nothing: a CI gate
    passed)."""
    proc = _score(small, f"import os, sys\ndef compute_bleu(*a, **k):\n    {ending}\n")
    assert proc.returncode == 2, proc.stdout + proc.stderr[-2000:]
    line = _one_line(proc)
    expected = "exited with status 0" if ending.startswith("os.") else "tried to end its process (SystemExit: 0)"
    assert expected in line, line


def test_the_module_sees_an_allow_listed_environment(small: Path) -> None:
    """The module's process gets no variable of the command's but PATH, TMPDIR, TZ and the
    locale (a secret is not there), and PYTHONPATH does not reach its imports (main: it ran
    with the command's whole environment)."""
    site = small / "site"
    site.mkdir()
    (site / "planted_i35.py").write_text("VALUE = 1\n", encoding="utf-8")
    source = """\
        import os
        def compute_bleu(*a, **k):
            try:
                import planted_i35
                imported = 1
            except ImportError:
                imported = 0
            seen = 0.125 * ("I35_SECRET" in os.environ) + 0.25 * imported
            return 0.5 - seen, [0.5] * 4, 1.0, 1.0, 10, 10
        """
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)
    proc = _score(small, source, I35_SECRET="s3cr3t", PYTHONPATH=path)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr[-2000:]
    assert "hf-bleu        50.000000" in proc.stdout, proc.stdout  # 37.5: the secret; 25: the import


# ------------------------------------------------------------------ exact results, same errors


_EXACT = """\
    import os
    class Odd(Exception):
        pass
    def compute_bleu(reference_corpus, translation_corpus, max_order=4, smooth=False):
        if translation_corpus == [["raise"]]:
            raise ZeroDivisionError("float division by zero")
        if translation_corpus == [["key"]]:
            raise KeyError("missing")
        if translation_corpus == [["odd"]]:
            raise Odd("its own type")
        return (5e-324, [0.1 + 0.2, 1 / 3, -0.0, 2.0 ** -1074, 1.7976931348623157e308],
                float("inf"), float("nan"), 2 ** 100, os.getpid())
    """


def _bits(x: float) -> bytes:
    return struct.pack("<d", x)


def test_results_cross_exactly_and_errors_keep_their_type(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          allow_unknown_code: None) -> None:
    """Every float bit for bit (the smallest subnormal, 0.1 + 0.2, 1/3, -0.0, the largest
    float, infinity, NaN), a 101-bit integer exactly, a list as a list and the result tuple as a
    tuple, all computed in another process than this one (main: in this one); what the module
    raises arrives as its type and message (ZeroDivisionError, KeyError, its own class)."""
    from bleu_compat.libraries import run_adapter

    _plant(tmp_path / "hf", _EXACT)
    monkeypatch.setenv("HF_MODULES_CACHE", str(tmp_path / "hf"))
    compute_bleu, tokenizer, _ = cache.load()
    got = compute_bleu([[["a"]]], [["a"]])
    assert type(got) is tuple and type(got[1]) is list and len(got) == 6
    bleu, precisions, bp, ratio, length, pid = got
    assert pid != os.getpid(), "the module ran in this process"
    expected = [5e-324, 0.1 + 0.2, 1 / 3, -0.0, 2.0 ** -1074, 1.7976931348623157e308, float("inf"),
                float("nan")]
    assert [_bits(x) for x in [bleu, *precisions, bp, ratio]] == [_bits(x) for x in expected]
    assert type(length) is int and length == 2 ** 100
    assert tokenizer("a  b\tc") == ["a", "b", "c"] and tokenizer.many(["x y", ""]) == [["x", "y"], []]
    with pytest.raises(ZeroDivisionError) as zero:
        cache.compute(["raise"], [["a"]])
    assert str(zero.value) == "float division by zero"
    with pytest.raises(KeyError) as key:
        cache.compute(["key"], [["a"]])
    assert str(key.value) == "'missing'"
    with pytest.raises(Exception) as odd:
        cache.compute(["odd"], [["a"]])
    assert f"{type(odd.value).__name__}: {odd.value}" == "Odd: its own type"
    result = run_adapter("hf-bleu", "as_called", "bleu-corpus-compute",
                         {"hypotheses": [["raise"]], "references": [[["a"]]]})
    assert result.error == "ZeroDivisionError: float division by zero"


def _real_module_files() -> Path:
    """A folder with the real module's three files: ``BLEU_COMPAT_HF_BLEU_FILES``, else the
    user's cache when it holds a known release; skip otherwise."""
    files = os.environ.get("BLEU_COMPAT_HF_BLEU_FILES")
    if files and all((Path(files) / name).is_file() for name in cache.FILES):
        return Path(files)
    found = cache.find()
    if found is not None and found.digests in cache.KNOWN:
        return found.folder
    pytest.skip("no files of a known release of HF evaluate's bleu module (BLEU_COMPAT_HF_BLEU_FILES "
                "names a folder with bleu.py, nmt_bleu.py and tokenizer_13a.py; or a cache that "
                "holds one)")


def _in_this_process(files: Path) -> tuple[object, object]:
    """The real module's compute_bleu and Tokenizer13a(), run by this test in its own process
    (the in-process computation bleu-compat did before)."""
    import types

    spaces = []
    for name in ("nmt_bleu", "tokenizer_13a"):
        module = types.ModuleType(f"_i35_real_{name}")
        exec(compile((files / f"{name}.py").read_bytes(), str(files / f"{name}.py"), "exec"),
             module.__dict__)
        spaces.append(module)
    return spaces[0].compute_bleu, spaces[1].Tokenizer13a()


def test_a_known_release_gives_the_same_numbers_as_in_process(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The real module (a known release, no opt-in) run in bleu-compat's child process gives
    exactly what its code gives run in this process: every value of the result dict, bit for
    bit and type for type, on 600 WMT17 lines (orders 1 to 4, smoothed or not, the module's
    tokenizer or str.split), evaluate's README example, and ZeroDivisionError with its message
    on an empty output (HF-BLEU-ZERO-LENGTH-RAISES); and none of its code is in this process
    (main: it was)."""
    files = _real_module_files()
    target = tmp_path / "modules" / "evaluate_modules" / "metrics" / "evaluate-metric--bleu" / ("0" * 64)
    target.mkdir(parents=True)
    for name in cache.FILES:
        shutil.copy(files / name, target / name)
    monkeypatch.setenv("HF_MODULES_CACHE", str(tmp_path / "modules"))
    monkeypatch.delenv("BLEU_COMPAT_ALLOW_UNKNOWN_CODE", raising=False)
    assert cache.version() in cache.KNOWN.values()
    compute_bleu, tok = _in_this_process(files)

    def in_process(predictions, references, tokenizer, max_order, smooth):  # bleu.py's glue
        if isinstance(references[0], str):
            references = [[ref] for ref in references]
        t = tok if tokenizer is None else tokenizer
        refs = [[t(r) for r in ref] for ref in references]
        preds = [t(p) for p in predictions]
        bleu, precisions, bp, ratio, c, r = compute_bleu(reference_corpus=refs, translation_corpus=preds,
                                                          max_order=max_order, smooth=smooth)
        return {"bleu": bleu, "precisions": precisions, "brevity_penalty": bp, "length_ratio": ratio,
                "translation_length": c, "reference_length": r}

    def same(a: dict, b: dict) -> bool:
        def norm(v):
            if isinstance(v, float):
                return ("float", _bits(v))
            if isinstance(v, (list, tuple)):
                return (type(v).__name__, [norm(x) for x in v])
            return (type(v).__name__, v)
        return {k: norm(v) for k, v in a.items()} == {k: norm(v) for k, v in b.items()}

    hyps = (WMT17 / "sys.uedin-nmt.4722.txt").read_text(encoding="utf-8").splitlines()[:600]
    refs = (WMT17 / "ref.A.txt").read_text(encoding="utf-8").splitlines()[:600]
    cases = [(["hello there general kenobi", "foo bar foobar"],
              [["hello there general kenobi", "hello there !"], ["foo bar foobar"]])]
    cases += [(hyps[i:i + 150], refs[i:i + 150]) for i in range(0, 600, 150)]
    cases += [(["the the the the", "a b"], [["the cat", "the"], ["b a b"]])]
    checked = 0
    for predictions, references in cases:
        for tokenizer in (None, str.split):
            for max_order in (1, 2, 3, 4):
                for smooth in (False, True):
                    theirs = in_process(predictions, references, tokenizer, max_order, smooth)
                    ours = cache.compute(predictions, references, tokenizer=tokenizer,
                                         max_order=max_order, smooth=smooth)
                    assert same(ours, theirs), (predictions[:2], tokenizer, max_order, smooth, ours, theirs)
                    checked += 1
    assert checked == 6 * 2 * 4 * 2
    with pytest.raises(ZeroDivisionError) as raised:
        in_process([""], [["a"]], None, 4, False)
    with pytest.raises(ZeroDivisionError) as ours_raised:
        cache.compute([""], [["a"]])
    assert str(ours_raised.value) == str(raised.value) == "float division by zero"
    assert not [m for m in sys.modules if m.startswith("_bleu_compat_hf_bleu_")], \
        "the module's code was loaded in this process"
