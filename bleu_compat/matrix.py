"""The version matrix: one isolated environment per library release, a crosscheck in each.

SPEC.md §7 (library versions): every catalog entry records the releases its
model was verified on, and the dialect of a release is the set of entries
verified on it. ``bleu-compat matrix`` is how those records are measured and
re-checked:

* :func:`ensure_env` builds (once; cached) a virtual environment per release
  with the standard tools (``python -m venv`` and ``pip``): the project's own
  dependencies from ``pyproject.toml``, the pinned library, the other library
  at its reference release (:data:`REFERENCE`: needed only to tokenize the
  real corpora with sacreBLEU's 13a), and this project's source directory on
  the path (a ``.pth`` entry, as an editable install makes). A marker file
  records what the environment was built with; a cached environment is used as
  it is, so the matrix works offline once built.
* :func:`run_one` is what runs *inside* an environment (``python -m
  bleu_compat.matrix run-one``): the installed release's crosscheck of that
  library only (both modes, generated cases and the bundled real corpora),
  written as a ``crosscheck.json`` report.
* :func:`summarise` turns one report into the matrix row (dialect, entries
  that hold, UNEXPECTED counts, real-corpus scores) and :func:`build_matrix`
  adds what changed from the previous release; :func:`to_markdown` renders
  ``matrix.md``.

A release whose dialect was measured is judged by it (a 2.3.1 output by the
dialect of 2.2.1–2.6.0); an unmeasured one by every known dialect
(:func:`bleu_compat.catalog.classify`). With ``measure=True`` the run judges
every release by *all* of its library's entries (``BLEU_COMPAT_DIALECT=any``),
which is how a new release's entries are found.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

__all__ = [
    "LIBRARIES", "ALL_VERSIONS", "REFERENCE", "DEFAULT_CASES", "FORMAT",
    "EnvSpec", "EnvError", "default_cache", "env_requirements", "ensure_env", "env_python",
    "run_one", "run_in_env", "summarise", "build_matrix", "to_markdown", "parse_versions",
]

FORMAT = "bleu-compat-matrix/1"
#: generated cases per tool in each environment (the whole default matrix runs in minutes)
DEFAULT_CASES = 150


def _libraries() -> tuple[Any, ...]:
    from bleu_compat.libraries.registry import libraries

    return libraries()


#: the registered implementations the matrix measures (those declaring release lines)
LIBRARIES: tuple[str, ...] = tuple(lib.name for lib in _libraries() if lib.matrix_releases)

#: ``--all``: each implementation's declared releases (for the two first ones: the latest
#: patch release of every minor line, plus the patch releases an issue named)
ALL_VERSIONS: dict[str, tuple[str, ...]] = {
    lib.name: lib.matrix_releases for lib in _libraries() if lib.matrix_releases}

#: each other implementation's release installed beside the pinned one (tokenizing the real corpora)
REFERENCE: dict[str, str] = {
    lib.name: lib.reference_release for lib in _libraries() if lib.reference_release}

_MARKER = "bleu-compat-env.json"
_ENV_FORMAT = "bleu-compat-env/1"


class EnvError(RuntimeError):
    """An environment could not be built or run (the message says why, in one line)."""


@dataclass(frozen=True)
class EnvSpec:
    """One matrix environment: ``library`` pinned at ``version``."""

    library: str
    version: str

    @property
    def name(self) -> str:
        """The environment's directory name, e.g. ``sacrebleu-2.0.0``."""
        return f"{self.library}-{self.version}"


def default_cache() -> Path:
    """Where environments are cached: ``$BLEU_COMPAT_CACHE``, else ``$XDG_CACHE_HOME`` or
    ``~/.cache``, then ``bleu-compat/envs``."""
    env = os.environ.get("BLEU_COMPAT_CACHE")
    if env:
        return Path(env)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "bleu-compat" / "envs"


def parse_versions(text: str) -> list[str]:
    """``"1.5.1, 2.0.0"`` -> ``["1.5.1", "2.0.0"]``.

    Raises:
        ValueError: an empty list or a version that is not a release number.
    """
    from packaging.version import InvalidVersion, Version

    out = [v.strip() for v in text.split(",") if v.strip()]
    if not out:
        raise ValueError(f"{text!r} names no version")
    for v in out:
        try:
            Version(v)
        except InvalidVersion:
            raise ValueError(f"{v!r} is not a version number") from None
    return out


def env_requirements(spec: EnvSpec, source: Path) -> list[str]:
    """The pip requirements of ``spec``'s environment.

    The project's runtime dependencies (``pyproject.toml``) without the
    implementations the matrix measures, then ``library==version`` and each
    other one at its :data:`REFERENCE` release.
    """
    import tomllib

    from packaging.requirements import Requirement

    data = tomllib.loads((source / "pyproject.toml").read_text(encoding="utf-8"))
    distributions = {lib.name: lib.distribution for lib in _libraries()}
    measured = {distributions[name].lower() for name in LIBRARIES}
    deps = [d for d in data["project"]["dependencies"]
            if Requirement(d).name.lower() not in measured]
    others = [f"{distributions[name]}=={REFERENCE[name]}" for name in LIBRARIES
              if name != spec.library and name in REFERENCE]
    return deps + [f"{distributions[spec.library]}=={spec.version}", *others]


def env_python(path: Path) -> Path:
    """The interpreter of the virtual environment at ``path``."""
    return path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _marker(spec: EnvSpec, source: Path) -> dict[str, Any]:
    reqs = env_requirements(spec, source)
    return {"format": _ENV_FORMAT, "library": spec.library, "version": spec.version,
            "python": ".".join(map(str, sys.version_info[:2])), "requirements": reqs,
            "source": str(source.resolve()),
            "key": hashlib.sha256(json.dumps(reqs).encode()).hexdigest()[:16]}


def cached(spec: EnvSpec, cache: Path, source: Path) -> bool:
    """True when ``spec``'s environment exists in ``cache`` and was built for these requirements."""
    path = cache / spec.name
    try:
        marker = json.loads((path / _MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    want = _marker(spec, source)
    return (env_python(path).exists() and marker.get("key") == want["key"]
            and marker.get("python") == want["python"] and marker.get("source") == want["source"])


Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


def _run(cmd: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(cmd), capture_output=True, text=True)


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and "is ignored" not in ln]
    errors = [ln for ln in lines if ln.startswith("ERROR")]
    return (errors or lines or ["(no output)"])[-1][:300]


def ensure_env(spec: EnvSpec, cache: Path, source: Path, *, runner: Runner = _run,
               offline: bool = False) -> Path:
    """The path of ``spec``'s environment, built now unless cached.

    Built with ``python -m venv`` and ``pip install`` of :func:`env_requirements`;
    the project's source directory is put on the environment's path by a
    ``bleu-compat-source.pth`` file in its site-packages. A failed build leaves
    no half-built environment behind.

    Raises:
        EnvError: the build failed (e.g. the release does not install on this
            Python, or there is no network and nothing is cached); ``offline``
            and not cached.
    """
    path = cache / spec.name
    if cached(spec, cache, source):
        return path
    if offline:
        raise EnvError(f"{spec.name}: not cached in {cache} (and --offline)")
    cache.mkdir(parents=True, exist_ok=True)
    with _locked(cache / f"{spec.name}.lock"):  # two matrix runs sharing a cache build once
        if cached(spec, cache, source):
            return path
        return _build(spec, path, cache, source, runner)


class _locked:
    """An exclusive ``flock`` on ``path`` for the duration of a ``with`` (no-op without fcntl)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.handle: Any = None

    def __enter__(self) -> None:
        self.handle = open(self.path, "w")
        try:
            import fcntl

            fcntl.flock(self.handle, fcntl.LOCK_EX)
        except ImportError:  # pragma: no cover - not POSIX
            pass

    def __exit__(self, *exc: Any) -> None:
        self.handle.close()


def _build(spec: EnvSpec, path: Path, cache: Path, source: Path, runner: Runner) -> Path:
    import shutil

    if path.exists():
        shutil.rmtree(path)
    cache.mkdir(parents=True, exist_ok=True)
    steps = [
        [sys.executable, "-m", "venv", str(path)],
        [str(env_python(path)), "-m", "pip", "install", "-q", "--disable-pip-version-check",
         *env_requirements(spec, source)],
    ]
    for cmd in steps:
        proc = runner(cmd)
        if proc.returncode != 0:
            shutil.rmtree(path, ignore_errors=True)
            raise EnvError(f"{spec.name}: {' '.join(cmd[1:4])} failed: {_last_line(proc.stderr or proc.stdout)}")
    proc = runner([str(env_python(path)), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    site = Path(proc.stdout.strip()) if proc.returncode == 0 and proc.stdout.strip() else None
    if site is None or not site.is_dir():
        shutil.rmtree(path, ignore_errors=True)
        raise EnvError(f"{spec.name}: cannot find the environment's site-packages")
    (site / "bleu-compat-source.pth").write_text(str(source.resolve()) + "\n", encoding="utf-8")
    (path / _MARKER).write_text(json.dumps(_marker(spec, source), indent=2) + "\n", encoding="utf-8")
    return path


# --- inside an environment -----------------------------------------------------------


def run_one(library: str, out: Path, *, cases: int, seed: int, workers: int | None,
            real: bool = True, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Crosscheck the installed release of ``library`` (both modes) and write ``out``.

    Runs ``cases`` generated cases per tool and (``real``) the bundled real
    corpora through ``library/as_called`` and ``library/mapped`` only, classifies
    every difference with the installed release's dialect (SPEC.md §7) and
    writes the crosscheck JSON report to ``out``.

    Returns:
        The report.

    Raises:
        OracleUnavailableError: the library cannot be imported or has no adapter.
    """
    from bleu_compat.harness.report import build_report, versions_now
    from bleu_compat.harness.run import REAL_SETS, run_crosscheck
    from bleu_compat.libraries import check_importable
    from bleu_compat.libraries.registry import quiet_loggers
    from bleu_compat.tools import TOOL_IDS

    check_importable(library)
    quiet_loggers()
    impls = (f"{library}/as_called", f"{library}/mapped")
    per_tool = {t: cases for t in TOOL_IDS}
    real_sets = REAL_SETS if real else ()
    total = cases * len(TOOL_IDS) + 100 * len(real_sets)
    done = [0]

    def step(n: int) -> None:
        done[0] += n
        if progress:
            progress(done[0], total)

    tally = run_crosscheck(seed=seed, cases=per_tool, implementations=impls, real_sets=real_sets,
                           workers=workers, progress=step)
    versions = {**versions_now(), **tally.versions}
    report = build_report(tally, seed=seed, cases=per_tool, versions=versions)
    report["matrix_library"] = library
    report["dialect_mode"] = os.environ.get("BLEU_COMPAT_DIALECT", "installed")
    out.parent.mkdir(parents=True, exist_ok=True)
    from bleu_compat.atomic import write_atomic
    from bleu_compat.jsonio import dumps_js

    write_atomic(out, dumps_js(report, indent=2) + "\n")
    return report


def run_in_env(spec: EnvSpec, env: Path, out: Path, *, cases: int, seed: int,
               workers: int | None, measure: bool = False,
               progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Run :func:`run_one` for ``spec`` inside its environment; return the report.

    Raises:
        EnvError: the run failed; the message is the child's last error line
            (e.g. the library cannot be imported there).
    """
    cmd = [str(env_python(env)), "-m", "bleu_compat.matrix", "run-one", spec.library, str(out),
           "--cases", str(cases), "--seed", str(seed)]
    if workers:
        cmd += ["--workers", str(workers)]
    child_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    if measure:
        child_env["BLEU_COMPAT_DIALECT"] = "any"
    else:
        child_env.pop("BLEU_COMPAT_DIALECT", None)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=child_env)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("PROGRESS ") and progress:
            done, total = line.split()[1:3]
            progress(int(done), int(total))
    stderr = proc.stderr.read() if proc.stderr else ""
    if proc.wait() != 0:
        raise EnvError(f"{spec.name}: crosscheck failed: {_last_line(stderr)}")
    return json.loads(out.read_text(encoding="utf-8"))


# --- the matrix --------------------------------------------------------------------


def _entry_sets(report: dict[str, Any]) -> dict[str, int]:
    """Entry id -> differences it took part in (generated cases and real corpora)."""
    return {e: row["count"] for e, row in report.get("entries", {}).items()}


def summarise(spec: EnvSpec, report: dict[str, Any]) -> dict[str, Any]:
    """The matrix row of one release's crosscheck report (JSON-ready)."""
    from bleu_compat import catalog

    lib = spec.library
    installed = report["versions"].get(lib)
    measured = catalog.is_measured(lib, installed)
    seen = _entry_sets(report)
    if measured:
        versions = next((vs for vs, _ in catalog.known_dialects(lib) if installed in vs), (installed,))
        dialect = catalog.dialect_label(lib, versions)
        outside = sorted(e for e in seen if installed not in catalog.entry(e).verified)
    else:
        holding = [catalog.dialect_label(lib, vs) for vs, entries in catalog.known_dialects(lib)
                   if set(seen) <= {e.id for e in entries}]
        dialect = ("behaves as " + " or ".join(holding)) if holding else "no known dialect"
        outside = []
    unexpected: dict[str, int] = {}
    for tool, rows in report["summary"].items():
        for impl, row in rows.items():
            if impl.startswith(lib + "/") and row["unexpected"]:
                unexpected[f"{tool} {impl}"] = row["unexpected"]
    real = {}
    for r in report["real"]:
        real[r["name"]] = {impl: (v or {}).get("text") for impl, v in
                           sorted((r.get("library_values") or {}).items()) if impl.startswith(lib + "/")}
        real[r["name"]]["outcomes"] = {i: o for i, o in sorted(r.get("outcomes", {}).items())
                                       if i.startswith(lib + "/")}
    shrunk = [{"tool": u["tool_id"], "implementation": u["implementation"], "field": u["field"],
               "command": u["command"]} for u in report["unexpected"] if u.get("command")]
    seen_commands: set[str] = set()
    reproducers = []
    for s in shrunk:
        if s["command"] not in seen_commands:
            seen_commands.add(s["command"])
            reproducers.append(s)
    return {
        "library": lib, "version": spec.version, "installed_version": installed,
        "status": "ran", "measured": measured, "dialect": dialect,
        "dialect_mode": report.get("dialect_mode", "installed"),
        "entries": dict(sorted(seen.items())), "entries_outside_dialect": outside,
        "unexpected": report["unexpected_count"], "unexpected_by_tool": unexpected,
        "not_representable": sum(r["count"] for r in report.get("not_representable", [])
                                 if r["implementation"].startswith(lib + "/")),
        "cases": report["cases"], "real": real, "reproducers": reproducers[:5],
    }


def _changes(prev: dict[str, Any] | None, row: dict[str, Any]) -> list[str]:
    if prev is None or prev.get("status") != "ran" or row.get("status") != "ran":
        return []
    out = []
    a, b = set(prev["entries"]), set(row["entries"])
    out += [f"+ {e}" for e in sorted(b - a)]
    out += [f"- {e}" for e in sorted(a - b)]
    if prev["dialect"] != row["dialect"]:
        out.append(f"dialect: {prev['dialect']} -> {row['dialect']}")
    for name in sorted(set(prev["real"]) | set(row["real"])):
        pa, pb = prev["real"].get(name, {}), row["real"].get(name, {})
        for impl in sorted(k for k in set(pa) | set(pb) if k != "outcomes"):
            if pa.get(impl) != pb.get(impl):
                out.append(f"~ {name} {impl}: {pa.get(impl)} -> {pb.get(impl)}")
    if prev["unexpected"] != row["unexpected"]:
        out.append(f"UNEXPECTED {prev['unexpected']} -> {row['unexpected']}")
    return out


def build_matrix(rows: Sequence[dict[str, Any]], *, seed: int, cases: int,
                 wall_seconds: float | None = None) -> dict[str, Any]:
    """The matrix JSON: rows per library in release order, each with what changed from the
    previous release of that library."""
    from bleu_compat.catalog import version_key

    ordered: list[dict[str, Any]] = []
    for lib in LIBRARIES:
        prev = None
        for row in sorted((r for r in rows if r["library"] == lib), key=lambda r: version_key(r["version"])):
            row = dict(row, changes=_changes(prev, row))
            ordered.append(row)
            if row.get("status") == "ran":
                prev = row
    out: dict[str, Any] = {"format": FORMAT, "seed": seed, "cases_per_tool": cases, "rows": ordered,
                           "python": ".".join(map(str, sys.version_info[:3]))}
    if wall_seconds is not None:
        out["wall_seconds"] = round(wall_seconds, 1)
    return out


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_markdown(matrix: dict[str, Any]) -> str:
    """``matrix.md``: the summary table, then per release its entries, real scores and changes."""
    from bleu_compat.catalog import LIBRARY_NAMES

    lines = ["# bleu-compat matrix", "",
             f"Seed {matrix['seed']}; {matrix['cases_per_tool']} generated cases per tool and the "
             f"bundled real corpora per release; Python {matrix['python']}."
             + (f" Wall time {matrix['wall_seconds']} s." if "wall_seconds" in matrix else ""), "",
             "| library | version | status | dialect | entries that hold | UNEXPECTED | not representable |",
             "|---|---|---|---|---:|---:|---:|"]
    for r in matrix["rows"]:
        name = LIBRARY_NAMES.get(r["library"], r["library"])
        if r["status"] != "ran":
            lines.append(f"| {name} | {r['version']} | {_cell(r['status'])}: {_cell(r.get('reason', ''))} "
                         "| | | | |")
            continue
        lines.append(f"| {name} | {r['version']} | ran | {_cell(r['dialect'])} | {len(r['entries'])} | "
                     f"{r['unexpected']} | {r['not_representable']} |")
    for r in matrix["rows"]:
        if r["status"] != "ran":
            continue
        name = LIBRARY_NAMES.get(r["library"], r["library"])
        lines += ["", f"## {name} {r['version']}", "",
                  f"Dialect: {r['dialect']} ({'measured' if r['measured'] else 'not measured'}; "
                  f"judged by {'all entries' if r['dialect_mode'] == 'any' else 'its dialect'}). "
                  f"UNEXPECTED: {r['unexpected']}.", ""]
        if r["entries"]:
            lines += ["| entry | differences |", "|---|---:|"]
            lines += [f"| `{e}` | {n} |" for e, n in r["entries"].items()]
            lines.append("")
        if r["entries_outside_dialect"]:
            lines.append("Entries seen that the catalog does not record for this release: "
                         + ", ".join(f"`{e}`" for e in r["entries_outside_dialect"]))
            lines.append("")
        if r["unexpected_by_tool"]:
            lines += ["| tool, implementation | UNEXPECTED cases |", "|---|---:|"]
            lines += [f"| {k} | {n} |" for k, n in r["unexpected_by_tool"].items()]
            lines.append("")
        for rep in r["reproducers"]:
            lines += [f"UNEXPECTED {rep['implementation']} `{rep['field']}`, shrunk:", "", "```sh",
                      rep["command"], "```", ""]
        if r["real"]:
            lines += ["| real corpus | implementation | library's own value | outcome |", "|---|---|---:|---|"]
            for corpus, vals in r["real"].items():
                for impl, text in vals.items():
                    if impl == "outcomes":
                        continue
                    lines.append(f"| {corpus} | {impl} | {text} | {vals['outcomes'].get(impl, '')} |")
            lines.append("")
        lines.append("Changes from the previous release: "
                     + ("; ".join(_cell(c) for c in r["changes"]) if r["changes"] else "none") + ".")
    return "\n".join(lines) + "\n"


# --- `python -m bleu_compat.matrix run-one` ------------------------------------------


def _main(argv: Sequence[str] | None = None) -> int:
    import argparse

    from bleu_compat.errors import OracleUnavailableError

    parser = argparse.ArgumentParser(prog="python -m bleu_compat.matrix", allow_abbrev=False)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run-one", help="crosscheck the installed release of one library",
                       allow_abbrev=False)
    p.add_argument("library", choices=LIBRARIES)
    p.add_argument("out", type=Path)
    p.add_argument("--cases", type=int, default=DEFAULT_CASES)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--no-real", action="store_true")
    args = parser.parse_args(argv)

    def progress(done: int, total: int) -> None:
        print(f"PROGRESS {done} {total}", flush=True)

    try:
        run_one(args.library, args.out, cases=args.cases, seed=args.seed, workers=args.workers,
                real=not args.no_real, progress=progress)
    except OracleUnavailableError as exc:
        print(f"ERROR {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover - run inside matrix environments
    raise SystemExit(_main())
