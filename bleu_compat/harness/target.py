"""The verdict on a user's implementation (``--impl``, entry points, ``assert_bleu_parity``):
judged against its *target*, never against whatever some library happens to do (issue 36).

A user's BLEU declares what it means to compute: the **card** (the default) or one
**configuration** of ``score --compare`` (``sacrebleu``, ``nltk``, ``torcheval``, ...: its
implementation's dialect). Every case where it differs from that target is a **finding**
(the command exits 1; ``assert_bleu_parity`` fails). ``allow`` names catalog entries whose
quirks are accepted on purpose.

What the target accepts, as *families* of dialects (:func:`families`), each one library's
dialect in one adapter mode with a set ``S`` of its catalog entries switched on:

* target ``card``: ``S`` within the allowed entries of that library (``S`` empty: the card);
* target a library L (its release: the installed one when its dialect was measured, else
  the newest measured): ``R ⊆ S ⊆`` L's entries for that release, as called, where ``R``,
  the *required* entries, are L's entries that are neither arithmetic (tag ``float``: the
  float order is the implementation's choice), nor about how L reads text (tags
  ``tokens``, ``input``: a token list given as tokens is not re-split), nor only an error
  (an exception where the card scores: a number there is accepted too), minus the allowed
  ones.

An implementation passes when ONE such set, for the whole run, reproduces its output on
every case it was judged on (a *consistent* set: where the set changes the card's output the
implementation must too, and nowhere else). The set tried for a family is the union of the
smallest acceptable sets of each case (:func:`smallest`), then the required set alone.

Otherwise the cases that set does not reproduce are findings, and the judge looks for a
name: one library's consistent set of quirks (any of its entries) that reproduces the
implementation on **every** case (:func:`name_behaviour`): "reproduced by
TORCHEVAL-SHORTEST-REFERENCE (torcheval 0.0.7; also HF evaluate bleu, bleuscore)". Per-case
matches of several libraries never make a name: without one consistent set every finding is
UNEXPECTED.

This module is the judge: it imports the truth, the dialect models and the catalog, nothing
of the core (``oracle_tests/test_layering.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Callable, Iterable, Sequence

__all__ = [
    "Judging", "Family", "Named", "Verdict", "TargetError", "make_judging", "target_names",
    "families", "smallest", "accepted_here", "name_behaviour", "judge", "OPTIONAL_TAGS",
]

#: tags of entries a library target does not require (module docstring)
OPTIONAL_TAGS = frozenset({"float", "tokens", "input"})
CARD = "card"


#: the card's value of each factor (bleu_compat.libraries.plugin.FACTOR_NAMES; SPEC.md
#: sections 2-4), for saying what a named quirk changes
CARD_FACTORS: dict[str, str] = {
    "tokenizer": "the tokens as given",
    "case": "as given",
    "smoothing": "none for bleu-corpus-compute; method1-method3 of Chen & Cherry 2014 as the "
                 "request names them",
    "effective order": "only when the request asks for it",
    "max order": "the request's N (1 to 8), weights 1/N",
    "reference length": "the closest reference length, ties to the shorter",
    "clipping": "each n-gram's count clipped by its largest count in one reference",
    "count type": "exact integers",
    "aggregation": "corpus: the segments' statistics summed, one BLEU",
    "arithmetic": "bp * exp((1/N) * sum(ln(m_n / l_n))) in doubles, summed left to right",
}


def behaviour(entry_id: str) -> tuple[str | None, str]:
    """(factor, the entry's library's value of it) for the factor whose declared source names
    the entry (``("reference length", "the shortest reference of each segment")``), else
    ``(None, the entry's title)``."""
    from bleu_compat.libraries.registry import libraries
    import bleu_compat.catalog as catalog

    e = catalog.entry(entry_id)
    for lib in libraries():
        if lib.name != e.library:
            continue
        for name, factor in lib.factors.items():
            if entry_id in factor.source.replace(";", " ").split():
                return name, factor.value
    return None, e.title


class TargetError(ValueError):
    """A target or an allowed entry that does not exist (the message says which exist)."""


@dataclass(frozen=True)
class Judging:
    """What a user's implementation is judged against.

    Attributes:
        target: ``"card"`` or the configuration name as given (``"torcheval"``).
        library: the target configuration's implementation (None: the card).
        release: the library release whose catalog entries are the target ("" for the card).
        allow: catalog entry ids accepted on purpose.
    """

    target: str = CARD
    library: str | None = None
    release: str = ""
    allow: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"target", "library", "release", "allowed"}`` for the reports."""
        return {"target": self.target, "library": self.library, "release": self.release,
                "allowed": list(self.allow)}

    def describe(self) -> str:
        """``card`` or ``torcheval (torcheval 0.0.7)``, and what is allowed."""
        if self.library is None:
            what = "the card"
        else:
            from bleu_compat.catalog import LIBRARY_NAMES

            what = f"{self.target} ({LIBRARY_NAMES.get(self.library, self.library)} {self.release})"
        return what + (f", allowing {', '.join(self.allow)}" if self.allow else "")


def target_names() -> list[str]:
    """Every target a user may name: ``card``, then each built-in ``--compare``
    configuration of a registered library, then the libraries' own names."""
    return [CARD] + list(_configurations())


def _configurations() -> dict[str, str]:
    """Built-in configuration names (as the plug-ins declare them for ``--compare``), then the
    libraries' own names -> the library."""
    from bleu_compat.libraries.registry import libraries

    out: dict[str, str] = {}
    for lib in libraries():
        for b in lib.configurations:
            out.setdefault(b.name, lib.name)
    for lib in libraries():
        out.setdefault(lib.name, lib.name)
    return out


def _target_library(name: str) -> str | None:
    if name in (CARD, "card-split"):
        return None
    known = _configurations()
    if name in known:
        return known[name]
    raise TargetError(f"unknown target {name!r}: give card or a configuration of score "
                      f"--compare ({', '.join(target_names())})")


def _release(library: str) -> str:
    """The installed release when its dialect was measured, else the newest measured one."""
    import bleu_compat.catalog as catalog

    measured = catalog.MEASURED.get(library, ())
    try:
        installed = catalog.installed_version(library)
    except Exception:  # noqa: BLE001 - a script the environment does not name
        installed = ""
    if installed and installed in measured:
        return installed
    return measured[-1] if measured else installed


def make_judging(target: str | None = None, allow: Iterable[str] = ()) -> Judging:
    """A :class:`Judging` from a target name (None: the card) and allowed entry ids.

    Raises:
        TargetError: an unknown target or entry id; an allowed entry of another library
            than a library target's (one dialect cannot have two libraries' quirks).
    """
    import bleu_compat.catalog as catalog

    name = CARD if target in (None, "") else str(target)
    library = _target_library(name)
    known = {e.id for e in catalog.ENTRIES}
    ids = tuple(dict.fromkeys(str(a) for a in allow))
    unknown = [a for a in ids if a not in known]
    if unknown:
        raise TargetError(f"--allow {unknown[0]}: no such catalog entry (bleu-compat catalog "
                          "lists them)")
    if library is not None:
        other = [a for a in ids if catalog.entry(a).library != library]
        if other:
            raise TargetError(
                f"--allow {other[0]}: an entry of {catalog.entry(other[0]).library}, not of the "
                f"target {name} ({library}): a dialect has one library's quirks")
    return Judging(name, library, _release(library) if library else "", ids)


# ------------------------------------------------------------------ the families


@dataclass(frozen=True)
class Family:
    """Dialects a target accepts: ``library`` in ``mode`` with ``required`` ⊆ S ⊆
    ``required`` ∪ ``optional`` (library None: the card alone)."""

    library: str | None
    mode: str
    required: frozenset[str]
    optional: tuple[str, ...]

    @property
    def dialect(self) -> str:
        return CARD if self.library is None else f"{self.library}/{self.mode}"


def _required(e: Any) -> bool:
    return not (set(e.tags) & OPTIONAL_TAGS) and not set(e.fields) <= {"error", "not_representable"}


def families(judging: Judging, tool_id: str) -> list[Family]:
    """The dialect families ``judging`` accepts for ``tool_id`` (module docstring), the
    target's first."""
    import bleu_compat.catalog as catalog
    from bleu_compat.libraries.registry import libraries

    if judging.library is not None:
        lib = judging.library
        entries = [e for e in catalog.entries_for(lib, tool_id, "as_called")
                   if not judging.release or judging.release in e.verified]
        required = frozenset(e.id for e in entries if _required(e)) - set(judging.allow)
        optional = tuple(e.id for e in entries if e.id not in required)
        return [Family(lib, "as_called", required, optional)]
    out = [Family(None, "", frozenset(), ())]
    for lib in libraries():
        for mode in lib.modes:
            allowed = tuple(e.id for e in catalog.entries_for(lib.name, tool_id, mode)
                            if e.id in judging.allow)
            if allowed:
                out.append(Family(lib.name, mode, frozenset(), allowed))
    return out


# ------------------------------------------------------------------ one case


def _fields_equal(out: dict[str, Any], output: dict[str, Any]) -> bool:
    from bleu_compat.harness.dialect import same_value

    return all(f in out and same_value(out[f], output[f]) for f in output)


def _run(library: str, tool_id: str, mode: str, request: dict[str, Any], on: frozenset[str],
         cache: dict[Any, Any]) -> dict[str, Any]:
    import bleu_compat.catalog as catalog

    key = ("judge-output", library, mode, on)
    if key not in cache:
        try:
            cache[key] = catalog.MODELS[library](tool_id, mode, request, on, cache.setdefault(
                ("model-cache", library, mode), {}))
        except Exception as exc:  # noqa: BLE001 - a model that cannot run reproduces nothing
            cache[key] = {"model_error": f"{type(exc).__name__}: {exc}"}
    return cache[key]


def smallest(family: Family, tool_id: str, request: dict[str, Any], output: dict[str, Any],
             expected: dict[str, Any], cache: dict[Any, Any] | None = None) -> frozenset[str] | None:
    """The smallest set of ``family`` whose dialect gives ``output`` on its fields (the card
    family: ``output`` equal to ``expected``); None when no set does."""
    if family.library is None:
        return frozenset() if _fields_equal(expected, output) else None
    cache = {} if cache is None else cache
    pool = [e for e in family.optional if e not in family.required]
    for size in range(len(pool) + 1):
        for extra in combinations(pool, size):
            on = family.required | frozenset(extra)
            if _fields_equal(_run(family.library, tool_id, family.mode, request, on, cache), output):
                return on
    return None


def accepted_here(judging: Judging, tool_id: str, request: dict[str, Any], output: dict[str, Any],
                  expected: dict[str, Any]) -> tuple[Family, frozenset[str]] | None:
    """The first family of ``judging`` and its smallest set that accept ``output`` on this one
    request, or None (a finding on this request)."""
    cache: dict[Any, Any] = {}
    for fam in families(judging, tool_id):
        found = smallest(fam, tool_id, request, output, expected, cache)
        if found is not None:
            return fam, found
    return None


def target_output(judging: Judging, tool_id: str, request: dict[str, Any],
                  expected: dict[str, Any]) -> dict[str, Any]:
    """What the target gives on ``request``: the card's output, or the target library's
    dialect with its required entries (as the reports show it beside a finding)."""
    fam = families(judging, tool_id)[0]
    if fam.library is None:
        return expected
    return _run(fam.library, tool_id, fam.mode, request, fam.required, {})


# ------------------------------------------------------------------ a whole run


@dataclass
class Case:
    """One case an implementation was judged on.

    Attributes:
        case_id: ``"bleu-corpus-compute#17"``, ``"real:<corpus>"``.
        tool_id: its card.
        fields: the output fields the implementation returned.
        output: its output where it differs from the card (card units), else None.
        sets: where it differs: dialect (``"<library>/<mode>"``) -> the smallest entry set of
            that dialect reproducing it on this case alone, or None.
        request: the request without ``decimals`` (None for a real corpus: the caller loads it
            when a model must run on it).
        expected: the card's output on it (the truth's), when known.
    """

    case_id: str
    tool_id: str
    fields: tuple[str, ...]
    output: dict[str, Any] | None = None
    sets: dict[str, tuple[str, ...] | None] = field(default_factory=dict)
    request: dict[str, Any] | None = None
    expected: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"case_id": self.case_id, "tool_id": self.tool_id, "fields": list(self.fields),
                "output": self.output,
                "sets": {k: None if v is None else list(v) for k, v in self.sets.items()},
                "request": self.request, "expected": self.expected}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Case":
        return cls(data["case_id"], data["tool_id"], tuple(data["fields"]), data["output"],
                   {k: None if v is None else tuple(v) for k, v in data["sets"].items()},
                   data.get("request"), data.get("expected"))


@dataclass(frozen=True)
class Named:
    """One library's consistent set of quirks that reproduces an implementation on every case.

    Attributes:
        library, mode: the dialect; entries: the set (empty: the card itself).
        release: the release the entries were verified on.
        also: the other libraries a consistent set of the same size reproduces it with
            (``(display name and release, entry ids)``).
    """

    library: str | None
    mode: str
    entries: tuple[str, ...]
    release: str = ""
    also: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"library": self.library, "mode": self.mode, "entries": list(self.entries),
                "release": self.release, "also": [[who, list(ids)] for who, ids in self.also]}

    def text(self) -> str:
        """``TORCHEVAL-SHORTEST-REFERENCE (torcheval 0.0.7; also HF evaluate bleu 2022.7.5, ...)``."""
        from bleu_compat.catalog import LIBRARY_NAMES

        if not self.entries:
            return "the card itself"
        who = f"{LIBRARY_NAMES.get(self.library or '', self.library)} {self.release}".strip()
        also = "; also " + ", ".join(w for w, _ in self.also) if self.also else ""
        return f"{' + '.join(self.entries)} ({who}{also})"


@dataclass
class Verdict:
    """How one implementation relates to its target over a run.

    Attributes:
        implementation: its id; judging: its target and allowances.
        judged: the cases it was judged on (not *not representable*).
        accepted: the family and consistent set that reproduce every case (None: findings).
        failing: the cases no accepted set reproduces (each a finding).
        expected: case id -> the target's output where it fails (card units).
        per_case: case id -> the acceptable set it was reproduced by (accepted cases).
        named: one library's consistent set reproducing every case (None: the findings are
            UNEXPECTED).
    """

    implementation: str
    judging: Judging
    judged: list[Case]
    accepted: tuple[Family, frozenset[str]] | None = None
    failing: list[Case] = field(default_factory=list)
    expected: dict[str, dict[str, Any]] = field(default_factory=dict)
    named: Named | None = None
    card: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The verdict for the reports: status, counts, the accepting or the naming set, the
        message."""
        accepted = None
        if self.accepted is not None:
            fam, on = self.accepted
            accepted = {"dialect": fam.dialect, "entries": sorted(on)}
        return {"implementation": self.implementation, **self.judging.to_json(),
                "status": self.status, "judged": len(self.judged),
                "differ_from_card": sum(1 for c in self.judged if c.output is not None),
                "failing": len(self.failing), "accepted_by": accepted,
                "named": None if self.named is None else self.named.to_json(),
                "message": self.message()}

    @property
    def status(self) -> str:
        """``"pass"``, ``"finding"`` (named) or ``"unexpected"``."""
        if self.accepted is not None:
            return "pass"
        return "finding" if self.named is not None else "unexpected"

    def message(self) -> str:
        """One paragraph: the verdict in words."""
        import bleu_compat.catalog as catalog

        n, k = len(self.judged), len(self.failing)
        head = f"{self.implementation} against {self.judging.describe()}"
        if self.status == "pass":
            fam, on = self.accepted  # type: ignore[misc]
            how = ("equal to the card on every case" if not on else
                   f"reproduced on all {n} cases by {fam.dialect} with {' + '.join(sorted(on))}")
            return f"{head}: pass ({how})"
        text = f"{head}: {k} of {n} cases differ from the target"
        if self.named is None:
            alone: dict[str, int] = {}
            for c in self.failing:
                hit = next((f"{d} with {' + '.join(s)}" for d, s in c.sets.items() if s), None)
                if hit is not None:
                    alone[hit] = alone.get(hit, 0) + 1
            hint = ("; case by case, " + ", ".join(f"{h} reproduces {n}" for h, n in alone.items())
                    + ", but no one set reproduces every case") if alone else ""
            return (text + "; no single library's consistent set of quirks reproduces every case: "
                    "UNEXPECTED" + hint)
        named = self.named
        if named.entries:
            said = [behaviour(e) for e in named.entries]
            yours = "; ".join(f"your {f}: {v}" if f else f"yours: {v}" for f, v in said)
            text += f". {yours[0].upper() + yours[1:]}: reproduced on every case by {named.text()}"
            cards = [f"the card's {f}: {CARD_FACTORS[f]}" for f, _ in said if f in CARD_FACTORS]
            if self.judging.library is None and cards:
                text += "; " + "; ".join(cards)
        else:
            text += ". Your implementation gives the card's output on every case"
        if self.judging.library is not None:
            fam = families(self.judging, self.failing[0].tool_id if self.failing else
                           "bleu-corpus-compute")[0]
            missing = sorted(fam.required - set(named.entries)) if named.library in (
                None, self.judging.library) else sorted(fam.required)
            if missing:
                text += ("; the target has " + "; ".join(
                    f"{e} ({catalog.entry(e).title})" for e in missing))
        elif named.entries:
            text += (". Accept it on purpose with "
                     + " ".join(f"--allow {e}" for e in named.entries))
        return text


def name_behaviour(cases: Sequence[Case], check: Callable[[str, str, frozenset[str]], bool]
                   ) -> Named | None:
    """One library's consistent set reproducing every case (:class:`Named`), or None.

    Candidates per dialect: the union of its per-case smallest sets over the cases that differ
    from the card (each must have one), then each case's set alone; ``check(library, mode,
    set)`` verifies a candidate on every case. The smallest verified set wins (ties: registry
    order, then mode order); ``also`` lists the other libraries verified with a set as small.
    No case differs from the card: the card itself.
    """
    import bleu_compat.catalog as catalog
    from bleu_compat.libraries.registry import libraries

    differing = [c for c in cases if c.output is not None]
    if not differing:
        return Named(None, "", ())
    found: list[tuple[int, int, str, str, frozenset[str]]] = []
    for rank, lib in enumerate(libraries()):
        best_here: tuple[int, str, frozenset[str]] | None = None
        for m_rank, mode in enumerate(lib.modes):
            dialect = f"{lib.name}/{mode}"
            sets = [c.sets.get(dialect) for c in differing]
            if any(s is None for s in sets):
                continue
            union = frozenset().union(*[frozenset(s) for s in sets if s is not None])
            tries = [union] + sorted({frozenset(s) for s in sets if s is not None} - {union},
                                     key=lambda s: (len(s), sorted(s)))
            for on in tries:
                if check(lib.name, mode, on):
                    if best_here is None or len(on) < len(best_here[2]):
                        best_here = (m_rank, mode, on)
                    break
        if best_here is not None:
            found.append((len(best_here[2]), rank, lib.name, best_here[1], best_here[2]))
    if not found:
        return None
    found.sort(key=lambda x: (x[0], x[1], x[3]))
    size, _, library, mode, on = found[0]
    order = [e.id for e in catalog.ENTRIES]
    entries = tuple(sorted(on, key=order.index))

    def release(lib: str, ids: Iterable[str]) -> str:
        verified = [catalog.entry(e).verified for e in ids]
        common = [v for v in verified[0] if all(v in x for x in verified[1:])] if verified else []
        return common[-1] if common else ""

    also = tuple((f"{catalog.LIBRARY_NAMES.get(lib, lib)} {release(lib, ids)}".strip(),
                  tuple(sorted(ids, key=order.index)))
                 for n, _, lib, _, ids in found[1:] if n == size and lib != library)
    return Named(library, mode, entries, release(library, entries), also)


def judge(implementation: str, judging: Judging, cases: Sequence[Case],
          request_of: Callable[[Case], dict[str, Any]],
          expected_of: Callable[[Case, dict[str, Any]], dict[str, Any]]) -> Verdict:
    """The verdict on ``implementation`` over ``cases`` (every case it was judged on).

    Args:
        request_of: case -> its request (without ``decimals``).
        expected_of: (case, request) -> the card's output on it (the truth's).
    """
    verdict = Verdict(implementation, judging, list(cases))
    if not cases:
        verdict.accepted = (Family(None, "", frozenset(), ()), frozenset())
        return verdict
    caches: dict[str, dict[Any, Any]] = {}
    requests: dict[str, dict[str, Any]] = {}
    expecteds: dict[str, dict[str, Any]] = {}

    def load(case: Case) -> tuple[dict[str, Any], dict[str, Any], dict[Any, Any]]:
        if case.case_id not in requests:
            requests[case.case_id] = case.request if case.request is not None else request_of(case)
            expecteds[case.case_id] = (case.expected if case.expected is not None
                                       else expected_of(case, requests[case.case_id]))
            verdict.card[case.case_id] = expecteds[case.case_id]
        return requests[case.case_id], expecteds[case.case_id], caches.setdefault(case.case_id, {})

    def card_of(case: Case) -> dict[str, Any]:
        if case.expected is not None:
            verdict.card[case.case_id] = case.expected
            return case.expected
        return load(case)[1]

    def output_of(case: Case, expected: dict[str, Any]) -> dict[str, Any]:
        if case.output is not None:
            return case.output
        return {f: expected[f] for f in case.fields if f in expected}

    def reproduces(fam: Family, on: frozenset[str], case: Case) -> bool:
        request, expected, cache = load(case)
        output = output_of(case, expected)
        if fam.library is None:
            return not on and case.output is None
        return _fields_equal(_run(fam.library, case.tool_id, fam.mode, request, on, cache), output)

    best: tuple[int, Family, frozenset[str], list[Case]] | None = None
    for fam in families(judging, cases[0].tool_id):
        if fam.library is None:  # the card: no model runs
            failing = [c for c in cases if c.output is not None]
            for c in failing:
                card_of(c)
            candidates = [frozenset()]
        else:
            per_case = []
            for c in cases:
                request, expected, cache = load(c)
                per_case.append(smallest(fam, c.tool_id, request, output_of(c, expected),
                                         expected, cache))
            union = fam.required.union(*[s for s in per_case if s is not None])
            candidates = [union] if union == fam.required else [union, fam.required]
            failing = []
        for on in candidates:
            if fam.library is not None:
                failing = [c for c in cases if not reproduces(fam, on, c)]
            if best is None or len(failing) < best[0]:
                best = (len(failing), fam, on, failing)
            if not failing:
                break
        if best is not None and best[0] == 0:
            break
    assert best is not None
    _, fam, on, failing = best
    if not failing:
        verdict.accepted = (fam, on)
        return verdict
    verdict.failing = failing
    for c in failing:
        if fam.library is None:
            verdict.expected[c.case_id] = card_of(c)
        else:
            request, _, cache = load(c)
            verdict.expected[c.case_id] = _run(fam.library, c.tool_id, fam.mode, request, on, cache)

    def check(library: str, mode: str, on: frozenset[str]) -> bool:
        return all(reproduces(Family(library, mode, frozenset(), ()), on, c) for c in cases)

    verdict.named = name_behaviour(cases, check)
    return verdict
