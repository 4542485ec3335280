"""What refusing every change but Python modules would cost honest fixes (issue 51, round 15a).

The corpus is bench/repair_rules_history.py's: each non-merge commit of HEAD's history changing a non-test `.py`
file and a test file. For each it counts what else the commit changes outside the test files:
- documentation (mine.documentation: docs/, changelogs, .md/.rst), which the miner leaves out of every gold patch;
- any other file that is not a `.py` module or a `.pyi` stub (data, configuration, CI files...), by kind, and of
  those commits the ones main's rules refused already (a pytest configuration, .gitignore: rules.path_rules);
- a mode change, a symbolic link, a submodule;
and, of the changed `.py` modules, those that are test support by round 15a's rule (guard.test_support): a module
outside every package of the tree the test files import and no other module does, or a module that at the
commit's parent holds data only (literals bound to names).

    python bench/repair_non_source_history.py --mirrors MIRRORS [--repos owner/name ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import Counter
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.repair_rules_history import REPOS  # noqa: E402
from codewalk.domains.repair.mine import documentation  # noqa: E402
from codewalk.domains.repair.patch import is_test_path  # noqa: E402
from codewalk.domains.repair.rules import MODULES, path_rules  # noqa: E402


def _git(gitdir: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(gitdir), *args], capture_output=True, text=True,
                          check=True, errors="replace").stdout


def kind(path: str) -> str:
    name = PurePosixPath(path).name
    suffix = PurePosixPath(path).suffix.lower()
    return suffix or name


def count(repo: str, gitdir: Path) -> dict:
    from codewalk.domains.repair.guard import test_support

    log = _git(gitdir, "log", "--no-merges", "--no-renames", "--raw", "--no-abbrev", "--format=%x01%H %P", "HEAD")
    seen = other = before = mode = link = support = docs = 0
    kinds: Counter[str] = Counter()
    listed: list[str] = []
    for block in log.split("\x01")[1:]:
        head, _, raw = block.partition("\n")
        sha, *parents = head.split()
        if len(parents) != 1:
            continue
        rows = []
        for line in raw.splitlines():
            if line.startswith(":"):
                meta, _, path = line.partition("\t")
                old_mode, new_mode, _a, _b, status = meta[1:].split()
                rows.append((path.strip('"'), old_mode, new_mode, status))
        modules = [p for p, *_ in rows if p.endswith(".py") and not is_test_path(p)]
        if not modules or not any(is_test_path(p) for p, *_ in rows):
            continue
        seen += 1
        rest = [r for r in rows if not is_test_path(r[0]) and not documentation(r[0])]
        docs += any(documentation(p) and not is_test_path(p) for p, *_ in rows)
        odd = [p for p, *_ in rest if not p.endswith(MODULES)]
        if odd:
            other += 1
            before += any(rule != "not_source" for p in odd for rule, _ in path_rules(p))  # refused on main too
            kinds.update({kind(p) for p in odd})
            listed.append(f"{repo} {sha[:12]} {' '.join(odd[:4])}")
        if any(o != n and "000000" not in (o, n) for _p, o, n, _s in rest):
            mode += 1
        if any("120000" in (o, n) or "160000" in (o, n) for _p, o, n, _s in rest):
            link += 1
        tree = [p for p in _git(gitdir, "ls-tree", "-r", "--name-only", parents[0]).splitlines()]
        added = [p for p, o, *_ in rest if o == "000000"]
        found = test_support([p for p, *_ in rest if p.endswith(".py")], tree,
                             lambda p, c=parents[0]: _show(gitdir, c, p), [*tree, *added])
        if found:
            support += 1
            listed.append(f"{repo} {sha[:12]} test support: {' '.join(p for p, _ in found[:4])}")
    return {"repo": repo, "commits": seen, "documentation": docs, "other_files": other, "refused_before": before,
            "mode": mode, "link": link,
            "test_support": support, "kinds": kinds, "listed": listed}


def _show(gitdir: Path, commit: str, path: str) -> str | None:
    try:
        return _git(gitdir, "show", f"{commit}:{path}")
    except subprocess.CalledProcessError:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirrors", type=Path, required=True, help="folder of OWNER+NAME/repo bare clones")
    parser.add_argument("--repos", nargs="*", default=REPOS)
    parser.add_argument("--list", action="store_true", help="list every commit counted")
    args = parser.parse_args()
    total: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for repo in args.repos:
        row = count(repo, args.mirrors / repo.replace("/", "+") / "repo")
        kinds.update(row.pop("kinds"))
        listed = row.pop("listed")
        print(row, flush=True)
        if args.list:
            print("\n".join("  " + line for line in listed))
        total.update({k: v for k, v in row.items() if k != "repo"})
    print("total", dict(total))
    print("kinds of other files (commits)", kinds.most_common(30))


if __name__ == "__main__":
    main()
