"""The plugin contract on `Domain`: declared loader options, checked before a loader runs; the export
hook declared with a default; the closed sets a built-in domain must stay inside."""

from __future__ import annotations

import pytest

from codewalk.domain import Domain, domain_names, get_domain
from codewalk.errors import UsageError
from codewalk.loading import load
from codewalk.records import REL_TYPES
from tests import toy

BUILT_IN = ["demo", "repair", "proofs", "clones", "complexity"]


@pytest.mark.parametrize("name", BUILT_IN)
def test_a_mistyped_load_option_is_refused_before_the_loader_runs(name, tmp_path):
    domain = get_domain(name)
    with pytest.raises(UsageError, match=r"unknown --opt repo\b.*known: "):
        domain.parse_options({"repo": str(tmp_path)})  # e.g. `--opt repo=` for `--opt repos=`


def test_load_refuses_an_unknown_option_and_writes_nothing(store, tmp_path):
    source = tmp_path / "atoms.txt"
    source.write_text("a\nb\nc\n")
    with pytest.raises(UsageError, match="unknown --opt colour for toychain"):
        load(store, "toychain", source, {"colour": "red"})
    assert store.atom_index("toychain") == []


def test_declared_options_are_converted_to_their_type_and_choices_are_checked():
    clones, proofs = get_domain("clones"), get_domain("proofs")
    assert clones.parse_options({"seed": "7", "pairs": "1,2"}) == {"seed": 7, "pairs": "1,2"}
    with pytest.raises(UsageError, match="needs int"):
        clones.parse_options({"inputs": "many"})
    with pytest.raises(UsageError, match="one of verus, acsl"):
        proofs.parse_options({"backend": "coq"})


@pytest.mark.parametrize("name", BUILT_IN)
def test_built_in_domains_stay_inside_the_closed_sets(name):
    domain = get_domain(name)
    assert name in domain_names() and domain.relation in REL_TYPES and domain.composer_version
    assert domain.data_source, "exported rows say where their atoms come from"


def test_export_row_is_declared_on_domain_with_an_empty_default():
    assert toy.ToyChain().export_row is not None and Domain.export_row(toy.ToyChain(), None) == {}
    assert type(get_domain("repair")).export_row is not Domain.export_row  # repair adds SWE-bench fields


class _Counting(toy.ToyChain):
    """Reports each atom it loads through the progress its settings carry."""

    name = "counting"

    def load(self, source, options):
        atoms = list(super().load(source, options))
        for done in range(1, len(atoms) + 1):
            if self.settings.on_progress:
                self.settings.on_progress(done, len(atoms))
        yield from atoms


DOMAINS = (_Counting,)


def test_a_loaders_progress_reaches_it_through_its_settings(tmp_path):
    from codewalk.loading import read

    source = tmp_path / "atoms.txt"
    source.write_text("a\nb\nc\n")
    seen: list[tuple[int, int]] = []
    read("counting", source, on_progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
    assert not hasattr(Domain, "on_progress")  # no attribute set on an instance from outside


def test_no_module_sets_an_attribute_on_a_domain_from_outside():
    """What a domain is built with travels in its Settings (issue 45): no `domain.x = ...` in the library."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "codewalk"
    found = [f"{path.relative_to(root)}:{node.lineno}" for path in sorted(root.rglob("*.py"))
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
             for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
             if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
             and "domain" in target.value.id.lower()]
    assert not found, found
