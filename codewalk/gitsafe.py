"""How codewalk calls git: the one place that says what git may run and read on codewalk's behalf.

Git runs programs that configuration names: hooks, core.fsmonitor, filter drivers (clean, smudge,
process), external diff and textconv tools, ssh and credential helpers, `ext::` transports. codewalk runs
git on trees that code nobody reviewed may have written (a row's install commands, a mined repository's
tests), so every call here has hooks and fsmonitor off, no system or global configuration
(GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null, GIT_ATTR_NOSYSTEM), no `ext::` transport, and
diffs without external tools or textconv; nothing of the caller's GIT_* environment passes. Filters
and diff drivers are then defined only by the repository's own configuration, which callers keep
trusted: they name the git directory themselves (a mirror, a worktree's administrative folder inside
its mirror, a repository codewalk just initialised) instead of letting git find one in a tree, whose
`.git` may be anything by then (codewalk.domains.repair.git).
"""

from __future__ import annotations

import os
from pathlib import Path

CONFIG = ("core.hooksPath=/dev/null", "core.fsmonitor=false", "core.untrackedCache=false",
          "core.attributesFile=/dev/null", "protocol.ext.allow=never", "advice.detachedHead=false", "gc.auto=0",
          "maintenance.auto=false")
ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_ATTR_NOSYSTEM": "1",
       "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}
# Subcommands that may produce a diff: never through an external tool or a textconv driver.
DIFFS = {"diff": ("--no-ext-diff", "--no-textconv"), "show": ("--no-ext-diff", "--no-textconv"),
         "log": ("--no-ext-diff", "--no-textconv"), "format-patch": ("--no-ext-diff", "--no-textconv")}


def argv(args: list[str], git: str = "git") -> list[str]:
    """The command line for `git args`, with the safety options; args may start with git's own options."""
    at = _subcommand(args)
    if at is not None and args[at] in DIFFS:
        args = [*args[:at + 1], *DIFFS[args[at]], *args[at + 1:]]
    return [git, *(a for setting in CONFIG for a in ("-c", setting)), *args]


def env(git_dir: Path | None = None, work_tree: Path | None = None) -> dict[str, str]:
    """The environment every git call gets (on top of PATH, HOME and LANG only): git_dir and work_tree,
    when given, name the repository so that git never looks for one in the tree."""
    named = {"GIT_DIR": str(git_dir)} if git_dir is not None else {}
    if work_tree is not None:
        named["GIT_WORK_TREE"] = str(work_tree)
    return {**ENV, **named}


def clean_environ() -> dict[str, str]:
    """os.environ without GIT_* (a caller's GIT_DIR or GIT_CONFIG_PARAMETERS), for a plain subprocess."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


def _subcommand(args: list[str]) -> int | None:
    i = 0
    while i < len(args):
        if args[i] in ("-c", "-C"):
            i += 2
        elif args[i].startswith("-"):
            i += 1
        else:
            return i
    return None
