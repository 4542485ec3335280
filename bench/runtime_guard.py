"""What the repair grader's run-time guard (harness/boot.py) costs: a test run of the tally fixture's W1 + W2
task with the gold patches, and the audit hook per event.

    python bench/runtime_guard.py --runs 10 [--runtime local|docker]

Runs: the grader's run (F and PASS_TO_PASS, FAIL_TO_PASS renamed too) repeated, with the guard told no
changed file (hook installed, never tracking) and told the gold patches' files (hook tracking them: every
watched event walks the stack); it prints the median and spread of the runner's own time (harness's
`seconds`: pytest start to exit) and of the whole run_tests call. Run it with PYTHONPATH at a checkout of an older main for
the harness before the guard: there `changed` is not known and only the first line is measured.

Hook: a process runs N operations of each kind 40 frames deep (under a changed module's frame, or not)
with the hook installed and without: nanoseconds per operation.

Classes: the class guard (boot.py, _class_guard) in a process that imported pytest and the modules a test
run commonly has (--modules): how many classes it walks, and milliseconds to record them at start-up and
per check (a record; CPU time of the process, steadier than wall time on a shared machine): nothing changed, one class made by a class statement since, one made by type()
since, a class attribute added (its namespace's size changed), and the final record (every class whole).
The runs also time the grader's run with the class guard off (a copy of boot.py with CLASS_GUARD False).
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codewalk.domain import Settings  # noqa: E402
from codewalk.domains.repair import RepairDomain, channel  # noqa: E402
from codewalk.domains.repair import env as repair_env  # noqa: E402
from codewalk.domains.repair.env import EnvSpec, run_tests  # noqa: E402
from codewalk.runtime import build  # noqa: E402
from tests import repair_fixture  # noqa: E402

HOOK = r"""
import os, sys, time, runpy
boot = runpy.run_path(sys.argv[1], run_name="boot")
N = int(sys.argv[2])
src = sys.argv[3]
os.makedirs(src, exist_ok=True)
with open(os.path.join(src, "chg.py"), "w") as f:
    f.write("def deep(n, work):\n    return deep(n - 1, work) if n else work()\n")
sys.path.insert(0, src)
if sys.argv[4] == "hook":
    boot["_install"](lambda record: None, frozenset([os.path.join(src, "chg.py")]), frozenset(["chg"]))
import chg  # a changed module has run: the hook tracks its frames


def deep(n, work):
    return deep(n - 1, work) if n else work()


def loop(op, under):
    def work():
        t = time.perf_counter()
        for _ in range(N):
            op()
        return time.perf_counter() - t
    return (chg.deep if under else deep)(40, work)


ops = {"no event (len)": (lambda: len(src), True),
       "unwatched event (id)": (lambda: id(N), True),
       "watched, decided without the stack (open /dev/null)": (lambda: open(os.devnull).close(), True),
       "watched, whole stack walked, no changed frame (func.__code__)": (lambda: loop.__code__, False)}
print({k: round(loop(op, under) / N * 1e9) for k, (op, under) in ops.items()})
"""


CLASSES = r"""
import importlib, json, os, sys, time, runpy
boot = runpy.run_path(sys.argv[1], run_name="boot")
for name in sys.argv[3].split(","):
    importlib.import_module(name)
N = int(sys.argv[2])
t = time.process_time()
check = boot["_class_guard"](frozenset())
out = {"record_ms": round((time.process_time() - t) * 1e3, 2)}
seen, level = {}, [object]
while level:
    seen.update((id(c), c) for c in level)
    level = [s for c in level for s in type.__subclasses__(c)]
out["classes"] = len(seen)


def each(label, step):
    spent = 0.0
    for n in range(N):
        step(n)
        t = time.process_time()
        why = check()
        spent += time.process_time() - t
        assert why == "", why
    out[label] = round(spent / N * 1e3, 3)


kept = []


def statement(n):
    space = {}
    exec("class C:\n    def __eq__(self, other):\n        return other is self\n", space)
    kept.append(space["C"])


each("nothing changed", lambda n: None)
each("a class statement since", statement)
each("a type() class since", lambda n: kept.append(type("T%d" % n, (), {})))
each("a class attribute added", lambda n: setattr(kept[0], "a%d" % n, n))
t = time.process_time()
assert check(True) == ""
out["final record"] = round((time.process_time() - t) * 1e3, 3)
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--runtime", default="local")
    parser.add_argument("--events", type=int, default=200000)
    parser.add_argument("--checks", type=int, default=200, help="class guard: checks per case")
    parser.add_argument("--modules", default="pytest,_pytest.python,_pytest.doctest,json,decimal,fractions,asyncio,"
                        "email.message,http.client,argparse,logging,unittest.mock,dataclasses,typing,enum",
                        help="class guard: modules imported first (their classes are walked)")
    args = parser.parse_args()
    guarded = "changed" in inspect.signature(run_tests).parameters
    if args.runs:
        _runs(args, guarded)
    boot = Path(repair_env.__file__).with_name("harness") / "boot.py"
    if guarded and boot.is_file():
        with tempfile.TemporaryDirectory() as scratch:
            for mode in ("none", "hook"):
                out = subprocess.run([sys.executable, "-I", "-c", HOOK, str(boot), str(args.events), scratch, mode],
                                     capture_output=True, text=True, check=True).stdout
                print(f"ns per operation, {'with the hook' if mode == 'hook' else 'no hook'}: {out.strip()}")
    if guarded and boot.is_file() and "_class_guard" in boot.read_text(encoding="utf-8"):
        out = subprocess.run([sys.executable, "-I", "-c", CLASSES, str(boot), str(args.checks), args.modules],
                             capture_output=True, text=True, check=True).stdout
        print(f"class guard, ms: {out.strip()}")


def _runs(args: argparse.Namespace, guarded: bool) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        os.environ.setdefault("CODEWALK_HOME", str(Path(scratch) / "home"))
        fixture = repair_fixture.build(Path(scratch) / "tally")
        domain = RepairDomain(settings=Settings(runtime=build(args.runtime)))
        rows = fixture.write_rows(Path(scratch) / "rows.jsonl", ("W1", "W2"))
        composite = domain.compose(list(domain.load(rows, {"repos": str(fixture.repos)})))
        v = composite.verifier
        tests = list(dict.fromkeys(v["FAIL_TO_PASS"] + v["PASS_TO_PASS_listed"]))
        gold = sorted({line[6:] for line in composite.reference.splitlines() if line.startswith("+++ b/")})
        results = {}
        boot = Path(repair_env.__file__).with_name("harness") / "boot.py"
        boot_text = boot.read_text(encoding="utf-8") if boot.is_file() else ""
        with domain.worktrees.fresh(domain._mirror(v), v["base_commit"]) as tree:
            env = domain._env(v, EnvSpec.from_config(v["install_config"]), tree)
            tree.apply(v["test_patch"], ("strict",))
            x_g = tree.tree()
            tree.apply(composite.reference, ("strict",))
            labels = [("guard idle (no changed file)", [], True), ("guard tracking the gold files", gold, True),
                      ("the same, class guard off", gold, False)]
            for label, changed, classes in labels:
                if (changed and not guarded) or (not classes and "\nCLASS_GUARD = True" not in boot_text):
                    continue
                runner, wall = [], []
                for _ in range(args.runs + 1):  # the first warms the caches; not counted
                    mark = time.monotonic()
                    extra: dict[str, Any] = {"changed": changed} if guarded else {}
                    with _class_guard(classes, boot_text):
                        run: repair_env.TestRun = run_tests(env, tree, tests, "pytest -rA", 300, config_from=x_g,
                                                            renamed=v["FAIL_TO_PASS"], **extra)
                    wall.append(time.monotonic() - mark)
                    runner.append(run.seconds)
                    assert all(s == "passed" for s in run.status.values()), run.status
                results[label] = {"runner_s": _summary(runner[1:]), "run_tests_s": _summary(wall[1:])}
        print(json.dumps({"harness": "with guard" if guarded else "before the guard", "runtime": args.runtime,
                          "runs": args.runs, "python": sys.version.split()[0], **results}, indent=1))


@contextmanager
def _class_guard(on: bool, boot_text: str) -> Iterator[None]:
    """The harness as it is, or with boot.py's class guard off (channel.prepare writes the copy)."""
    if on:
        yield
        return
    real = channel.prepare

    def prepare(into: Path) -> None:
        real(into)
        (into / channel.BOOT).write_text(boot_text.replace("\nCLASS_GUARD = True", "\nCLASS_GUARD = False"))

    channel.prepare = prepare
    try:
        yield
    finally:
        channel.prepare = real


def _summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3), "max": round(max(values), 3)}


if __name__ == "__main__":
    main()
