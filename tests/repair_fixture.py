"""A small real Python package with a history of bug fixes, built in a temporary git repository, and the
SWE-bench rows derived from it: the test repository of the repair domain (tests and bench/).

`tally` has three modules (words.py, stats.py, fmt.py). Ten bugs are fixed in separate commits, each
adding its own tests; a few other commits change things on the way. Rows are derived as SWE-bench
derives them: base_commit = the fix's parent, patch = its diff outside tests/, test_patch = its diff
under tests/, created_at = its date. The history is built so that every admission case happens:

- W1 + W2 share words.py and are admitted together.
- W3 fixes a regression that a later commit introduced: at any c* before it the bug is absent, so check
  (1) rejects every group where W3 is not the earliest bug ("already fixed at c*").
- F2 (main) and F3 (an unmerged branch) rewrite the same line of fmt.py differently: their gold patches
  conflict and check (2) rejects the pair.
- A later commit reworded test_pad_basic, which F1's test patch has as context: before it, F1's test
  patch applies only 3-way (W2 + F1).
- M's test patch adds a line inside test_median_of_sample, which K's fix created; its context lines also
  occur in test_total_of_sample. Without K in the group the hunk applies cleanly in the wrong function
  (S1 + M): rejected as a misplaced hunk.
- F2's row lists M's test as PASS_TO_PASS; at a c* before M (W2 + F2) that test does not exist, so the
  group's PASS_TO_PASS, re-derived by check (2), drops it.
- S4's row names its test with a truncated parametrised id (as SWE-bench logs sometimes do): the test is
  missing from every report, so S4 fails check (2) even alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = "tally/tally"
FOLDER = "tally__tally"
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
INSTALL_CONFIG = {"python": PYTHON, "pip_packages": ["pytest"], "test_cmd": "pytest -rA"}

INITIAL = {
    "tally/__init__.py": '"""tally: count and format words and numbers."""\n',
    "tally/words.py": '''\
"""Words: splitting, cleaning and counting."""

PUNCT = ".,;:!?"


def split_words(text):
    """The words of text, split on any whitespace."""
    return [w for w in text.split(" ") if w]


def strip_punct(word):
    """word without leading or trailing punctuation."""
    return word.strip(PUNCT)


def unique_words(words):
    """Distinct words, compared case-insensitively, in first-seen order."""
    seen = set()
    out = []
    for w in words:
        key = w
        if key not in seen:
            seen.add(key)
            out.append(w)
    return out


def longest_word(words):
    """The longest word (the first one on ties), or "" for no words."""
    best = ""
    for w in words:
        if len(w) > len(best):
            best = w
    return best
''',
    "tally/stats.py": '''\
"""Small statistics over lists of numbers."""


def total(values):
    """Sum of the values."""
    return sum(values)


def mean(values):
    """Arithmetic mean, as a float."""
    return total(values) // len(values)


def median(values):
    """The middle value; the mean of the two middle values for an even count."""
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid]


def mode(values):
    """The most common value; the smallest of them on a tie."""
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return max(counts, key=lambda v: counts[v])


def variance(values):
    """Population variance."""
    m = sum(values) / len(values)
    return sum((v - m) ** 2 for v in values) / (len(values) - 1)
''',
    "tally/fmt.py": '''\
"""Formatting words and rows for display."""

from tally.words import unique_words


def pad(text, width):
    """text left-aligned in exactly width characters, cut if longer."""
    return text + " " * (width - len(text))


def format_unique(words):
    """The distinct words, sorted case-insensitively, joined by commas."""
    return ", ".join(sorted(unique_words(words)))


def format_row(cells):
    """The cells joined by a bar with a space on either side."""
    return "|".join(cells)
''',
    "tests/test_words.py": '''\
from tally.words import longest_word, split_words, strip_punct, unique_words


def test_split_words_spaces():
    assert split_words("a b  c") == ["a", "b", "c"]


def test_strip_punct_basic():
    assert strip_punct("end.") == "end"


def test_unique_words_basic():
    assert unique_words(["a", "b", "a"]) == ["a", "b"]


def test_longest_word():
    assert longest_word(["ab", "abc", "xyz"]) == "abc"
''',
    "tests/test_stats.py": '''\
from tally.stats import mean, median, mode, total, variance


def sample():
    return [1, 3, 5, 5, 9]


def test_total_of_sample():
    data = sample()
    assert len(data) == 5
    assert min(data) == 1
    assert max(data) == 9
    assert sorted(data) == data
    assert data[0] < data[-1]
    assert all(isinstance(v, int) for v in data)
    assert total(data) == 23


def test_mean_basic():
    assert mean([2, 4]) == 3


def test_median_odd():
    assert median([3, 1, 2]) == 2


def test_mode_single():
    assert mode([4, 4, 1]) == 4


def test_variance_constant():
    assert variance([2, 2, 2]) == 0
''',
    "tests/test_fmt.py": '''\
from tally.fmt import format_row, format_unique, pad


def test_pad_basic():
    assert pad("ab", 4) == "ab  "


def test_format_unique_basic():
    assert format_unique(["b", "a", "b"]) == "a, b"


def test_format_row_single():
    assert format_row(["a"]) == "a"
''',
}


def _after(anchor: str, added: str) -> tuple[str, str]:
    """An edit inserting `added` right after the line `anchor`."""
    return anchor, anchor + added


def _test(name: str, *body: str) -> str:
    """A test function as a fix adds it after another one: two blank lines, then the def."""
    return f"\n\ndef {name}():\n" + "".join(f"    {line}\n" for line in body)


@dataclass(frozen=True)
class Step:
    """One commit; a bug fix becomes a row. Edits are (path, old, new): old occurs once, "" makes a file."""

    name: str
    date: str
    message: str
    edits: tuple[tuple[str, str, str], ...]
    bug: bool = True
    fail_to_pass: tuple[str, ...] = ()
    pass_to_pass: tuple[str, ...] = ()
    branch_from: str = ""  # commit the fix on a branch from this earlier step instead of main


W, S, F = "tests/test_words.py", "tests/test_stats.py", "tests/test_fmt.py"
SAMPLE_CHECKS = ("data = sample()", "assert len(data) == 5", "assert min(data) == 1", "assert max(data) == 9",
                 "assert sorted(data) == data", "assert data[0] < data[-1]",
                 "assert all(isinstance(v, int) for v in data)")
MEDIAN_TAIL = "".join(f"    {line}\n" for line in (*SAMPLE_CHECKS[3:], "assert median(data) == 5"))

STEPS = (
    Step("W1", "2024-02-01T10:00:00Z", "words: split on any whitespace", (
        ("tally/words.py", 'return [w for w in text.split(" ") if w]', "return text.split()"),
        (W, *_after('    assert split_words("a b  c") == ["a", "b", "c"]\n',
                    _test("test_split_words_tabs_and_newlines",
                          'assert split_words("a\\tb\\nc") == ["a", "b", "c"]'))),
    ), fail_to_pass=(f"{W}::test_split_words_tabs_and_newlines",),
        pass_to_pass=(f"{W}::test_split_words_spaces", f"{W}::test_longest_word")),
    Step("S1", "2024-02-10T10:00:00Z", "stats: mean is a true division", (
        ("tally/stats.py", "return total(values) // len(values)", "return total(values) / len(values)"),
        (S, *_after("    assert mean([2, 4]) == 3\n",
                    _test("test_mean_is_exact", "assert mean([1, 2]) == 1.5"))),
    ), fail_to_pass=(f"{S}::test_mean_is_exact",), pass_to_pass=(f"{S}::test_mean_basic",)),
    Step("W2", "2024-02-20T10:00:00Z", "words, fmt: unique words ignore case", (
        ("tally/words.py", "        key = w\n", "        key = w.lower()\n"),
        ("tally/fmt.py", "sorted(unique_words(words))", "sorted(unique_words(words), key=str.lower)"),
        (W, *_after('    assert unique_words(["a", "b", "a"]) == ["a", "b"]\n',
                    _test("test_unique_words_ignores_case",
                          'assert unique_words(["Apple", "apple", "APPLE"]) == ["Apple"]'))),
        (F, *_after('    assert format_unique(["b", "a", "b"]) == "a, b"\n',
                    _test("test_format_unique_ignores_case",
                          'assert format_unique(["b", "B", "C", "a"]) == "a, b, C"'))),
    ), fail_to_pass=(f"{W}::test_unique_words_ignores_case", f"{F}::test_format_unique_ignores_case"),
        pass_to_pass=(f"{W}::test_unique_words_basic", f"{F}::test_format_unique_basic")),
    Step("reword", "2024-03-01T10:00:00Z", "tests: spell out the padding", (
        (F, '    assert pad("ab", 4) == "ab  "\n', '    assert pad("ab", 4) == "ab" + " " * 2\n'),
    ), bug=False),
    Step("regression", "2024-03-05T10:00:00Z", "words: strip_punct only needs trailing punctuation", (
        ("tally/words.py", "return word.strip(PUNCT)", "return word.rstrip(PUNCT)"),
    ), bug=False),
    Step("K", "2024-03-10T10:00:00Z", "stats: median of an even count", (
        ("tally/stats.py", "    mid = len(ordered) // 2\n",
         ("    mid = len(ordered) // 2\n    if len(ordered) % 2 == 0:\n"
          "        return (ordered[mid - 1] + ordered[mid]) / 2\n")),
        (S, *_after("    assert variance([2, 2, 2]) == 0\n",
                    _test("test_median_of_sample", *SAMPLE_CHECKS, "assert median(data) == 5")
                    + _test("test_median_even_count", "assert median([4, 1, 3, 2]) == 2.5"))),
    ), fail_to_pass=(f"{S}::test_median_even_count",),
        pass_to_pass=(f"{S}::test_median_odd", f"{S}::test_median_of_sample")),
    Step("W3", "2024-03-20T10:00:00Z", "words: strip leading punctuation again", (
        ("tally/words.py", "return word.rstrip(PUNCT)", "return word.strip(PUNCT)"),
        (W, *_after('    assert strip_punct("end.") == "end"\n',
                    _test("test_strip_punct_leading", 'assert strip_punct("...wait") == "wait"'))),
    ), fail_to_pass=(f"{W}::test_strip_punct_leading",), pass_to_pass=(f"{W}::test_strip_punct_basic",)),
    Step("F1", "2024-04-01T10:00:00Z", "fmt: pad cuts long text", (
        ("tally/fmt.py", 'return text + " " * (width - len(text))', 'return (text + " " * width)[:width]'),
        (F, *_after('    assert pad("ab", 4) == "ab" + " " * 2\n',
                    _test("test_pad_cuts_long_text", 'assert pad("abcdef", 3) == "abc"'))),
    ), fail_to_pass=(f"{F}::test_pad_cuts_long_text",), pass_to_pass=(f"{F}::test_pad_basic",)),
    Step("M", "2024-04-10T10:00:00Z", "stats: mode breaks ties by the smallest value", (
        ("tally/stats.py", "return max(counts, key=lambda v: counts[v])",
         "return min(counts, key=lambda v: (-counts[v], v))"),
        # one more check inside test_median_of_sample, amid lines that test_total_of_sample has too
        (S, MEDIAN_TAIL, MEDIAN_TAIL.replace("== 9\n", "== 9\n    assert data.count(5) == 2\n")),
        ("tests/test_mode.py", "", "from tally.stats import mode\n" + _test("test_mode_tie_picks_smallest",
                                                                          "assert mode([2, 1, 2, 1]) == 1")),
    ), fail_to_pass=("tests/test_mode.py::test_mode_tie_picks_smallest",),
        pass_to_pass=(f"{S}::test_mode_single", f"{S}::test_median_of_sample")),
    Step("F2", "2024-04-20T10:00:00Z", "fmt: spaces around the bars", (
        ("tally/fmt.py", 'return "|".join(cells)', 'return " | ".join(cells)'),
        (F, *_after('    assert format_row(["a"]) == "a"\n',
                    _test("test_format_row_spaces_around_bars", 'assert format_row(["a", "b"]) == "a | b"'))),
    ), fail_to_pass=(f"{F}::test_format_row_spaces_around_bars",),
        # M's test exists at F2's base but not at an earlier c*: a group's check (2) drops it there
        pass_to_pass=(f"{F}::test_format_row_single", "tests/test_mode.py::test_mode_tie_picks_smallest")),
    Step("S4", "2024-05-01T10:00:00Z", "stats: population variance", (
        ("tally/stats.py", "/ (len(values) - 1)", "/ len(values)"),
        (S, "from tally.stats", "import pytest\n\nfrom tally.stats"),
        (S, *_after("    assert total(data) == 23\n",
                    '\n\n@pytest.mark.parametrize("values, expected", [([1, 3], 1.0), ([0, 4, 8], 32 / 3)])\n'
                    "def test_variance_population(values, expected):\n"
                    "    assert variance(values) == pytest.approx(expected)\n")),
    ), fail_to_pass=(f"{S}::test_variance_population[values0-1.0",),  # truncated, as in some SWE-bench logs
        pass_to_pass=(f"{S}::test_variance_constant",)),
    Step("F3", "2024-04-25T10:00:00Z", "fmt: rows of numbers", (
        ("tally/fmt.py", 'return "|".join(cells)', 'return "|".join(str(c) for c in cells)'),
        ("tests/test_fmt_cells.py", "", "from tally.fmt import format_row\n" + _test(
            "test_format_row_accepts_numbers", 'assert format_row([1, "x"]).replace(" ", "") == "1|x"')),
    ), fail_to_pass=("tests/test_fmt_cells.py::test_format_row_accepts_numbers",), branch_from="M"),
)
BUGS = tuple(s.name for s in STEPS if s.bug)


@dataclass
class Fixture:
    repos: Path  # the folder of clones (owner__name), as `cw load repair --opt repos=` takes it
    rows: list[dict] = field(default_factory=list)
    ids: dict[str, str] = field(default_factory=dict)  # bug name -> instance_id
    commits: dict[str, str] = field(default_factory=dict)  # step name -> commit id

    @property
    def clone(self) -> Path:
        return self.repos / FOLDER

    def atom(self, name: str) -> str:
        return f"repair/{self.ids[name]}"

    def write_rows(self, path: Path, names: tuple[str, ...] = BUGS) -> Path:
        wanted = {self.ids[n] for n in names}
        path.write_text("".join(json.dumps(r) + "\n" for r in self.rows if r["instance_id"] in wanted))
        return path


def build(root: Path) -> Fixture:
    """The repository at root/repos/tally__tally, with its history, and the rows of its ten bugs."""
    fixture = Fixture(root / "repos")
    repo = fixture.clone
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    for path, text in INITIAL.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    fixture.commits["initial"] = _commit(repo, "initial version", "2024-01-01T10:00:00Z")
    for number, step in enumerate(STEPS, 1):
        if step.branch_from:
            _git(repo, "checkout", "-q", "-b", f"fix-{step.name.lower()}", fixture.commits[step.branch_from])
        base = _git(repo, "rev-parse", "HEAD")
        for path, old, new in step.edits:
            file = repo / path
            text = file.read_text() if file.exists() else ""
            assert text.count(old) == 1 or not old, f"{step.name}: {old!r} is not once in {path}"
            file.write_text(text.replace(old, new) if old else new)
        fixture.commits[step.name] = fix = _commit(repo, step.message, step.date)
        if step.branch_from:
            _git(repo, "checkout", "-q", "main")
        if step.bug:
            fixture.ids[step.name] = f"{FOLDER}-{number}"
            # The public datasets store the test lists as JSON strings; every other row does the same here.
            as_strings = number % 2 == 1
            setup = fixture.commits["initial"]
            fixture.rows.append(_row(repo, fixture.ids[step.name], step, base, fix, setup, as_strings))
    return fixture


def composed(root: Path, home: Path, names: tuple[str, ...] = ("W1", "W2"), check: bool = False):
    """The atoms `names` of a fixture built under root, composed by the repair domain with CODEWALK_HOME=home
    (the red-team and guard modules' task); with check, through check (2), which derives PASS_TO_PASS.
    Returns (fixture, composite)."""
    import pytest

    from codewalk.domains.repair import RepairDomain

    fixture = build(root)
    rows = fixture.write_rows(root / "rows.jsonl", names)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CODEWALK_HOME", str(home))
        domain = RepairDomain()
        atoms = list(domain.load(rows, {"repos": str(fixture.repos)}))
        composite = domain.compose(atoms)
        if check:
            assert domain.check_reference(composite, atoms).ok
    return fixture, composite


def _row(repo: Path, instance_id: str, step: Step, base: str, fix: str, setup: str, as_strings: bool) -> dict:
    encode = json.dumps if as_strings else list
    return {
        "instance_id": instance_id, "repo": REPO, "base_commit": base,
        "patch": _git(repo, "diff", base, fix, "--", "tally", strip=False),
        "test_patch": _git(repo, "diff", base, fix, "--", "tests", strip=False),
        "FAIL_TO_PASS": encode(list(step.fail_to_pass)), "PASS_TO_PASS": encode(list(step.pass_to_pass)),
        "created_at": step.date, "problem_statement": step.message, "hints_text": "", "version": "0.1",
        "environment_setup_commit": setup, "install_config": INSTALL_CONFIG,
    }


def _commit(repo: Path, message: str, date: str) -> str:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message, env={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})
    return _git(repo, "rev-parse", "HEAD")


def _git(repo: Path, *args: str, env: dict | None = None, strip: bool = True) -> str:
    identity = {"GIT_AUTHOR_NAME": "Tally Dev", "GIT_AUTHOR_EMAIL": "dev@tally.test",
                "GIT_COMMITTER_NAME": "Tally Dev", "GIT_COMMITTER_EMAIL": "dev@tally.test",
                "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, timeout=60, check=True,
                          env={**os.environ, **identity, **(env or {})})
    return done.stdout.strip() if strip else done.stdout
