"""The split rule: units never cross splits, quotas are kept, the seed decides, and what fits nowhere is named."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codewalk.errors import InputError
from codewalk.splits import PAPER_REPAIR, Splits, assign


def _repair_like(n_repos: int, per_repo: int) -> dict[str, set[str]]:
    return {f"t{r:03d}-{k}": {f"repo{r}"} for r in range(n_repos) for k in range(per_repo)}


def test_no_repository_is_in_two_splits_and_the_paper_quotas_are_met_when_the_units_allow():
    tasks = _repair_like(268, 1)
    s = assign(tasks, PAPER_REPAIR, seed=7, unit="repository")
    assert {k: len(v) for k, v in s.tasks.items()} == PAPER_REPAIR
    assert s.leaks() == []
    assert len(s.left_out) == 0


def test_a_task_spanning_two_units_pulls_every_task_of_both_into_one_split():
    tasks = {"a": {"p1"}, "b": {"p1", "p2"}, "c": {"p2"}, "d": {"p3"}, "e": {"p4"}}
    s = assign(tasks, {"train": 3, "test": 2}, seed=1)
    assert s.split_of("a") == s.split_of("b") == s.split_of("c")
    assert s.leaks() == []


def test_a_group_larger_than_every_quota_is_left_out_and_named():
    tasks = {"a": {"big"}, "b": {"big"}, "c": {"big"}, "d": {"small"}}
    s = assign(tasks, {"train": 2, "test": 1}, seed=0)
    assert s.left_out == ["a", "b", "c"]
    assert s.split_of("d") in {"train", "test"}


def test_the_seed_decides_and_the_same_seed_gives_the_same_splits():
    tasks = _repair_like(60, 2)
    quotas = {"train": 60, "validation": 30, "test": 30}
    assert assign(tasks, quotas, seed=3) == assign(dict(reversed(list(tasks.items()))), quotas, seed=3)
    assert assign(tasks, quotas, seed=3).tasks != assign(tasks, quotas, seed=4).tasks


def test_splits_survive_a_round_trip_through_the_release_file(tmp_path):
    s = assign(_repair_like(10, 1), {"train": 6, "test": 4}, seed=2, unit="repository")
    path = tmp_path / "splits.json"
    path.write_text(s.to_json())
    assert Splits.read(path) == s


def test_a_broken_splits_file_is_an_input_error_naming_it(tmp_path):
    path = tmp_path / "splits.json"
    path.write_text('{"unit": "repository"}')
    with pytest.raises(InputError, match="splits.json"):
        Splits.read(path)


def test_a_task_without_a_unit_is_refused_by_name():
    with pytest.raises(InputError, match="task b"):
        assign({"a": {"u"}, "b": set()}, {"train": 2}, seed=0)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text("abcdef", min_size=1, max_size=3),
                       st.sets(st.sampled_from([f"u{i}" for i in range(12)]), min_size=1, max_size=3),
                       min_size=1, max_size=40),
       st.integers(0, 20), st.integers(0, 20), st.integers(0, 2**16))
def test_any_tasks_any_quotas_no_unit_leaks_no_quota_is_exceeded_and_every_task_is_placed_once(tasks, q1, q2, seed):
    s = assign(tasks, {"train": q1, "test": q2}, seed=seed)
    assert s.leaks() == []
    assert all(len(s.tasks[k]) <= q for k, q in s.quotas.items())
    placed = [t for ids in s.tasks.values() for t in ids] + s.left_out
    assert sorted(placed) == sorted(tasks)


def test_a_repair_atom_splits_by_its_repository_and_others_by_their_source_program_or_themselves():
    from codewalk.records import Atom
    from codewalk.splits import unit_of

    assert unit_of(Atom("a1", "repair", summary={"repo": "org/x", "source": "s"}), "repository") == "org/x"
    assert unit_of(Atom("p1", "proofs", summary={"source": "acsl:find.c"}), "source program") == "acsl:find.c"
    assert unit_of(Atom("c7", "complexity", summary={}), "source program") == "c7"


def test_a_graph_smaller_than_the_quotas_still_fills_every_split_in_proportion():
    """The repair release of four mined repositories (58 tasks against 161 / 53 / 54) put every task in train:
    the split with the most room took each group. Filled by share of quota, each split gets a repository."""
    tasks = {f"{repo}-{i}": {repo} for repo, n in (("sqlparse", 20), ("boltons", 24), ("cachetools", 4))
             for i in range(n)}
    s = assign(tasks, PAPER_REPAIR, seed=0)
    assert all(s.tasks[name] for name in PAPER_REPAIR) and not s.leaks() and not s.left_out
