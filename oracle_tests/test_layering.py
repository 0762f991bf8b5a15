"""Layering (STYLE.md): the core imports only the standard library and itself; importing bleu_compat
pulls in neither sacreBLEU, NLTK nor Hypothesis."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "bleu_compat"
CORE = ["errors", "ngrams", "stats", "smoothing", "bleu", "rounding", "jsonio", "bigram", "corpus_io", "ulp",
        "fast"]
#: Optional accelerators a core module may import lazily, inside a function, with a
#: standard-library fallback (bleu_compat.fast: numpy_available()).
OPTIONAL_LAZY = {"numpy"}


def _imports(path: Path, *, top_level_only: bool) -> set[str]:
    """Names of the modules a file imports (relative imports as 'bleu_compat.x')."""
    tree = ast.parse(path.read_text("utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("bleu_compat." + (node.module or "") if node.level else node.module or "")
    return names


def _allowed(name: str, extra: set[str]) -> bool:
    top = name.split(".")[0]
    if top == "bleu_compat":
        return name.split(".")[1] in CORE
    return top in sys.stdlib_module_names or top == "__future__" or top in extra


@pytest.mark.parametrize("module", CORE)
def test_core_imports_stdlib_and_core_only(module: str) -> None:
    """Each core module imports, at module level, only the standard library and other core modules."""
    path = PACKAGE / f"{module}.py"
    for name in _imports(path, top_level_only=True):
        assert _allowed(name, set()), f"{module} imports {name} at module level"
    for name in _imports(path, top_level_only=False):
        assert _allowed(name, OPTIONAL_LAZY), f"{module} imports {name}"


def test_import_does_not_load_oracles() -> None:
    """``import bleu_compat`` (and execute) leaves sacrebleu, nltk and hypothesis out of sys.modules."""
    code = (
        "import sys, bleu_compat\n"
        "bleu_compat.execute('bleu-corpus-compute', {'hypotheses': [['a']], 'references': [[['a']]]})\n"
        "print(sorted(m for m in ('sacrebleu', 'nltk', 'hypothesis') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_core_modules_alone() -> None:
    """The core modules, imported without the package façade (which loads the tool layer), load no
    third-party module."""
    code = (
        "import importlib, importlib.util, sys, types\n"
        "spec = importlib.util.find_spec('bleu_compat')\n"
        "pkg = types.ModuleType('bleu_compat')\n"
        "pkg.__path__ = list(spec.submodule_search_locations)\n"
        "sys.modules['bleu_compat'] = pkg\n"
        "before = set(sys.modules)\n"
        f"for m in {CORE!r}: importlib.import_module('bleu_compat.' + m)\n"
        "new = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        "print(sorted(m for m in new if m not in sys.stdlib_module_names and m != 'bleu_compat'))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


#: The judge: the truth, the dialect framework, the implementation registry and interface, each
#: registered implementation's declaration, models and entries, and the catalog that gathers them.
#: It shares no code with what it judges (SPEC.md section 7): a core bug must not change how a
#: library's difference is attributed.
LIBRARY_DIRS = sorted(p.name for p in (PACKAGE / "libraries").iterdir()
                      if (p / "__init__.py").is_file())
JUDGE = ["harness/truth.py", "harness/dialect.py", "harness/target.py", "catalog.py",
         "libraries/registry.py", "libraries/plugin.py"] + [
    f"libraries/{name}/{part}" for name in LIBRARY_DIRS
    for part in ("__init__.py", "model.py", "entries.py")]
JUDGE_MODULES = {"bleu_compat." + p[:-3].replace("/", ".").removesuffix(".__init__") for p in JUDGE}
JUDGE_THIRD_PARTY = {"mpmath"}
#: A model may evaluate its library's arithmetic with the primitives the library itself uses,
#: which the standard library does not have: torch's float32 log/exp (not correctly rounded
#: on this CPU), numpy's 80-bit longdouble with libm's logl. Never for counting.
#: Each implementation declares them (Library.model_imports).
def _model_primitives() -> dict[str, set[str]]:
    from bleu_compat.libraries.registry import libraries

    return {f"libraries/{lib.model.split('.')[-2]}/model.py": set(lib.model_imports)
            for lib in libraries()}


MODEL_PRIMITIVES = _model_primitives()


def test_every_library_folder_is_judged() -> None:
    """The judge list covers every implementation folder (a new one cannot slip past the check)."""
    from bleu_compat.libraries.registry import KNOWN_IMPLEMENTATIONS

    folders = {path.split(":")[0].rsplit(".", 1)[-1] for path in KNOWN_IMPLEMENTATIONS.values()}
    assert folders <= set(LIBRARY_DIRS), (KNOWN_IMPLEMENTATIONS, LIBRARY_DIRS)
    assert len(JUDGE) == 6 + 3 * len(LIBRARY_DIRS)


@pytest.mark.parametrize("path", JUDGE)
def test_judge_imports_no_core(path: str) -> None:
    """A judge module imports (anywhere in the file) only the standard library, mpmath and other
    judge modules: nothing of the core, the tools, the adapters or the CLI."""
    for name in _imports(PACKAGE / path, top_level_only=False):
        top = name.split(".")[0]
        if top == "bleu_compat":
            assert name in JUDGE_MODULES, f"{path} imports {name}"
        else:
            assert (top in sys.stdlib_module_names or top == "__future__" or top in JUDGE_THIRD_PARTY
                    or top in MODEL_PRIMITIVES.get(path, set())), f"{path} imports {name}"


def test_judge_loads_no_core_module() -> None:
    """Imported without the package façades, the judge modules (the registry reading every
    implementation's declaration included) load no core, tool or adapter module."""
    code = (
        "import importlib, importlib.util, sys, types, pathlib\n"
        "root = pathlib.Path(importlib.util.find_spec('bleu_compat').submodule_search_locations[0])\n"
        "for name, sub in [('bleu_compat', ''), ('bleu_compat.harness', 'harness'),\n"
        "                  ('bleu_compat.libraries', 'libraries')]:\n"
        "    pkg = types.ModuleType(name); pkg.__path__ = [str(root / sub)]; sys.modules[name] = pkg\n"
        f"for m in {sorted(JUDGE_MODULES)!r}: importlib.import_module(m)\n"
        "importlib.import_module('bleu_compat.catalog').ENTRIES\n"
        f"judge = {sorted(JUDGE_MODULES)!r}\n"
        "print(sorted(m for m in sys.modules if m.startswith('bleu_compat.') and m not in judge\n"
        "             and m not in ('bleu_compat.harness', 'bleu_compat.libraries')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


#: The harness's truth: independent of the product (SPEC.md §7), so it may use only these.
TRUTH = PACKAGE / "harness" / "truth.py"
TRUTH_ALLOWED = {"mpmath", "__future__"}


def test_truth_imports_nothing_from_bleu_compat() -> None:
    """harness/truth.py imports (anywhere in the file, lazily too) only the standard library and mpmath:
    no bleu_compat module, absolute or relative, so a core bug cannot change the answer it is judged by."""
    names = _imports(TRUTH, top_level_only=False)
    assert names, "the AST walk found no import at all"
    offending = sorted(
        n for n in names
        if n.split(".")[0] == "bleu_compat" or not (n.split(".")[0] in sys.stdlib_module_names
                                                    or n.split(".")[0] in TRUTH_ALLOWED)
    )
    assert not offending, f"truth.py imports {offending}"


def test_truth_loads_no_bleu_compat_module() -> None:
    """Loaded on its own from its file (no package façade), truth.py pulls no bleu_compat module
    into sys.modules and still answers a request."""
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('truth_alone', {str(TRUTH)!r})\n"
        "mod = importlib.util.module_from_spec(spec)\n"
        "sys.modules['truth_alone'] = mod\n"
        "spec.loader.exec_module(mod)\n"
        "t = mod.truth('bleu-corpus-compute', {'hypotheses': [['a']], 'references': [[['a']]], 'max_order': 1})\n"
        "assert t.expected['bleu'] == 1.0, t\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'bleu_compat'))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


#: The truth's exact side recomputed (issue 25): a second route that shares no code with the truth.
EXACT_CHECK = PACKAGE / "harness" / "exact_check.py"


def test_exact_check_imports_nothing_from_bleu_compat() -> None:
    """harness/exact_check.py imports (anywhere) only the standard library and mpmath: nothing of
    the truth it judges, nor any other bleu_compat module."""
    names = _imports(EXACT_CHECK, top_level_only=False)
    assert "mpmath" in names, "the AST walk did not find the mpmath import"
    offending = sorted(n for n in names if n.split(".")[0] == "bleu_compat"
                       or not (n.split(".")[0] in sys.stdlib_module_names
                               or n.split(".")[0] in TRUTH_ALLOWED))
    assert not offending, f"exact_check.py imports {offending}"


#: The independent check of score --compare's decompositions (issue 25).
DECOMPOSITION_CHECK = PACKAGE / "harness" / "decomposition_check.py"


def test_decomposition_check_imports_nothing_of_decompose() -> None:
    """harness/decomposition_check.py imports (anywhere, lazily too) nothing of
    bleu_compat.decompose, the module whose decompositions it judges."""
    names = _imports(DECOMPOSITION_CHECK, top_level_only=False)
    assert "bleu_compat.libraries.registry" in names, "the AST walk missed the registry import"
    assert not [n for n in names if n == "bleu_compat.decompose" or n.startswith("bleu_compat.decompose.")]


def test_decomposition_check_loads_no_decompose() -> None:
    """Deriving the factors of a pair and recomputing Shapley values leaves bleu_compat.decompose
    out of sys.modules (no indirect import either)."""
    code = (
        "import sys\n"
        "from types import SimpleNamespace as N\n"
        "import bleu_compat.harness.decomposition_check as d\n"
        "common = dict(lowercase=False, smooth_value=None, effective_order=False, aggregation='corpus',\n"
        "              whitespace='python', chop='off')\n"
        "a = N(implementation='sacrebleu', tokenize='13a', smoothing='exp', **common)\n"
        "b = N(implementation='card', tokenize='split', smoothing='none', **common)\n"
        "assert 'tokenization' in d.factor_names(a, b)\n"
        "assert sum(d.shapley_values([0.0, 1.0, 2.0, 5.0], [0, 1]).values()) == 5\n"
        "print('bleu_compat.decompose' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"
