"""Orchestration of a crosscheck: generated cases and real corpora, over processes.

Generated cases are cut into chunks of consecutive case numbers; each chunk
runs in a worker process (:class:`concurrent.futures.ProcessPoolExecutor`)
and comes back as a :class:`Tally` (counts, first example per kind, ULP
histograms, every UNEXPECTED discrepancy). Tallies are merged in chunk
order, so the result depends only on the seed, the case counts, the code
and the library versions, never on scheduling. The bundled real corpora
(``fixtures/real/``) run as units of their own: they exceed the cards'
limits, so ours is :func:`bleu_compat.corpus_bleu` and the adapters get the
request dict directly. UNEXPECTED discrepancies are then shrunk (in the
parent) to minimal reproducers.

With ``cluster`` the same chunks run as Dask tasks instead
(:mod:`bleu_compat.cluster`, imported only then), merged in the same
order; with ``checkpoint`` each finished chunk's tally is kept on disk as
it arrives and a rerun with the same arguments runs only the rest.
"""

from __future__ import annotations

import functools
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence

from bleu_compat.bleu import corpus_bleu
# the default run's sizes, in a module the CLI imports without the harness (crosscheck --help)
from bleu_compat.harness_defaults import DEFAULT_CASES, DEFAULT_INVALID, DEFAULT_SEED
from bleu_compat.tools import TOOL_IDS

from .classify import IMPLEMENTATIONS, CaseResult, evaluate, shrink
from .compare import Discrepancy
from .generate import generate_case

__all__ = [
    "RealSet", "REAL_SETS", "Tally", "run_crosscheck", "ulp_bucket", "ULP_BUCKETS",
    "DEFAULT_CASES", "DEFAULT_SEED", "fixtures_dir", "load_real_set", "tally_to_json",
    "tally_from_json", "TALLY_SCHEMA", "TALLY_FORMAT", "Interrupted", "CaseError",
]

CHUNK = 25
INVALID_CHUNK = 50
ULP_BUCKETS = ("0", "1", "2", "3-4", "5-8", "9-16", "17-64", "65-1024", ">1024")
MAX_SHRINK = 8  # UNEXPECTED kinds shrunk per run (each kind once)


def ulp_bucket(ulps: int) -> str:
    """The histogram bucket (one of :data:`ULP_BUCKETS`) of a ULP distance."""
    for bound, name in ((0, "0"), (1, "1"), (2, "2"), (4, "3-4"), (8, "5-8"), (16, "9-16"),
                        (64, "17-64"), (1024, "65-1024")):
        if ulps <= bound:
            return name
    return ">1024"


@dataclass(frozen=True)
class RealSet:
    """A bundled real corpus under ``fixtures/real/<name>/``.

    Attributes:
        name: the directory name.
        hypothesis: the system output file; references: reference files.
        tokenize: ``"13a"`` or ``"none"`` (already tokenized).
        published: the published BLEU (0–100) and its source, for the report.
    """

    name: str
    hypothesis: str
    references: tuple[str, ...]
    tokenize: str
    published: str


REAL_SETS: tuple[RealSet, ...] = (
    RealSet("nltk-wmt15-100", "sys.google.tok.txt", ("ref.A.tok.txt",), "none",
            "23.17 (multi-bleu.perl, package README)"),
    RealSet("wmt17-en-de-uedin-nmt", "sys.uedin-nmt.4722.txt", ("ref.A.txt",), "13a",
            "28.3 (mteval-v13a.pl -c, sacreBLEU test.sh)"),
    RealSet("wmt21-en-de-facebook-ai", "sys.Facebook-AI.txt", ("ref.A.txt", "ref.C.txt", "ref.D.txt"),
            "13a", "61.996188279428004 (wmt21-news-systems automatic-scores.tsv bleu-all)"),
)


def fixtures_dir() -> Path:
    """The bundled real corpora (``fixtures/real`` of the source tree).

    An installed package carries them as ``bleu_compat/bundled`` (pyproject
    maps ``fixtures/real`` there); a source checkout or an editable install
    reads ``fixtures/real`` itself. ``$BLEU_COMPAT_FIXTURES`` overrides both.
    """
    env = os.environ.get("BLEU_COMPAT_FIXTURES")
    if env:
        return Path(env)
    package = Path(__file__).resolve().parents[1]
    installed = package / "bundled"
    if installed.is_dir():
        return installed
    return package.parent / "fixtures" / "real"


def load_real_set(real: RealSet, root: Path | None = None) -> dict[str, Any]:
    """The bleu-corpus-compute request dict of a real corpus (tokenized now)."""
    from bleu_compat.corpus_io import read_lines
    from bleu_compat.tokenizers import tokenize_lines

    base = (root or fixtures_dir()) / real.name
    hyps = tokenize_lines(read_lines(base / real.hypothesis).lines, real.tokenize)
    ref_streams = [tokenize_lines(read_lines(base / f).lines, real.tokenize) for f in real.references]
    references = [[stream[i] for stream in ref_streams] for i in range(len(hyps))]
    return {"hypotheses": hyps, "references": references}


def _number_or_none(x: Any) -> Any:
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def own_value(impl: str, raw: dict[str, Any] | None) -> dict[str, Any] | None:
    """A library's own number for BLEU, on its own scale, as the library returns it.

    Where the implementation's declaration says it is (its ``native`` keys and
    scale, e.g. sacreBLEU's ``BLEUScore.score`` on 0–100).
    ``{"value", "scale", "text"}`` with ``text`` the Python repr a user sees.
    """
    from bleu_compat.libraries.registry import of_implementation

    lib = of_implementation(impl)
    value = lib.native.of(raw) if lib is not None else None
    if value is None:
        return None
    return {"value": value, "scale": lib.native.scale, "text": repr(value)}


def _ours_unlimited(tool_id: str, request: dict[str, Any]) -> dict[str, Any]:
    # Real corpora exceed the card limits: the library function has none.
    result = corpus_bleu(request["hypotheses"], request["references"],
                         max_order=request.get("max_order", 4))
    return {
        "bleu": result.bleu, "brevity_penalty": result.brevity_penalty,
        "candidate_length": result.stats.hyp_len, "reference_length": result.stats.ref_len,
        "max_order": result.max_order, "matches": list(result.stats.matches),
        "totals": list(result.stats.totals),
    }


@dataclass
class Tally:
    """Merged results of some cases (JSON-ready pieces).

    Attributes:
        cases: tool -> number of cases run.
        case_outcomes: tool -> implementation -> {"agree", "explained",
            "unexpected", "not_representable"} -> number of cases.
        kinds: (tool, implementation, field, entries) -> [count, first example];
            ``entries`` are the entries whose models reproduce that field.
        kind_sets: the same key -> the entry sets that reproduced the whole output
            ("A+B", "" for none: UNEXPECTED) -> number of differences.
        not_representable: (tool, implementation, reason) -> count.
        ulps: (tool, implementation, field) -> bucket -> count.
        ulps_max: (tool, implementation, field) -> largest ULP distance to exact.
        unexpected: every UNEXPECTED discrepancy.
        versions: library -> version.
        real: one record per real corpus.
        invalid: tool -> {"cases", "agree", "unexpected"} for the invalid requests
            sent to ours and compared with the truth's own SPEC.md §2 checks.
        too_broad: (tool, implementation, entry) -> [count, first finding]: catalog entries
            claimed for the installed release whose models change a reproduced output
            (:mod:`bleu_compat.harness.consistency`, issue 25); any fails the run.
        decompositions: ``score --compare`` decompositions checked by the independent check
            (:mod:`bleu_compat.harness.decomposition_check`, issue 25).
        decomposition_failures: the checks they failed (``{"check", "pair", "detail",
            "corpus"}``); any fails the run.
        exact_checked: cases whose exact values were recomputed by the second route
            (:mod:`bleu_compat.harness.exact_check`); exact_regimes: the generated cases
            aimed at each range the truth's exact side treats specially -> count.
        exact_findings: fields where the truth's exact double differs from the second
            route's; any fails the run.
        impl_cases: ``(implementation, Case)`` for every case a user's implementation was
            judged on (:class:`bleu_compat.harness.target.Case`); the verdict against its
            target is taken over all of them once the run is merged (:func:`judge_impls`).
        findings: the cases where a user's implementation differs from its target and one
            library's consistent set of quirks reproduces it everywhere (a named finding,
            issue 36; its UNEXPECTED ones are in ``unexpected``); any fails the run.
        judgements: implementation -> its verdict (:meth:`Verdict.to_json`).
        tokenizer_checks: every tokenizer we ship run through each of our paths against its
            peer (:func:`bleu_compat.harness.tokenizer_check.check_all`: ``checked``,
            ``not_checked``, ``lines``); a difference is an UNEXPECTED discrepancy (field
            ``tokens``, issue 36).
    """

    cases: dict[str, int] = field(default_factory=dict)
    case_outcomes: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    kinds: dict[tuple[str, str, str, tuple[str, ...]], list[Any]] = field(default_factory=dict)
    kind_sets: dict[tuple[str, str, str, tuple[str, ...]], dict[str, int]] = field(default_factory=dict)
    not_representable: dict[tuple[str, str, str], int] = field(default_factory=dict)
    ulps: dict[tuple[str, str, str], dict[str, int]] = field(default_factory=dict)
    ulps_max: dict[tuple[str, str, str], int] = field(default_factory=dict)
    unexpected: list[Discrepancy] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)
    real: list[dict[str, Any]] = field(default_factory=list)
    invalid: dict[str, dict[str, int]] = field(default_factory=dict)
    too_broad: dict[tuple[str, str, str], list[Any]] = field(default_factory=dict)
    decompositions: int = 0
    decomposition_failures: list[dict[str, Any]] = field(default_factory=list)
    exact_checked: int = 0
    exact_regimes: dict[str, int] = field(default_factory=dict)
    exact_findings: list[dict[str, Any]] = field(default_factory=list)
    impl_cases: list[tuple[str, Any]] = field(default_factory=list)
    findings: list[Discrepancy] = field(default_factory=list)
    judgements: dict[str, dict[str, Any]] = field(default_factory=dict)
    tokenizer_checks: dict[str, Any] = field(default_factory=dict)

    def add_too_broad(self, findings: Sequence[dict[str, Any]]) -> None:
        """Count consistency findings (:func:`bleu_compat.harness.consistency.too_broad`)."""
        for f in findings:
            key = (f["tool"], f["implementation"], f["entry"])
            if key not in self.too_broad:
                self.too_broad[key] = [0, f]
            self.too_broad[key][0] += 1

    def add_invalid(self, tool: str, label: str, discrepancies: list[Discrepancy]) -> None:
        """Count one invalid request sent to ours (``label``: what it breaks)."""
        row = self.invalid.setdefault(tool, {"cases": 0, "agree": 0, "unexpected": 0})
        row["cases"] += 1
        if discrepancies:
            row["unexpected"] += 1
            self.unexpected.extend(discrepancies)
        else:
            row["agree"] += 1

    def add_case(self, result: CaseResult, implementations: Sequence[str]) -> None:
        """Count one case's result."""
        tool = result.tool_id
        self.cases[tool] = self.cases.get(tool, 0) + 1
        self.versions.update(result.versions)
        self.add_too_broad(result.too_broad)
        self.impl_cases.extend(result.impl_cases)
        by_impl: dict[str, list[Discrepancy]] = {}
        for d in result.discrepancies:
            by_impl.setdefault(d.implementation, []).append(d)
            if d.implementation.startswith("impl:"):
                continue  # judged against its target over the whole run (judge_impls)
            key = (tool, d.implementation, d.field, d.entries)
            if key not in self.kinds:
                self.kinds[key] = [0, d.to_json()]
            self.kinds[key][0] += 1
            sets = self.kind_sets.setdefault(key, {})
            name = "+".join(d.reproduced_by or ())
            sets[name] = sets.get(name, 0) + 1
            if d.unexpected:
                self.unexpected.append(d)
        outcomes = self.case_outcomes.setdefault(tool, {})
        for impl in implementations:
            row = outcomes.setdefault(impl, dict.fromkeys(
                ("agree", "explained", "unexpected", "not_representable"), 0))
            if impl in result.not_representable:
                row["not_representable"] += 1
                reason = result.not_representable[impl]
                nkey = (tool, impl, reason)
                self.not_representable[nkey] = self.not_representable.get(nkey, 0) + 1
            elif impl.startswith("impl:"):
                continue  # counted by judge_impls, against the implementation's target
            elif impl not in by_impl:
                row["agree"] += 1
            elif any(d.unexpected for d in by_impl[impl]):
                row["unexpected"] += 1
            else:
                row["explained"] += 1
        for impl, fields in result.ulps_vs_exact.items():
            for f, u in fields.items():
                ukey = (tool, impl, f)
                hist = self.ulps.setdefault(ukey, {})
                bucket = ulp_bucket(u)
                hist[bucket] = hist.get(bucket, 0) + 1
                self.ulps_max[ukey] = max(self.ulps_max.get(ukey, 0), u)

    def merge(self, other: Tally) -> None:
        """Add ``other`` (a later chunk) to this tally."""
        for tool, n in other.cases.items():
            self.cases[tool] = self.cases.get(tool, 0) + n
        for tool, impls in other.case_outcomes.items():
            mine = self.case_outcomes.setdefault(tool, {})
            for impl, row in impls.items():
                target = mine.setdefault(impl, dict.fromkeys(row, 0))
                for k, v in row.items():
                    target[k] += v
        for key, (count, example) in other.kinds.items():
            if key in self.kinds:
                self.kinds[key][0] += count
            else:
                self.kinds[key] = [count, example]
        for key, sets in other.kind_sets.items():
            mine_sets = self.kind_sets.setdefault(key, {})
            for name, n in sets.items():
                mine_sets[name] = mine_sets.get(name, 0) + n
        for key, n in other.not_representable.items():
            self.not_representable[key] = self.not_representable.get(key, 0) + n
        for key, hist in other.ulps.items():
            mine_hist = self.ulps.setdefault(key, {})
            for b, n in hist.items():
                mine_hist[b] = mine_hist.get(b, 0) + n
        for key, u in other.ulps_max.items():
            self.ulps_max[key] = max(self.ulps_max.get(key, 0), u)
        for tool, row in other.invalid.items():
            mine_row = self.invalid.setdefault(tool, dict.fromkeys(row, 0))
            for k, v in row.items():
                mine_row[k] += v
        self.unexpected.extend(other.unexpected)
        self.versions.update(other.versions)
        self.real.extend(other.real)
        for key, (count, example) in other.too_broad.items():
            if key in self.too_broad:
                self.too_broad[key][0] += count
            else:
                self.too_broad[key] = [count, example]
        self.decompositions += other.decompositions
        self.decomposition_failures.extend(other.decomposition_failures)
        self.exact_checked += other.exact_checked
        for key, n in other.exact_regimes.items():
            self.exact_regimes[key] = self.exact_regimes.get(key, 0) + n
        self.exact_findings.extend(other.exact_findings)
        self.impl_cases.extend(other.impl_cases)
        self.findings.extend(other.findings)
        self.judgements.update(other.judgements)
        if other.tokenizer_checks:
            self.tokenizer_checks = other.tokenizer_checks


#: ``format`` of a tally as JSON (a checkpoint's chunk files, :func:`tally_to_json`).
TALLY_FORMAT = "bleu-compat-tally/4"

_KEY4 = {"type": "array", "items": [{"type": "string"}] * 3
         + [{"type": "array", "items": {"type": "string"}}], "minItems": 4, "maxItems": 4}
_KEY3 = {"type": "array", "items": {"type": "string"}, "minItems": 3, "maxItems": 3}
_COUNT = {"type": "integer", "minimum": 0}
_COUNTS = {"type": "object", "additionalProperties": _COUNT}
_OPT_STRINGS = {"anyOf": [{"type": "null"}, {"type": "array", "items": {"type": "string"}}]}
_DISCREPANCY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["tool_id", "case_id", "implementation", "field", "card_value", "library_value",
                 "ulps", "entries", "request", "reproducer", "reproduced_by", "nearest"],
    "additionalProperties": False,
    "properties": {
        "tool_id": {"type": "string"}, "case_id": {"type": "string"},
        "implementation": {"type": "string"}, "field": {"type": "string"},
        "card_value": {}, "library_value": {},
        "ulps": {"anyOf": [{"type": "null"}, _COUNT]},
        "entries": {"type": "array", "items": {"type": "string"}},
        "request": {"type": "object"},
        "reproducer": {"anyOf": [{"type": "null"}, {"type": "object"}]},
        "reproduced_by": _OPT_STRINGS,
        "nearest": {"anyOf": [{"type": "null"}, {"type": "object"}]},
    },
}
#: What a tally's JSON must be (checked before any of it is used: a checkpoint file is data
#: from disk, :class:`bleu_compat.cluster.Checkpoint`).
TALLY_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",  # tuples as "items": [...]
    "type": "object",
    "required": ["format", "cases", "case_outcomes", "kinds", "kind_sets", "not_representable",
                 "ulps", "ulps_max", "unexpected", "versions", "real", "invalid", "too_broad",
                 "decompositions", "decomposition_failures", "exact_checked", "exact_regimes",
                 "exact_findings", "impl_cases", "findings", "judgements", "tokenizer_checks"],
    "additionalProperties": False,
    "properties": {
        "format": {"const": TALLY_FORMAT},
        "cases": _COUNTS,
        "case_outcomes": {"type": "object", "additionalProperties": {
            "type": "object", "additionalProperties": {
                "type": "object", "required": ["agree", "explained", "unexpected", "not_representable"],
                "additionalProperties": False,
                "properties": {k: _COUNT for k in ("agree", "explained", "unexpected", "not_representable")}}}},
        "kinds": {"type": "array", "items": {
            "type": "array", "items": [_KEY4, _COUNT, {"type": "object"}], "minItems": 3, "maxItems": 3}},
        "kind_sets": {"type": "array", "items": {
            "type": "array", "items": [_KEY4, _COUNTS], "minItems": 2, "maxItems": 2}},
        "not_representable": {"type": "array", "items": {
            "type": "array", "items": [_KEY3, _COUNT], "minItems": 2, "maxItems": 2}},
        "ulps": {"type": "array", "items": {
            "type": "array", "items": [_KEY3, {"type": "object", "propertyNames": {"enum": list(ULP_BUCKETS)},
                                                     "additionalProperties": _COUNT}],
            "minItems": 2, "maxItems": 2}},
        "ulps_max": {"type": "array", "items": {
            "type": "array", "items": [_KEY3, _COUNT], "minItems": 2, "maxItems": 2}},
        "unexpected": {"type": "array", "items": _DISCREPANCY_SCHEMA},
        "versions": {"type": "object", "additionalProperties": {"type": "string"}},
        "real": {"type": "array", "items": {"type": "object"}},
        "invalid": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["cases", "agree", "unexpected"], "additionalProperties": False,
            "properties": {k: _COUNT for k in ("cases", "agree", "unexpected")}}},
        "too_broad": {"type": "array", "items": {
            "type": "array", "items": [_KEY3, _COUNT, {"type": "object"}], "minItems": 3, "maxItems": 3}},
        "decompositions": _COUNT,
        "decomposition_failures": {"type": "array", "items": {"type": "object"}},
        "exact_checked": _COUNT,
        "exact_regimes": _COUNTS,
        "exact_findings": {"type": "array", "items": {"type": "object"}},
        "impl_cases": {"type": "array", "items": {
            "type": "array", "items": [{"type": "string"}, {
                "type": "object", "required": ["case_id", "tool_id", "fields", "output", "sets",
                                               "request", "expected"],
                "additionalProperties": False,
                "properties": {
                    "case_id": {"type": "string"}, "tool_id": {"type": "string"},
                    "fields": {"type": "array", "items": {"type": "string"}},
                    "output": {"anyOf": [{"type": "null"}, {"type": "object"}]},
                    "sets": {"type": "object", "additionalProperties": _OPT_STRINGS},
                    "request": {"anyOf": [{"type": "null"}, {"type": "object"}]},
                    "expected": {"anyOf": [{"type": "null"}, {"type": "object"}]}}}],
            "minItems": 2, "maxItems": 2}},
        "findings": {"type": "array", "items": _DISCREPANCY_SCHEMA},
        "judgements": {"type": "object", "additionalProperties": {"type": "object"}},
        "tokenizer_checks": {"type": "object"},
    },
}


def _discrepancy_to_json(d: Discrepancy) -> dict[str, Any]:
    data = d.to_json()
    data.pop("unexpected")
    return data


def _restore_markers(value: Any) -> Any:
    from bleu_compat.implementations import revive_markers

    return revive_markers(value)


def _discrepancy_from_json(data: dict[str, Any]) -> Discrepancy:
    data = _restore_markers(data)
    return Discrepancy(
        data["tool_id"], data["case_id"], data["implementation"], data["field"], data["card_value"],
        data["library_value"], data["ulps"], tuple(data["entries"]), data["request"],
        reproducer=data["reproducer"],
        reproduced_by=None if data["reproduced_by"] is None else tuple(data["reproduced_by"]),
        nearest=data["nearest"])


def tally_to_json(tally: Tally) -> dict[str, Any]:
    """A :class:`Tally` as plain JSON data (:data:`TALLY_SCHEMA`); :func:`tally_from_json` reads it
    back equal. Tuple keys become arrays; discrepancies their fields."""
    def key(k: tuple[Any, ...]) -> list[Any]:
        return [list(part) if isinstance(part, tuple) else part for part in k]

    return {
        "format": TALLY_FORMAT,
        "cases": dict(tally.cases),
        "case_outcomes": tally.case_outcomes,
        "kinds": [[key(k), count, example] for k, (count, example) in tally.kinds.items()],
        "kind_sets": [[key(k), sets] for k, sets in tally.kind_sets.items()],
        "not_representable": [[key(k), n] for k, n in tally.not_representable.items()],
        "ulps": [[key(k), hist] for k, hist in tally.ulps.items()],
        "ulps_max": [[key(k), u] for k, u in tally.ulps_max.items()],
        "unexpected": [_discrepancy_to_json(d) for d in tally.unexpected],
        "versions": dict(tally.versions),
        "real": tally.real,
        "invalid": tally.invalid,
        "too_broad": [[key(k), count, example] for k, (count, example) in tally.too_broad.items()],
        "decompositions": tally.decompositions,
        "decomposition_failures": list(tally.decomposition_failures),
        "exact_checked": tally.exact_checked,
        "exact_regimes": dict(tally.exact_regimes),
        "exact_findings": list(tally.exact_findings),
        "impl_cases": [[impl, case.to_json()] for impl, case in tally.impl_cases],
        "findings": [_discrepancy_to_json(d) for d in tally.findings],
        "judgements": dict(tally.judgements),
        "tokenizer_checks": dict(tally.tokenizer_checks),
    }


@functools.cache
def _tally_validator() -> Callable[[Any], Any]:
    import fastjsonschema

    return fastjsonschema.compile(TALLY_SCHEMA)


def tally_from_json(data: Any) -> Tally:
    """The :class:`Tally` of :func:`tally_to_json`'s data, checked against :data:`TALLY_SCHEMA` first.

    Raises:
        ValueError: the data is not such a tally (the message says where).
    """
    import fastjsonschema

    try:
        _tally_validator()(data)
    except fastjsonschema.JsonSchemaValueException as exc:
        raise ValueError(exc.message.replace("data", "the tally", 1)) from None

    def key4(k: list[Any]) -> tuple[str, str, str, tuple[str, ...]]:
        return (k[0], k[1], k[2], tuple(k[3]))

    return Tally(
        cases=dict(data["cases"]),
        case_outcomes=data["case_outcomes"],
        kinds={key4(k): [count, _restore_markers(example)] for k, count, example in data["kinds"]},
        kind_sets={key4(k): sets for k, sets in data["kind_sets"]},
        not_representable={tuple(k): n for k, n in data["not_representable"]},  # type: ignore[misc]
        ulps={tuple(k): hist for k, hist in data["ulps"]},  # type: ignore[misc]
        ulps_max={tuple(k): u for k, u in data["ulps_max"]},  # type: ignore[misc]
        unexpected=[_discrepancy_from_json(d) for d in data["unexpected"]],
        versions=dict(data["versions"]),
        real=_restore_markers(data["real"]),
        invalid=data["invalid"],
        too_broad={tuple(k): [count, _restore_markers(example)]  # type: ignore[misc]
                   for k, count, example in data["too_broad"]},
        decompositions=data["decompositions"],
        decomposition_failures=list(data["decomposition_failures"]),
        exact_checked=data["exact_checked"],
        exact_regimes=dict(data["exact_regimes"]),
        exact_findings=_restore_markers(data["exact_findings"]),
        impl_cases=[(impl, _case_from_json(_restore_markers(case)))
                    for impl, case in data["impl_cases"]],
        findings=[_discrepancy_from_json(d) for d in data["findings"]],
        judgements=_restore_markers(data["judgements"]),
        tokenizer_checks=dict(data["tokenizer_checks"]),
    )


def _case_from_json(data: dict[str, Any]) -> Any:
    from .target import Case

    return Case.from_json(data)


class CaseError(RuntimeError):
    """An internal error of ours (the generator, the truth, the judge, the harness) while one
    case ran: the run stops with no verdict (the CLI exits 3), naming the case.

    Attributes:
        case_id: the case (``"bleu-corpus-compute#337"``, ``"real:<corpus>"``, ``"negative:<entry>"``,
            ``"<tool>!invalid#<k>"``).
        detail: ``"Type: message (file:line)"`` of the error, where it was raised.
    """

    def __init__(self, case_id: str, detail: str) -> None:
        super().__init__(case_id, detail)
        self.case_id = case_id
        self.detail = detail

    def __str__(self) -> str:
        return f"on case {self.case_id}: {self.detail}; no verdict"


def _case_error(case_id: str, exc: BaseException) -> CaseError:
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    where = f" ({Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return CaseError(case_id, f"{type(exc).__name__}: {exc}{where}")


def _guarded(case_id: str, fn: Callable[[], Any]) -> Any:
    """``fn()``; an internal error becomes a :class:`CaseError` naming ``case_id`` (a user's
    hung implementation and Ctrl-C pass through as they are)."""
    from bleu_compat.isolation import ImplementationHung

    try:
        return fn()
    except (ImplementationHung, CaseError):
        raise
    except Exception as exc:
        raise _case_error(case_id, exc) from exc


def _run_chunk(seed: int, tool_id: str, start: int, count: int,
               implementations: tuple[str, ...]) -> Tally:
    return _run_cases(seed, tool_id, tuple(range(start, start + count)), implementations)


def _run_cases(seed: int, tool_id: str, numbers: tuple[int, ...],
               implementations: tuple[str, ...]) -> Tally:
    from .exact_check import check_exact

    tally = Tally()
    for k in numbers:
        case = _guarded(f"{tool_id}#{k}", lambda: generate_case(seed, tool_id, k))
        result = _guarded(case.case_id, lambda: evaluate(
            tool_id, case.case_id, case.request, implementations=implementations))
        tally.add_case(result, implementations)
        tally.exact_findings.extend(_guarded(case.case_id, lambda: check_exact(
            tool_id, case.case_id, case.request, result.truth.expected, result.truth.exact)))
        tally.exact_checked += 1
    return tally


#: generated requests per tool and range of :data:`~bleu_compat.harness.strategies.EXACT_REGIMES`
#: in every run (issue 25, item 4): the truth's exact side, recomputed, on each range it
#: treats specially (69 requests; ours is compared with the truth on them too)
EXACT_PER_REGIME = 3


def _run_exact_regimes(seed: int, implementations: tuple[str, ...]) -> Tally:
    """The generated requests aimed at each range the truth's exact side treats specially:
    the truth's exact doubles against the second route (:mod:`bleu_compat.harness.exact_check`),
    and ours against the truth (a difference is UNEXPECTED, as on any case)."""
    from .exact_check import check_exact
    from .strategies import exact_regime_requests

    tally = Tally()
    ours = tuple(i for i in implementations if i == "ours")
    for tool, case_id, request in _guarded("exact-regimes", lambda: exact_regime_requests(
            seed, EXACT_PER_REGIME)):
        regime = case_id.split("~exact:")[1].split("#")[0]
        result = _guarded(case_id, lambda: evaluate(tool, case_id, request, implementations=ours))
        tally.unexpected.extend(d for d in result.discrepancies if d.unexpected)
        tally.exact_findings.extend(_guarded(case_id, lambda: check_exact(
            tool, case_id, request, result.truth.expected, result.truth.exact)))
        tally.exact_checked += 1
        tally.exact_regimes[regime] = tally.exact_regimes.get(regime, 0) + 1
    return tally


#: raw-text corpora generated for the decomposition checks in every run of the libraries, and
#: the segments of each bundled real corpus put through them too (issue 25, item 3)
DECOMPOSITION_CORPORA = 4
DECOMPOSITION_REAL_SEGMENTS = 30
#: a run of fewer generated cases than this (a quick run, the tests' small runs) checks no
#: decompositions unless asked: each corpus costs every configuration's library run
DECOMPOSITION_MIN_CASES = 300


def decomposition_configurations(implementations: Sequence[str]) -> list[Any]:
    """The built-in ``--compare`` configurations whose implementation runs here (a library
    with a mode in ``implementations`` that is installed, and bleu-compat's card), parsed."""
    from bleu_compat.decompose import BUILTIN, CARD, parse_config
    from bleu_compat.libraries.registry import installed

    ran = {i.split("/")[0] for i in implementations if "/" in i and not i.startswith("impl:")}
    usable = {lib.name for lib in installed()} & ran
    out = []
    for name, cfg in BUILTIN.items():
        if cfg.implementation != CARD and cfg.implementation not in usable:
            continue
        try:
            out.append(parse_config(name))
        except ValueError:  # a script the environment does not name (BLEU_COMPAT_MOSES_SCRIPTS)
            continue
    return out


def _run_decompositions(seed: int, corpus: str, implementations: tuple[str, ...],
                        root: str | None) -> Tally:
    return _guarded(f"decompose:{corpus}", lambda: _run_decompositions_unguarded(
        seed, corpus, implementations, root))


def _run_decompositions_unguarded(seed: int, corpus: str, implementations: tuple[str, ...],
                                  root: str | None) -> Tally:
    """``score --compare`` on one corpus (``"generated#k"``: :func:`gen_raw_corpus`; ``"real:<name>"``:
    the first :data:`DECOMPOSITION_REAL_SEGMENTS` segments of a bundled real corpus) through
    every pair of :func:`decomposition_configurations`, each decomposition judged by
    :func:`bleu_compat.harness.decomposition_check.check_decomposition`."""
    import random
    import tempfile

    from bleu_compat.corpus_io import read_lines
    from bleu_compat.decompose import compare
    from bleu_compat.libraries.registry import quiet_loggers

    from .decomposition_check import check_compare
    from .strategies import RandomSource, gen_raw_corpus

    quiet_loggers()
    configs = decomposition_configurations(implementations)
    if corpus.startswith("real:"):
        real = next(r for r in REAL_SETS if r.name == corpus[len("real:"):])
        base = (Path(root) if root else fixtures_dir()) / real.name
        hyps = read_lines(base / real.hypothesis).lines[:DECOMPOSITION_REAL_SEGMENTS]
        refs = [read_lines(base / f).lines[:DECOMPOSITION_REAL_SEGMENTS] for f in real.references]
    else:
        hyps, refs = gen_raw_corpus(RandomSource(random.Random(f"{seed}:decompose:{corpus}")))
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="bleu-compat-decompose-") as tmp:
        paths = []
        for k, lines in enumerate([hyps, *refs]):
            path = os.path.join(tmp, f"{k}.txt")
            with open(path, "w", encoding="utf-8", newline="\n") as handle:
                handle.write("".join(line + "\n" for line in lines))
            paths.append(path)
        try:
            result = compare(paths[0], paths[1:], configs)
        except Exception:  # noqa: BLE001 - which configuration? those whose library raises
            configs = [c for c in configs
                       if not _library_raises(c, hyps, refs, (paths[0], paths[1:]))]
            result = compare(paths[0], paths[1:], configs)  # still raising: ours, exit 3
        checked, failures = check_compare(result, paths[0], paths[1:], configs)
    tally.decompositions += checked
    tally.decomposition_failures.extend(dict(f, corpus=corpus) for f in failures)
    return tally


def _library_raises(cfg: Any, hyps: list[str], refs: list[list[str]], paths: Any) -> bool:
    """True when ``cfg``'s implementation itself raises on this corpus (torcheval on a
    hypothesis shorter than the max order: "the input is too short to find all n-gram
    matches"): it has no number, so no decomposition can end at it. An exception raised in
    bleu_compat's own code is not the library's: False (and the caller's rerun reports it)."""
    from bleu_compat.decompose import library_points

    try:
        library_points(cfg, hyps, refs, paths=paths)
    except Exception as exc:  # noqa: BLE001 - classified by where it was raised
        tb = exc.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        where = (tb.tb_frame.f_code.co_filename if tb is not None else "").replace("\\", "/")
        if "bleu_compat" not in where.split("/site-packages/")[-1]:
            return True  # raised in the library's own code
        # an adapter's documented refusal of a corpus its library cannot take (t2t-bleu: one
        # reference file only), a ValueError raised in the adapter itself
        return isinstance(exc, ValueError) and "/libraries/" in where and where.endswith("adapter.py")
    return False


def _run_negatives(implementations: tuple[str, ...]) -> Tally:
    """Every catalog entry's negative reproducer (issue 25): its model alone must leave the
    card's output there (every entry, installed or not), and each installed library that runs
    is run on it in the entry's modes: its output must be reproduced without the entry, and
    every entry claimed for its release must stay consistent there
    (:func:`bleu_compat.harness.consistency.too_broad`). Findings go to ``too_broad``; a
    library output no entry set reproduces is UNEXPECTED as anywhere else."""
    from bleu_compat import catalog

    from .consistency import check_negative_models, negative_request

    tally = Tally()
    tally.add_too_broad(_guarded("negative:models", lambda: check_negative_models(catalog.ENTRIES)))
    for e in catalog.ENTRIES:
        modes = tuple(f"{e.library}/{m}" for m in e.modes if f"{e.library}/{m}" in implementations)
        if not modes:
            continue
        request = negative_request(e)
        result = _guarded(f"negative:{e.id}", lambda: evaluate(
            e.tool_id, f"negative:{e.id}", request, implementations=modes))
        tally.add_too_broad(result.too_broad)
        for impl, rep in result.reproductions.items():
            version = result.versions.get(e.library, "")
            if rep.explained and e.id in (rep.entries or ()) and version in e.verified:
                tally.add_too_broad([{
                    "tool": e.tool_id, "implementation": impl, "entry": e.id, "release": version,
                    "case_id": f"negative:{e.id}", "request": request, "with": list(rep.entries),
                    "fields": list(rep.differing), "library": {}, "model": {},
                    "note": "the library behaves as the entry on the entry's own negative reproducer"}])
        tally.unexpected.extend(d for d in result.discrepancies if d.unexpected)
        tally.versions.update(result.versions)
    return tally


#: a run with fewer generated cases than this (the tests' quick runs) does not run the
#: tokenizer check unless asked (about 2 s of one core: every tokenizer, every path)
TOKENIZER_MIN_CASES = 100


def _run_tokenizers() -> Tally:
    """Every tokenizer we ship, through each of our paths, against its peer's tokens
    (:mod:`bleu_compat.harness.tokenizer_check`, issue 36): each difference an UNEXPECTED
    discrepancy of the field ``tokens`` (the peer's tokens as the card side, ours as the
    implementation's) on the shortest line that shows it."""
    from .tokenizer_check import check_all

    result = _guarded("tokenizers", check_all)
    tally = Tally()
    tally.tokenizer_checks = {k: v for k, v in result.items() if k != "findings"}
    for f in result["findings"]:
        tally.unexpected.append(Discrepancy(
            "tokenizer", f"tokenizer:{f['tokenizer']}", f"ours/{f['tokenizer']}", "tokens",
            f["theirs"], f["ours"], None, (),
            {"token_check": f["message"], "tokenizer": f["tokenizer"], "path": f["path"],
             "line": f["line"]}))
    return tally


def _run_invalid_chunk(seed: int, tool_id: str, start: int, count: int) -> Tally:
    from .classify import evaluate_invalid
    from .invalid import generate_invalid_case

    tally = Tally()
    for k in range(start, start + count):
        case = _guarded(f"{tool_id}!invalid#{k}", lambda: generate_invalid_case(seed, tool_id, k))
        tally.add_invalid(tool_id, case.label, _guarded(case.case_id, lambda: evaluate_invalid(
            tool_id, case.case_id, case.request)))
    return tally


def _run_real(real: RealSet, implementations: tuple[str, ...], root: str | None) -> Tally:
    return _guarded(f"real:{real.name}", lambda: _run_real_unguarded(real, implementations, root))


def _run_real_unguarded(real: RealSet, implementations: tuple[str, ...], root: str | None) -> Tally:
    from bleu_compat.libraries.registry import quiet_loggers

    # run_report quiets the libraries' advice about tokenized input in its own process; a
    # Dask worker is a process of its own (not a fork), so the unit quiets it where it runs
    quiet_loggers()
    request = load_real_set(real, Path(root) if root else None)
    result = evaluate("bleu-corpus-compute", f"real:{real.name}", request,
                      implementations=implementations, ours=_ours_unlimited, keep_outputs=True)
    tally = Tally()
    tally.add_case(result, implementations)
    # The real corpus counts once under its own name, not among generated cases.
    tally.cases.clear()
    outcomes = tally.case_outcomes.pop("bleu-corpus-compute", {})
    # A score that is not a number (a user's NaN/inf, marked at the implementation
    # boundary) has no 0-100 value to print: None here, its value is in the discrepancies.
    scores = {impl: _number_or_none((out or {}).get("bleu")) for impl, out in result.outputs.items()}
    scores["truth"] = result.truth.expected["bleu"]
    own = {impl: own_value(impl, result.raw.get(impl)) for impl in result.outputs if impl != "ours"}
    tally.real.append({
        "name": real.name,
        "segments": len(request["hypotheses"]),
        "references": len(real.references),
        "tokenize": real.tokenize,
        "published": real.published,
        "scores": scores,
        "library_values": own,
        "truth_exact_bleu": result.truth.exact["bleu"],
        "matches": result.truth.expected["matches"],
        "totals": result.truth.expected["totals"],
        "candidate_length": result.truth.expected["candidate_length"],
        "reference_length": result.truth.expected["reference_length"],
        # a user's implementation is judged against its target once the run is merged
        "outcomes": {impl: next((k for k, v in row.items() if v), "judged")
                     for impl, row in outcomes.items()},
        "not_representable": dict(result.not_representable),
        "discrepancies": [d.to_json(with_request=False) for d in result.discrepancies],
    })
    for d in result.discrepancies:  # keep the big request out of the kind examples
        key = ("bleu-corpus-compute", d.implementation, d.field, d.entries)
        tally.kinds.pop(key, None)
        tally.kind_sets.pop(key, None)
    tally.unexpected = [replace(d, request={"real_corpus": real.name}) for d in tally.unexpected]
    tally.ulps.clear()
    tally.ulps_max.clear()
    for check in _token_checks(real, Path(root) if root else None, implementations):
        tally.real[-1].setdefault("token_checks", []).append(check["record"])
        if check["discrepancy"] is not None:
            tally.unexpected.append(check["discrepancy"])
    return tally


def _token_checks(real: RealSet, root: Path | None,
                  implementations: tuple[str, ...]) -> list[dict[str, Any]]:
    """Each library's tokens of the real corpus's raw lines against ours (issue 20).

    The corpus's request is tokenized with our tokenizer (:func:`load_real_set`);
    here every library that runs and tokenizes raw text (a plug-in with a
    ``tokens`` hook) tokenizes the same lines as its BLEU does, and every line is
    compared with our tokenizer for its installed release
    (:mod:`bleu_compat.tokenizers.check`). A difference is an UNEXPECTED
    discrepancy of the field ``tokens`` (both token lists of the first differing
    line as the card's and the library's values), never explained.
    """
    from bleu_compat.libraries.registry import libraries
    from bleu_compat.tokenizers.check import check_files, release_of

    base = (root or fixtures_dir()) / real.name
    files = [(f"{real.name}/{name}", str(base / name))
             for name in (real.hypothesis, *real.references)]
    out = []
    for lib in libraries():
        impl = next((i for i in implementations if i.startswith(lib.name + "/")), None)
        if impl is None or lib.tokens is None:
            continue
        mismatch = check_files(lib, files, real.tokenize)
        with open(base / real.hypothesis, "rb") as handle:
            lines = sum(1 for _ in handle) * len(files)
        record = {"library": lib.display_name, "release": release_of(lib),
                  "tokenizer": real.tokenize, "files": len(files), "lines": lines,
                  "same": mismatch is None,
                  "first_difference": mismatch.to_json() if mismatch else None}
        discrepancy = None if mismatch is None else Discrepancy(
            "bleu-corpus-compute", f"real:{real.name}", impl, "tokens", list(mismatch.ours),
            list(mismatch.theirs), None, (),
            {"real_corpus": real.name, "token_check": mismatch.message()},
        )
        out.append({"record": record, "discrepancy": discrepancy})
    return out


Progress = Callable[[int], None]


def run_crosscheck(
    *,
    seed: int = DEFAULT_SEED,
    cases: dict[str, int] | None = None,
    implementations: Sequence[str] = IMPLEMENTATIONS,
    real_sets: Sequence[RealSet] = REAL_SETS,
    real_root: Path | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    shrink_unexpected: bool = True,
    invalid: dict[str, int] | None = None,
    cluster: str | None = None,
    checkpoint: Path | str | None = None,
    extra_cases: dict[str, Sequence[int]] | None = None,
    decompositions: bool | None = None,
    exact_regimes: bool = True,
    judging: dict[str, Any] | None = None,
    tokenizers: bool | None = None,
) -> Tally:
    """Run a crosscheck and return the merged :class:`Tally`.

    Args:
        seed: the generator seed.
        cases: tool -> number of generated cases (default :data:`DEFAULT_CASES`).
        implementations: which of ours / library modes to run.
        real_sets: bundled real corpora to run (empty: none).
        real_root: where the real corpora live (default :func:`fixtures_dir`).
        workers: processes (default: available cores; 1 runs in this process).
        progress: called with the number of units just finished (a
            generated case is 1 unit; a real corpus counts as 100).
        shrink_unexpected: shrink UNEXPECTED discrepancies to minimal reproducers.
        invalid: tool -> number of generated invalid requests sent to ours and
            compared with the truth's checks (default none; the CLI passes
            :data:`DEFAULT_INVALID` per tool).
        cluster: run the chunks as Dask tasks (``"local"``, ``"local:N"`` or a
            scheduler address; :mod:`bleu_compat.cluster`) instead of on a
            process pool; ``workers`` is then ignored. The merge is the same, in
            chunk order, so the tally is the process pool's.
        checkpoint: a directory keeping each finished chunk's tally as it
            arrives; a rerun with the same arguments loads them and runs only
            the rest (:class:`bleu_compat.cluster.Checkpoint`).
        extra_cases: tool -> further case numbers to run besides the first ``cases[tool]``
            (the gate's sample by kind, :func:`bleu_compat.harness.sampling.sample_by_kind`).
        decompositions: in a run of the libraries, put :data:`DECOMPOSITION_CORPORA` generated
            raw-text corpora and a slice of each of ``real_sets`` through every pair of the
            built-in ``--compare`` configurations and judge each decomposition (issue 25);
            None (default): when the run has at least :data:`DECOMPOSITION_MIN_CASES`
            generated cases (the default run and the gate's do).
        exact_regimes: when ours runs, the requests aimed at each range the truth's exact
            side treats specially (:data:`EXACT_PER_REGIME` per tool and range).
        tokenizers: when ours runs, judge every tokenizer we ship on its crafted corpus
            against its peer (:func:`_run_tokenizers`); None (default): when the run has at
            least :data:`TOKENIZER_MIN_CASES` generated cases (the default run and the gate's do).
        judging: a user's implementation id -> its target and allowances
            (:class:`~bleu_compat.harness.target.Judging`; default the card, nothing allowed):
            each is judged over the whole run (:func:`judge_impls`).

    Raises:
        CaseError: an internal error of ours on one case (the run has no verdict).
        bleu_compat.cluster.CheckpointMismatch: ``checkpoint`` holds a run of
            other arguments.
        ConfigError: ``cluster`` is malformed, Dask is not installed or the
            scheduler cannot be reached.
        Interrupted: Ctrl-C (a KeyboardInterrupt) while the units ran: the workers are
            stopped at once, pending units cancelled; finished ones stay in ``checkpoint``.
        bleu_compat.isolation.ImplementationHung: a user's implementation did not answer
            in time (the workers are stopped the same way).
    """
    cases = dict(DEFAULT_CASES if cases is None else cases)
    impls = tuple(implementations)
    jobs: list[tuple[Callable[..., Tally], tuple[Any, ...], int]] = []
    for real in real_sets:
        jobs.append((_run_real, (real, impls, str(real_root) if real_root else None), 100))
    if any("/" in i and not i.startswith("impl:") for i in impls):  # a run of the libraries
        jobs.append((_run_negatives, (impls,), 0))
        if decompositions is None:
            decompositions = sum(cases.values()) >= DECOMPOSITION_MIN_CASES
        for k in range(DECOMPOSITION_CORPORA if decompositions else 0):
            jobs.append((_run_decompositions, (seed, f"generated#{k}", impls, None), 0))
        for real in (real_sets if decompositions else ()):
            jobs.append((_run_decompositions, (seed, f"real:{real.name}", impls,
                                               str(real_root) if real_root else None), 0))
    if "ours" in impls and exact_regimes:
        jobs.append((_run_exact_regimes, (seed, impls), 0))
    if "ours" in impls:
        if tokenizers is None:
            tokenizers = sum(cases.values()) >= TOKENIZER_MIN_CASES
        if tokenizers:
            jobs.append((_run_tokenizers, (), 0))
    for tool in TOOL_IDS:
        for start in range(0, cases.get(tool, 0), CHUNK):
            count = min(CHUNK, cases[tool] - start)
            jobs.append((_run_chunk, (seed, tool, start, count, impls), count))
    extra = {t: tuple(sorted(set(ns))) for t, ns in (extra_cases or {}).items() if ns}
    for tool in TOOL_IDS:
        numbers = tuple(k for k in extra.get(tool, ()) if k >= cases.get(tool, 0))
        for start in range(0, len(numbers), CHUNK):
            part = numbers[start:start + CHUNK]
            jobs.append((_run_cases, (seed, tool, part, impls), len(part)))
    invalid = dict(invalid or {})
    for tool in TOOL_IDS:
        for start in range(0, invalid.get(tool, 0), INVALID_CHUNK):
            count = min(INVALID_CHUNK, invalid[tool] - start)
            jobs.append((_run_invalid_chunk, (seed, tool, start, count), 0))
    tallies: list[Tally | None] = [None] * len(jobs)
    store: Callable[[int, Tally], None]
    if checkpoint is not None:
        from bleu_compat.cluster import Checkpoint

        arguments = _checkpoint_arguments(seed, cases, impls, real_sets, invalid)
        if extra:
            arguments["extra_cases"] = {t: list(ns) for t, ns in sorted(extra.items())}
        saved = Checkpoint(checkpoint, arguments, len(jobs),
            encode=tally_to_json, decode=tally_from_json)
        for i, t in saved.load().items():
            if 0 <= i < len(jobs):
                tallies[i] = t
                if progress:
                    progress(jobs[i][2])

        def store(i: int, t: Tally) -> None:
            saved.save(i, t)
            tallies[i] = t
    else:
        def store(i: int, t: Tally) -> None:
            tallies[i] = t
    pending = [i for i, t in enumerate(tallies) if t is None]

    def finished(i: int, t: Tally) -> None:
        store(i, t)
        if progress:
            progress(jobs[i][2])

    try:
        _run_pending(jobs, pending, finished, workers, cluster)
    except KeyboardInterrupt:
        done = sum(t is not None for t in tallies)
        raise Interrupted(done, len(jobs)) from None
    total = Tally()
    for t in tallies:
        assert t is not None
        total.merge(t)
    if any(i.startswith("impl:") for i in impls):
        judge_impls(total, seed, judging, real_root)
        total.unexpected.extend(_guarded("impl-canary", lambda: check_impl_judge(seed)))
    if shrink_unexpected:
        _shrink_all(total, judging)
    return total


def judge_impls(tally: Tally, seed: int, judging: dict[str, Any] | None = None,
                real_root: Path | None = None) -> None:
    """Judge each user's implementation of ``tally`` against its target over the whole run
    (:func:`bleu_compat.harness.target.judge`, issue 36) and count it so: its rows (agree: the
    card's output and accepted; explained: another output its target or allowances accept;
    finding / unexpected: each case they do not), its kinds (the accepted differences, by the
    accepting set), ``findings`` (named) and ``unexpected`` (not), its real corpora's outcomes
    and differences, and ``judgements``.

    Args:
        judging: implementation -> its :class:`~bleu_compat.harness.target.Judging` (default:
            the card, nothing allowed).
    """
    from .compare import compare_outputs
    from .generate import generate_case
    from .target import Judging, judge
    from .truth import truth

    by_impl: dict[str, list[Any]] = {}
    for impl, case in tally.impl_cases:
        by_impl.setdefault(impl, []).append(case)
    reals = {f"real:{r.name}": r for r in REAL_SETS}

    def request_of(case: Any) -> dict[str, Any]:
        if case.case_id in reals:
            return load_real_set(reals[case.case_id], real_root)
        tool, _, k = case.case_id.rpartition("#")
        request = generate_case(seed, tool, int(k)).request
        return {key: v for key, v in request.items() if key != "decimals"}

    def expected_of(case: Any, request: dict[str, Any]) -> dict[str, Any]:
        return truth(case.tool_id, request).expected

    for impl, cases in by_impl.items():
        cases = sorted(cases, key=lambda c: c.case_id in reals)  # generated first, as reported
        rules = (judging or {}).get(impl) or Judging()
        verdict = judge(impl, rules, cases, request_of, expected_of)
        failing = {c.case_id for c in verdict.failing}
        status = verdict.status
        tally.judgements[impl] = verdict.to_json()
        accepted_on = tuple(sorted(verdict.accepted[1])) if verdict.accepted else ()
        named = verdict.named
        for case in cases:
            real = case.case_id in reals
            if not real:
                row = tally.case_outcomes.setdefault(case.tool_id, {}).setdefault(impl, dict.fromkeys(
                    ("agree", "explained", "unexpected", "not_representable"), 0))
            if case.case_id in failing:
                outcome = "finding" if status == "finding" else "unexpected"
            else:
                outcome = "agree" if case.output is None else "explained"
            if not real:
                row[outcome] = row.get(outcome, 0) + 1
            diffs: list[Discrepancy] = []
            if case.case_id in failing:
                card = verdict.card[case.case_id]
                output = case.output if case.output is not None else {
                    f: card[f] for f in case.fields if f in card}  # the card's, where the target differs
                target = {f: verdict.expected[case.case_id].get(f) for f in output}
                entries = named.entries if (named is not None and status == "finding") else ()
                for d in compare_outputs(target, output):
                    diffs.append(Discrepancy(
                        case.tool_id, case.case_id, impl, d.field, d.expected, d.actual, d.ulps,
                        entries, {"real_corpus": case.case_id[5:]} if real else request_of(case),
                        reproduced_by=entries if status == "finding" else None))
                (tally.findings if status == "finding" else tally.unexpected).extend(diffs)
                if status != "finding" and not real:  # an UNEXPECTED kind, as any library's
                    for d in diffs:
                        key = (case.tool_id, impl, d.field, ())
                        if key not in tally.kinds:
                            tally.kinds[key] = [0, d.to_json(with_request=False)]
                        tally.kinds[key][0] += 1
                        sets = tally.kind_sets.setdefault(key, {})
                        sets[""] = sets.get("", 0) + 1
            elif case.output is not None:
                card = verdict.card.get(case.case_id, {})
                for d in compare_outputs({f: card.get(f) for f in case.output}, case.output):
                    diffs.append(Discrepancy(case.tool_id, case.case_id, impl, d.field, d.expected,
                                             d.actual, d.ulps, accepted_on,
                                             {"real_corpus": case.case_id[5:]} if real else {},
                                             reproduced_by=accepted_on))
                    if not real:
                        key = (case.tool_id, impl, d.field, accepted_on)
                        if key not in tally.kinds:
                            tally.kinds[key] = [0, diffs[-1].to_json(with_request=False)]
                        tally.kinds[key][0] += 1
                        sets = tally.kind_sets.setdefault(key, {})
                        sets["+".join(accepted_on)] = sets.get("+".join(accepted_on), 0) + 1
            if real:
                for record in tally.real:
                    if f"real:{record['name']}" != case.case_id:
                        continue
                    record.setdefault("outcomes", {})[impl] = outcome
                    record["discrepancies"] = [
                        x for x in record.get("discrepancies", ()) if x["implementation"] != impl
                    ] + [dict(d.to_json(with_request=False), **(
                        {"finding": True} if outcome == "finding" else {})) for d in diffs]


def check_impl_judge(seed: int) -> list[Discrepancy]:
    """The judge of ``--impl`` on its canary (:mod:`bleu_compat.harness.canary`): a
    shortest-reference BLEU must be, against the card, a finding named by one library's
    entries, each about the reference length; and pass with those entries allowed, and with
    that library as the target. Each verdict that is not so is an UNEXPECTED difference of
    ``judge/impl-canary`` (field ``verdict``)."""
    from .canary import FLAWED_FACTOR, requests, shortest_reference_bleu
    from .classify import classify_impl
    from .compare import compare_outputs
    from .target import Case, behaviour, judge, make_judging
    from .truth import truth

    cases = []
    for case_id, request in requests(seed):
        expected = truth("bleu-corpus-compute", request).expected
        output = {"bleu": shortest_reference_bleu(request["hypotheses"], request["references"],
                                                  request.get("max_order", 4))}
        if compare_outputs({"bleu": expected["bleu"]}, output):
            sets = classify_impl("bleu-corpus-compute", request, expected, output).sets
            cases.append(Case(case_id, "bleu-corpus-compute", ("bleu",), output, dict(sets),
                              request, expected))
        else:
            cases.append(Case(case_id, "bleu-corpus-compute", ("bleu",), None, {}, request, expected))

    def verdict_of(rules: Any) -> Any:
        return judge("judge/impl-canary", rules, cases, lambda c: c.request,
                     lambda c, r: truth("bleu-corpus-compute", r).expected)

    out = []

    def wrong(rules: Any, got: str, want: str) -> None:
        message = (f"the judge of --impl, on its canary (a shortest-reference BLEU) against "
                   f"{rules.describe()}: {got}; a correct judge gives {want}")
        out.append(Discrepancy("bleu-corpus-compute", "impl-canary", "judge/impl-canary", "verdict",
                               want, got, None, (), {"self_check": message}))

    card = make_judging()
    first = verdict_of(card)
    named = first.named
    about = [behaviour(e)[0] for e in named.entries] if named is not None else []
    if first.status != "finding" or not about or set(about) != {FLAWED_FACTOR}:
        wrong(card, f"{first.status}" + (f" named {list(named.entries)}" if named else ""),
              f"a finding named by one library's entries about the {FLAWED_FACTOR}")
        return out
    for rules in (make_judging(None, named.entries), make_judging(named.library)):
        again = verdict_of(rules)
        if again.status != "pass":
            wrong(rules, again.status, "pass")
    return out


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped :func:`run_crosscheck`: ``finished`` of ``jobs`` units had finished
    (stored in the checkpoint as they arrived, when there is one)."""

    def __init__(self, finished: int, jobs: int) -> None:
        super().__init__(finished, jobs)
        self.finished = finished
        self.jobs = jobs


def _run_pending(jobs: list[tuple[Callable[..., Tally], tuple[Any, ...], int]], pending: list[int],
                 finished: Callable[[int, Tally], None], workers: int | None,
                 cluster: str | None) -> None:
    if cluster is not None and pending:
        from bleu_compat.cluster import map_ordered, open_client

        with open_client(cluster) as client:
            chosen = [(jobs[i][0], jobs[i][1]) for i in pending]
            map_ordered(client, chosen, lambda k, t: finished(pending[k], t))
    elif pending:
        if workers is None:
            workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        if workers <= 1:
            for i in pending:
                fn, args, _ = jobs[i]
                finished(i, fn(*args))
        else:
            # forkserver, not fork: a process that has run torch or fast-bleu holds an OpenMP
            # thread pool, and a child forked from it deadlocks the first time it uses OpenMP
            import multiprocessing

            context = multiprocessing.get_context(
                "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else None)
            pool = ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                       initializer=_worker_ignores_sigint)
            try:
                futures = {pool.submit(jobs[i][0], *jobs[i][1]): i for i in pending}
                for future in as_completed(futures):
                    finished(futures[future], future.result())
            except BaseException:  # Ctrl-C, a hung --impl, a failed chunk: stop now, not after the rest
                _stop_pool(pool)
                raise
            pool.shutdown()


def _worker_ignores_sigint() -> None:
    # Ctrl-C at a terminal reaches the whole process group: the parent stops the run
    # (run_crosscheck's caller reports it); a worker must not stop in the middle of a
    # chunk and print its own traceback.
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and end the workers now (their chunks are lost; the
    finished ones were stored as they arrived, in a checkpoint too)."""
    # the workers, before shutdown() forgets them
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=2)
        if process.is_alive():
            process.kill()
            process.join(timeout=2)


def _checkpoint_arguments(seed: int, cases: dict[str, int], impls: tuple[str, ...],
                          real_sets: Sequence[RealSet], invalid: dict[str, int]) -> dict[str, Any]:
    """What a checkpoint's tallies depend on: a rerun resumes only when all of it is equal."""
    from bleu_compat.harness.report import versions_now

    return {
        "seed": seed, "cases": cases, "implementations": list(impls),
        "real_sets": [r.name for r in real_sets], "invalid": invalid,
        "chunk": CHUNK, "invalid_chunk": INVALID_CHUNK, "versions": versions_now(),
    }


def _shrink_all(tally: Tally, judging: dict[str, Any] | None = None) -> None:
    for name in ("unexpected", "findings"):
        done: dict[tuple[str, str, str], dict[str, Any] | None] = {}
        shrunk: list[Discrepancy] = []
        for d in getattr(tally, name):
            key = (d.tool_id, d.implementation, d.field)
            if (key not in done and len(done) < MAX_SHRINK and "real_corpus" not in d.request
                    and "token_check" not in d.request and "self_check" not in d.request
                    and "!invalid#" not in d.case_id):
                done[key] = shrink(d.tool_id, d.request, _still_fails(d, judging))
            reproducer = done.get(key)
            shrunk.append(replace(d, reproducer=reproducer))
        setattr(tally, name, shrunk)


def _still_fails(d: Discrepancy, judging: dict[str, Any] | None = None
                 ) -> Callable[[dict[str, Any]], bool]:
    if d.implementation.startswith("impl:"):
        from .classify import differs_from_target
        from .target import Judging

        rules = (judging or {}).get(d.implementation) or Judging()

        def against_target(request: dict[str, Any]) -> bool:
            return d.field in differs_from_target(d.implementation, rules, d.tool_id, request)

        return against_target

    def predicate(request: dict[str, Any]) -> bool:
        result = evaluate(d.tool_id, "shrink", request, implementations=(d.implementation,))
        return any(x.field == d.field and x.unexpected for x in result.discrepancies)

    return predicate
