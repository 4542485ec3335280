"""`python -m codewalk` is `cw` (for scripts that run before `cw` is on PATH)."""

from .cli import main

main()
