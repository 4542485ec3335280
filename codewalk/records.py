"""Typed records that flow between loaders, domains, the walk, admission and the stores."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal, get_args

from .errors import StoreError

# The summary fields an Atom node carries for exploration (Neo4j Browser captions, Cypher filters).
# A fixed set, because LadybugDB needs a fixed table schema and because property names never come
# from input. Everything else goes into the JSON payload.
SUMMARY_FIELDS: dict[str, type] = {
    "title": str,  # short caption shown in Browser
    "repo": str,  # repair: owner/name
    "files": list,  # repair: files touched by the gold patch
    "in_type": str,  # chaining domains: type of the chained input
    "out_type": str,  # chaining domains: return type
    "label": str,  # clones: eq / neq; complexity: class; used by walk position constraints
    "source": str,  # source program (proofs allow each at most twice per chain)
}

RelType = Literal["SHARES_FILE", "FEEDS"]
REL_TYPES: dict[str, bool] = {"SHARES_FILE": True, "FEEDS": False}  # type -> symmetric?
TaskStatus = Literal["admitted", "rejected", "error"]
STATUSES: tuple[TaskStatus, ...] = get_args(TaskStatus)  # one definition: the CLI and export check against it


class Reason(StrEnum):
    """Every reason a task or a grade gives: admission's own, and those of the domains' compose (a
    Rejected), admission checks and grading (a Check). Stored as their string values, which the figures
    count; tests/test_reasons.py finds any reason a domain gives that is not a member."""

    ADMITTED = "admitted"
    REFERENCE_FAILS = "reference_fails"  # check (2)
    ATOM_SOLVED = "atom_solved"  # check (1)
    INFRA_ERROR = "infra_error"  # no verdict: never counted as unsolved
    # compose: the group forms no composite
    EMPTY_GROUP = "empty_group"
    NAME_CLASH = "name_clash"
    NOT_CHAINABLE = "not_chainable"
    TYPES_DO_NOT_CHAIN = "types_do_not_chain"
    TYPE_MISMATCH = "type_mismatch"
    MIXED_BACKENDS = "mixed_backends"
    MIXED_SOURCES = "mixed_sources"
    UNREADABLE_CONTRACT = "unreadable_contract"
    SEVERAL_NEQ = "several_neq"
    READS_OWN_INPUTS = "reads_own_inputs"
    GROWTH_UNKNOWN = "growth_unknown"
    CONSTANT_LINK = "constant_link"
    BOUNDED_LINK = "bounded_link"
    UNSCALED_INPUT = "unscaled_input"
    DERIVATION_INDETERMINATE = "derivation_indeterminate"
    REF_OUTSIDE_LABELS = "ref_outside_labels"
    TEST_PATCH_CONFLICT = "test_patch_conflict"
    MISPLACED_HUNK = "misplaced_hunk"
    # check (2): the reference
    REFERENCE_ILL_FORMED = "reference_ill_formed"
    REFERENCE_REFUSED = "reference_refused"
    REFERENCE_CONFLICT = "reference_conflict"
    REFERENCE_MISMATCH = "reference_mismatch"
    VALUE_INPUT = "value_input"
    COMPOSITE_FAILS = "composite_fails"
    COST_UNMEASURED = "cost_unmeasured"
    COST_UNSTABLE = "cost_unstable"
    UNLABELLED_GROWTH = "unlabelled_growth"
    DOES_NOT_COMPILE = "does_not_compile"
    POSITIVE_DIVERGES = "positive_diverges"
    NONDETERMINISTIC = "nondeterministic"
    UNDECIDED_TIME = "undecided_time"
    WITNESS_BEFORE_NEQ_STAGE = "witness_before_neq_stage"
    NEGATIVE_MASKED = "negative_masked"
    FEW_COMPLETE_RUNS = "few_complete_runs"
    # check (1): the task without one atom's solution
    TASK_ILL_FORMED = "task_ill_formed"
    TASK_PROVES = "task_proves"
    REF_EQUALS_MAX_LABEL = "ref_equals_max_label"
    REF_EQUALS_FIRST_LABEL = "ref_equals_first_label"
    # grading a candidate
    BYPASS = "bypass"
    MALFORMED_CANDIDATE = "malformed_candidate"
    ILL_FORMED = "ill_formed"
    INCONSISTENT_CONTEXT = "inconsistent_context"
    TRANSPORT_MARKER = "transport_marker"  # ACSL: text of Frama-C's -pp-annot transport (markers, placeholders)
    TOO_LARGE = "too_large"  # a candidate over the guard's size cap
    FRAME_DIFFERS = "frame_differs"  # ACSL: the frame as Frama-C parsed it is not the task's
    MISSING_GOAL = "missing_goal"  # ACSL: a goal of the reference's frame is not in the candidate's run
    UNPARSEABLE = "unparseable"
    WRONG_LABEL = "wrong_label"
    REFUSED = "refused"
    DOES_NOT_APPLY = "does_not_apply"
    NO_VERDICT = "no_verdict"


@dataclass(frozen=True)
class Atom:
    """A verified atomic problem a = (x_a, y*_a, V_a); the domain knows how to read its payload."""

    id: str
    domain: str
    summary: dict[str, Any] = field(default_factory=dict)
    payload: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.id or not isinstance(self.id, str):
            raise ValueError("atom id must be a non-empty string")
        unknown = set(self.summary) - set(SUMMARY_FIELDS)
        if unknown:
            raise ValueError(f"unknown summary fields {sorted(unknown)}; allowed: {sorted(SUMMARY_FIELDS)}")


@dataclass(frozen=True)
class Edge:
    """One relation edge. SHARES_FILE is symmetric (stored once, src < dst); FEEDS is directed."""

    src: str
    dst: str
    type: RelType
    files: tuple[str, ...] = ()  # SHARES_FILE: the shared files
    arg: int | None = None  # FEEDS: which parameter of dst receives src's output
    via: str | None = None  # FEEDS: conversion used (e.g. "as_slice"), None when direct


@dataclass(frozen=True)
class Check:
    """The outcome of one admission check, with the evidence a person can read later."""

    ok: bool
    detail: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)
    reason: str = ""  # optional short code for a domain-specific rejection (e.g. "misplaced_hunk")


@dataclass(frozen=True)
class Composite:
    """Cmp(G) = (x_G, V_G) with Ref(G): the task input, the reference and how to verify."""

    prompt: str  # x_G as shown to a model
    reference: str  # Ref(G)
    verifier: dict[str, Any]  # V_G: everything the domain needs to grade a candidate
    # The group's atoms in the order the composite uses them (repair: the order its patches are applied),
    # which COMPOSES.position records; None: the walk's order.
    order: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Task:
    """One attempted group, admitted or not. Written back as a (:Task) node with COMPOSES edges."""

    id: str
    domain: str
    atoms: tuple[str, ...]
    status: TaskStatus
    reason: str
    seed: int
    run: str
    created_at: str
    generator_version: str
    prompt: str = ""
    reference: str = ""
    verifier: dict[str, Any] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def level(self) -> int:
        return len(self.atoms)

    def to_row(self) -> dict[str, Any]:
        row = asdict(self)
        row["atoms"] = list(self.atoms)
        row["level"] = self.level
        row["verifier"] = json.dumps(self.verifier, sort_keys=True)
        row["evidence"] = json.dumps(self.evidence, sort_keys=True)
        return row

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Task:
        """A stored task row (GraphStore.select_tasks) as a Task; a task whose atoms were not all linked, or
        an admitted one without prompt, reference or verifier, is refused by name."""
        if row["positions"] != list(range(row["level"])):
            raise StoreError(f"task {row['id']} is stored incompletely: level {row['level']} but atom positions "
                             f"{row['positions']}; re-run the walk that made it or delete it")
        verifier = json.loads(row["verifier"] or "{}")
        if row["status"] == "admitted" and not (row["prompt"] and row["reference"] and verifier):
            raise StoreError(f"task {row['id']} is admitted but has no prompt, reference or verifier stored")
        return cls(id=row["id"], domain=row["domain"], atoms=tuple(row["atoms"]), status=row["status"],
                   reason=row["reason"], seed=row["seed"], run=row["run"], created_at=row["created_at"],
                   generator_version=row["generator_version"], prompt=row["prompt"], reference=row["reference"],
                   verifier=verifier)


@dataclass(frozen=True)
class Run:
    """One `cw walk` invocation; its tasks point to it."""

    id: str
    domain: str
    seed: int
    params: dict[str, Any]
    started: str
    finished: str = ""


def now() -> str:
    """The time a record is written (Task.created_at, Run.started, a grade's graded_at): UTC, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def task_id(domain: str, atom_ids: tuple[str, ...] | list[str], composer_version: str) -> str:
    """Content hash of domain, ordered atom ids and composer version: re-runs write nothing twice."""
    text = "\x1f".join([domain, composer_version, *atom_ids])
    return "t" + hashlib.sha256(text.encode()).hexdigest()[:20]
