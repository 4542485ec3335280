"""`cw explore` and the named queries: connectivity computed in the store, checked against brute force."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import pytest

from codewalk.admission import walk_and_admit
from codewalk.cypher_files import query
from codewalk.errors import UsageError
from codewalk.explore import explore
from codewalk.loading import load
from codewalk.queries import named_queries, run_checked, run_named
from codewalk.store import open_store
from tests.run_cw import cw


def _toy_graph(store, domain: str, tmp_path) -> None:
    """Two separate rings with chords (the toy relation: i ~ i+1, i+2): components of 8 and 5 atoms."""
    for name, n in (("big", 8), ("small", 5)):
        source = tmp_path / f"{domain}-{name}.txt"
        source.write_text("".join(f"{name}{i}\n" for i in range(n)))
        load(store, domain, source)


def _brute_force(store, domain: str, n: int) -> int:
    """Groups of n atoms by enumeration: connected sets (symmetric) or chains of distinct atoms (directed)."""
    rel = "SHARES_FILE" if domain == "toysym" else "FEEDS"  # the demo and toychain relations are directed
    edges = {(r["a"], r["b"]) for r in store.run(
        f"MATCH (a:Atom)-[:{rel}]->(b:Atom) WHERE a.domain = $d RETURN a.id AS a, b.id AS b", {"d": domain})}
    ids = sorted({a for e in edges for a in e})
    if rel == "FEEDS":
        def chains(path):
            if len(path) == n:
                return 1
            return sum(chains([*path, b]) for x, b in edges if x == path[-1] and b not in path)

        return sum(chains([a]) for a in ids)
    near = {a: {b for x, b in edges if x == a} | {x for x, b in edges if b == a} for a in ids}

    def connected(group):
        seen, todo = {group[0]}, [group[0]]
        while todo:
            for b in near[todo.pop()] & set(group) - seen:
                seen.add(b)
                todo.append(b)
        return len(seen) == len(group)

    return sum(connected(g) for g in itertools.combinations(ids, n))


@pytest.mark.parametrize("domain", ["toysym", "toychain"])
def test_group_counts_are_exact_at_n_2_and_3_and_estimated_within_error_beyond(store, tmp_path, domain):
    _toy_graph(store, domain, tmp_path)
    [report] = explore(store, domain, samples=400)
    assert report.atoms == 13 and report.components == [8, 5]
    assert report.walk == ("frontier" if domain == "toysym" else "chain")
    for group in report.groups[:6]:
        truth = _brute_force(store, domain, group["level"])
        if group["level"] <= 3:
            assert group["exact"] == truth, group
        if group["level"] >= 2:  # Knuth's estimator, a fixed seed: within 4 standard errors of the truth
            assert abs(group["estimate"] - truth) <= 4 * group["stderr"] + 1, (group, truth)
    # a frontier group can grow to the whole component; the directed ring holds a chain through it
    assert report.largest_level == 8


def test_both_stores_give_the_same_report(neo4j, tmp_path):
    with open_store(tmp_path / "graph.lbug") as embedded:
        _toy_graph(embedded, "toychain", tmp_path)
        ours = explore(embedded, "toychain", samples=200)[0].as_dict()
    _toy_graph(neo4j, "toychain", tmp_path)
    assert explore(neo4j, "toychain", samples=200)[0].as_dict() == ours


def test_demo_report_counts_chains_yields_and_draws_its_figures(demo_store_path, tmp_path):
    with open_store(demo_store_path) as store:
        [report] = explore(store, samples=200, plots=tmp_path / "plots")
        stored = Counter()
        for r in store.yields("demo"):
            stored[r["level"], r["status"]] += r["tasks"]
        brute = [_brute_force(store, "demo", n) for n in (2, 3)]
    assert report.relation == "FEEDS" and report.edges["FEEDS"] > 0 and report.components == [report.atoms]
    assert sum(r["out"] for r in report.degrees) == sum(r["in"] for r in report.degrees) == report.atoms
    # the demo relation has edges both ways (a -> b -> a), which a chain of three must not count
    assert [g["exact"] for g in report.groups[1:3]] == brute
    chain = report.longest_chains[0]
    assert max(r["length"] for r in report.chain_lengths) == len(chain)
    assert sum(r["walks"] for r in report.chain_lengths) == 200  # every sampling walk, by its length
    assert len(chain) == len(set(chain)) == report.largest_level >= 3
    for row in report.yields:
        assert row["admitted"] == stored[(row["level"], "admitted")] == 3
        assert row["attempted"] == sum(c for (lv, _), c in stored.items() if lv == row["level"])
    # one component: said in the degree figure, not drawn as a single bar
    names = ["demo-degrees.png", "demo-chains.png", "demo-groups.png", "demo-yield.png"]
    assert [p.rsplit("/", 1)[1] for p in report.plots] == names
    for path in report.plots:
        assert open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_every_named_query_runs_on_both_stores(store, tmp_path):
    _toy_graph(store, "toychain", tmp_path)
    walk_and_admit(store, "toychain", 3, count=2, seed=1)
    walk_and_admit(store, "toychain", 1, count=6, seed=1)
    task = store.list_tasks("toychain", "admitted", 3)[0]["id"]
    values = {"id": task, "domain": "toychain", "limit": 5, "atom": store.get_task(task)["atoms"][0]}
    results = {}
    for name in named_queries():
        text = query(f"explore/{name}", store.dialect)
        results[name] = run_named(store, name, {k: v for k, v in values.items() if f"${k}" in text})
    provenance = results["provenance"]
    assert [r["a"]["id"] for r in provenance] == store.get_task(task)["atoms"]
    assert provenance[0]["t"]["id"] == task and provenance[0]["run"]["_label"] == "Run"
    assert sorted(r["atoms"] for r in results["components"]) == [5, 8]
    assert [(r["level"], r["admitted"]) for r in results["yields_by_level"]] == [(1, 6), (3, 2)]
    atoms = {r["a"]["id"] for r in provenance}
    sharing = results["tasks_sharing_atoms"]
    assert sharing
    assert all(r["task"] != task and r["shared"] == len(set(r["atoms"]) & atoms) > 0 for r in sharing)
    assert results["training_rows"] == []  # nothing exported from this store
    reused = [r["tasks"] for r in results["most_reused_atoms"]]
    assert reused == sorted(reused, reverse=True) and len(reused) == 5


def test_named_query_refuses_missing_or_unknown_parameters(tmp_path):
    with open_store(tmp_path / "g.lbug") as store:
        with pytest.raises(UsageError, match="takes --param id=...; missing: id"):
            run_named(store, "provenance", {})
        with pytest.raises(UsageError, match="not used: x"):
            run_named(store, "provenance", {"id": "t1", "x": 1})
        with pytest.raises(UsageError, match="available: .*provenance"):
            run_named(store, "nosuch", {})


def test_a_cypher_parameter_not_given_is_an_error_not_a_null(tmp_path):
    with open_store(tmp_path / "g.lbug") as store:
        with pytest.raises(UsageError, match=r"takes --param d=\.\.\.; missing: d"):
            run_checked(store, "MATCH (a:Atom) WHERE a.domain = $d RETURN count(*) AS c", {})
        with pytest.raises(UsageError, match="not used: dd"):
            run_checked(store, "MATCH (a:Atom) WHERE a.domain = $d RETURN count(*) AS c", {"d": "x", "dd": 1})
        # a $ inside a string literal or a comment is not a parameter
        assert run_checked(store, "RETURN '$x' AS s // $y", {}) == [{"s": "$x"}]


def test_named_query_takes_the_only_loaded_domain_when_none_is_given(demo_store_path):
    with open_store(demo_store_path) as store:
        assert run_named(store, "rejected_by_reason", {}) == run_named(store, "rejected_by_reason", {"domain": "demo"})
        assert run_named(store, "rejected_by_reason", {})  # the demo rejects some groups


def test_cli_explore_and_named_queries(capsys, demo_store_path):
    store = str(demo_store_path)
    code, out, _ = cw(capsys, "--store", store, "explore", "--samples", "100", "--json")
    assert code == 0 and json.loads(out)[0]["domain"] == "demo"
    code, out, _ = cw(capsys, "--store", store, "explore", "--samples", "100")
    assert code == 0 and "Groups of N atoms" in out and "Largest level the graph supports" in out
    assert "one component of " in out  # the demo graph is connected
    code, out, _ = cw(capsys, "--store", store, "query")
    assert code == 0 and "provenance" in out and "rejected_by_reason" in out
    code, out, _ = cw(capsys, "--store", store, "tasks", "list", "--level", "2", "--status", "admitted",
                      "--json")
    task = json.loads(out)[0]["id"]
    code, out, _ = cw(capsys, "--store", store, "query", "--name", "provenance", "--param", f"id={task}",
                      "--json")
    assert code == 0 and [r["c"]["position"] for r in json.loads(out)] == [0, 1]
    code, _, err = cw(capsys, "--store", store, "query", "--name", "provenance")
    assert code == 2 and "missing: id" in err
    code, _, err = cw(capsys, "--store", store, "explore", "--domain", "nosuch")
    assert code == 2 and "no atoms of domain 'nosuch'" in err
