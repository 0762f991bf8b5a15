"""Crosscheck chunks and corpus statistics on Dask (``--cluster``), and campaign checkpoints.

Two jobs outgrow one machine's patience: crosscheck campaigns of millions
of generated cases, and corpus statistics of sharded corpora. Both are maps
whose results are merged in a fixed order, so they run on an existing
distributed engine, :mod:`dask.distributed` (optional extra
``pip install 'bleu-compat[dask]'``), not a process pool of our own:

- ``--cluster local[:N]``: an in-process :class:`distributed.LocalCluster`
  with N worker processes (default 2), one thread each;
- ``--cluster ADDRESS``: a running scheduler (``dask scheduler``; workers
  started with ``dask worker tcp://HOST:8786``).

Nothing here imports Dask until a cluster is asked for.

Checkpoints (``crosscheck --checkpoint DIR``) hold one pickled
:class:`~bleu_compat.harness.run.Tally` per finished chunk, written as it
arrives (atomically: a temporary file renamed), and ``manifest.json`` with
the run's arguments and library versions; a rerun with the same arguments
loads the finished chunks and runs only the rest, and a checkpoint of other
arguments is refused (:class:`CheckpointMismatch`).
"""

from __future__ import annotations

import contextlib
import glob as _glob
import json
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from .errors import ConfigError

__all__ = [
    "ClusterSpec", "parse_cluster", "open_client", "map_ordered", "Checkpoint",
    "CheckpointMismatch", "ClusterError", "expand_shards", "sharded_corpus_stats", "DEFAULT_LOCAL_WORKERS",
]

#: Workers of ``--cluster local`` without ``:N``.
DEFAULT_LOCAL_WORKERS = 2
#: Format of a checkpoint directory (manifest.json "format").
CHECKPOINT_FORMAT = 1


class ClusterSpec:
    """A parsed ``--cluster`` value: ``local`` with ``workers``, or a scheduler ``address``."""

    def __init__(self, address: str | None, workers: int | None) -> None:
        self.address = address
        self.workers = workers

    def __repr__(self) -> str:
        return f"ClusterSpec(address={self.address!r}, workers={self.workers!r})"


def parse_cluster(text: str) -> ClusterSpec:
    """``local``, ``local:N`` (N >= 1 worker processes) or a scheduler address.

    An address is ``tcp://HOST:PORT``, ``HOST:PORT`` or any other Dask
    address (``tls://...``, ``inproc://...``).

    Raises:
        ConfigError: an empty value, ``local:`` with something other than a
            positive integer.
    """
    text = text.strip()
    if not text:
        raise ConfigError("--cluster: give local, local:N or a scheduler address (tcp://HOST:8786)")
    if text == "local":
        return ClusterSpec(None, DEFAULT_LOCAL_WORKERS)
    if text.startswith("local:"):
        n = text[len("local:"):]
        if not n.isdigit() or int(n) < 1:
            raise ConfigError(f"--cluster={text!r}: local:N needs N >= 1 workers")
        return ClusterSpec(None, int(n))
    return ClusterSpec(text, None)


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ConfigError(
            "--cluster needs Dask: pip install 'bleu-compat[dask]' (dask[distributed])"
        ) from None
    return distributed


@contextlib.contextmanager
def open_client(spec: ClusterSpec | str) -> Iterator[Any]:
    """A :class:`distributed.Client` for ``spec``; a local cluster is closed on exit.

    Raises:
        ConfigError: Dask is not installed, or the scheduler cannot be reached.
    """
    if isinstance(spec, str):
        spec = parse_cluster(spec)
    distributed = _import_distributed()
    if spec.address is None:
        import warnings

        import signal
        import threading

        # Ctrl-C reaches the whole process group: the worker processes ignore it
        # (SIG_IGN is inherited) and this process stops them, instead of each
        # printing a traceback.
        previous = (signal.signal(signal.SIGINT, signal.SIG_IGN)
                    if threading.current_thread() is threading.main_thread() else None)
        try:
            with warnings.catch_warnings():  # its HTTP server moves to a free port by itself
                warnings.filterwarnings("ignore", message="Port .* is already in use")
                cluster = distributed.LocalCluster(
                    n_workers=spec.workers, threads_per_worker=1, processes=True,
                    dashboard_address=None, silence_logs=40,
                )
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        try:
            with distributed.Client(cluster) as client:
                yield client
        finally:
            cluster.close()
        return
    try:
        client = distributed.Client(spec.address, timeout="5s")
    except (OSError, TimeoutError) as exc:
        raise ConfigError(f"--cluster={spec.address}: cannot reach the scheduler: {exc}") from None
    try:
        yield client
    finally:
        client.close()


def map_ordered(
    client: Any,
    jobs: Sequence[tuple[Callable[..., Any], tuple[Any, ...]]],
    on_result: Callable[[int, Any], None],
) -> None:
    """Run ``fn(*args)`` of every job as a Dask task; ``on_result(i, value)`` as each finishes.

    Results arrive in completion order (the caller stores them by index
    ``i`` and merges in job order). A task whose worker dies is rerun by the
    scheduler elsewhere (Dask's own retry); a task that raises re-raises here.

    Raises:
        ClusterError: the cluster failed (the scheduler went away, a task's
            workers kept dying: :class:`distributed.KilledWorker`).
    """
    from concurrent.futures import CancelledError

    from distributed import KilledWorker, as_completed
    from distributed.comm.core import CommClosedError

    futures = {}
    for i, (fn, args) in enumerate(jobs):
        future = client.submit(fn, *args, pure=False)
        futures[future] = i
    try:
        for future in as_completed(futures):
            try:
                value = future.result()
            except (KilledWorker, CancelledError, CommClosedError, OSError, TimeoutError) as exc:
                raise ClusterError(f"the cluster failed ({type(exc).__name__}: {exc})") from None
            on_result(futures[future], value)
    finally:
        for future in futures:
            future.release()


class ClusterError(ConfigError):
    """The Dask cluster failed under a run (its scheduler or workers); a checkpoint keeps what finished."""


# ------------------------------------------------------------------ checkpoints


class CheckpointMismatch(ConfigError):
    """A checkpoint directory holds a run of other arguments (or another format)."""


class Checkpoint:
    """Finished chunk results of one crosscheck, kept in a directory.

    ``DIR/manifest.json`` holds ``{"format", "arguments", "jobs"}``;
    ``DIR/chunk-<i>.pickle`` the pickled result of job ``i``. Opening a
    directory that has a manifest of other arguments raises
    :class:`CheckpointMismatch`, naming the arguments that differ.
    """

    def __init__(self, directory: str | Path, arguments: dict[str, Any], jobs: int) -> None:
        self.directory = Path(directory)
        manifest = {"format": CHECKPOINT_FORMAT, "arguments": arguments, "jobs": jobs}
        # through JSON both ways, so tuples and lists compare equal
        manifest = json.loads(json.dumps(manifest, sort_keys=True))
        path = self.directory / "manifest.json"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            if path.exists():
                try:
                    found = json.loads(path.read_text(encoding="utf-8"))
                except ValueError:
                    raise CheckpointMismatch(f"--checkpoint {directory}: manifest.json is not JSON") from None
                if found != manifest:
                    raise CheckpointMismatch(
                        f"--checkpoint {directory} holds a run of other arguments "
                        f"({_differences(found, manifest)}); give another directory, or the same "
                        "arguments to resume it")
            else:
                self._write(path, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode())
        except OSError as exc:
            raise ConfigError(f"--checkpoint {directory}: {exc.strerror or exc}") from None

    def _chunk(self, i: int) -> Path:
        return self.directory / f"chunk-{i:07d}.pickle"

    def load(self) -> dict[int, Any]:
        """The finished results: job index -> result (an unreadable file counts as unfinished)."""
        done: dict[int, Any] = {}
        for path in self.directory.glob("chunk-*.pickle"):
            try:
                i = int(path.stem[len("chunk-"):])
                with open(path, "rb") as handle:
                    done[i] = pickle.load(handle)
            except (ValueError, OSError, pickle.UnpicklingError, EOFError):
                continue
        return done

    def save(self, i: int, result: Any) -> None:
        """Write job ``i``'s result (atomically: a reader sees all of it or none)."""
        self._write(self._chunk(i), pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))

    def _write(self, path: Path, data: bytes) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def _differences(found: Any, wanted: Any) -> str:
    if not isinstance(found, dict) or found.get("format") != wanted["format"]:
        return f"format {found.get('format') if isinstance(found, dict) else found!r}"
    a, b = found.get("arguments", {}), wanted["arguments"]
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return "; ".join(f"{k}: {a.get(k)!r} there, {b.get(k)!r} now" for k in keys) or "job count"


# ------------------------------------------------------------------ sharded corpora


def expand_shards(patterns: Sequence[str]) -> list[list[str]]:
    """The aligned shards of HYP and REF globs: one list of files per pattern, sorted.

    Shard k of the hypothesis is scored against shard k of every reference
    pattern, so every pattern must match the same number of files (>= 1).

    Raises:
        ConfigError: a pattern matches nothing, or the counts differ.
    """
    expanded = []
    for pattern in patterns:
        files = sorted(_glob.glob(pattern)) if _glob.has_magic(pattern) else [pattern]
        if not files:
            raise ConfigError(f"{pattern}: matches no file")
        expanded.append(files)
    counts = {len(files) for files in expanded}
    if len(counts) != 1:
        raise ConfigError(
            "the hypothesis and reference globs match different numbers of shards: "
            + ", ".join(f"{p} {len(f)}" for p, f in zip(patterns, expanded)))
    return expanded


def _shard_stats(hypothesis: str, references: list[str], tokenize: str, max_order: int) -> Any:
    """One shard's corpus statistics, or a CorpusReadError's message (str)."""
    from .corpus_io import CorpusReadError, check_line_counts, scan_file
    from .stream import corpus_stats_files

    try:
        scans = [scan_file(f) for f in (hypothesis, *references)]
        check_line_counts(scans)
        stats = corpus_stats_files(hypothesis, references, tokenize=tokenize, max_order=max_order)
    except CorpusReadError as exc:
        return str(exc)
    return scans[0].n_lines, stats


def sharded_corpus_stats(
    client: Any, hypothesis: str, references: Sequence[str], *, tokenize: str = "none",
    max_order: int = 4,
) -> tuple[int, Any, list[str]]:
    """Corpus statistics of aligned shards, one Dask task per shard, summed in shard order.

    ``hypothesis`` and each of ``references`` are globs (or plain paths)
    matching the same number of files; every worker must see the files at
    the same paths (a shared file system). Each shard is checked like
    ``score`` checks a file (:func:`bleu_compat.corpus_io.scan_file`: UTF-8,
    equal line counts) and counted with the streaming kernel
    (:func:`bleu_compat.stream.corpus_stats_files`); the statistics are sums
    of integers, so the result equals one process's on the concatenation.

    Returns:
        (segments, :class:`~bleu_compat.stats.SufficientStats`, shard paths of the hypothesis).

    Raises:
        ConfigError: globs that match nothing or different numbers of shards.
        CorpusReadError: a shard cannot be read, is not UTF-8, or its files' line counts differ.
    """
    from .corpus_io import CorpusReadError
    from .stats import SufficientStats

    hyp_files, *ref_files = expand_shards([hypothesis, *references])
    jobs = [(_shard_stats, (h, [refs[k] for refs in ref_files], tokenize, max_order))
            for k, h in enumerate(hyp_files)]
    results: list[Any] = [None] * len(jobs)

    def store(i: int, value: Any) -> None:
        results[i] = value

    map_ordered(client, jobs, store)
    total = SufficientStats.zero(max_order)
    segments = 0
    for value in results:
        if isinstance(value, str):
            raise CorpusReadError(value)
        n, stats = value
        segments += n
        total = total + stats
    return segments, total, hyp_files
