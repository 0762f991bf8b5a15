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

Checkpoints (``crosscheck --checkpoint DIR``) hold one
:class:`~bleu_compat.harness.run.Tally` per finished chunk as JSON (data, never
code: nothing in the directory can run when it is loaded), written as it
arrives (atomically: a temporary file renamed) with its SHA-256 recorded in
``chunks.sha256``, and ``manifest.json`` with the run's arguments and library
versions; a rerun with the same arguments loads the finished chunks (each
checked against its hash and the tally's schema) and runs only the rest. A
checkpoint of other arguments is refused (:class:`CheckpointMismatch`), and so
is, by name, any file the directory should not hold (:class:`CheckpointError`).
"""

from __future__ import annotations

import contextlib
import glob as _glob
import hashlib
import json
import os
import re
import signal
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from .atomic import write_atomic
from .errors import ConfigError

__all__ = [
    "ClusterSpec", "parse_cluster", "open_client", "map_ordered", "Checkpoint",
    "CheckpointMismatch", "CheckpointError", "ClusterError", "expand_shards", "sharded_corpus_stats", "DEFAULT_LOCAL_WORKERS",
]

#: Workers of ``--cluster local`` without ``:N``.
DEFAULT_LOCAL_WORKERS = 2
#: Format of a checkpoint directory (manifest.json "format"): 2 is JSON chunks with their
#: SHA-256 in chunks.sha256 (1 was pickled chunks, never loaded now).
CHECKPOINT_FORMAT = 2


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
        import threading
        import warnings

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
        except BaseException:  # Ctrl-C or a failure: stop the workers now, not after their tasks
            _kill_local_workers(cluster)
            with contextlib.suppress(Exception):
                cluster.close(timeout=2)
            raise
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


def _kill_local_workers(cluster: Any) -> None:
    """SIGKILL the worker processes of a LocalCluster (their tasks are abandoned; a checkpoint
    keeps what finished). A graceful close waits for the running tasks."""
    for worker in list(getattr(cluster, "workers", {}).values()):
        process = getattr(getattr(worker, "process", None), "process", None)
        pid = getattr(process, "pid", None)
        if pid:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


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


class CheckpointError(ConfigError):
    """A checkpoint directory that cannot be used as it is: a file it never writes, a chunk whose
    content is not what its manifest records, or not a tally. The message names the file."""


class CheckpointMismatch(CheckpointError):
    """A checkpoint directory holds a run of other arguments (or another format)."""


#: The names a checkpoint directory holds (anything else is refused, named).
MANIFEST = "manifest.json"
HASHES = "chunks.sha256"
_CHUNK_NAME = re.compile(r"chunk-([0-9]{7})\.json")
_TEMP_PREFIX = ".tmp-"
#: A chunk or manifest larger than this is refused unread (a chunk of 25 cases is kilobytes).
MAX_CHECKPOINT_FILE = 256 * 2**20
_MANIFEST_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["format", "arguments", "jobs"], "additionalProperties": False,
    "properties": {"format": {"type": "integer"}, "arguments": {"type": "object"},
                   "jobs": {"type": "integer", "minimum": 0}},
}


class Checkpoint:
    """Finished chunk results of one crosscheck, kept in a directory as data, never code.

    ``DIR/manifest.json`` holds ``{"format", "arguments", "jobs"}``; ``DIR/chunk-<i>.json``
    job ``i``'s result as JSON (``encode``'s data); ``DIR/chunks.sha256`` the SHA-256 of
    each chunk file, one line per chunk as ``sha256sum`` writes it (so ``sha256sum -c
    chunks.sha256`` checks a directory by hand). Loading reads JSON only (nothing in the
    directory can run code), checks each chunk's bytes against its recorded hash and its
    data with ``decode`` (a schema check), and refuses, naming the file
    (:class:`CheckpointError`), anything else: a file this class never writes (a
    ``chunk-*.pickle`` of format 1 included), a chunk without a recorded hash or with
    other bytes, a chunk of a job that does not exist, data that is not a result.
    Opening a directory whose manifest records other arguments raises
    :class:`CheckpointMismatch`, naming the arguments that differ.

    Every file is written to a temporary file in the directory and renamed into
    place; a chunk's hash line is appended before its file is renamed, so a run
    killed in between leaves a recorded hash without a file (the chunk runs again).
    """

    def __init__(self, directory: str | Path, arguments: dict[str, Any], jobs: int, *,
                 encode: Callable[[Any], Any] = lambda x: x,
                 decode: Callable[[Any], Any] = lambda x: x) -> None:
        self.directory = Path(directory)
        self.jobs = jobs
        self._encode = encode
        self._decode = decode
        manifest = {"format": CHECKPOINT_FORMAT, "arguments": arguments, "jobs": jobs}
        # through JSON both ways, so tuples and lists compare equal
        manifest = json.loads(json.dumps(manifest, sort_keys=True))
        path = self.directory / MANIFEST
        where = f"--checkpoint {directory}"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            names = self._inspect()
            if MANIFEST in names:
                found = self._read_json(MANIFEST)
                if not isinstance(found, dict) or set(found) != {"format", "arguments", "jobs"}:
                    raise CheckpointError(f"{where}: {MANIFEST} is not a checkpoint manifest "
                                          "(format, arguments, jobs); give another directory")
                if found != manifest:
                    old = (" (format 1: pickled chunks, written by an older bleu-compat; they are "
                           "never loaded)" if found.get("format") == 1 else "")
                    raise CheckpointMismatch(
                        f"{where} holds a run of other arguments "
                        f"({_differences(found, manifest)}){old}; give another directory, or the "
                        "same arguments to resume it")
            elif names:
                raise CheckpointError(
                    f"{where}: {sorted(names)[0]} is there but {MANIFEST} is not: not a checkpoint "
                    "this command wrote; give an empty or new directory")
            else:
                self._write(path, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode())
        except OSError as exc:
            raise ConfigError(f"{where}: {exc.strerror or exc}") from None

    def _inspect(self) -> set[str]:
        """The names in the directory, after removing this class's own leftover temporary files.

        Raises:
            CheckpointError: a name this class never writes.
        """
        names = set()
        for entry in sorted(os.scandir(self.directory), key=lambda e: e.name):
            name = entry.name
            if name.startswith(_TEMP_PREFIX) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(OSError):  # a write killed before its rename
                    os.unlink(entry.path)
                continue
            if not entry.is_file(follow_symlinks=False) or (
                    name not in (MANIFEST, HASHES) and not _CHUNK_NAME.fullmatch(name)):
                kind = ("a directory" if entry.is_dir(follow_symlinks=False)
                        else "a symbolic link" if entry.is_symlink() else "a file")
                why = (" (a pickled chunk of format 1: pickles are never loaded, they can run code)"
                       if name.endswith(".pickle") else "")
                raise CheckpointError(
                    f"--checkpoint {self.directory}: {name} is {kind} a checkpoint never holds{why}; "
                    f"a checkpoint holds only {MANIFEST}, {HASHES} and chunk-NNNNNNN.json: move it "
                    "away or give another directory")
            names.add(name)
        return names

    def _read_json(self, name: str) -> Any:
        data = self._read(name)
        try:
            return json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise CheckpointError(f"--checkpoint {self.directory}: {name} is not JSON ({exc}); "
                                  "move it away or give another directory") from None

    def _read(self, name: str) -> bytes:
        with open(self.directory / name, "rb") as handle:
            data = handle.read(MAX_CHECKPOINT_FILE + 1)
        if len(data) > MAX_CHECKPOINT_FILE:
            raise CheckpointError(f"--checkpoint {self.directory}: {name} is larger than "
                                  f"{MAX_CHECKPOINT_FILE} bytes, more than any chunk; not read")
        return data

    def _hashes(self) -> dict[str, str]:
        """chunk file name -> recorded SHA-256 (the last line for a name wins)."""
        path = self.directory / HASHES
        try:
            text = self._read(HASHES).decode("utf-8", "replace")
        except FileNotFoundError:
            return {}
        recorded: dict[str, str] = {}
        lines = text.split("\n")
        for number, line in enumerate(lines, 1):
            if not line:
                continue
            match = re.fullmatch(r"([0-9a-f]{64})  (chunk-[0-9]{7}\.json)", line)
            if match is None:
                if number == len(lines):  # the last line, unterminated: a write cut short
                    break
                raise CheckpointError(f"--checkpoint {self.directory}: {path.name} line {number} is "
                                      "not '<sha256>  chunk-NNNNNNN.json'; give another directory")
            recorded[match.group(2)] = match.group(1)
        return recorded

    def load(self) -> dict[int, Any]:
        """The finished results: job index -> ``decode``'s result.

        Raises:
            CheckpointError: a chunk without a recorded hash, with other bytes than recorded,
                of a job index out of range, not JSON, or that ``decode`` refuses (ValueError).
        """
        hashes = self._hashes()
        done: dict[int, Any] = {}
        where = f"--checkpoint {self.directory}"
        for name in sorted(self._inspect()):
            match = _CHUNK_NAME.fullmatch(name)
            if match is None:
                continue
            i = int(match.group(1))
            if i >= self.jobs:
                raise CheckpointError(f"{where}: {name} is a chunk of job {i}, but this run has "
                                      f"{self.jobs} jobs; give another directory")
            if name not in hashes:
                raise CheckpointError(f"{where}: {name} has no SHA-256 in {HASHES}: not written by "
                                      "this checkpoint; move it away or give another directory")
            data = self._read(name)
            if hashlib.sha256(data).hexdigest() != hashes[name]:
                raise CheckpointError(f"{where}: {name} does not have the SHA-256 recorded in "
                                      f"{HASHES} (changed or damaged since it was written); move "
                                      "it away to run that chunk again, or give another directory")
            try:
                done[i] = self._decode(json.loads(data.decode("utf-8")))
            except (UnicodeDecodeError, ValueError, RecursionError) as exc:
                raise CheckpointError(f"{where}: {name} is not a chunk result ({exc}); move it "
                                      "away or give another directory") from None
        return done

    def save(self, i: int, result: Any) -> None:
        """Write job ``i``'s result as JSON, its hash first (a reader sees all of it or none)."""
        name = f"chunk-{i:07d}.json"
        data = (json.dumps(self._encode(result), separators=(",", ":")) + "\n").encode()  # key order is data
        line = f"{hashlib.sha256(data).hexdigest()}  {name}\n".encode()
        fd = os.open(self.directory / HASHES, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)  # one short write to an O_APPEND file: whole lines
        finally:
            os.close(fd)
        self._write(self.directory / name, data)

    def _write(self, path: Path, data: bytes) -> None:
        write_atomic(path, data)


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
