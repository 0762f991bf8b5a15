"""Fresh-user findings: usage errors, byte order marks, bad baselines, serve's options, --cases 0.

Each finding stands for a kind of fault, so each test covers the example and
its neighbours, through the real ``bleu-compat`` command (a subprocess)
where the finding is about what the command prints:

1. usage errors of ``run`` are the JSON error object on standard output
   (README: "whatever the input"), and so are those of every command asked
   for JSON; the others print one line on standard error; exit 2;
2. a byte order mark is refused with a message naming it, by ``run``,
   ``explain`` and HTTP alike;
3. a baseline or report that is not one names the file and how to regenerate it;
4. ``serve``'s numeric options name the flag and the allowed range;
5. ``crosscheck --cases 0`` sends nothing unless ``--invalid N`` says so;
6. what a careless user tried: files in the way, empty paths, bad cluster
   addresses, a byte order mark in ``bigram``'s input.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from bleu_compat.tools import TOOL_IDS, card

from _server import CLIENT_KEEPALIVE_EXPIRY, running_server

REPO = Path(__file__).resolve().parent.parent
_SCRIPT = Path(sys.executable).with_name("bleu-compat")
COMMAND = [str(_SCRIPT)] if _SCRIPT.is_file() else [sys.executable, "-m", "bleu_compat"]

BP = "bleu-brevity-penalty"
BP_REQUEST = {"segments": [{"candidate_length": 12, "reference_lengths": [28, 28]}]}
BP_BYTES = json.dumps(BP_REQUEST).encode()
#: SPEC.md section 2's error shape, exactly
ERROR_SHAPE = {
    "type": "object", "required": ["error"], "additionalProperties": False,
    "properties": {"error": {
        "type": "object", "required": ["code", "message", "path"], "additionalProperties": False,
        "properties": {"code": {"type": "string"}, "message": {"type": "string"},
                       "path": {"type": "string"}}}},
}


def bleu(*args: str, stdin: bytes = b"", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed ``bleu-compat`` command; text output, never a hang."""
    proc = subprocess.run([*COMMAND, *args], input=stdin, capture_output=True, timeout=300,
                          cwd=cwd or REPO)
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode("utf-8"),
                                       proc.stderr.decode("utf-8"))


def json_error(proc: subprocess.CompletedProcess[str], code: str) -> dict[str, Any]:
    """The process answered exactly one error object of ``code`` on stdout, nothing on stderr, exit 2."""
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr == ""
    assert proc.stdout.count("\n") == 1, proc.stdout
    body = json.loads(proc.stdout)
    jsonschema.validate(body, ERROR_SHAPE)
    assert body["error"]["code"] == code, body
    return body["error"]


def one_line_error(proc: subprocess.CompletedProcess[str], prefix: str) -> str:
    """The process wrote nothing on stdout and one line starting with ``prefix`` on stderr, exit 2."""
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(prefix), proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    return lines[0]


# --- 1. usage errors ----------------------------------------------------------------------


class TestRunUsageErrors:
    """``run``: every usage error is the JSON error object (code usage_error) on stdout, exit 2."""

    @pytest.mark.parametrize(("argv", "culprit"), [
        pytest.param([BP, "req.json", "extra"], "'extra'", id="extra-argument"),
        pytest.param([BP, "-", "-"], "'-'", id="two-files"),
        pytest.param([BP, "a", "b", "c"], "'b' 'c'", id="two-extra-arguments"),
        pytest.param([], "TOOL", id="no-tool"),
        pytest.param(["--format", "json", BP], "'--format'", id="unknown-option"),
        pytest.param(["-x", BP], "'-x'", id="unknown-short-option"),
        pytest.param([BP, "--bogus=1"], "'--bogus=1'", id="unknown-option-after"),
        pytest.param(["--", BP, "req.json", "extra"], "'extra'", id="after-double-dash"),
    ])
    def test_usage_error_is_json(self, argv: list[str], culprit: str) -> None:
        """The message names what is wrong and gives the usage line; nothing on stderr."""
        error = json_error(bleu("run", *argv, stdin=BP_BYTES), "usage_error")
        assert culprit in error["message"]
        assert "usage: bleu-compat run [-h] TOOL [FILE]" in error["message"]
        assert error["path"] == ""

    def test_help_is_unchanged(self) -> None:
        """--help still prints argparse's help on stdout and exits 0."""
        proc = bleu("run", "--help")
        assert proc.returncode == 0 and proc.stdout.startswith("usage: bleu-compat run")
        assert "usage_error" in proc.stdout  # the description says what a usage error prints

    def test_valid_request_still_runs(self, tmp_path: Path) -> None:
        """The same command line without the extra argument answers the card's output."""
        path = tmp_path / "req.json"
        path.write_bytes(BP_BYTES)
        proc = bleu("run", BP, str(path))
        assert proc.returncode == 0, proc.stdout
        assert json.loads(proc.stdout)["reference_length"] == 28  # card bleu-brevity-penalty


class TestExplainUsageErrors:
    """``explain``: JSON when --format json was asked for, else one line on stderr; exit 2."""

    @pytest.mark.parametrize(("argv", "culprit"), [
        pytest.param(["--format", "xml", BP], "invalid choice: 'xml'", id="format-xml"),
        pytest.param(["--format", "xml"], "invalid choice: 'xml'", id="format-xml-no-tool"),
        pytest.param([], "TOOL", id="no-tool"),
        pytest.param([BP, "a", "b"], "'b'", id="extra-argument"),
        pytest.param(["--bogus", BP], "'--bogus'", id="unknown-option"),
        pytest.param(["--format"], "expected one argument", id="format-without-value"),
    ])
    def test_text_format_one_line(self, argv: list[str], culprit: str) -> None:
        """Text format (the default, or a format that is not json): one line naming the fault."""
        line = one_line_error(bleu("explain", *argv, stdin=BP_BYTES), "bleu-compat explain: ")
        assert culprit in line

    @pytest.mark.parametrize(("argv", "culprit"), [
        pytest.param(["--format", "json"], "TOOL", id="no-tool"),
        pytest.param(["-fjson", BP, "a", "b"], "'b'", id="short-option-joined"),
        pytest.param(["--format=json", "--bogus", BP], "'--bogus'", id="equals-form"),
        pytest.param(["-f", "text", "-f", "json", BP, "x", "y"], "'y'", id="last-format-wins"),
        pytest.param(["--format", "json", BP, "--impl", "no_such_module_x:fn"], "--impl",
                     id="bad-impl"),
    ])
    def test_json_format_is_json(self, argv: list[str], culprit: str) -> None:
        """With --format json (in any spelling argparse accepts) the error is the JSON object."""
        error = json_error(bleu("explain", *argv, stdin=BP_BYTES), "usage_error")
        assert culprit in error["message"]

    def test_bad_impl_in_text_format(self) -> None:
        """A bad --impl without --format json is one line on stderr."""
        line = one_line_error(bleu("explain", BP, "--impl", "no_such_module_x:fn", stdin=BP_BYTES),
                              "bleu-compat explain: ")
        assert "no_such_module_x" in line


class TestOtherCommandsUsageErrors:
    """The same rule for every command: JSON where JSON was asked for, else one line."""

    @pytest.mark.parametrize("argv", [
        pytest.param(["tools", "--json", "extra"], id="tools-json"),
        pytest.param(["catalog", "--format", "json", "--bogus"], id="catalog-json"),
        pytest.param(["catalog", "-f", "json", "--check"], id="catalog-json-check"),
        pytest.param(["gate", "--format", "json", "--baseline", "b.json", "--workers", "0"],
                     id="gate-json-workers"),
        pytest.param(["gate", "--format", "json"], id="gate-json-no-baseline"),
    ])
    def test_json_commands(self, argv: list[str], tmp_path: Path) -> None:
        """tools --json, catalog/gate --format json: the JSON error object, nothing on stderr."""
        json_error(bleu(*argv, cwd=tmp_path), "usage_error")

    @pytest.mark.parametrize(("argv", "prefix"), [
        pytest.param(["tools", "extra"], "bleu-compat tools: ", id="tools"),
        pytest.param(["bigram", "extra"], "bleu-compat bigram: ", id="bigram"),
        pytest.param(["catalog", "--format", "xml"], "bleu-compat catalog: ", id="catalog"),
        pytest.param(["gate"], "bleu-compat gate: ", id="gate-no-baseline"),
        pytest.param(["crosscheck", "--cases", "ten"], "bleu-compat crosscheck: ", id="crosscheck"),
        pytest.param(["crosscheck", "extra"], "bleu-compat crosscheck: ", id="crosscheck-extra"),
        pytest.param(["serve", "extra"], "bleu-compat serve: ", id="serve-extra"),
        pytest.param(["matrix", "--workers", "0"], "bleu-compat matrix: ", id="matrix"),
    ])
    def test_text_commands(self, argv: list[str], prefix: str, tmp_path: Path) -> None:
        """Every other usage error: one line on stderr (SPEC.md section 6 for bigram)."""
        one_line_error(bleu(*argv, cwd=tmp_path), prefix)


# --- 2. byte order marks ------------------------------------------------------------------

#: Request bodies with a byte order mark where strict JSON has none, and a word the
#: refusal must contain. The escaped form is what `printf '\xef\xbb\xbf'` writes in a
#: shell whose printf has no \x escapes (dash, /bin/sh on Debian).
BOM_BODIES = {
    "utf-8-bom": (b"\xef\xbb\xbf" + BP_BYTES, "UTF-8 byte order mark"),
    "bom-after-whitespace": (b" \n\xef\xbb\xbf" + BP_BYTES, "byte order mark"),
    "bom-after-the-object": (BP_BYTES + b"\xef\xbb\xbf", "byte order mark"),
    "bom-between-tokens": (b'{"segments":\xef\xbb\xbf[]}', "byte order mark"),
    "utf-16-le-bom": (b"\xff\xfe" + BP_BYTES.decode().encode("utf-16-le"), "UTF-16 little-endian"),
    "utf-16-be-bom": (b"\xfe\xff" + BP_BYTES.decode().encode("utf-16-be"), "UTF-16 big-endian"),
    "utf-32-le-bom": (b"\xff\xfe\x00\x00" + BP_BYTES.decode().encode("utf-32-le"), "UTF-32 little-endian"),
    "escaped-bom-text": (b"\\xef\\xbb\\xbf" + BP_BYTES, "written out as an escape"),
    "escaped-u-feff-text": (b"\\ufeff" + BP_BYTES, "written out as an escape"),
}


@pytest.fixture(scope="module")
def http() -> Any:
    with running_server() as base:
        limits = httpx.Limits(keepalive_expiry=CLIENT_KEEPALIVE_EXPIRY)  # see _server.py
        with httpx.Client(base_url=base, timeout=120.0, limits=limits) as client:
            yield client


class TestByteOrderMark:
    """A byte order mark outside a string is refused everywhere, by a message that names it.

    RFC 8259 section 8.1 lets a parser ignore a leading BOM; SPEC.md section 2
    asks for strict JSON, and these tools refuse it on every interface alike.
    """

    @pytest.mark.parametrize("name", BOM_BODIES)
    def test_run_stdin_file_explain_and_http_agree(self, name: str, tmp_path: Path, http: Any) -> None:
        """run (standard input and FILE), explain and HTTP give the same invalid_input error."""
        body, words = BOM_BODIES[name]
        path = tmp_path / "req.json"
        path.write_bytes(body)
        from_stdin = json_error(bleu("run", BP, stdin=body), "invalid_input")
        assert words in from_stdin["message"] and from_stdin["path"] == ""
        assert json_error(bleu("run", BP, str(path)), "invalid_input") == from_stdin
        assert json_error(bleu("explain", BP, str(path)), "invalid_input") == from_stdin
        resp = http.post(card(BP).execute_url, content=body,
                         headers={"Content-Type": "application/json"})
        assert resp.status_code == 400
        assert resp.json() == {"error": from_stdin}

    def test_bom_inside_a_token_is_data(self, http: Any) -> None:
        """U+FEFF inside a string is an ordinary character: a token "\\ufeffa" does not match "a"."""
        request = {"hypotheses": [["\ufeffa", "b"]], "references": [[["a", "b"]]], "max_order": 1}
        body = json.dumps(request, ensure_ascii=False).encode("utf-8")
        proc = bleu("run", "bleu-corpus-compute", stdin=body)
        assert proc.returncode == 0, proc.stdout
        out = json.loads(proc.stdout)
        assert out["matches"] == [1] and out["totals"] == [2]  # counted by hand: only "b" matches
        resp = http.post(card("bleu-corpus-compute").execute_url, content=body,
                         headers={"Content-Type": "application/json"})
        assert resp.status_code == 200 and resp.json() == out

    def test_str_request_with_bom(self) -> None:
        """The library's str input: a leading U+FEFF is refused with the same words."""
        from bleu_compat import ToolError, execute

        with pytest.raises(ToolError) as info:
            execute(BP, "\ufeff" + BP_BYTES.decode())
        assert info.value.code == "invalid_input" and "byte order mark (U+FEFF)" in str(info.value)

    def test_bigram_warns_about_a_leading_bom(self) -> None:
        """bigram keeps a leading BOM in the first word, as score does, and says so on stderr."""
        proc = bleu("bigram", stdin=b"\xef\xbb\xbfthe cat\n1\nthe cat\n")
        assert proc.returncode == 0
        # "\ufeffthe" matches nothing: p1 = 1/2, p2 = 0/1, so the score is 0.0 (SPEC.md section 6)
        assert proc.stdout == "0.0\n"
        assert "byte order mark" in proc.stderr
        clean = bleu("bigram", stdin=b"the cat\n1\nthe cat\n")
        assert (clean.stdout, clean.stderr) == ("1.0\n", "")


# --- 3. baselines and reports -------------------------------------------------------------

BAD_FILES: dict[str, tuple[bytes | None, str]] = {
    "empty": (b"", "it is empty"),
    "whitespace": (b" \n", "it holds only whitespace"),
    "not-json": (b"hello", "it is not JSON: Expecting value: line 1 column 1 (char 0)"),
    "truncated": (b'{"format": "bleu-compat-baseline/1"', "it is not JSON"),
    "json-array": (b"[1, 2]", "top level: [1, 2] is not of type 'object'"),
    "wrong-shape": (b'{"format": "bleu-compat-baseline/1"}', "'seed' is a required property"),
    "huge-case-count": (json.dumps({
        "format": "bleu-compat-baseline/1", "seed": 0, "cases": {"bleu-brevity-penalty": 10**12},
        "versions": {}, "unexpected_count": 0, "kinds": [], "real_scores": {}}).encode(),
        "cases/bleu-brevity-penalty: 1000000000000 is greater than the maximum of 100000000"),
    "byte-order-mark": (b"\xef\xbb\xbf{}", "it starts with a UTF-8 byte order mark"),
    "not-utf-8": (b"\xff\xfe{}", "it is not UTF-8 text (invalid byte at offset 0)"),
    "directory": (None, "is a directory"),
}


#: The bad baselines --update replaces without --force: empty, blank, or a baseline that no
#: longer validates (a JSON object whose format is bleu-compat-baseline/...).
REPLACEABLE = {"empty", "whitespace", "wrong-shape", "huge-case-count"}


def _bad_file(tmp_path: Path, name: str) -> Path:
    content, _ = BAD_FILES[name]
    path = tmp_path / name
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    return path


@pytest.fixture(scope="module")
def small_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real crosscheck.json of a tiny run (2 brevity-penalty cases, nothing else)."""
    out = tmp_path_factory.mktemp("report")
    proc = bleu("crosscheck", "--cases", "2", "--tools", BP, "--no-real", "--workers", "1",
                "--no-progress", "--no-html", "--out", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out / "crosscheck.json"


class TestBaselineAndReportFiles:
    """gate names the bad file, says it is not what gate --update writes, and how to fix it."""

    @pytest.mark.parametrize("name", BAD_FILES)
    def test_bad_baseline(self, tmp_path: Path, name: str) -> None:
        """Each bad baseline: one line naming the file and the reason, exit 2, nothing run."""
        path = _bad_file(tmp_path, name)
        line = one_line_error(bleu("gate", "--baseline", str(path), "--no-progress"), "bleu-compat gate: ")
        assert f"--baseline {path} " in line and BAD_FILES[name][1] in line
        assert "Traceback" not in line
        if name != "directory":
            assert "not a valid bleu-compat-baseline/1 baseline as `bleu-compat gate --update`" in line
            # --update replaces what holds nothing to lose; anything else needs --force (issue 24)
            force = "" if name in REPLACEABLE else " --force"
            assert f"regenerate it with `bleu-compat gate --baseline {path} --update{force}`" in line

    def test_missing_baseline(self, tmp_path: Path) -> None:
        """A missing baseline: says how to create it."""
        path = tmp_path / "missing.json"
        line = one_line_error(bleu("gate", "--baseline", str(path)), "bleu-compat gate: ")
        assert line == (f"bleu-compat gate: --baseline {path} does not exist; create it with "
                        f"`bleu-compat gate --baseline {path} --update`")

    def test_bad_baseline_as_json(self, tmp_path: Path) -> None:
        """gate --format json: the same refusal as the JSON error object."""
        path = _bad_file(tmp_path, "empty")
        error = json_error(bleu("gate", "--format", "json", "--baseline", str(path)), "usage_error")
        assert "it is empty" in error["message"]

    @pytest.mark.parametrize("name", [n for n in BAD_FILES if n != "directory"])
    def test_update_replaces_a_bad_baseline(self, tmp_path: Path, small_report: Path, name: str) -> None:
        """--update (with --force for a file that is not a baseline at all), the way out the
        message names, writes a valid baseline over the bad file; without --force such a file
        is left as it was."""
        from bleu_compat.cli.gate import BASELINE_SCHEMA

        path = _bad_file(tmp_path, name)
        force = () if name in REPLACEABLE else ("--force",)
        if force:
            before = path.read_bytes()
            refused = bleu("gate", "--baseline", str(path), "--report", str(small_report), "--update")
            assert refused.returncode == 2 and "--update --force" in refused.stderr
            assert path.read_bytes() == before
        proc = bleu("gate", "--baseline", str(path), "--report", str(small_report), "--update", *force)
        assert proc.returncode == 0, proc.stderr
        assert f"replacing {path}, which is not a valid bleu-compat-baseline/1 baseline" in proc.stderr
        jsonschema.validate(json.loads(path.read_text("utf-8")), BASELINE_SCHEMA)
        again = bleu("gate", "--baseline", str(path), "--report", str(small_report))
        assert again.returncode == 0 and again.stdout.startswith("bleu-compat gate: pass"), again.stderr

    @pytest.mark.parametrize("name", ["empty", "not-json", "json-array", "wrong-shape", "directory"])
    def test_bad_report(self, tmp_path: Path, name: str) -> None:
        """--report that is not a crosscheck.json: names the file and the reason."""
        path = _bad_file(tmp_path, name)
        baseline = REPO / "reports" / "baseline.json"
        line = one_line_error(bleu("gate", "--baseline", str(baseline), "--report", str(path)),
                              "bleu-compat gate: ")
        assert f"--report {path} is not a crosscheck.json report as `bleu-compat crosscheck` writes it" in line

    def test_report_with_wrong_types_inside(self, tmp_path: Path, small_report: Path) -> None:
        """A report whose keys are there but whose kinds are not objects is refused, not a crash."""
        report = json.loads(small_report.read_text("utf-8"))
        report["kinds"] = [5]
        path = tmp_path / "report.json"
        path.write_text(json.dumps(report), "utf-8")
        line = one_line_error(bleu("gate", "--baseline", str(tmp_path / "b.json"), "--update",
                                   "--report", str(path)), "bleu-compat gate: ")
        assert "kinds/0: 5 is not of type 'object'" in line

    def test_update_from_a_report_of_other_settings(self, tmp_path: Path, small_report: Path) -> None:
        """--update rewrites a valid baseline from a report run with other cases (no comparison)."""
        baseline = tmp_path / "b.json"
        baseline.write_bytes((REPO / "reports" / "baseline.json").read_bytes())
        proc = bleu("gate", "--baseline", str(baseline), "--report", str(small_report), "--update")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(baseline.read_text("utf-8"))["cases"] == {BP: 2}


# --- 4. serve's options -------------------------------------------------------------------


@pytest.mark.parametrize(("flag", "value", "allowed"), [
    ("--body-budget-mib", "-5", "a whole number of MiB, at least 16"),
    ("--body-budget-mib", "15", "a whole number of MiB, at least 16"),
    ("--body-budget-mib", "24.5", "a whole number of MiB, at least 16"),
    ("--body-budget-mib", "1" * 40, "a whole number of MiB, at least 16"),
    ("--port", "70000", "a whole number from 0 to 65,535"),
    ("--port", "-1", "a whole number from 0 to 65,535"),
    ("--port", "http", "a whole number from 0 to 65,535"),
    ("--max-connections", "0", "a whole number, at least 1"),
    ("--max-connections", "-3", "a whole number, at least 1"),
    ("--header-timeout", "0", "a number of seconds greater than 0 (finite)"),
    ("--keep-alive-timeout", "-1", "a number of seconds greater than 0 (finite)"),
    ("--body-idle-timeout", "nan", "a number of seconds greater than 0 (finite)"),
    ("--body-timeout", "inf", "a number of seconds greater than 0 (finite)"),
    ("--admission-timeout", "soon", "a number of seconds greater than 0 (finite)"),
])
def test_serve_option_names_flag_and_range(flag: str, value: str, allowed: str) -> None:
    """A bad value of serve's numeric options names the flag as typed and the allowed range,
    never an internal name (body_budget, MAX_REQUEST_BYTES); exit 2 before anything starts."""
    line = one_line_error(bleu("serve", flag, value), "bleu-compat serve: ")
    assert f"argument {flag}: must be {allowed}; got {value!r}" in line
    for internal in ("body_budget", "MAX_REQUEST_BYTES", "ServerLimits", "max_connections",
                     "header_timeout", "_timeout"):
        assert internal not in line


def test_serve_help_names_the_ranges() -> None:
    """serve --help states each range the checks enforce."""
    proc = bleu("serve", "--help")
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    for phrase in ("0 to 65535", "at least 16", "N >= 1", "(default 10; S > 0)", "(default 60; S > 0)"):
        assert phrase in text


def test_serve_limits_accept_the_edges() -> None:
    """The least budget and connection count, and a tiny timeout, pass the CLI checks and the
    server's own (ServerLimits), whose defaults stay as they were."""
    from bleu_compat.cli.serve import MIN_BUDGET_MIB
    from bleu_compat.cli.usage import seconds, whole_number
    from bleu_compat.server import ServerLimits
    from bleu_compat.tools import MAX_REQUEST_BYTES

    assert MIN_BUDGET_MIB * 2**20 == MAX_REQUEST_BYTES == 16 * 2**20
    limits = ServerLimits(body_budget=whole_number(MIN_BUDGET_MIB)("16") * 2**20,
                          max_connections=whole_number(1)("1"), header_timeout=seconds("0.001"))
    assert (limits.body_budget, limits.max_connections, limits.header_timeout) == (16 * 2**20, 1, 0.001)
    assert ServerLimits() == ServerLimits(10.0, 5.0, 10.0, 60.0, 256, 24 * 2**20, 60.0)


# --- 5. crosscheck --cases 0 --------------------------------------------------------------


class TestCasesZero:
    """--cases N bounds the invalid requests too; an explicit --invalid is taken as given."""

    @pytest.mark.parametrize(("argv", "cases", "invalid"), [
        (["--cases", "0"], 0, 0),
        (["--cases", "0", "--invalid", "7"], 0, 7),
        (["--cases", "3"], 3, 3),
        (["--cases", "149"], 149, 149),
        (["--cases", "200"], 200, 150),
        (["--cases", "5", "--invalid", "0"], 5, 0),
        (["--cases", "5", "--invalid", "300"], 5, 300),
        ([], 700, 150),
    ])
    def test_invalid_requests_follow_cases(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                           argv: list[str], cases: int, invalid: int) -> None:
        """The counts the run is given, per tool (run_report replaced: nothing runs)."""
        import bleu_compat.cli.crosscheck as cc
        from bleu_compat.cli import main

        seen: dict[str, Any] = {}

        def fake_run_report(seed: int, cases_: dict[str, int], real: bool, workers: Any,
                            progress: bool, invalid_: dict[str, int], **kwargs: Any) -> Any:
            seen.update(cases=cases_, invalid=invalid_)
            raise KeyboardInterrupt  # stop here; main() answers 130

        monkeypatch.setattr(cc, "run_report", fake_run_report)
        assert main(["crosscheck", *argv, "--no-progress", "--out", str(tmp_path)]) == 130
        assert seen["cases"] == dict.fromkeys(TOOL_IDS, cases)
        assert seen["invalid"] == dict.fromkeys(TOOL_IDS, invalid)

    def test_cases_0_no_real_is_refused(self, tmp_path: Path) -> None:
        """--cases 0 --no-real would check nothing: refused, and no report is written."""
        line = one_line_error(bleu("crosscheck", "--cases", "0", "--no-real", "--out", str(tmp_path / "o")),
                              "bleu-compat crosscheck: ")
        assert "leaves nothing to check" in line and "--invalid N" in line
        assert not (tmp_path / "o").exists()

    def test_cases_0_invalid_5_sends_exactly_5(self, tmp_path: Path) -> None:
        """--cases 0 --invalid 5: no generated valid case, 5 invalid requests, as the summary says."""
        proc = bleu("crosscheck", "--cases", "0", "--invalid", "5", "--tools", BP, "--no-real",
                    "--workers", "1", "--no-progress", "--no-html", "--out", str(tmp_path))
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith(f"bleu-compat crosscheck: seed 0, 0 generated cases ({BP} 0), "
                                      "5 invalid requests, 0 real corpora;")
        report = json.loads((tmp_path / "crosscheck.json").read_text("utf-8"))
        assert report["cases"] == {BP: 0} and report["invalid"][BP]["cases"] == 5

    def test_help_documents_it(self) -> None:
        """crosscheck --help says what --cases 0 does."""
        text = " ".join(bleu("crosscheck", "--help").stdout.split())
        assert "0 runs no generated case" in text and "--cases 0 sends none unless --invalid is given" in text


# --- 6. what a careless user tried --------------------------------------------------------


class TestCarelessUser:
    """Files in the way, empty paths, bad cluster addresses: one clear line, exit 2, no run."""

    def test_output_paths(self, tmp_path: Path) -> None:
        """A file where a directory must go, or an empty path, for each command writing files."""
        blocker = tmp_path / "file"
        blocker.write_text("x")
        cases = [
            (["crosscheck", "--cases", "1", "--out", str(blocker)], "it is a file, not a directory"),
            (["crosscheck", "--cases", "1", "--out", str(blocker / "a" / "b")],
             f"{blocker} is a file, not a directory"),
            (["crosscheck", "--cases", "1", "--out", ""], "--out is empty"),
            (["crosscheck", "--cases", "1", "--checkpoint", ""], "--checkpoint is empty"),
            (["crosscheck", "--cases", "1", "--tools", BP, "--impl",
              str(REPO / "examples" / "correct_bleu.py") + ":bleu"],
             "the --impl implementations answer only bleu-corpus-compute"),
            (["gate", "--baseline", str(blocker / "b.json"), "--update"],
             "cannot write the baseline"),
            (["gate", "--baseline", ""], "--baseline is empty"),
            (["catalog", "--out", str(tmp_path)], "is a directory; give a file name"),
            (["catalog", "--out", str(blocker / "c.md")], f"{blocker} is a file, not a directory"),
            (["catalog", "--out", ""], "--out is empty"),
            (["catalog", "--check", "--out", str(tmp_path)], "is a directory"),
            (["matrix", "--nltk", "3.10.4", "--offline", "--out", str(tmp_path / "m"),
              "--cache", str(blocker)], "cannot write the environment cache (--cache)"),
            (["matrix", "--nltk", "3.10.4", "--out", ""], "--out is empty"),
        ]
        for argv, words in cases:
            line = one_line_error(bleu(*argv, cwd=tmp_path), f"bleu-compat {argv[0]}: ")
            assert words in line, (argv, line)
        # nothing was written (matrix makes its --out before it looks at --cache)
        assert sorted(p.name for p in tmp_path.iterdir() if p.name != "m") == ["file"]

    @pytest.mark.parametrize("argv", [["run", BP], ["explain", BP, "-"]])
    def test_closed_standard_input_run_explain(self, argv: list[str]) -> None:
        """Started with standard input closed (`<&-`): the JSON refusal, not an internal error."""
        proc = subprocess.run([*COMMAND, *argv], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=120, cwd=REPO,
                              preexec_fn=lambda: os.close(0))
        error = json_error(subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout,
                                                       proc.stderr), "invalid_input")
        assert "standard input" in error["message"] and "closed" in error["message"]

    def test_closed_standard_input_bigram(self) -> None:
        """bigram with standard input closed: one line, exit 2."""
        proc = subprocess.run([*COMMAND, "bigram"], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=120, cwd=REPO,
                              preexec_fn=lambda: os.close(0))
        one_line_error(subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout, proc.stderr),
                       "bleu-compat bigram: standard input is closed")

    def test_bigram_input_is_bounded(self) -> None:
        """bigram reads at most 16 MiB (`bigram < /dev/zero` filled memory); exactly 16 MiB is read."""
        from bleu_compat.cli.bigram import MAX_INPUT_BYTES

        assert MAX_INPUT_BYTES == 16 * 2**20
        line = one_line_error(bleu("bigram", stdin=b"\0" * (MAX_INPUT_BYTES + 1)), "bleu-compat bigram: ")
        assert "larger than 16777216 bytes" in line
        # at the bound: read whole and scored (trailing blanks are no extra line, SPEC.md section 6)
        at_bound = b"a b\n1\na b\n"
        at_bound += b" " * (MAX_INPUT_BYTES - len(at_bound))
        proc = bleu("bigram", stdin=at_bound)
        assert (proc.returncode, proc.stdout) == (0, "1.0\n"), proc.stderr

    @pytest.mark.parametrize(("address", "words"), [
        ("bogus", "missing port number"),
        ("tcp://host", "missing port number"),
        ("tcp://host:port", "invalid literal"),
        ("inproc://x", "inproc:// addresses live inside one process"),
        ("local:257", "local:N takes 1 to 256 worker processes"),
        ("local:99999999999", "local:N takes 1 to 256 worker processes"),
        ("local:0", "local:N needs N >= 1 workers"),
    ])
    def test_bad_cluster_address(self, tmp_path: Path, address: str, words: str) -> None:
        """--cluster values Dask would raise on (or that start 10**11 processes) are refused first."""
        pytest.importorskip("distributed")
        line = one_line_error(bleu("crosscheck", "--cluster", address, "--cases", "1", "--no-real",
                                   "--out", str(tmp_path / "o")), "bleu-compat crosscheck: ")
        assert words in line and "internal error" not in line

    def test_good_cluster_addresses_pass_the_check(self) -> None:
        """The forms README gives are accepted by the pre-check."""
        pytest.importorskip("distributed")
        from bleu_compat.cli.crosscheck import cluster_problem

        for address in ("local", "local:2", "local:256", "tcp://127.0.0.1:8786", "127.0.0.1:8786",
                        "tls://scheduler.example:8786"):
            assert cluster_problem(address) is None, address


class TestAsksFor:
    """``asks_for`` reads a command line the way argparse does."""

    @pytest.mark.parametrize(("args", "wanted"), [
        (["--format", "json"], True), (["--format=json"], True), (["-fjson"], True),
        (["-f", "json"], True), (["--form", "json"], False), (["--format", "text"], False),
        (["--format", "json", "--format", "text"], False), (["--format"], False), ([], False),
        (["x", "--format", "json", "y"], True), (["--", "--format", "json"], False),
    ])
    def test_format_json(self, args: list[str], wanted: bool) -> None:
        """Joined forms, the last occurrence; no abbreviations (the commands take none, issue
        23); errors mean "not asked"."""
        from bleu_compat.cli.usage import asks_for

        assert asks_for("--format", "-f", value="json")(args) is wanted

    def test_switch(self) -> None:
        """A switch such as tools --json, never abbreviated."""
        from bleu_compat.cli.usage import asks_for

        check = asks_for("--json")
        assert check(["--json"]) and not check(["--js", "x"]) and not check(["x"])


class TestTopLevelMistakes:
    """Mistakes before or in the command's name, answered by the top-level parser or the named
    command (argparse printed the top-level usage, and for ``--bogus run`` a wrong ``TOOL`` error)."""

    @pytest.mark.parametrize("typo, near", [("runn", "run"), ("scor", "score"), ("crosscheK", "crosscheck")])
    def test_unknown_command_names_the_nearest(self, typo: str, near: str) -> None:
        message = one_line_error(bleu(typo), "bleu-compat: unknown command")
        assert f"did you mean {near!r}" in message

    def test_unknown_command_without_a_near_one_lists_them(self) -> None:
        message = one_line_error(bleu("zzz"), "bleu-compat: unknown command 'zzz'")
        assert "did you mean" not in message and "tools, run, bigram" in message

    def test_option_before_run_is_a_json_error_naming_it(self) -> None:
        for args in (("--bogus", "run"), ("-x", "run", BP), ("--format", "json", "run", BP),
                     ("--format=json", "run")):
            error = json_error(bleu(*args), "usage_error")
            assert repr(args[0]) in error["message"] and "before the command 'run'" in error["message"]

    def test_option_before_a_text_command_is_one_line(self) -> None:
        message = one_line_error(bleu("--bogus", "explain"), "bleu-compat explain:")
        assert "'--bogus'" in message

    def test_option_without_a_command(self) -> None:
        one_line_error(bleu("--bogus"), "bleu-compat: unknown option '--bogus'")

    @pytest.mark.parametrize("args", [("--help", "--bogus", "run"), ("--version", "run")])
    def test_help_and_version_first_still_answer(self, args: tuple[str, ...]) -> None:
        proc = bleu(*args)
        assert proc.returncode == 0 and proc.stdout, proc

    def test_abbreviated_version_is_an_unknown_option(self) -> None:
        """No abbreviations anywhere (issue 23): --vers is not --version."""
        one_line_error(bleu("--vers"), "bleu-compat: unknown option '--vers'")

    def test_a_word_before_the_command_is_an_unknown_command(self) -> None:
        message = one_line_error(bleu("foo", "run"), "bleu-compat: unknown command 'foo'")
        assert "tools, run" in message

    def test_option_with_a_value_before_serve_names_the_option(self) -> None:
        message = one_line_error(bleu("--port", "8000", "serve"), "bleu-compat serve:")
        assert "'--port'" in message and "unknown command" not in message
