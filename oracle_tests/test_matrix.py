"""Library versions (SPEC.md section 7): dialects per release and the `bleu-compat matrix` machinery.

Nothing here builds an old environment: the environment logic runs with a fake
command runner, the in-environment run with the installed releases, and the
models of other releases' entries are checked against the values those releases
gave (measured by `bleu-compat matrix` and recorded in the entries). The real
matrix is opt-in: BLEU_COMPAT_MATRIX_TESTS=1.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest

from bleu_compat import catalog, matrix
from bleu_compat.harness.truth import truth

pytest.importorskip("sacrebleu")
pytest.importorskip("nltk")

REPO = Path(__file__).resolve().parent.parent


# --- dialects per release --------------------------------------------------------------


class TestDialects:
    """Which entries judge which release."""

    def test_every_entry_is_verified_on_measured_releases_only(self) -> None:
        """An entry's releases are all in its library's measured list."""
        for e in catalog.ENTRIES:
            assert set(e.verified) <= set(catalog.MEASURED[e.library]), e.id

    def test_same_code_same_dialect(self) -> None:
        """sacreBLEU 2.3.1 and 2.6.0 (bleu.py differs in whitespace only) share one dialect."""
        groups = {vs: [x.id for x in es] for vs, es in catalog.known_dialects("sacrebleu")}
        together = [vs for vs in groups if "2.3.1" in vs]
        assert len(together) == 1 and "2.6.0" in together[0]

    def test_release_2_0_0_has_its_own_order_entries(self) -> None:
        """2.0.0's dialect has the max-order entries; 2.1.0 (the fix) and 2.6.0 do not."""
        ids = lambda v: {e.id for e in catalog.dialect_entries("sacrebleu", v)}  # noqa: E731
        both = {"SACREBLEU-MAX-ORDER-NOT-PASSED-INDEXERROR", "SACREBLEU-MAX-ORDER-NOT-PASSED-SCORE"}
        assert both <= ids("2.0.0")
        assert not both & ids("2.1.0") and not both & ids("2.6.0")
        assert "SACREBLEU-EMPTY-STRING-PADDING" in ids("2.6.0") and "SACREBLEU-EMPTY-STRING-PADDING" not in ids("2.0.0")

    def test_dialect_label(self) -> None:
        """Labels name the library and the first and last release."""
        assert catalog.dialect_label("sacrebleu", ("2.6.0", "2.2.1", "2.3.1")) == "sacreBLEU 2.2.1–2.6.0"
        assert catalog.dialect_label("nltk", ["3.5"]) == "NLTK 3.5"

    def test_notice_only_for_unmeasured(self) -> None:
        """A measured release is silent; another is announced with the known dialects."""
        assert catalog.version_notice("sacrebleu", "2.6.0") is None
        notice = catalog.version_notice("sacrebleu", "2.7.0")
        assert notice.startswith("sacreBLEU 2.7.0 has no measured dialect; matching against known ones")
        assert "sacreBLEU 2.2.1–2.6.0" in notice

    @staticmethod
    def _run(e: catalog.CatalogEntry, version: str, output: dict) -> catalog.Reproduction:
        return catalog.classify(e.library, e.modes[0], e.tool_id, e.reproducer,
                                truth(e.tool_id, e.reproducer).expected, output, version=version)

    def test_an_old_behaviour_is_unexpected_in_a_release_without_it(self) -> None:
        """2.0.0's IndexError is explained for 2.0.0, UNEXPECTED for 2.6.0, and an unmeasured
        release is matched against every known dialect (it behaves as 2.0.0)."""
        e = catalog.entry("SACREBLEU-MAX-ORDER-NOT-PASSED-INDEXERROR")
        output = {"error": e.library_value}
        assert self._run(e, "2.0.0", output).entries == (e.id,)
        assert not self._run(e, "2.6.0", output).explained
        rep = self._run(e, "2.0.1", output)
        assert rep.explained and rep.dialect == "sacreBLEU 2.0.0"

    def test_an_unmeasured_release_prefers_the_newest_dialect(self) -> None:
        """Output that 2.2–2.6 explain is judged by that dialect for an unmeasured 2.7.0."""
        e = catalog.entry("SACREBLEU-EMPTY-STRING-PADDING")
        out = catalog.MODELS["sacrebleu"](e.tool_id, "as_called", e.reproducer,
                                          frozenset({e.id}), {})
        rep = self._run(e, "2.7.0", out)
        assert rep.explained and rep.dialect == "sacreBLEU 2.2.1–2.6.0"

    def test_measure_mode_uses_every_entry(self, monkeypatch) -> None:
        """BLEU_COMPAT_DIALECT=any (matrix --measure) judges by all of the library's entries."""
        e = catalog.entry("SACREBLEU-MAX-ORDER-NOT-PASSED-INDEXERROR")
        monkeypatch.setenv("BLEU_COMPAT_DIALECT", "any")
        assert self._run(e, "2.6.0", {"error": e.library_value}).entries == (e.id,)


@pytest.mark.parametrize("e", catalog.ENTRIES, ids=[e.id for e in catalog.ENTRIES])
def test_dialect_of_each_release_gives_the_recorded_library_value(e) -> None:
    """The dialect of the newest release an entry is verified on gives, on the reproducer, the
    library value the entry records (measured with that release; older releases' dialects may
    give another value there, e.g. 2.0.0 drops the empty reference of SACREBLEU-BP-EMPTY-CORPUS)."""
    from bleu_compat.libraries.registry import library

    for module in library(e.library).model_imports:  # torch's float32 log/exp: where installed
        pytest.importorskip(module)
    for version in e.verified[-1:]:
        on = frozenset(x.id for x in catalog.dialect_entries(e.library, version))
        for mode in e.modes:
            ids = frozenset(x for x in on if mode in catalog.entry(x).modes
                            and catalog.entry(x).tool_id == e.tool_id)
            try:
                out = catalog.MODELS[e.library](e.tool_id, mode, e.reproducer, ids, {})
            except ModuleNotFoundError as exc:  # a model evaluating with its library's primitives
                pytest.skip(f"{e.id}: the model needs {exc.name} (not installed)")
            got = out.get("error") if e.reproducer_field == "error" else out.get(e.reproducer_field)
            if e.reproducer_field == "error" and "error" not in out:
                got = out.get("not_representable")
            assert got == e.library_value or (isinstance(got, list) and list(got) == list(e.library_value)), (
                e.id, version, mode, got)


# --- the adapters dispatch on the release --------------------------------------------


class TestAdapterVersions:
    """The sacreBLEU adapter's API generations and the import check."""

    def test_api_generations(self) -> None:
        """1.4-1.5 is generation 1, 2.x generation 2; before 1.4 no adapter (a clear error)."""
        from bleu_compat.errors import OracleUnavailableError
        from bleu_compat.libraries.sacrebleu.adapter import api

        assert api("1.4.14") == api("1.5.1") == 1
        assert api("2.0.0") == api("2.6.0") == 2
        with pytest.raises(OracleUnavailableError, match=r"sacreBLEU 1\.3\.7 is installed"):
            api("1.3.7")

    def test_nltk_zero_precision_rule(self) -> None:
        """NLTK 3.6 added 'if p_i > 0' to corpus_bleu's last step."""
        from bleu_compat.libraries.nltk.adapter import nltk_final_score, skips_zero_precisions

        assert skips_zero_precisions("3.6.7") and skips_zero_precisions("3.10.4")
        assert not skips_zero_precisions("3.5") and not skips_zero_precisions("3.4.5")
        with pytest.raises(ValueError, match="math domain error"):
            nltk_final_score([0.75, 0.0], 1.0, (0.5, 0.5), skip_zero=False)
        # 3.6+: the zero precision is left out, so only 0.5 * ln(0.75) is summed
        assert nltk_final_score([0.75, 0.0], 1.0, (0.5, 0.5)) == math.exp(0.5 * math.log(0.75))

    def test_unusable_release_is_exit_2_naming_it(self, monkeypatch, capsys, tmp_path) -> None:
        """A sacreBLEU release the adapter cannot speak stops the crosscheck with exit 2 and a
        message naming the library and version (never 'internal error')."""
        import bleu_compat.libraries as libs
        from bleu_compat.cli import main

        real = libs.library_version
        monkeypatch.setattr(libs, "library_version",
                            lambda lib: "1.3.7" if lib == "sacrebleu" else real(lib))
        code = main(["crosscheck", "--cases", "1", "--no-real", "--workers", "1", "--no-progress",
                     "--out", str(tmp_path / "bc-unusable")])
        err = capsys.readouterr().err
        assert code == 2
        assert "sacreBLEU 1.3.7 is installed" in err and "internal error" not in err

    def test_unmeasured_release_announced_once_and_matched(self, monkeypatch, capsys, tmp_path) -> None:
        """An unmeasured sacreBLEU (2.6.0 posing as 2.7.0) is announced once and, behaving as a
        known dialect, gives no UNEXPECTED."""
        import bleu_compat.libraries as libs
        from bleu_compat.cli import main

        real = libs.library_version
        monkeypatch.setattr(libs, "library_version",
                            lambda lib: "2.7.0" if lib == "sacrebleu" else real(lib))
        real_installed = catalog.installed_version
        monkeypatch.setattr(catalog, "installed_version",
                            lambda lib: "2.7.0" if lib == "sacrebleu" else real_installed(lib))
        code = main(["crosscheck", "--cases", "15", "--no-real", "--workers", "1", "--no-progress",
                     "--invalid", "0", "--out", str(tmp_path)])
        err = capsys.readouterr().err
        assert err.count("sacreBLEU 2.7.0 has no measured dialect; matching against known ones") == 1
        report = json.loads((tmp_path / "crosscheck.json").read_text(encoding="utf-8"))
        assert code == 0 and report["unexpected_count"] == 0
        assert report["dialects"]["sacrebleu"] == {"version": "2.7.0", "measured": False,
                                                   "dialect": "matched against known dialects"}


# --- environments ------------------------------------------------------------------------


class FakeRunner:
    """Records commands; 'builds' a venv by creating its interpreter and site-packages."""

    def __init__(self, tmp: Path, fail_on: str | None = None) -> None:
        self.calls: list[list[str]] = []
        self.site = tmp / "site"
        self.fail_on = fail_on

    def __call__(self, cmd):
        cmd = list(cmd)
        self.calls.append(cmd)
        if self.fail_on and self.fail_on in " ".join(cmd):
            return SimpleNamespace(returncode=1, stdout="",
                                   stderr="ERROR: No matching distribution found for sacrebleu==9.9\n")
        if cmd[1:3] == ["-m", "venv"]:
            py = matrix.env_python(Path(cmd[3]))
            py.parent.mkdir(parents=True)
            py.write_text("")
        if cmd[1] == "-c":
            self.site.mkdir(exist_ok=True)
            return SimpleNamespace(returncode=0, stdout=f"{self.site}\n", stderr="")
        return SimpleNamespace(returncode=0, stdout="", stderr="")


class TestEnvironments:
    """Building, caching and failing environments (no network, a fake runner)."""

    def test_requirements(self) -> None:
        """The project's own dependencies, the pinned release and the other library's reference."""
        reqs = matrix.env_requirements(matrix.EnvSpec("sacrebleu", "2.0.0"), REPO)
        assert "sacrebleu==2.0.0" in reqs and f"nltk=={matrix.REFERENCE['nltk']}" in reqs
        assert not [r for r in reqs if r.startswith(("sacrebleu>", "nltk>"))]
        assert any(r.startswith("jsonschema") for r in reqs)

    def test_build_then_cache(self, tmp_path) -> None:
        """The first call builds (venv, pip, site lookup) and writes the source .pth; the second
        uses the cache without running anything; offline never builds."""
        spec = matrix.EnvSpec("nltk", "3.8.1")
        runner = FakeRunner(tmp_path)
        path = matrix.ensure_env(spec, tmp_path / "cache", REPO, runner=runner)
        assert path == tmp_path / "cache" / "nltk-3.8.1"
        assert [c[1:3] for c in runner.calls][:2] == [["-m", "venv"], ["-m", "pip"]]
        assert "nltk==3.8.1" in runner.calls[1]
        assert (runner.site / "bleu-compat-source.pth").read_text().strip() == str(REPO.resolve())
        assert matrix.cached(spec, tmp_path / "cache", REPO)
        again = FakeRunner(tmp_path)
        assert matrix.ensure_env(spec, tmp_path / "cache", REPO, runner=again, offline=True) == path
        assert again.calls == []
        with pytest.raises(matrix.EnvError, match="not cached"):
            matrix.ensure_env(matrix.EnvSpec("nltk", "3.7"), tmp_path / "cache", REPO,
                              runner=again, offline=True)

    def test_failed_install_leaves_nothing(self, tmp_path) -> None:
        """A release that does not install is an EnvError with pip's reason; no half-built env."""
        spec = matrix.EnvSpec("sacrebleu", "9.9")
        with pytest.raises(matrix.EnvError, match="No matching distribution found"):
            matrix.ensure_env(spec, tmp_path, REPO, runner=FakeRunner(tmp_path, fail_on="pip"))
        assert not (tmp_path / spec.name).exists()

    def test_changed_requirements_rebuild(self, tmp_path) -> None:
        """A marker for other requirements is not a cache hit."""
        spec = matrix.EnvSpec("nltk", "3.8.1")
        matrix.ensure_env(spec, tmp_path, REPO, runner=FakeRunner(tmp_path))
        marker = tmp_path / spec.name / "bleu-compat-env.json"
        data = json.loads(marker.read_text())
        data["key"] = "something else"
        marker.write_text(json.dumps(data))
        assert not matrix.cached(spec, tmp_path, REPO)

    def test_parse_versions(self) -> None:
        """Comma-separated release numbers; anything else is a ValueError."""
        assert matrix.parse_versions("1.5.1, 2.0.0,") == ["1.5.1", "2.0.0"]
        for bad in ("", ",", "2.x", "latest"):
            with pytest.raises(ValueError):
                matrix.parse_versions(bad)


# --- one environment's run and the report ----------------------------------------------


@pytest.fixture(scope="module")
def one_report(tmp_path_factory):
    """The in-environment run, here with the installed sacreBLEU (a one-env matrix)."""
    out = tmp_path_factory.mktemp("one") / "crosscheck.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = matrix.run_one("sacrebleu", out, cases=12, seed=0, workers=1, real=False)
    return out, report


class TestReport:
    """run_one, summarise, build_matrix and matrix.md."""

    def test_run_one_only_that_library(self, one_report) -> None:
        """Only the library's two modes run; the report is written."""
        out, report = one_report
        assert json.loads(out.read_text()) == json.loads(json.dumps(report))
        impls = {i for rows in report["summary"].values() for i in rows}
        assert impls == {"sacrebleu/as_called", "sacrebleu/mapped"}

    def test_summary_row(self, one_report) -> None:
        """The installed (measured) release is judged by its dialect, nothing UNEXPECTED."""
        from bleu_compat.libraries import library_version

        _, report = one_report
        version = library_version("sacrebleu")
        row = matrix.summarise(matrix.EnvSpec("sacrebleu", version), report)
        assert row["status"] == "ran" and row["measured"] and row["unexpected"] == 0
        assert row["dialect"] == next(catalog.dialect_label("sacrebleu", vs)
                                      for vs, _ in catalog.known_dialects("sacrebleu") if version in vs)
        assert row["entries_outside_dialect"] == []
        assert set(row["entries"]) <= {e.id for e in catalog.dialect_entries("sacrebleu", version)}

    def test_changes_and_markdown(self, one_report) -> None:
        """A later release with one more entry and a moved real score shows both as changes;
        a release that did not install is listed with its reason."""
        _, report = one_report
        a = matrix.summarise(matrix.EnvSpec("sacrebleu", "2.6.0"), report)
        a["real"] = {"wmt": {"sacrebleu/as_called": "28.3", "outcomes": {}}}
        b = json.loads(json.dumps(a))
        b["version"] = "2.7.0"
        b["entries"]["SACREBLEU-NEW"] = 3
        b["real"]["wmt"]["sacrebleu/as_called"] = "28.4"
        missing = {"library": "nltk", "version": "3.2", "status": "not installed",
                   "reason": "pip install failed: no wheel"}
        m = matrix.build_matrix([b, missing, a], seed=0, cases=12, wall_seconds=1.25)
        assert [r["version"] for r in m["rows"]] == ["2.6.0", "2.7.0", "3.2"]
        assert m["rows"][0]["changes"] == []
        assert "+ SACREBLEU-NEW" in m["rows"][1]["changes"]
        assert "~ wmt sacrebleu/as_called: 28.3 -> 28.4" in m["rows"][1]["changes"]
        md = matrix.to_markdown(m)
        assert "| NLTK | 3.2 | not installed: pip install failed: no wheel |" in md
        assert "## sacreBLEU 2.7.0" in md and "+ SACREBLEU-NEW" in md and "Wall time 1.2 s" in md

    def test_unmeasured_row_names_the_dialects_that_hold(self, one_report) -> None:
        """An unmeasured release's row says which known dialects contain every entry seen."""
        _, report = one_report
        report = json.loads(json.dumps(report))
        report["versions"]["sacrebleu"] = "2.7.0"
        row = matrix.summarise(matrix.EnvSpec("sacrebleu", "2.7.0"), report)
        assert not row["measured"] and row["dialect"].startswith("behaves as ")


# --- CLI ---------------------------------------------------------------------------------


class TestCommand:
    """`bleu-compat matrix` arguments."""

    @pytest.mark.parametrize("argv", [[], ["--sacrebleu", "two"], ["--nltk", ""],
                                      ["--sacrebleu", "2.6.0", "--cases", "-1"]])
    def test_usage_errors(self, argv, capsys, tmp_path) -> None:
        """No release, a non-version or a negative case count is a usage error (exit 2)."""
        from bleu_compat.cli import main

        assert main(["matrix", "--out", str(tmp_path), "--cache", str(tmp_path / "c"), *argv]) == 2
        assert capsys.readouterr().err.startswith("bleu-compat matrix: ")

    def test_offline_without_cache_checks_nothing_and_exits_2(self, tmp_path, capsys) -> None:
        """--offline with an empty cache builds nothing, checks nothing: exit 2 naming what is
        missing, no report (it was exit 0 with "building environment", issue 24)."""
        from bleu_compat.cli import main

        code = main(["matrix", "--sacrebleu", "2.6.0", "--offline", "--no-progress",
                     "--out", str(tmp_path / "out"), "--cache", str(tmp_path / "cache")])
        assert code == 2
        err = capsys.readouterr().err
        assert "sacrebleu-2.6.0" in err and "--offline" in err and "nothing to check" in err
        assert not (tmp_path / "out" / "matrix.md").exists()


def test_gate_names_other_versions() -> None:
    """The gate says which releases the baseline was made with when it runs with others."""
    from bleu_compat.cli.gate import versions_note

    base = {"versions": {"sacrebleu": "2.6.0", "nltk": "3.10.4"}}
    assert versions_note(base, base) is None
    note = versions_note(base, {"versions": {"sacrebleu": "2.7.0", "nltk": "3.10.4"}})
    assert note == ("the baseline was made with NLTK 3.10.4, sacreBLEU 2.6.0; this run used "
                    "NLTK 3.10.4, sacreBLEU 2.7.0 (no measured dialect)")


@pytest.mark.skipif(os.environ.get("BLEU_COMPAT_MATRIX_TESTS") != "1",
                    reason="builds real environments (network once, minutes): BLEU_COMPAT_MATRIX_TESTS=1")
def test_real_matrix_2_0_0_and_2_6_0(tmp_path) -> None:
    """The real thing: sacreBLEU 2.0.0 and 2.6.0 in their own environments, nothing UNEXPECTED,
    2.0.0's order handling named."""
    proc = subprocess.run([sys.executable, "-m", "bleu_compat", "matrix", "--sacrebleu", "2.0.0,2.6.0",
                           "--cases", "40", "--no-progress", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=3000)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    m = json.loads((tmp_path / "matrix.json").read_text())
    rows = {r["version"]: r for r in m["rows"]}
    assert rows["2.0.0"]["unexpected"] == rows["2.6.0"]["unexpected"] == 0
    assert "SACREBLEU-MAX-ORDER-NOT-PASSED-INDEXERROR" in rows["2.0.0"]["entries"]
    assert "SACREBLEU-MAX-ORDER-NOT-PASSED-INDEXERROR" not in rows["2.6.0"]["entries"]


@pytest.mark.skipif(os.environ.get("BLEU_COMPAT_MATRIX_TESTS") != "1",
                    reason="needs the cached matrix environments: BLEU_COMPAT_MATRIX_TESTS=1")
@pytest.mark.parametrize("e", catalog.ENTRIES, ids=[e.id for e in catalog.ENTRIES])
def test_library_code_in_its_release(e) -> None:
    """Each entry's library code, run in the matrix environment of the newest release the entry
    is verified on, prints what the entry records."""
    env = matrix.default_cache() / matrix.EnvSpec(e.library, e.verified[-1]).name
    if not matrix.env_python(env).exists():
        pytest.skip(f"no cached environment {env}")
    proc = subprocess.run([str(matrix.env_python(env)), "-c", e.library_code], capture_output=True,
                          text=True, timeout=120, cwd="/")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == e.library_prints, e.id


# --- tokens per release (issue 20) ---------------------------------------------------------

#: What runs in a release's environment: that release's tokens against ours for it, on a fixed
#: sample (the issue's risky strings and the first 300 lines of each bundled real file), every
#: tokenizer with and without -lc. Prints one JSON object: "tokenizer lc" -> verdict.
_TOKEN_SCRIPT = r'''
import json, sys
from pathlib import Path
from bleu_compat.errors import ConfigError
from bleu_compat.tokenizers import releases
from bleu_compat.libraries.registry import library
from bleu_compat.libraries.sacrebleu.tokens import library_tokenizer
from bleu_compat.tokenizers.check import check_library, release_of
from bleu_compat.corpus_io import read_lines
risky = ["a\\b", "x\u00bd.y", "\u216b,z", "5.\u00bd", "Price: 3\u00bd.", "a..5", "1.5.6", "3-4-",
         ".,.,", "&amp;lt;", "&amp;quot;", "<skipped>x", "2023.", "\u20ac5", "a\u00a0.b",
         "\u0663.\u0664", "\u0967,\u0968", "\u0130stanbul \u1e9e \u039f\u0394\u039f\u03a3.",
         "\u4e2d\u6587\uff0c\u6d4b\u8bd5\u30022023.", "\u2014a\u2019b", "x\u200by", "\U0001fae9x"]
sources = [("risky", risky)] + [(str(p), read_lines(p).lines[:300])
                                for p in sorted(Path(sys.argv[1]).rglob("*.txt"))]
lib = library("sacrebleu")
release = release_of(lib)
out = {"release": release}
for name in ("none", "13a", "intl", "zh", "char"):
    for lc in (False, True):
        key = f"{name} {'lc' if lc else 'mixed'}"
        try:
            releases.variant(name, release)
        except ConfigError:
            try:
                library_tokenizer(name, lc)("x")
                out[key] = "ours refuses, the release has it"
            except KeyError:
                out[key] = "neither has it"
            continue
        m = check_library(lib, sources, name, lc)
        out[key] = "same" if m is None else m.message()
print(json.dumps(out))
'''


@pytest.mark.parametrize("version", matrix.ALL_VERSIONS["sacrebleu"])
def test_tokens_of_each_release_are_ours_for_it(version: str) -> None:
    """In each release's matrix environment, its tokens equal ours for that release on a fixed
    sample, every tokenizer with and without -lc; a release without char refuses it as ours does.
    Skipped where the environment is not cached (CI builds none)."""
    spec = matrix.EnvSpec("sacrebleu", version)
    cache = matrix.default_cache()
    if not matrix.cached(spec, cache, REPO):
        pytest.skip(f"sacreBLEU {version}'s environment is not cached in {cache} "
                    f"(`bleu-compat matrix --sacrebleu {version}` builds it)")
    proc = subprocess.run([str(matrix.env_python(cache / spec.name)), "-c", _TOKEN_SCRIPT,
                           str(REPO / "fixtures" / "real")],
                          capture_output=True, text=True, timeout=600, cwd="/")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result.pop("release") == version
    has_char = tuple(map(int, version.split("."))) >= (1, 4, 14)
    for key, verdict in result.items():
        expected = "neither has it" if key.startswith("char") and not has_char else "same"
        assert verdict == expected, (version, key, verdict)
