"""The two checks every red-team round (tests/test_repair_redteam_round5.py, 6, 7) makes of a spelling: it is
not graded solved (and, for a kind stopped today, one of its rules stopped it), and a stopped kind is a real
cheat: every test passes with the rules that stop it absent (the static layer is not run by _run, the audit
hook tracks no module when told of no changed file, and the class guard, the comparison control with it, is
off), so its refusal is not a cheat failing on its own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from tests.test_repair_redteam import _grade
from tests.test_repair_runtime_guard import _run, _solved, _without_class_guard


def assert_not_solved(task, tmp_path, edits: Sequence, rules: Sequence[str | None] | None = None) -> None:
    verdict = _grade(task, tmp_path, *edits)
    assert not verdict.ok, f"graded solved: {verdict.detail}"
    if rules is not None:
        assert verdict.evidence.get("rule") in rules, (verdict.reason, verdict.evidence, verdict.detail)


def _without_its_rules(into: Path) -> None:
    """The harness with the class guard off, the items' guard off (round 12c: each item runs what collection
    found), pytest's compiled copies of test modules read as pytest reads them (the harness's reader that always
    misses left out), the kernel guard (Landlock: /proc and the test files) off, the digests comparing content only
    (run.py's IDENTITY) and the runner dumpable (boot.py's _not_dumpable: a non-dumpable runner's /proc/self/mem is
    root's, which the tests' user in a container cannot open)."""
    from codewalk.domains.repair import channel

    _without_class_guard(into)
    boot = into / channel.BOOT
    text = boot.read_text(encoding="utf-8")
    assert "\n    _no_compiled_test_modules()\n" in text and "\nITEMS_GUARD = True" in text
    assert "    memory = _not_dumpable()" in text  # and the runner left dumpable (round 12b)
    boot.write_text(text.replace("\n    _no_compiled_test_modules()\n", "\n").replace(
        "\nITEMS_GUARD = True", "\nITEMS_GUARD = False").replace(
        "    memory = _not_dumpable()", '    memory = "dumpable: the guard is off"'), encoding="utf-8")
    runner = into / channel.RUNNER  # and run.py's kernel guard of /proc (harness/confine.py)
    text = runner.read_text(encoding="utf-8")
    assert "\nCONFINE = True" in text and "\nIDENTITY = True" in text  # and the digests' identity: content only
    runner.write_text(text.replace("\nCONFINE = True", "\nCONFINE = False").replace(
        "\nIDENTITY = True", "\nIDENTITY = False"), encoding="utf-8")


def assert_solved_without_its_rules(task, runtime: str, edits: Sequence) -> None:
    from codewalk.domains.repair import channel

    guarded = channel._guarded
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(channel, "prepare", _without_its_rules)
        # lines on the channel that do not verify counted as before (ignored): the cheats silence the plugin so
        patch.setattr(channel, "_guarded", lambda report, tail: guarded(replace(report, unsigned=0), tail))
        assert _solved(_run(task, runtime, *edits, guarded=False))
