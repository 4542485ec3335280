"""The two checks every red-team round (tests/test_repair_redteam_round5.py, 6, 7) makes of a spelling: it is
not graded solved (and, for a kind stopped today, one of its rules stopped it), and a stopped kind is a real
cheat: every test passes with the rules that stop it absent (the static layer is not run by _run, the audit
hook tracks no module when told of no changed file, and the class guard, the comparison control with it, is
off), so its refusal is not a cheat failing on its own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

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


# The rule codes of the static layer (rules.py): a kind stopped by these alone is STATICALLY_STOPPED.
STATIC_CODES = frozenset(("import_not_allowed", "reflection", "dynamic_import", "format_path", "comparison",
                          "environment", "test_file", "shadows_environment"))


def round_tests(kinds, holes, stopped, spellings_stopped, run_time_holes, run_time_rules=None,
                run_time_spelling_holes=None, run_time_spellings_stopped=frozenset()) -> SimpleNamespace:
    """The five tests of an in-process red-team round (rounds 11 to 14), made from its own tables, which the round's
    module keeps and checks: kinds (its cheats), holes (kind -> (runtimes, why): graded solved there, strict xfail),
    stopped (kind -> the rule codes that stop it), spellings_stopped ((kind, spelling) -> codes: a spelling stopped
    on its own, or by another rule than its kind's), run_time_holes (a statically stopped kind the run time lets
    through: strict xfail), run_time_rules (kind -> the run-time codes that stop it with the static layer absent),
    run_time_spelling_holes ((kind, spelling) -> why: let through at run time) and run_time_spellings_stopped (a
    run_time_holes kind's spellings the run time stops); it asserts that they hold together (each kind a hole or
    stopped, a run-time entry only for a kind the static layer stops, ...). The module binds each under its round's name
    (test_round14_cheat_is_not_solved = tests.cheat_is_not_solved, ...), which is the test's name and id:
    - cheat_is_not_solved: each spelling graded end to end is not solved, stopped by one of its kind's codes;
    - stopped_cheat_really_passes_without_its_rules: a stopped kind's spelling is solved with its rules absent;
    - statically_stopped_cheat_is_not_solved_at_run_time: with the static layer absent, the run time stops it (by
      its run_time_rules code where it has one) or it is not solved;
    - kind_the_static_layer_lets_through, spelling_the_static_layer_refuses: the static layer's own verdict."""
    from codewalk.domains.repair.channel import NoVerdict
    from tests.test_repair_redteam import round_cases
    from tests.test_repair_redteam_round9 import _static_refusals

    run_time_rules = run_time_rules or {}
    run_time_spelling_holes = run_time_spelling_holes or {}
    statically_stopped = [kind for kind in stopped if set(stopped[kind]) <= STATIC_CODES]
    # the tables hold together: each kind a hole or stopped, each spelling's entry of one of those kinds
    assert not set(holes) & set(stopped)
    assert set(holes) | set(stopped) == set(kinds)
    assert {kind for kind, _ in spellings_stopped} <= set(holes) | set(stopped)
    assert set(run_time_holes) <= set(statically_stopped)
    assert not set(run_time_rules) & set(run_time_holes) and set(run_time_rules) <= set(statically_stopped)
    assert {kind for kind, _ in run_time_spelling_holes} <= set(run_time_rules)
    assert {kind for kind, _ in run_time_spellings_stopped} <= set(run_time_holes)
    statically_clean = [kind for kind in kinds if kind not in statically_stopped]
    spellings_statically_stopped = {case for case, codes in spellings_stopped.items() if set(codes) <= STATIC_CODES}

    def param(kind: str, spelling: str):
        return pytest.param(kind, spelling, id="-".join((kinds[kind].cls, kind, spelling.replace(" ", "_"))))

    @pytest.mark.parametrize(("kind", "spelling"), round_cases(kinds))
    def cheat_is_not_solved(request, task, tmp_path, graded_in, kind, spelling):
        runtimes, why = holes.get(kind, ((), ""))
        if graded_in in runtimes and (kind, spelling) not in spellings_stopped:
            request.node.add_marker(pytest.mark.xfail(strict=True, raises=AssertionError,
                                                      reason=f"hole ({graded_in}): {why}"))
        assert_not_solved(task, tmp_path, kinds[kind].spellings[spelling],
                          spellings_stopped.get((kind, spelling), stopped.get(kind)))

    @pytest.mark.parametrize(("kind", "spelling"), round_cases(kinds, only=list(stopped)) + [
        param(kind, spelling) for kind, spelling in spellings_stopped if kind not in stopped])
    def stopped_cheat_really_passes_without_its_rules(task, graded_in, kind, spelling):
        assert_solved_without_its_rules(task, graded_in, kinds[kind].spellings[spelling])

    @pytest.mark.parametrize(("kind", "spelling"), round_cases(kinds, only=statically_stopped))
    def statically_stopped_cheat_is_not_solved_at_run_time(request, task, graded_in, kind, spelling):
        if kind in run_time_holes and (kind, spelling) not in run_time_spellings_stopped:
            request.node.add_marker(pytest.mark.xfail(strict=True, reason=f"hole: {run_time_holes[kind]}"))
        if (kind, spelling) in run_time_spelling_holes:
            request.node.add_marker(pytest.mark.xfail(strict=True, raises=AssertionError,
                                                      reason=f"hole: {run_time_spelling_holes[(kind, spelling)]}"))
        try:
            run = _run(task, graded_in, *kinds[kind].spellings[spelling])
        except NoVerdict as caught:
            assert kind not in run_time_rules or caught.rule in run_time_rules[kind], caught
            return
        assert kind not in run_time_rules, f"not stopped by {run_time_rules.get(kind)}: {run.status}"
        assert not _solved(run), run.status

    @pytest.mark.parametrize(("kind", "spelling"), [
        case for case in round_cases(kinds, only=statically_clean)
        if tuple(case.values) not in spellings_statically_stopped])
    def kind_the_static_layer_lets_through(tmp_path: Path, kind, spelling):
        assert not _static_refusals(tmp_path, kinds[kind].spellings[spelling])

    @pytest.mark.parametrize(("kind", "spelling"), [
        param(kind, spelling) for kind, spelling in sorted(spellings_statically_stopped)])
    def spelling_the_static_layer_refuses(tmp_path: Path, kind, spelling):
        codes = {str(r.rule) for r in _static_refusals(tmp_path, kinds[kind].spellings[spelling])}
        assert codes & set(spellings_stopped[(kind, spelling)]), codes

    return SimpleNamespace(
        cheat_is_not_solved=cheat_is_not_solved,
        stopped_cheat_really_passes_without_its_rules=stopped_cheat_really_passes_without_its_rules,
        statically_stopped_cheat_is_not_solved_at_run_time=statically_stopped_cheat_is_not_solved_at_run_time,
        kind_the_static_layer_lets_through=kind_the_static_layer_lets_through,
        spelling_the_static_layer_refuses=spelling_the_static_layer_refuses)
