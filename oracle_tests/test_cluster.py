"""Crosscheck and score on Dask (issue 16): same reports, surviving campaigns, sharded corpora.

One LocalCluster of two worker *processes* serves the module (pickling bugs
show up only across processes); commands reach it by its scheduler address,
the ``--cluster ADDRESS`` path. What each test compares with is computed
without Dask: the process pool's report, an uninterrupted run, the
single-process ``score`` of the concatenated files and the per-segment
statistics of :func:`bleu_compat.stats.segment_stats` summed here.
"""

from __future__ import annotations

import os
import random
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

# pytest-xdist: one worker runs this module (one LocalCluster and one pool report for the module)
pytestmark = pytest.mark.xdist_group("test_cluster")

distributed = pytest.importorskip("distributed")

from bleu_compat.cli import main  # noqa: E402
from bleu_compat.harness.report import build_report, versions_now  # noqa: E402
from bleu_compat.harness.run import REAL_SETS, run_crosscheck  # noqa: E402
from bleu_compat.jsonio import dumps_js  # noqa: E402

CASES = {"bleu-corpus-compute": 60, "bleu-smoothing-compute": 40, "bleu-brevity-penalty": 40}
INVALID = {"bleu-corpus-compute": 50, "bleu-brevity-penalty": 50}
SEED = 11


@pytest.fixture(scope="module")
def address() -> Any:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=40) as cluster:
        yield cluster.scheduler_address


def report_text(**kw: Any) -> str:
    tally = run_crosscheck(seed=SEED, cases=CASES, real_sets=(), invalid=INVALID, **kw)
    return dumps_js(build_report(tally, seed=SEED, cases=CASES,
                                 versions={**versions_now(), **tally.versions}), indent=2)


@pytest.fixture(scope="module")
def pool_report() -> str:
    """The process pool's report (two processes), the one every Dask run must equal."""
    return report_text(workers=2)


def _crosscheck_cli(out: Path, *extra: str) -> int:
    return main(["crosscheck", "--seed", "5", "--cases", "30", "--invalid", "50", "--no-real",
                 "--no-html", "--no-progress", "--out", str(out), *extra])


def test_cli_cluster_writes_the_process_pool_s_reports(address: str, tmp_path: Path) -> None:
    """``crosscheck --cluster ADDRESS`` writes crosscheck.json/.md/.junit.xml byte for byte as --workers 2."""
    assert _crosscheck_cli(tmp_path / "pool", "--workers", "2") == 0
    assert _crosscheck_cli(tmp_path / "dask", "--cluster", address) == 0
    for name in ("crosscheck.json", "crosscheck.md", "crosscheck.junit.xml"):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "pool" / name).read_bytes(), name


def test_cluster_report_equals_the_pool_s_with_a_real_corpus(address: str) -> None:
    """A real corpus unit (RealSet pickled to a worker) and generated chunks, merged in job order."""
    real = (REAL_SETS[0],)
    cases = {"bleu-corpus-compute": 30}

    def text(**kw: Any) -> str:
        tally = run_crosscheck(seed=SEED, cases=cases, real_sets=real, **kw)
        assert len(tally.real) == 1
        return dumps_js(build_report(tally, seed=SEED, cases=cases, versions=versions_now()))

    assert text(cluster=address) == text(workers=1)


def test_interrupted_campaign_resumes_to_the_same_report(address: str, tmp_path: Path,
                                                         pool_report: str) -> None:
    """Ctrl-C after three chunks: those three are on disk; the rerun runs the rest and ends equal."""
    arrived = []

    def interrupt(weight: int) -> None:
        arrived.append(weight)
        if len(arrived) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_crosscheck(seed=SEED, cases=CASES, real_sets=(), invalid=INVALID, cluster=address,
                       checkpoint=tmp_path, progress=interrupt)
    saved = sorted(tmp_path.glob("chunk-*.json"))
    assert len(saved) == 3
    stamps = {p: p.stat().st_mtime_ns for p in saved}
    assert report_text(cluster=address, checkpoint=tmp_path) == pool_report
    assert all(p.stat().st_mtime_ns == t for p, t in stamps.items())  # loaded, not rerun
    # a third run has everything on disk and computes nothing (no cluster even needed)
    assert report_text(checkpoint=tmp_path, workers=1) == pool_report


def test_killed_worker_loses_nothing(address: str, tmp_path: Path, pool_report: str) -> None:
    """A worker process killed (SIGKILL) mid-run: its tasks run again elsewhere, the report is equal."""
    with distributed.Client(address) as client:
        pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    killed = []

    def kill_once(weight: int) -> None:
        if not killed:
            killed.append(victim)
            os.kill(victim, signal.SIGKILL)

    text = report_text(cluster=address, checkpoint=tmp_path, progress=kill_once)
    assert killed and text == pool_report
    with distributed.Client(address) as client:  # the nanny restarts it for the tests after
        client.wait_for_workers(2, timeout=60)


def test_checkpoint_of_other_arguments_is_refused(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Another --cases into the same --checkpoint: exit 2 naming what differs, nothing run."""
    common = ["crosscheck", "--tools", "bleu-brevity-penalty", "--invalid", "0", "--no-real",
              "--no-html", "--no-progress", "--workers", "1", "--checkpoint", str(tmp_path / "ck")]
    assert main([*common, "--cases", "25", "--out", str(tmp_path / "a")]) == 0
    capsys.readouterr()
    assert main([*common, "--cases", "50", "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "holds a run of other arguments" in err and "cases" in err and "Traceback" not in err
    assert not (tmp_path / "b" / "crosscheck.json").exists()
    assert main([*common, "--cases", "25", "--seed", "1", "--out", str(tmp_path / "b")]) == 2
    assert "seed: 0 there, 1 now" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["", "local:0", "local:x", "local:-1"])
def test_bad_cluster_values_exit_2(value: str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert _crosscheck_cli(tmp_path, "--cluster", value) == 2
    assert "--cluster" in capsys.readouterr().err


def test_without_dask_a_clear_message(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    assert _crosscheck_cli(tmp_path, "--cluster", "local:1") == 2
    assert "pip install 'bleu-compat[dask]'" in capsys.readouterr().err


# ------------------------------------------------------------- card-score --cluster

WORDS = "the a cat dog sat on mat is was big small red , . über 猫".split()


def _shards(tmp_path: Path, n_shards: int, lines: int, refs: int = 2) -> dict[str, list[Path]]:
    rng = random.Random(16)
    files: dict[str, list[Path]] = {}
    for name in ["hyp"] + [f"ref{r}" for r in range(refs)]:
        files[name] = []
        for k in range(n_shards):
            path = tmp_path / f"{name}.{k:02d}.txt"
            path.write_text("".join(" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 12))) + "\n"
                                    for _ in range(lines + k)), encoding="utf-8")
            files[name].append(path)
    return files


def _without_roles(text: str) -> str:
    return "".join(line for line in text.splitlines(True) if not line.startswith("hypothesis: "))


def _concatenate(paths: list[Path], target: Path) -> Path:
    target.write_bytes(b"".join(p.read_bytes() for p in paths))
    return target


def test_score_cluster_equals_the_single_process_run(address: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Four shards (some large enough for numpy): --json and the line summary byte-equal to score
    of the concatenation, and the integers equal segment_stats summed segment by segment."""
    import json

    from bleu_compat.stats import SufficientStats, segment_stats

    (tmp_path / "s").mkdir()
    files = _shards(tmp_path / "s", 4, 400)
    whole = {name: _concatenate(paths, tmp_path / f"{name}.all") for name, paths in files.items()}
    globs = [str(tmp_path / "s" / f"{name}.*.txt") for name in files]
    for flags in (["--json"], [], ["--decimals", "6", "--max-order", "3"]):
        assert main(["card-score", *map(str, whole.values()), *flags]) == 0
        single = capsys.readouterr().out
        assert main(["card-score", "--cluster", address, *globs, *flags]) == 0
        sharded = capsys.readouterr()
        # byte-equal but for the line naming the files' roles (globs here, concatenations there)
        assert _without_roles(sharded.out) == _without_roles(single)
        if "--json" not in flags:
            assert f"hypothesis: {globs[0]}; references: {globs[1]}, {globs[2]}" in sharded.out
        assert "4 shards, 1606 segments" in sharded.err
    assert main(["card-score", "--cluster", address, *globs, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    lines = {n: p.read_text(encoding="utf-8").splitlines() for n, p in whole.items()}
    total = SufficientStats.zero(4)
    for i, hyp in enumerate(lines["hyp"]):
        total = total + segment_stats(hyp.split(), [lines[r][i].split() for r in ("ref0", "ref1")])
    assert (got["matches"], got["totals"]) == (list(total.matches), list(total.totals))
    assert (got["candidate_length"], got["reference_length"]) == (total.hyp_len, total.ref_len)


def test_score_cluster_local_workers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--cluster local:1`` starts (and stops) its own LocalCluster; 13a tokenizing on the worker."""
    files = _shards(tmp_path, 2, 50, refs=1)
    whole = {name: _concatenate(paths, tmp_path / f"{name}.all") for name, paths in files.items()}
    assert main(["card-score", *map(str, whole.values()), "--tokenize", "13a"]) == 0
    single = capsys.readouterr().out
    assert main(["card-score", "--cluster", "local:1", str(tmp_path / "hyp.*.txt"),
                 str(tmp_path / "ref0.*.txt"), "--tokenize", "13a"]) == 0
    assert _without_roles(capsys.readouterr().out) == _without_roles(single)


def test_score_cluster_bad_shards_exit_2(address: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Different shard counts, a shard whose line counts differ, a glob matching nothing,
    an unsupported option: exit 2 with a message, never a traceback."""
    files = _shards(tmp_path, 3, 20, refs=1)
    hyp, ref = str(tmp_path / "hyp.*.txt"), str(tmp_path / "ref0.*.txt")
    files["ref0"][2].unlink()
    assert main(["card-score", "--cluster", address, hyp, ref]) == 2
    assert "different numbers of shards" in capsys.readouterr().err
    files["ref0"][2].write_text("one line\n", encoding="utf-8")
    assert main(["card-score", "--cluster", address, hyp, ref]) == 2
    err = capsys.readouterr().err
    assert "ref0.02.txt" in err and "Traceback" not in err
    assert main(["card-score", "--cluster", address, str(tmp_path / "none.*"), ref]) == 2
    assert "matches no file" in capsys.readouterr().err
    assert main(["card-score", "--cluster", address, hyp, ref, "--compare"]) == 2
    assert "--compare" in capsys.readouterr().err
    # score's positional files are references (sacreBLEU's meaning): --cluster, which takes
    # the hypothesis first, is card-score's, and score says so (issue 34)
    assert main(["score", "--cluster", address, hyp, ref]) == 2
    assert "bleu-compat card-score --cluster" in capsys.readouterr().err


def test_unreachable_scheduler_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A scheduler address nobody listens on: exit 2 after the connect timeout, no traceback."""
    assert _crosscheck_cli(tmp_path, "--cluster", "tcp://127.0.0.1:9") == 2
    err = capsys.readouterr().err
    assert "cannot reach the scheduler" in err and "Traceback" not in err
