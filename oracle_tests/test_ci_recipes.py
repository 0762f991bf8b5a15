"""The CI recipes in the repository: a GitHub Actions workflow and pre-commit hooks.

They cannot run here (no GitHub, no pre-commit network); these tests check that
they parse (PyYAML), have the keys their runners require, and that every
``bleu-compat`` command they run is accepted by the real command-line parser and
names an existing command. The catalog hook is also run for real.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bleu_compat.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "bleu-compat.yml"
HOOKS = ROOT / ".pre-commit-hooks.yaml"


def _commands(script: str, env: dict[str, str]) -> list[list[str]]:
    """The bleu-compat invocations in a shell line, with $VARS from ``env`` substituted."""
    script = re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m.group(1), m.group(0)), script)
    out = []
    for part in re.split(r"\|\||&&|;|\|", script):
        words = shlex.split(part)
        if words and words[0] == "bleu-compat":
            out.append(words[1:])
    return out


def _accepted(argv: list[str]) -> Any:
    try:
        args = build_parser(argv).parse_args(argv)
    except SystemExit as exc:  # argparse refused it
        pytest.fail(f"bleu-compat {' '.join(argv)} is refused by the parser (exit {exc.code})")
    assert callable(args.func)
    return args


def test_workflow_parses_and_calls_existing_commands() -> None:
    """The workflow has triggers, one job on a runner, checkout, and gate + crosscheck steps
    whose command lines the real parser accepts (with --impl and --baseline from env)."""
    doc = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as true
    assert {"push", "pull_request"} <= set(triggers)
    [(name, job)] = doc["jobs"].items()
    assert job["runs-on"] and job["steps"]
    env = {k: str(v) for k, v in job.get("env", {}).items()}
    uses = [s["uses"].split("@")[0] for s in job["steps"] if "uses" in s]
    assert "actions/checkout" in uses and "actions/setup-python" in uses
    commands = [c for s in job["steps"] if "run" in s for c in _commands(s["run"], env)]
    assert {c[0] for c in commands} == {"gate", "crosscheck"}
    for argv in commands:
        args = _accepted(argv)
        assert args.impl == [env["BLEU_IMPL"]]
    gate_runs = [c for c in commands if c[0] == "gate"]
    assert any("--update" not in c for c in gate_runs)  # the gate itself, not only the update
    for argv in gate_runs:
        assert _accepted(argv).baseline == env["BLEU_BASELINE"]


def test_workflow_impl_example_loads() -> None:
    """The workflow's example --impl names a real, declared implementation in this repository."""
    from bleu_compat.implementations import load

    doc = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    [job] = doc["jobs"].values()
    spec = job["env"]["BLEU_IMPL"]
    assert (ROOT / spec.split(":")[0]).is_file()
    import os

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        assert load(spec).signature == "tokens->score"
    finally:
        os.chdir(cwd)


def test_pre_commit_hooks_parse_and_call_existing_commands() -> None:
    """Each hook has pre-commit's required keys, runs as a python hook without file names, and its
    entry plus args is a command line the real parser accepts."""
    hooks = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    assert isinstance(hooks, list) and hooks
    ids = [h["id"] for h in hooks]
    assert len(set(ids)) == len(ids)
    for hook in hooks:
        assert {"id", "name", "entry", "language"} <= set(hook)
        assert hook["language"] == "python" and hook["pass_filenames"] is False
        words = shlex.split(hook["entry"]) + [str(a) for a in hook.get("args", [])]
        assert words[0] == "bleu-compat"
        _accepted(words[1:])
    assert {"bleu-compat-gate", "bleu-compat-catalog"} <= set(ids)


def test_catalog_hook_runs() -> None:
    """The catalog hook's command passes on this repository (its Markdown is up to date)."""
    hook = next(h for h in yaml.safe_load(HOOKS.read_text()) if h["id"] == "bleu-compat-catalog")
    words = shlex.split(hook["entry"])
    proc = subprocess.run([sys.executable, "-m", "bleu_compat", *words[1:]], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


#: where install lines are written for users: README, docs, the CI recipes and the examples
_INSTALL_SOURCES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), WORKFLOW, HOOKS,
                    *sorted((ROOT / "examples").glob("*"))]


def _pip_installs() -> list[tuple[str, list[str]]]:
    """Every ``pip install`` in those files: (file, the requirement words after the options)."""
    found = []
    for path in _INSTALL_SOURCES:
        for line in path.read_text(encoding="utf-8").splitlines():
            for match in re.finditer(r"pip install ([^`&|;\n]+)", line):
                words = [w for w in shlex.split(match.group(1).replace("\\", ""))
                         if not w.startswith("-") and w not in ("in", "bleu-compat's", "directory")]
                found.append((path.name, words))
    return found


def test_every_install_line_works_from_this_repository() -> None:
    """Issue 23: README and the recipes told users to `pip install "bleu-compat[html]"` from an
    index that has no such package. Every requirement is this directory (".", ".[extra]"),
    and every extra named is one pyproject declares."""
    import tomllib

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
                 ["optional-dependencies"])
    installs = _pip_installs()
    assert len(installs) >= 4  # README's two, docs/dask.md, the workflow
    for name, words in installs:
        assert words, name
        for word in words:
            match = re.fullmatch(r"\.(?:\[([\w,]+)\])?", word)
            assert match, f"{name}: pip install {word!r} is not this repository"
            assert set((match.group(1) or "").split(",")) - {""} <= extras, (name, word)


def test_readme_is_a_quick_start() -> None:
    """README: the two set-up commands exactly as .ci/run runs the tests, five commands, and a
    link to every page of docs/ (the rest moved there); short enough to read at once."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_command = ("python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && "
                    ".venv/bin/python -m pytest -q")
    assert test_command in text and test_command in ci
    assert ("python3 -m venv .venv && .venv/bin/pip install -q '.[html]' && "
            ".venv/bin/bleu-compat crosscheck") in text
    assert len(re.findall(r"^## \d\. `bleu-compat ", text, flags=re.M)) == 5
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{page.name})" in text, page.name
    assert len(text.splitlines()) < 200
