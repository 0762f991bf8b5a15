"""Issue 35: nothing runs that the user did not vet, every child process is bounded, one rule for
every output path, inputs refused at parse time in the user's terms.

Each test is one example of the issue (and its neighbours), run the way a user meets it: a
planted HF cache module, a ``#!/bin/sh`` file as ``path=``, a script that prints without end,
one that forks, ``PERLLIB``, ``/proc/self/environ`` as a script, a FIFO with no reader as an
output, a symbolic link loop, identify's 5,000 decimals, a ``*.dist-info`` in the working
directory, an ``--impl`` that allocates, a ``score --segments`` killed by SIGKILL. Every
planted program proves it ran by creating a marker file: the fault is that the marker exists.

A file planted here is no known release, so it runs only with both opt-ins
(``--allow-unknown-code`` and ``BLEU_COMPAT_ALLOW_UNKNOWN_CODE=1``); the tests that check the
containment of a run give both (:func:`_opt_in`). They also run against a bleu-compat from
before the opt-in existed (the option is then left out: nothing was refused there), so
that each shows the fault itself there, not a usage error.

No test waits on the clock for its verdict: a bound is asserted by the run ending (each
subprocess has a generous timeout that only a hang reaches) and by what it printed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

#: the opt-in exists (a bleu-compat from before issue 35 has no such option: there the tests
#: run the planted code without it, as that release did)
HAS_OPT_IN = importlib.util.find_spec("bleu_compat.foreign") is not None
#: a generous bound that only a hang reaches (the runs take about a second)
HANG = 90

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux processes")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("BLEU_COMPAT_ALLOW_UNKNOWN_CODE", "PERLLIB", "PERL5LIB", "PERL5OPT")}
    env.update(extra)
    return env


def _opt_in(args: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    if not HAS_OPT_IN:
        return args, env
    return [*args, "--allow-unknown-code"], {**env, "BLEU_COMPAT_ALLOW_UNKNOWN_CODE": "1"}


def _cli(args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None,
         timeout: float = HANG, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bleu_compat", *args], capture_output=True,
                          text=True, env=env if env is not None else _env(), cwd=cwd,
                          timeout=timeout, **kw)  # type: ignore[call-overload]


@pytest.fixture()
def small(tmp_path: Path) -> Path:
    (tmp_path / "ref.txt").write_text("the cat sat on the mat\na b c d\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("the cat sat on a mat\na b c d\n", encoding="utf-8")
    return tmp_path


def _score_with_script(small: Path, script: Path, *, opt_in: bool = True,
                       **env: str) -> subprocess.CompletedProcess[str]:
    args = ["score", str(small / "ref.txt"), "-i", str(small / "hyp.txt"),
            "--compare", f"multi-bleu.perl:path={script}"]
    e = _env(BLEU_COMPAT_PERL_TIMEOUT="2", **env)
    if opt_in:
        args, e = _opt_in(args, e)
    return _cli(args, e)


def _one_line(proc: subprocess.CompletedProcess[str]) -> str:
    lines = [x for x in proc.stderr.splitlines() if x.strip() and not x.startswith("note: ")]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


_LINE = 'print "BLEU = 50.00, 80.0/60.0/40.0/20.0 (BP=1.000, ratio=1.000, hyp_len=10, ref_len=10)\\n";\n'


# ------------------------------------------------------------------ the HF modules cache


def _plant_hf_module(cache: Path, marker: Path) -> Path:
    """An evaluate ``bleu`` module in the cache layout, no known release, whose import
    creates ``marker`` (and then works: a real compute_bleu signature)."""
    folder = cache / "evaluate_modules" / "metrics" / "evaluate-metric--bleu" / ("d" * 64)
    folder.mkdir(parents=True)
    (folder / "bleu.py").write_text("# not evaluate's bleu.py\n", encoding="utf-8")
    (folder / "nmt_bleu.py").write_text(textwrap.dedent(f"""\
        open({str(marker)!r}, "w").write("planted code ran")
        def compute_bleu(reference_corpus, translation_corpus, max_order=4, smooth=False):
            return 0.5, [0.5] * max_order, 1.0, 1.0, 10, 10
        """), encoding="utf-8")
    (folder / "tokenizer_13a.py").write_text(
        "class Tokenizer13a:\n    def __call__(self, line):\n        return line.split()\n",
        encoding="utf-8")
    return folder


def test_a_planted_hf_module_is_not_run_by_score_or_explain(small: Path) -> None:
    """A module planted in ``$HF_MODULES_CACHE`` (an earlier CI job restoring ~/.cache) is
    refused by ``score --compare hf-bleu`` (exit 2, one line naming both opt-ins) and by
    ``explain`` (hf-bleu unavailable, with the reason); its code never runs."""
    marker = small / "PLANTED-RAN"
    _plant_hf_module(small / "hf", marker)
    env = _env(HF_MODULES_CACHE=str(small / "hf"))
    proc = _cli(["score", str(small / "ref.txt"), "-i", str(small / "hyp.txt"), "--compare",
                 "hf-bleu"], env)
    assert not marker.exists(), "the planted module ran"
    assert proc.returncode == 2, proc.stdout + proc.stderr
    line = _one_line(proc)
    assert "--allow-unknown-code" in line and "BLEU_COMPAT_ALLOW_UNKNOWN_CODE=1" in line, line
    assert "HF evaluate bleu module" in line and "not run" in line, line

    request = json.dumps({"hypotheses": [["a", "b", "c", "d"]], "references": [[["a", "b", "c", "d"]]]})
    explain = _cli(["explain", "bleu-corpus-compute", "-f", "json"],
                   _env(HF_MODULES_CACHE=str(small / "hf"), BLEU_COMPAT_LIBRARIES="sacrebleu,hf-bleu"),
                   input=request)
    assert not marker.exists(), "explain ran the planted module"
    assert "Traceback" not in explain.stderr, explain.stderr
    assert "--allow-unknown-code" in explain.stdout, explain.stdout


def test_a_planted_hf_module_is_not_run_by_a_plain_crosscheck(small: Path) -> None:
    """A plain crosscheck (hf-bleu counts as installed: its version reads as unknown-<hash>)
    runs none of the planted code: each case is 'unavailable' with the refusal, not a result
    and not a failure of the run."""
    marker = small / "PLANTED-RAN"
    _plant_hf_module(small / "hf", marker)
    out = small / "cc"
    proc = _cli(["crosscheck", "--cases", "2", "--invalid", "0", "--no-real", "--tools",
                 "bleu-corpus-compute", "--no-progress", "--no-html", "--workers", "1", "--out", str(out)],
                _env(HF_MODULES_CACHE=str(small / "hf"), BLEU_COMPAT_LIBRARIES="sacrebleu,hf-bleu"))
    assert not marker.exists(), "crosscheck ran the planted module"
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    report = json.loads((out / "crosscheck.json").read_text(encoding="utf-8"))
    assert report["summary"]["bleu-corpus-compute"]["hf-bleu/as_called"]["not_representable"] == 2, \
        report["summary"]
    assert "--allow-unknown-code" in (out / "crosscheck.json").read_text(encoding="utf-8")


@pytest.mark.skipif(not HAS_OPT_IN, reason="the opt-in of issue 35")
@pytest.mark.parametrize("option, variable", [(True, False), (False, True), (True, True)])
def test_the_hf_module_runs_only_with_both_opt_ins(small: Path, option: bool, variable: bool) -> None:
    marker = small / "PLANTED-RAN"
    _plant_hf_module(small / "hf", marker)
    args = ["score", str(small / "ref.txt"), "-i", str(small / "hyp.txt"), "--compare", "hf-bleu"]
    env = _env(HF_MODULES_CACHE=str(small / "hf"))
    if option:
        args.append("--allow-unknown-code")
    if variable:
        env["BLEU_COMPAT_ALLOW_UNKNOWN_CODE"] = "1"
    proc = _cli(args, env)
    if option and variable:
        assert marker.exists() and proc.returncode in (0, 1), proc.stderr
    else:
        assert not marker.exists() and proc.returncode == 2, proc.stderr
        missing = "the option --allow-unknown-code" if not option else "BLEU_COMPAT_ALLOW_UNKNOWN_CODE=1"
        assert f"missing: {missing}" in _one_line(proc) or missing in _one_line(proc)


@pytest.mark.skipif(not HAS_OPT_IN, reason="the opt-in of issue 35")
def test_the_hf_module_run_is_the_bytes_hashed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               allow_unknown_code: None) -> None:
    """What runs is the bytes read for the digest: a file replaced after it was read is not
    opened again (a module swapped between the check and the import ran the new content)."""
    from bleu_compat.libraries.hf_bleu import cache

    marker = tmp_path / "PLANTED-RAN"
    folder = _plant_hf_module(tmp_path / "hf", marker)
    monkeypatch.setenv("HF_MODULES_CACHE", str(tmp_path / "hf"))
    found = cache.find()
    assert found is not None
    swapped = tmp_path / "SWAPPED-RAN"
    (folder / "nmt_bleu.py").write_text(f"open({str(swapped)!r}, 'w')\n", encoding="utf-8")
    monkeypatch.setattr(cache, "find", lambda: found)
    compute_bleu, _, _ = cache.load()
    assert marker.exists() and not swapped.exists()
    assert compute_bleu([], [])[0] == 0.5


# ------------------------------------------------------------------ Perl scripts


def test_an_unknown_script_is_refused_and_not_run(small: Path) -> None:
    """Without the opt-in, an unknown ``path=`` file is refused before anything runs."""
    marker = small / "SCRIPT-RAN"
    script = small / "mine.perl"
    script.write_text(f'open(my $f, ">", "{marker}"); close $f;\n{_LINE}', encoding="utf-8")
    proc = _score_with_script(small, script, opt_in=False)
    if HAS_OPT_IN:
        assert not marker.exists(), "the unknown script ran"
        assert proc.returncode == 2 and not proc.stdout, proc.stdout + proc.stderr
        line = _one_line(proc)
        assert str(script) in line and "--allow-unknown-code" in line and "BLEU_COMPAT_ALLOW_UNKNOWN_CODE=1" in line
    else:  # before issue 35: it ran (this assertion is what fails there)
        assert not marker.exists(), "the unknown script ran"


@pytest.mark.parametrize("first_line", ["#!/bin/sh", "  #!/bin/sh -e", "\ufeff#!/bin/sh"])
def test_a_shebang_naming_another_interpreter_never_runs_it(small: Path, first_line: str) -> None:
    """``path=`` a file whose first line is ``#!/bin/sh``: perl would exec sh on it; the file is
    refused (one line, exit 2) and sh never runs, even with the opt-in."""
    marker = small / "SH-RAN"
    script = small / "notperl.txt"
    script.write_text(f"{first_line}\ntouch '{marker}'\necho 'BLEU = 99.00, 1/1/1/1 (BP=1.000)'\n",
                      encoding="utf-8")
    proc = _score_with_script(small, script)
    assert not marker.exists(), "sh ran the file"
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert str(script) in _one_line(proc)


@pytest.mark.skipif(not HAS_OPT_IN, reason="the runner of issue 35")
def test_perl_is_started_so_that_it_execs_no_other_interpreter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               allow_unknown_code: None) -> None:
    """The second defence alone (the check of the first line switched off): perl is started
    under a name without "perl", so it does not hand a ``#!/bin/sh`` program to sh."""
    from bleu_compat.libraries import perl_runner

    monkeypatch.setattr(perl_runner, "foreign_interpreter", lambda data: None)
    marker = tmp_path / "SH-RAN"
    script = tmp_path / "s.pl"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\n", encoding="utf-8")
    try:
        perl_runner.run_perl(script, [], cwd=tmp_path, timeout=2)
    except perl_runner.ScriptError:
        pass  # perl may not compile it: what matters is who ran it
    assert not marker.exists(), "sh ran the program"


@pytest.mark.skipif(not HAS_OPT_IN, reason="the runner of issue 35")
def test_a_script_run_beside_its_data_is_the_bytes_hashed(tmp_path: Path,
                                                          allow_unknown_code: None) -> None:
    """``run_perl(beside=...)`` (tokenizer.perl finds its prefixes from its own place): the
    program is a private copy of the bytes read once, its ``$RealBin/../share`` is the
    user's folder, and the user's file changed after the check is not what runs."""
    from bleu_compat.libraries import perl_runner

    user = tmp_path / "scripts"
    (user / "tokenizer").mkdir(parents=True)
    (user / "share").mkdir()
    (user / "share" / "data.txt").write_text("from share\n", encoding="utf-8")
    script = user / "tokenizer" / "t.perl"
    script.write_text("use FindBin qw($RealBin);\n"
                      "open(my $f, '<', \"$RealBin/../share/data.txt\") or die 'no share';\n"
                      "print scalar(<$f>); print \"first\\n\";\n", encoding="utf-8")
    run = perl_runner.run_perl(script, [], cwd=tmp_path, timeout=5,
                               beside={"share": user / "share"})
    assert (run.status, run.stdout) == (0, "from share\nfirst\n"), run.stderr
    marker = tmp_path / "SECOND-RAN"
    real_load = perl_runner.load_script

    def swapped_after_the_check(path):  # the file changes right after it was read and hashed
        loaded = real_load(path)
        script.write_text(f"open(my $m, '>', '{marker}'); print \"second\\n\";\n",
                          encoding="utf-8")
        return loaded

    perl_runner.load_script, saved = swapped_after_the_check, perl_runner.load_script
    try:
        again = perl_runner.run_perl(script, [], cwd=tmp_path, timeout=5,
                                     beside={"share": user / "share"})
    finally:
        perl_runner.load_script = saved
    assert again.stdout == "from share\nfirst\n" and not marker.exists()


def test_proc_files_are_refused_without_quoting_them(small: Path) -> None:
    """``path=/proc/self/environ``: refused as no script file; no byte of the environment in
    the message (perl's error quoted them)."""
    secret = "s3cr3tword"
    args = ["score", str(small / "ref.txt"), "-i", str(small / "hyp.txt"), "--compare",
            "multi-bleu.perl:path=/proc/self/environ"]
    for opt in (False, True):
        # first in the environment, and what perl's syntax error would quote ('near "1 s3cr3tword"')
        env = {"I35_SECRET": f"1 {secret}", **_env()}
        a, env = _opt_in(args, env) if opt else (args, env)
        proc = _cli(a, env)
        assert secret not in proc.stdout + proc.stderr
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "/proc/self/environ" in _one_line(proc)


def test_a_script_that_prints_without_end_is_stopped(small: Path) -> None:
    """A script printing without end: stopped at the output cap, one clear line, exit 2, in
    bounded memory (the command runs under a 1 GiB address space limit: unbounded reading
    ended in 'internal error (OSError: Cannot allocate memory)', exit 3)."""
    script = small / "spew.perl"
    script.write_text('$| = 1; while (1) { print "x" x 4096, "\\n"; }\n', encoding="utf-8")

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    args = ["score", str(small / "ref.txt"), "-i", str(small / "hyp.txt"),
            "--compare", f"multi-bleu.perl:path={script}"]
    args, env = _opt_in(args, _env(BLEU_COMPAT_PERL_TIMEOUT="60"))
    proc = _cli(args, env, preexec_fn=limit)
    assert proc.returncode == 2, proc.stdout + proc.stderr[-500:]
    line = _one_line(proc)
    assert str(script) in line and "printed more than" in line and "standard output" in line, line


@pytest.mark.parametrize("parent", ["exits", "sleeps"])
def test_a_script_that_forks_never_hangs_and_leaves_nothing(small: Path, parent: str) -> None:
    """A script whose child keeps standard output open: the run ends (the whole process group
    is killed when perl ends, or at the bound; the pipes are not read to an end of file that
    never comes: it was still blocked at 150 s) and the child is gone."""
    pidfile = small / "child.pid"
    tail = _LINE if parent == "exits" else "sleep 1000;\n"
    script = small / "forks.perl"
    script.write_text(textwrap.dedent(f"""\
        my $pid = fork();
        if ($pid == 0) {{
            open(my $f, ">", "{pidfile}"); print $f "$$\\n"; close $f;
            sleep 1000; exit 0;
        }}
        select(undef, undef, undef, 0.02) until -s "{pidfile}";
        """) + tail, encoding="utf-8")
    args = ["score", str(small / "ref.txt"), "-i", str(small / "hyp.txt"),
            "--compare", f"multi-bleu.perl:path={script}"]
    # 1 s of CPU: the wall-clock bound (10 times that) stops the sleeping parent, and leaves a
    # starved start-up (a CPU hog beside the test) time to print its line
    args, env = _opt_in(args, _env(BLEU_COMPAT_PERL_TIMEOUT="1"))
    proc = _cli(args, env)
    if parent == "exits":
        assert proc.returncode in (0, 1), proc.stderr  # its line was read: 1 = UNEXPECTED number
        assert "printed 50.00" in proc.stdout + proc.stderr
    else:
        assert proc.returncode == 2 and "wall-clock" in _one_line(proc), proc.stderr
    child = int(pidfile.read_text())
    for _ in range(100):  # the kill is sent before the run returns; reaping by init may lag
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        if Path(f"/proc/{child}/stat").read_text().split()[2] == "Z":
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        raise AssertionError("the script's child was left running")


def test_perllib_does_not_reach_perl(small: Path) -> None:
    """A module planted in a directory named by PERLLIB (or PERL5LIB, or loaded by PERL5OPT) is
    not loaded: the script's environment is an allow-list."""
    lib = small / "lib"
    lib.mkdir()
    marker = small / "MODULE-RAN"
    (lib / "Planted.pm").write_text(f'package Planted; open(my $f, ">", "{marker}"); 1;\n',
                                    encoding="utf-8")
    script = small / "uses.perl"
    script.write_text("eval { require Planted; };\n" + _LINE, encoding="utf-8")
    for variable in ("PERLLIB", "PERL5LIB"):
        proc = _score_with_script(small, script, **{variable: str(lib)})
        assert not marker.exists(), f"{variable} reached perl"
        assert "printed 50.00" in proc.stdout + proc.stderr, proc.stderr
    proc = _score_with_script(small, script, PERL5OPT=f"-I{lib} -MPlanted")
    assert not marker.exists(), "PERL5OPT reached perl"


@pytest.mark.skipif(not HAS_OPT_IN, reason="the limit of issue 35")
def test_a_script_has_a_memory_limit(small: Path) -> None:
    """A script allocating past its address-space limit (here 256 MiB) ends with one line
    naming the limit and its variable, not by taking the machine's memory."""
    script = small / "eats.perl"
    script.write_text('my $x = "a" x (600 * 1024 * 1024);\n' + _LINE, encoding="utf-8")
    proc = _score_with_script(small, script, BLEU_COMPAT_PERL_MEMORY="256")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    line = _one_line(proc)
    assert "256 MiB" in line and "BLEU_COMPAT_PERL_MEMORY" in line, line


# ------------------------------------------------------------------ --impl


def test_an_impl_process_has_a_memory_limit(tmp_path: Path) -> None:
    """An --impl that allocates 1 GiB under a 512 MiB limit: that call's finding is a
    MemoryError naming the limit (it had none: 3.1 GB seen)."""
    impl = tmp_path / "eats.py"
    impl.write_text(textwrap.dedent("""\
        def bleu(hypotheses, references):
            hog = bytearray(1 << 30)
            return {"bleu": 0.0 * len(hog)}
        bleu.bleu_compat = {"signature": "tokens->score"}
        """), encoding="utf-8")
    request = json.dumps({"hypotheses": [["a", "b"]], "references": [[["a", "b"]]]})
    proc = _cli(["explain", "bleu-corpus-compute", "--impl", f"{impl}:bleu", "-f", "json"],
                _env(BLEU_COMPAT_IMPL_MEMORY="512"), input=request)
    assert "MemoryError" in proc.stdout, proc.stdout + proc.stderr
    assert "BLEU_COMPAT_IMPL_MEMORY" in proc.stdout


# ------------------------------------------------------------------ output paths


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("flag", ["--segments", "--html"])
def test_score_refuses_a_fifo_with_no_reader(small: Path, flag: str) -> None:
    """``--segments`` or ``--html`` a FIFO no process reads: refused at once (one line, exit 2),
    before anything runs; it blocked forever."""
    fifo = _fifo(small / "out.fifo")
    args = ["score", str(small / "ref.txt"), "-i", str(small / "hyp.txt"), flag, str(fifo)]
    if flag == "--html":
        args += ["--compare", "sacrebleu"]
    proc = _cli(args)
    assert proc.returncode == 2 and not proc.stdout, proc.stdout + proc.stderr
    line = _one_line(proc)
    assert str(fifo) in line and "no reader" in line, line
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_catalog_refuses_a_fifo_with_no_reader_and_a_link_loop(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path / "catalog.fifo")
    proc = _cli(["catalog", "--out", str(fifo)])
    assert proc.returncode == 2 and "no reader" in _one_line(proc), proc.stderr
    loop = tmp_path / "loop.md"
    loop.symlink_to(loop.name)
    proc = _cli(["catalog", "--out", str(loop)])
    assert proc.returncode == 2 and "loop of symbolic links" in _one_line(proc), proc.stderr
    assert loop.is_symlink(), "the link was replaced by a file"


def test_score_and_crosscheck_refuse_a_link_loop(small: Path) -> None:
    """The same rule in every command: a loop of symbolic links as --segments, and as one of
    crosscheck's report files, is refused before anything runs."""
    loop = small / "seg.tsv"
    loop.symlink_to(loop.name)
    proc = _cli(["score", str(small / "ref.txt"), "-i", str(small / "hyp.txt"), "--segments", str(loop)])
    assert proc.returncode == 2 and "loop of symbolic links" in _one_line(proc), proc.stderr
    out = small / "cc"
    out.mkdir()
    (out / "crosscheck.json").symlink_to("crosscheck.json")
    fifo = _fifo(out / "crosscheck.md")
    proc = _cli(["crosscheck", "--out", str(out), "--cases", "1", "--invalid", "0", "--no-real",
                 "--tools", "bleu-brevity-penalty", "--no-progress", "--no-html", "--workers", "1"])
    assert proc.returncode == 2 and "loop of symbolic links" in _one_line(proc), proc.stderr
    assert (out / "crosscheck.json").is_symlink() and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_killed_runs_temporary_file_is_removed_by_the_next_run(tmp_path: Path) -> None:
    """``score --segments`` killed by SIGKILL while it writes leaves its hidden temporary file;
    the next run writing into that directory removes it (nothing removed it: 101 MB seen)."""
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(f"line {k} of the reference text\n" for k in range(5000)), encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "bleu_compat", "score", str(ref), "-i", "-",
                             "--segments", str(out / "seg.tsv")], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())
    assert proc.stdin is not None
    try:
        proc.stdin.write(b"".join(f"line {k} of the system text\n".encode() for k in range(2000)))
        proc.stdin.flush()
        deadline = time.monotonic() + HANG
        while not [p for p in out.iterdir() if p.name.startswith(".")]:  # it streams: the file appears
            assert proc.poll() is None and time.monotonic() < deadline, "no temporary file appeared"
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
        proc.stdin.close()
    left = [p.name for p in out.iterdir()]
    assert left and all(name.startswith(".") for name in left), left
    small = tmp_path / "hyp.txt"
    small.write_text("line 0 of the reference text\n", encoding="utf-8")
    one = tmp_path / "ref1.txt"
    one.write_text("line 0 of the reference text\n", encoding="utf-8")
    done = _cli(["score", str(one), "-i", str(small), "--segments", str(out / "other.tsv")])
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["other.tsv"]


# ------------------------------------------------------------------ parse-time refusals


def test_identify_refuses_5000_decimals_before_reading_anything(tmp_path: Path) -> None:
    """SCORE with 5,000 decimals: refused at argument parsing in the user's terms (SCORE, its
    decimals), before any file is read: it did all the work, then failed naming an
    internal parameter ('decimals=5000 must be an int in [0, 100]')."""
    score = "12." + "3" * 5000
    proc = _cli(["identify", score, str(tmp_path / "no-such-ref.txt"), "-i",
                 str(tmp_path / "no-such-sys.txt")])
    assert proc.returncode == 2, proc.stderr
    line = _one_line(proc)
    assert "SCORE" in line and "5000 decimals" in line and "decimals=" not in line, line
    assert "no-such" not in line and len(line) < 400, line


# ------------------------------------------------------------------ plug-ins


def _dist_info(root: Path, name: str, module: str, body: str) -> None:
    dist = root / f"{name}-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(f"[bleu_compat.libraries]\n{name} = {module}:LIBRARY\n",
                                           encoding="utf-8")
    (root / f"{module}.py").write_text(body, encoding="utf-8")


def test_a_dist_info_in_the_working_directory_is_not_a_plugin(tmp_path: Path) -> None:
    """``python -m bleu_compat catalog`` in a directory holding a ``*.dist-info`` (``-m`` puts the
    working directory on sys.path): its entry point is not loaded; it was imported."""
    marker = tmp_path / "PLUGIN-RAN"
    _dist_info(tmp_path, "evilbleu", "evilbleu_mod", f"open({str(marker)!r}, 'w')\n")
    proc = _cli(["catalog"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), "the working directory's plug-in was imported"


def test_a_plugin_that_fails_to_load_is_reported(tmp_path: Path) -> None:
    """An installed plug-in (on PYTHONPATH) whose import raises is named on standard error
    with the error; it was left out in silence."""
    site = tmp_path / "site"
    site.mkdir()
    _dist_info(site, "brokenbleu", "brokenbleu_mod", "raise RuntimeError('broken on purpose')\n")
    env = _env(PYTHONPATH=str(site) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = _cli(["catalog"], env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    warning = [x for x in proc.stderr.splitlines() if "brokenbleu" in x]
    assert warning and "broken on purpose" in warning[0] and "not loaded" in warning[0], proc.stderr
