"""What the repair grader's RUN-TIME guard costs honest fixes: real fix commits graded with and without it.

Each non-merge commit (newest first) that changes a non-test `.py` file and a test file is a task the way
codewalk's miner makes one (mine.Miner.candidate and .examine, one run a state): x_G = its parent with the
commit's test files, the gold patch = its other changes, FAIL_TO_PASS = the tests that fail at x_G and pass
with the gold, PASS_TO_PASS = those that pass in both. The gold patch is then run as `RepairDomain.grade`
runs a candidate (a fresh worktree of x_G, env.run_tests with the configuration of x_G, the FAIL_TO_PASS
tests also renamed) twice: with the run-time guard watching the gold's files (`changed=`, as grading does),
and without (`changed=()`, nothing is tracked, so the audit hook denies nothing: the plain run). A commit
the guard costs is one whose gold passes plainly and gets no verdict (channel.NoVerdict: evidence["rule"],
for audit denials evidence["event"]) or fails under the guard. Each is listed with the denied event, what
it named, and the changed code it points at: the lines of the gold's files that match the event (what the
gold added first, else the module as changed; the guard watches every frame of a changed module, not only
the new lines).

One environment per repository (mine.infer_install_config at the snapshot's HEAD, this interpreter), built
once and reused: a commit whose tests cannot run there is skipped with the miner's reason (no_test_passes,
tests_did_not_run, ...). Every test run is capped (--timeout). The repositories are local git clones (here,
public snapshots brought by the search tool's fetch, under --mirrors as OWNER+NAME/repo); their code is read
and run, never written under bench/. Progress is appended to OUT.state.jsonl, so a rerun resumes.

    nice -n 10 python bench/runtime_guard_history.py --mirrors DIR [--repos owner/name ...] [--repo owner/name=GITDIR ...]
        [--per-repo 40] [--timeout 240] [--cache DIR] [--out bench/results/runtime_guard_history]
        [--guard main] [--commits SHA ...] [--regrade [--again | --all] [--events EVENT ...]] [--render]

Run it with the code whose guard is measured on the path (the figures: main's, --guard main), then
--regrade with another tree: each commit that guard cost is examined again, with the other tree's guard
(OUT.after.jsonl); --regrade --all --guard LABEL examines every graded commit again (a newer guard may
stop one that passed), labelled, so that a rerun resumes. A repository main's guard cannot even mine can be
measured with another (--guard LABEL: listed apart). Results: OUT.{txt,json}; the JSON lists every commit with its outcome.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from itertools import groupby
from pathlib import Path
from statistics import median
from typing import Any

from codewalk.domain import Settings
from codewalk.domains.repair import RepairDomain, _changed
from codewalk.domains.repair.channel import NoVerdict
from codewalk.domains.repair.env import run_tests
from codewalk.domains.repair.git import git
from codewalk.domains.repair.mine import Candidate, Miner, infer_install_config
from codewalk.domains.repair.runs import EnvSpec, TestRun
from codewalk.errors import InfraError
from codewalk.loaders.diff import patch_files
from codewalk.runtime import LocalRuntime

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "runtime_guard_history"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "codewalk-bench" / "runtime_guard_history"
REPOS = ["pytoolz/toolz", "more-itertools/more-itertools", "mahmoud/boltons", "pallets/click",
         "python-attrs/attrs", "pallets/jinja", "marshmallow-code/marshmallow", "pallets/werkzeug", "psf/requests"]
# What in a changed module can raise each denied event: the lines the report shows for a denial.
TRIGGERS = {
    "compile": r"\b(compile|exec|eval)\s*\(|namedtuple|_make_method|linecache|\bTemplate\b",
    "exec": r"\b(compile|exec|eval)\s*\(|_make_method|linecache",
    "sys._getframe": r"_getframe|currentframe|inspect\.|\bstack\(|traceback|warnings\.warn|logging",
    "object.__getattr__": r"tb_frame|f_back|f_code|f_globals|f_locals|gi_frame|cr_frame|__code__|__traceback__|"
                          r"traceback|inspect\.",
    "import": r"^\s*(import|from)\s",
    "open": r"/proc|/dev/",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", nargs="*", default=REPOS)
    parser.add_argument("--repo", action="append", default=[], help="owner/name=GITDIR (a git clone)")
    parser.add_argument("--mirrors", type=Path, default=os.environ.get("CODEWALK_BENCH_MIRRORS"),
                        help="folder of clones named OWNER+NAME/repo (default: CODEWALK_BENCH_MIRRORS)")
    parser.add_argument("--per-repo", type=int, default=40, help="candidate commits examined per repository")
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds a test run may take")
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--render", action="store_true", help="only write OUT.{txt,json} from OUT.state.jsonl")
    parser.add_argument("--regrade", action="store_true",
                        help="examine again each commit the guard cost, with this tree's guard (OUT.after.jsonl)")
    parser.add_argument("--again", action="store_true",
                        help="--regrade also the costs whose latest record in OUT.after.jsonl does not pass (a newer "
                             "guard); the new record is the one that counts")
    parser.add_argument("--all", action="store_true",
                        help="--regrade every graded commit, not only the costs (a later guard may stop a commit that "
                             "passed), the commits that passed first; a commit whose latest record in "
                             "OUT.after.jsonl has this --guard label is not examined again")
    parser.add_argument("--events", nargs="*", default=[], help="--regrade only the costs of these events")
    parser.add_argument("--commits", nargs="*", default=[],
                        help="only these commits (prefixes) of the window, or of those --regrade examines")
    parser.add_argument("--guard", default="main",
                        help="which guard the code running this measures, recorded with each commit: main (the "
                             "figures), or another label (listed apart: a repository main's guard cannot mine)")
    args = parser.parse_args()
    state = args.out.with_name(args.out.name + ".state.jsonl")
    after = args.out.with_name(args.out.name + ".after.jsonl")
    state.parent.mkdir(parents=True, exist_ok=True)
    if args.render and not state.exists():  # rendering nothing would overwrite the record with an empty one
        parser.error(f"no {state} to render (it stays where the measurement ran)")
    if not (args.mirrors or args.repo or args.render):
        parser.error("say where the repositories are: --mirrors DIR (or CODEWALK_BENCH_MIRRORS), or --repo")
    sources = {r: str(args.mirrors / r.replace("/", "+") / "repo") for r in args.repos or REPOS} if args.mirrors \
        else {}
    sources.update(dict(item.split("=", 1) for item in args.repo))
    if args.regrade:
        regrade(_read(state), sources, args, after)
    elif not args.render:
        done = {(d["repo"], d["commit"]) for d in _read(state) if d.get("guard", "main") == args.guard}
        for repo, gitdir in sources.items():
            measure(repo, gitdir, args, state, done)
    render(_read(state), _read(after), args.out)


def regrade(records: list[dict[str, Any]], sources: dict[str, str], args: argparse.Namespace, after: Path) -> None:
    """Every commit the guard cost (of --events), examined again with the guard as this tree has it
    (OUT.after.jsonl; a commit already there is not examined again)."""
    latest = {(d["repo"], d["commit"]): d for d in _read(after)}
    if args.all:  # each graded commit once, first those that passed under the latest guard they met
        done = {k for k, d in latest.items() if d.get("guard") == args.guard}
        graded = {(r["repo"], r["commit"]): r for r in records if r["status"] == "graded"}
        costs = sorted((r for k, r in graded.items() if k not in done and r["repo"] in sources),
                       key=lambda r: (latest.get((r["repo"], r["commit"])) or r).get("guarded", {}).get("verdict")
                       != "passed")
    else:
        done = {k for k, d in latest.items() if not args.again or d.get("guarded", {}).get("verdict") == "passed"}
        costs = [r for r in records if _cost(r) and (r["repo"], r["commit"]) not in done and r["repo"] in sources
                 and (not args.events or r["guarded"].get("event") in args.events)]
    costs = [r for r in costs if not args.commits or any(r["commit"].startswith(c) for c in args.commits)]
    for repo, group in groupby(costs, key=lambda r: r["repo"]):
        domain, miner = setup(repo, sources[repo], args)
        for r in group:
            candidate = miner.candidate(r["commit"])
            assert isinstance(candidate, Candidate)
            started = time.monotonic()
            record = examine(domain, miner, candidate)
            record.update(repo=repo, commit=r["commit"], date=candidate.date,
                          seconds=round(time.monotonic() - started, 1), guard=args.guard)
            with after.open("a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")
            print(f"{repo} {r['commit'][:12]} after: {record['status']} {record.get('guarded', {}).get('verdict')} "
                  f"{record.get('guarded', {}).get('rule', '')} {record['seconds']}s", flush=True)


def _cost(r: dict[str, Any]) -> bool:
    """The gold passes plainly but not under the guard."""
    return (r["status"] == "graded" and r["guarded"]["verdict"] != "passed"
            and r.get("plain", {}).get("verdict") == "passed")


def _stopped(gradings: list[dict[str, Any]]) -> bool:
    """The latest grading's guard stops a gold patch that passes: no verdict (only the guard gives none) where
    a grading saw the gold pass, or a failure under the guard only (the plain run passed with it; a plain run
    that did not, on a loaded machine, leaves the failure unexplained)."""
    last = gradings[-1]
    if last["guarded"]["verdict"] == "no_verdict":
        return any(g["guarded"]["verdict"] == "passed" or g.get("plain", {}).get("verdict") == "passed"
                   for g in gradings)
    return _cost(last)


def _runs_tree(text: str) -> str:
    """The text with the paths of a run's temporary tree relative to it (tests/x.py, not /tmp/.../tree/x.py)."""
    return re.sub(r"/\S*/codewalk-[a-z0-9_]+/tree/", "", text)


def _event(g: dict[str, Any]) -> str:
    """A denial's event and what it named, the run's temporary tree left out."""
    what = _runs_tree(g.get("what", "")).replace("a test file opened outside pytest's reading of it: ",
                                                                 "READERS ")
    return f"{g.get('event', '')} {what}".strip()


def _stopped_mining(d: dict[str, Any]) -> dict[str, Any] | None:
    """A re-examination whose mining runs the guard stopped (tests_did_not_run, the reason in the detail):
    the outcome as a grading's, or None."""
    detail = d.get("detail", "") if d.get("reason") == "tests_did_not_run" else ""
    denied = re.search(r"the audit hook denied (\S+)", detail)
    rule = ("class_changed" if "(class_changed:" in detail else "report_path_changed"
            if "the report path changed" in detail else "audit_denied" if denied else "")
    if not rule:
        return None
    return {"verdict": "no_verdict", "rule": rule, "event": denied.group(1) if denied else "",
            "why": "the mining runs: " + detail}


def setup(repo: str, gitdir: str, args: argparse.Namespace) -> tuple[RepairDomain, Miner]:
    """The repair domain and a miner whose environment is the repository's at its HEAD, for every commit."""
    domain = RepairDomain(args.cache, Settings(runtime=LocalRuntime()))
    head = git(["rev-parse", "HEAD"], Path(gitdir), git_dir=Path(gitdir)).stdout.strip()
    mirror = domain.mirrors.ensure(repo, gitdir, [head])
    config = infer_install_config(lambda p: _show(mirror, head, p), repo)
    return domain, Miner(repo, gitdir, str(mirror), args.cache, config, 1, args.timeout, LocalRuntime())


def measure(repo: str, gitdir: str, args: argparse.Namespace, state: Path, done: set[tuple[str, str]]) -> None:
    domain, miner = setup(repo, gitdir, args)
    head = miner.git("rev-parse", "HEAD").strip()
    taken = 0
    for sha in miner.git("rev-list", "--no-merges", head).split():
        if taken >= args.per_repo:
            break
        candidate = miner.candidate(sha)
        if not isinstance(candidate, Candidate):
            continue
        taken += 1
        if (repo, sha) in done or (args.commits and not any(sha.startswith(c) for c in args.commits)):
            continue
        started = time.monotonic()
        record = examine(domain, miner, candidate)
        record.update(repo=repo, commit=sha, date=candidate.date, seconds=round(time.monotonic() - started, 1),
                      guard=args.guard)
        with state.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
        print(f"{repo} {sha[:12]} {record['status']} {record.get('reason', '')} {record['seconds']}s", flush=True)


def examine(domain: RepairDomain, miner: Miner, c: Candidate) -> dict[str, Any]:
    """The commit's outcome: skipped (the miner's reason), or graded with and without the guard."""
    mined = miner.examine(c)
    if mined.status != "kept" or mined.row is None:
        return {"status": "skipped", "reason": mined.reason, "detail": mined.detail[-300:]}
    row = mined.row
    v = {**row, "clone_from": miner.origin}
    tests = list(dict.fromkeys(row["FAIL_TO_PASS"] + row["PASS_TO_PASS"]))
    changed = _changed(c.patch)
    record: dict[str, Any] = {"status": "graded", "fail_to_pass": len(row["FAIL_TO_PASS"]),
                              "pass_to_pass": len(row["PASS_TO_PASS"]), "changed": changed}
    guarded = grade(domain, v, tests, changed, miner.test_timeout)
    record["guarded"] = guarded
    if guarded["verdict"] == "passed":
        return record
    record["plain"] = grade(domain, v, tests, (), miner.test_timeout)
    if guarded.get("event"):
        record["triggers"] = triggers(domain, v, c.patch, guarded["event"], guarded.get("what", ""))
    return record


def grade(domain: RepairDomain, v: dict[str, Any], tests: list[str], changed: Any, timeout: float) -> dict[str, Any]:
    """The gold patch run as RepairDomain.grade runs a candidate (fresh worktree of x_G, configuration of x_G,
    FAIL_TO_PASS renamed too), the guard watching `changed` (nothing when empty)."""
    spec = EnvSpec.from_config(v["install_config"])
    with domain.worktrees.fresh(domain.mirrors.path(v["repo"]), v["base_commit"]) as tree:
        env = domain._env(v, spec, tree)
        if tree.apply(v["test_patch"], ("strict",)) is None:
            return {"verdict": "error", "why": "the test patch does not apply"}
        x_g = tree.tree()
        if tree.apply(v["patch"]) is None:
            return {"verdict": "error", "why": "the gold patch does not apply"}
        try:
            run: TestRun = run_tests(env, tree, tests, spec.test_cmd, timeout, domain.memory_mb, config_from=x_g,
                                     renamed=v["FAIL_TO_PASS"], changed=list(changed))
        except NoVerdict as e:
            what = re.search(r"denied \S+ \((.*)\) while changed", str(e))
            return {"verdict": "no_verdict", "rule": e.rule, "event": e.event, "what": what.group(1) if what else "",
                    "why": str(e)[:400]}
        except InfraError as e:
            return {"verdict": "error", "why": str(e)[-400:]}
    failing = run.failing(tests)
    if failing:
        return {"verdict": "failed", "failing": {t: run.status[t] for t in failing[:5]}, "failed": len(failing),
                "proc_guard": run.proc_guard}
    return {"verdict": "passed", "seconds": run.seconds, "audited": run.audited, "proc_guard": run.proc_guard,
            "data_kept": run.data_kept, "tree_kept": run.tree_kept}


def triggers(domain: RepairDomain, v: dict[str, Any], patch: str, event: str, what: str) -> list[str]:
    """The changed code a denial points at: lines the gold adds that match the event, else lines of the
    changed modules (as the gold leaves them) that do: path:line: text, at most 8."""
    pattern = TRIGGERS.get(event, re.escape(what) if what else r"$^")
    if event == "import" and what:
        pattern = rf"^\s*(import|from)\s+{re.escape(what.split('.')[0])}\b"
    elif event == "object.__getattr__" and what:
        pattern = rf"{re.escape(what)}|" + TRIGGERS[event]
    found = []
    path, line = "", 0
    for text in patch.splitlines():
        if text.startswith("+++ "):
            path = text[6:] if text.startswith("+++ b/") else ""
        elif text.startswith("@@"):
            m = re.search(r"\+(\d+)", text)
            line = int(m.group(1)) - 1 if m else 0
        elif text.startswith("+") and path.endswith(".py"):
            line += 1
            if re.search(pattern, text[1:]):
                found.append(f"+ {path}:{line}: {text[1:].strip()[:120]}")
        elif not text.startswith("-") and path:
            line += 1
    if found:
        return found[:8]
    sha = v["fix_commit"]
    for path in patch_files(patch):
        if not path.endswith(".py"):
            continue
        source = _show(domain.mirrors.path(v["repo"]), sha, path) or ""
        for number, text in enumerate(source.splitlines(), 1):
            if re.search(pattern, text):
                found.append(f"  {path}:{number}: {text.strip()[:120]}")
    return found[:8]


def _show(mirror: Path, commit: str, path: str) -> str | None:
    done = git(["cat-file", "blob", f"{commit}:{path}"], mirror, check=False, git_dir=mirror)
    return done.stdout if done.returncode == 0 else None


def _read(state: Path) -> list[dict[str, Any]]:
    if not state.is_file():
        return []
    return [json.loads(line) for line in state.read_text(encoding="utf-8").splitlines() if line.strip()]


def render(every: list[dict[str, Any]], regrades: list[dict[str, Any]], out: Path) -> None:
    """OUT.txt (figures and every cost listed) and OUT.json (every commit); `regrades`: the commits examined
    again with later guards (--regrade), oldest first. The figures are main's (--guard main); commits
    measured with another guard are listed apart; then each graded commit as its latest grading finds it."""
    records = [r for r in every if r.get("guard", "main") == "main"]
    # a commit measured with several other guards counts once, with the latest
    others = list({(r["repo"], r["commit"]): r for r in every if r.get("guard", "main") != "main"}.values())
    # each graded commit's gradings, first measurement then regrades (one that did not grade it, the mining
    # runs skipped on a loaded machine, says nothing of the guard: kept apart)
    chains = {(r["repo"], r["commit"]): [r] for r in records + others if r["status"] == "graded"}
    ungraded = []
    for d in regrades:
        k = (d["repo"], d["commit"])
        if k not in chains:
            continue
        stopped = _stopped_mining(d)
        if d["status"] == "graded":
            chains[k].append(d)
        elif stopped:  # the guard also watches the mining runs (the class guard, whatever changed)
            chains[k].append({**d, "status": "graded", "guarded": stopped, "plain": stopped,
                              "changed": chains[k][0]["changed"]})
        else:
            ungraded.append(d)
    after = {k: c[-1] for k, c in chains.items() if len(c) > 1}
    stopped = Counter(r["repo"] for r in records if r["status"] == "skipped" and "report path changed" in r["detail"])
    graded = [r for r in records if r["status"] == "graded"]
    skipped = Counter(r["reason"] for r in records if r["status"] == "skipped")
    cost = [r for r in graded if _cost(r)]
    both = [r for r in graded if r["guarded"]["verdict"] != "passed" and not _cost(r)]
    by_rule = Counter(r["guarded"].get("rule", r["guarded"]["verdict"]) for r in cost)
    by_event = Counter(f"{r['guarded'].get('event', '')} {r['guarded'].get('what', '')}".strip() for r in cost)
    still = [r for r in cost if (r["repo"], r["commit"]) in after
             and after[r["repo"], r["commit"]].get("guarded", {}).get("verdict") != "passed"]
    regraded = sum((r["repo"], r["commit"]) in after for r in cost)
    repos = sorted({r["repo"] for r in records})
    per_repo = {repo: {"examined": sum(r["repo"] == repo for r in records),
                       "graded": sum(r["repo"] == repo for r in graded),
                       "cost": sum(r["repo"] == repo for r in cost),
                       "cost_after": sum(r["repo"] == repo for r in still)} for repo in repos}
    share = len(cost) / len(graded) if graded else 0.0
    lines = ["# the repair grader's run-time guard over real fix commits (bench/runtime_guard_history.py)",
             f"python {sys.version.split()[0]}, local runtime, one environment per repository (its HEAD's)",
             f"examined {len(records)} candidate commits of {len(repos)} repositories; graded {len(graded)}, "
             f"skipped {len(records) - len(graded)} {dict(skipped.most_common())}",
             f"gold passes plainly but not under main's guard: {len(cost)} of {len(graded)} ({share:.1%}); "
             f"by rule {dict(by_rule.most_common())}",
             f"by event: {dict(by_event.most_common())}",
             f"examined again with this tree's guard (--regrade): {regraded}; still not passing: {len(still)} "
             f"({len(still) / len(graded) if graded else 0:.1%} of graded)",
             f"gold fails with and without the guard (not the guard's): {len(both)}",
             f"skipped because main's guard stopped the mining runs themselves (report_path_changed): "
             f"{sum(stopped.values())} {dict(stopped)}",
             "per repository (cost/graded of examined, cost after): " + ", ".join(
                 f"{k} {v['cost']}/{v['graded']} of {v['examined']}, {v['cost_after']}" for k, v in per_repo.items()),
             ""]
    other_graded = [r for r in others if r["status"] == "graded"]
    other_cost = [r for r in other_graded if _cost(r)]
    other_still = [r for r in other_cost if after.get((r["repo"], r["commit"]), r).get("guarded", {}).get("verdict")
                   != "passed"]
    if others:
        lines += [f"measured with another guard ({', '.join(sorted({r['guard'] for r in others}))}; main's cannot "
                  f"mine these): examined {len(others)}, graded {len(other_graded)}, skipped "
                  f"{dict(Counter(r['reason'] for r in others if r['status'] == 'skipped'))}, gold passes plainly "
                  f"but not under that guard: {len(other_cost)}, after --regrade: {len(other_still)}; per repository "
                  + ", ".join(f"{repo} {sum(r['repo'] == repo for r in other_cost)}/"
                              f"{sum(r['repo'] == repo for r in other_graded)} of "
                              f"{sum(r['repo'] == repo for r in others)}, "
                              f"{sum(r['repo'] == repo for r in other_still)}"
                              for repo in sorted({r['repo'] for r in others})), ""]
        every_graded, every_still = len(graded) + len(other_graded), len(still) + len(other_still)
        lines += [f"all graded: {every_graded}; of those the guard they were measured with stopped, still stopped at "
                  f"their latest --regrade: {every_still} "
                  f"({every_still / every_graded if every_graded else 0:.1%})", ""]
    # every graded commit under the latest guard that graded it (--regrade --all: every one under one guard)
    now_cost = {k: c for k, c in chains.items() if _stopped(c)}
    new = {k: c for k, c in now_cost.items() if len(c) > 1 and c[-2]["guarded"]["verdict"] == "passed"}
    guards = Counter(c[-1].get("guard", "unlabelled regrade") if len(c) > 1 else "first measurement"
                     for c in chains.values())
    now_rule = Counter(c[-1]["guarded"].get("rule", c[-1]["guarded"]["verdict"]) for c in now_cost.values())
    now_event = Counter(_event(c[-1]["guarded"]) for c in now_cost.values())
    now_both = sum(c[-1]["guarded"]["verdict"] != "passed" and not _stopped(c) for c in chains.values())
    now_share = len(now_cost) / len(chains) if chains else 0.0
    lines += [f"each graded commit under the latest guard that graded it ({dict(guards.most_common())}): gold "
              f"stopped (it passed plainly or under an earlier guard; no verdict, or failing under the guard only): "
              f"{len(now_cost)} of {len(chains)} ({now_share:.1%}); by rule "
              f"{dict(now_rule.most_common())}; new (passed under the guard that graded it before): {len(new)}; "
              f"gold fails with and without the guard: {now_both}; re-examinations that did not grade (the "
              f"earlier grading kept): {len(ungraded)} {dict(Counter(d['reason'] for d in ungraded))}",
              f"by event: {dict(now_event.most_common())}",
              "per repository (stopped/graded): " + ", ".join(
                  f"{repo} {sum(k[0] == repo for k in now_cost)}/{sum(k[0] == repo for k in chains)}"
                  for repo in sorted({k[0] for k in chains})), ""]
    # what the file guards kept in the latest passing gradings that record it (round 14b on): the guard works
    # only if it kept something, so a passing grading that kept nothing would show here
    kept = [c[-1]["guarded"] for c in chains.values() if "tree_kept" in c[-1]["guarded"]]
    if kept:
        lines += [f"files kept from the run in the {len(kept)} latest passing gradings that record it: test data "
                  f"median {median(g['data_kept'] for g in kept)}, the tree as it landed median "
                  f"{median(g['tree_kept'] for g in kept)} (min {min(g['tree_kept'] for g in kept)}, max "
                  f"{max(g['tree_kept'] for g in kept)})", ""]
    for (repo, commit), c in new.items():
        g = c[-1]["guarded"]
        lines.append(f"new: {repo} {commit[:12]} ({c[-1]['date'][:10]}): {c[-1].get('guard', '')} guard "
                     f"{g['verdict']} {g.get('rule', '')} {g.get('event', '')} ({g.get('what', '')}); plain "
                     f"{c[-1].get('plain', {}).get('verdict')}; before: passed ("
                     + (c[0].get("guard", "main") if len(c) == 2 else c[-2].get("guard", "an earlier regrade")) + ")")
        lines.append(f"  changed: {', '.join(c[-1]['changed'][:6])}")
        lines.append(f"  {g.get('why', json.dumps({k: v for k, v in g.items() if k != 'verdict'}))[:400]}")
    for d in ungraded:
        lines.append(f"not graded again: {d['repo']} {d['commit'][:12]} {d.get('guard', '')}: {d['status']} "
                     f"{d.get('reason', '')} {d.get('detail', '')[-160:]}")
    lines += [""] if new or ungraded else []
    for r in cost + both + other_cost:
        g = r["guarded"]
        again = after.get((r["repo"], r["commit"]), {}).get("guarded", {})
        lines.append(f"{r['repo']} {r['commit'][:12]} ({r['date'][:10]}): guarded {g['verdict']} "
                     f"{g.get('rule', '')} {g.get('event', '')} ({g.get('what', '')}); plain "
                     f"{r.get('plain', {}).get('verdict')}"
                     + (f"; after: {again.get('verdict')} {again.get('event', '')} ({again.get('what', '')})"
                        if again else ""))
        lines.append(f"  changed: {', '.join(r['changed'][:6])}")
        lines += ["  " + t for t in r.get("triggers", [])]
        if g["verdict"] != "no_verdict":
            lines.append(f"  {json.dumps({k: v for k, v in g.items() if k != 'verdict'})[:300]}")
    text = "\n".join(lines) + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    home = str(Path.home())  # no path of this machine in the results: the home folder as ~, no run's tree
    out.with_suffix(".txt").write_text(_runs_tree(text.replace(home, "~")), encoding="utf-8")
    summary = {"examined": len(records), "graded": len(graded), "skipped": dict(skipped), "cost": len(cost),
               "share": round(share, 4), "by_rule": dict(by_rule), "by_event": dict(by_event),
               "regraded": regraded, "cost_after": len(still), "fails_without_guard": len(both),
               "stopped_mining": dict(stopped), "other_guard": {"examined": len(others), "graded": len(other_graded),
                                                                "cost": len(other_cost),
                                                                "cost_after": len(other_still)},
               "per_repo": per_repo, "python": sys.version.split()[0],
               "latest": {"guards": dict(guards), "graded": len(chains), "cost": len(now_cost),
                          "share": round(now_share, 4), "by_rule": dict(now_rule), "by_event": dict(now_event),
                          "new": [f"{k[0]} {k[1]}" for k in new], "fails_without_guard": now_both,
                          "not_graded_again": len(ungraded)}}
    commits = [{**r, "after": after[r["repo"], r["commit"]].get("guarded"),
                "after_plain": after[r["repo"], r["commit"]].get("plain", {}).get("verdict"),
                "after_guard": after[r["repo"], r["commit"]].get("guard")}
               if (r["repo"], r["commit"]) in after else r for r in every]
    out.with_suffix(".json").write_text(
        _runs_tree(json.dumps({"summary": summary, "commits": commits}, indent=1).replace(home, "~")) + "\n",
        encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
