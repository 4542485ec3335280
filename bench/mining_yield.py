"""Mining yield, before and after a change to the miner: kept atoms and N = 2 admissions per repository.

For each repository (a local clone, e.g. a public snapshot brought with the search tool's fetch verb):
`cw mine repair`, then, when anything was kept, `cw load repair` and `cw walk --domain repair --n 2` in a
scratch store, as a user would. `--python` picks the interpreter whose codewalk runs (a virtualenv with
another checkout installed gives "before"); `--label` names the run. Results are merged by label into
bench/results/mining_yield.json and the table of every label is rewritten to mining_yield.txt, this machine's
paths written as PYTHON (--python), KEEP (--keep or the scratch folder) and MIRRORS (the repositories' common
folder). No code of the mined repositories is written under bench/: rows and stores stay in the scratch folder.

    python bench/mining_yield.py --label after REPO=owner/name@SINCE [...] [--python PY] [--workers 2]
        [--attempts 60] [--keep DIR [--rewalk]]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "mining_yield"


def cw(python: str, args: list[str], env: dict[str, str]) -> tuple[dict, float, int, str]:
    """One `cw` command with --json: its output (or {}), wall seconds, exit code and last stderr line."""
    start = time.monotonic()
    # cwd "/": `python -m` puts the working folder first on sys.path, where a checkout would shadow python's own
    done = subprocess.run([python, "-m", "codewalk", *args, "--json"], capture_output=True, text=True, env=env,
                          cwd="/")
    seconds = time.monotonic() - start
    try:
        data = json.loads(done.stdout) if done.stdout.strip() else {}
    except json.JSONDecodeError:
        data = {}
    last = (done.stderr.strip().splitlines() or [""])[-1]
    return data, seconds, done.returncode, last


def _env(work: Path) -> dict[str, str]:
    return {**os.environ, "CODEWALK_HOME": str(work / "home"),
            "CODEWALK_CACHE": os.environ.get("CODEWALK_CACHE") or str(work.parent / "cache")}


def one(python: str, repo: str, name: str, since: str, workers: int, work: Path, attempts: int) -> dict:
    env, rows = _env(work), work / "rows.jsonl"
    mine_args = ["mine", "repair", repo, "--out", str(rows), "--name", name, "--since", since,
                 "--workers", str(workers)]
    mined, mine_s, code, last = cw(python, mine_args, env)
    if code != 0:
        raise SystemExit(f"cw mine failed ({code}): {last}")
    result = {"repo": name, "since": since, "command": "cw " + " ".join(shlex.quote(a) for a in mine_args),
              "scanned": mined["scanned"], "candidates": mined["candidates"], "kept": mined["kept"],
              "skipped": mined["skipped"], "dropped": mined["dropped"], "mine_s": round(mine_s),
              "candidate_kinds": mined.get("candidate_kinds"), "largest_level": mined.get("largest_level"),
              "pairs_composed": (mined.get("graph") or {}).get(name, {}).get("pairs_composed"),
              "next": mined.get("next"), "account": mined.get("account"), "walk_n2": None}
    if mined["kept"]:
        result |= walk(python, work, workers, attempts)
    return result


def walk(python: str, work: Path, workers: int, attempts: int) -> dict:
    """Load the rows into a new store and walk N = 2 until `attempts` groups (every pair, when fewer)."""
    env, rows, store = _env(work), work / "rows.jsonl", work / "graph.lbug"
    shutil.rmtree(store, ignore_errors=True)
    store.unlink(missing_ok=True)
    loaded, _, code, last = cw(python, ["--store", str(store), "load", "repair", str(rows)], env)
    if code != 0:
        raise SystemExit(f"cw load failed ({code}): {last}")
    walked, walk_s, code, last = cw(python, ["--store", str(store), "walk", "--domain", "repair", "--n", "2",
                                             "--count", str(attempts), "--max-attempts", str(attempts), "--seed",
                                             "0", "--workers", str(workers)], env)
    if walked:
        found = {"attempted": walked["attempted"], "admitted": walked["admitted"], "rejected": walked["rejected"],
                 "errors": walked["errors"], "used_up": walked.get("used_up"), "wall_s": round(walk_s)}
    else:  # refused: the level is above what the graph supports
        found = {"refused": last, "exit": code}
    return {"edges": loaded.get("edges", {}).get("SHARES_FILE", 0), "walk_n2": found}


def table(data: dict) -> str:
    lines = ["| run | repository, since | scanned | candidates (series) | kept | pairs sharing a file | largest N "
             "stated | N=2: attempted / admitted (rejected) |", "|---|---|---|---|---|---|---|---|"]
    for label, run in data.items():
        for r in run["repos"]:
            walk = r["walk_n2"]
            if walk is None:
                shown = "nothing to walk"
            elif "refused" in walk:
                shown = "refused: " + walk["refused"].removeprefix("error: ")[:60]
            else:
                shown = f"{walk['attempted']} / {walk['admitted']} ({json.dumps(walk['rejected'])})" + \
                    (f", {walk['errors']} error(s)" if walk["errors"] else "")
            series = (r.get("candidate_kinds") or {}).get("series", 0)
            stated = "-" if r.get("largest_level") is None else r["largest_level"]
            lines.append(f"| {label} | {r['repo']}, {r['since']} | {r['scanned']} | {r['candidates']} ({series}) | "
                         f"{r['kept']} | {r.get('edges', 0)} | {stated} | {shown} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="*", help="REPO=owner/name@SINCE")
    parser.add_argument("--label", required=True)
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose codewalk runs")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="folder for rows, stores and caches (default: scratch)")
    parser.add_argument("--attempts", type=int, default=60, help="N = 2 groups attempted at most (--count and "
                        "--max-attempts): above a graph's pairs, every pair is attempted once")
    parser.add_argument("--rewalk", action="store_true", help="walk again the rows an earlier run of this label "
                        "kept in --keep (a new store), keeping its mining figures")
    parser.add_argument("--print", action="store_true", help="only rewrite mining_yield.txt from the JSON")
    args = parser.parse_args()
    path = RESULTS.with_suffix(".json")
    data = json.loads(path.read_text()) if path.exists() else {}
    if args.print:
        return write_table(data)
    found = []
    with tempfile.TemporaryDirectory(prefix="mining-yield-") as scratch:
        base = (args.keep or Path(scratch)).resolve()
        for spec in args.repos:
            repo, rest = spec.split("=", 1)
            name, since = rest.split("@", 1)
            work = base / args.label / name.replace("/", "__")
            work.mkdir(parents=True, exist_ok=True)
            if args.rewalk:
                earlier = next(r for r in data[args.label]["repos"] if r["repo"] == name)
                found.append(earlier | (walk(args.python, work, args.workers, args.attempts) if earlier["kept"]
                                        else {}))
            else:
                found.append(one(args.python, repo, name, since, args.workers, work, args.attempts))
            print(json.dumps(found[-1]), flush=True)
    version = subprocess.run([args.python, "-c", "import codewalk, os; print(os.path.dirname(codewalk.__file__))"],
                             capture_output=True, text=True, cwd="/").stdout.strip()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(version).parent, capture_output=True,
                            text=True).stdout.strip()
    data = json.loads(path.read_text()) if path.exists() else {}  # again: another label may have finished
    run = {"codewalk": commit, "at": datetime.now(UTC).isoformat(timespec="minutes"),
           "command": "python bench/mining_yield.py " + " ".join(shlex.quote(a) for a in sys.argv[1:]),
           "cores": os.cpu_count()}
    if args.rewalk:  # the mining figures stay those of the run that mined
        data[args.label] = data[args.label] | {"walked": run, "repos": found}
    else:
        data[args.label] = run | {"repos": found}
    repos = [str(Path(spec.split("=", 1)[0]).resolve()) for spec in args.repos]
    mirrors = os.path.commonpath(repos) if repos else ""
    places = {args.python: "PYTHON", str(base): "KEEP"} | ({mirrors if len(repos) > 1 else
                                                             str(Path(mirrors).parent): "MIRRORS"} if repos else {})
    data[args.label] = json.loads(portable(json.dumps(data[args.label]), places))
    path.write_text(json.dumps(data, indent=1) + "\n")
    write_table(data)


def portable(text: str, places: dict[str, str]) -> str:
    """text with this machine's paths (the longest first) put as the names a reader supplies: the record
    says how the figures were made, not where."""
    for path, name in sorted(places.items(), key=lambda p: -len(p[0])):
        text = text.replace(path, name)
    return text.replace(str(Path.home()), "~")


def write_table(data: dict) -> None:
    """mining_yield.txt: each label's command, then the table of every label."""
    text = "".join(f"# {label}: codewalk {run['codewalk']} at {run['at']}\n# {run['command']}\n"
                   + (f"# walked again at {run['walked']['at']}: {run['walked']['command']}\n" if "walked" in run
                      else "") for label, run in data.items()) + "\n" + table(data)
    RESULTS.with_suffix(".txt").write_text(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
