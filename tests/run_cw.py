"""Run the `cw` CLI in this process, as a user would type it, and capture what it prints."""

from __future__ import annotations

import sys

from codewalk.cli import main


def cw(capsys, *args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `cw ARGS...`."""
    argv, sys.argv = sys.argv, ["cw", *args]
    try:
        main()
        code = 0
    except SystemExit as e:
        code = e.code or 0
    finally:
        sys.argv = argv
    captured = capsys.readouterr()
    return code, captured.out, captured.err
