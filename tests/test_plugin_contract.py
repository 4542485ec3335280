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
