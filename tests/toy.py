"""Toy domains for unit tests of the generic machinery: its checks are plain Python, driven by the
atoms' payloads, so a test can make any admission outcome happen on purpose."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from codewalk.domain import Domain
from codewalk.errors import InfraError, InputError
from codewalk.records import Atom, Check, Composite, Edge


def atoms(domain: str, n: int, **payload) -> list[Atom]:
    return [Atom(f"{domain}/{i:03d}", domain, {"title": f"a{i}"}, dict(payload)) for i in range(n)]


class _Toy(Domain):
    composer_version = "toy-1"

    def load(self, source: Path, options: dict[str, str]) -> Iterator[Atom]:
        for line_no, line in enumerate(source.read_text().splitlines(), 1):
            name, _, flags = line.partition(" ")
            if not name.isidentifier():
                raise InputError(str(source), line_no, f"bad atom name {name!r}")
            yield Atom(f"{self.name}/{name}", self.name, {"title": name}, {"flags": flags.split()})

    def edges(self, atoms: Sequence[Atom]) -> list[Edge]:
        # a ring and its chords: every atom i relates to i+1 and i+2 (mod n)
        ids = sorted(a.id for a in atoms)
        out = set()
        for i, a in enumerate(ids):
            for k in (1, 2):
                b = ids[(i + k) % len(ids)]
                if a != b:
                    out.add(Edge(*sorted((a, b)), "SHARES_FILE") if self.symmetric else Edge(a, b, "FEEDS"))
        return sorted(out, key=lambda e: (e.src, e.dst))

    def compose(self, atoms: Sequence[Atom]) -> Composite:
        if any("compose_crash" in a.payload.get("flags", []) for a in atoms):
            raise InfraError("git timed out while composing")  # repair's compose runs git
        ids = [a.id for a in atoms]
        return Composite(f"solve {ids}", f"ref {ids}", {"ids": ids})

    def check_reference(self, composite, atoms) -> Check:
        flags = {f for a in atoms for f in a.payload.get("flags", [])}
        if "crash" in flags:
            raise InfraError("verifier crashed")
        return Check("badref" not in flags, "reference ran")

    def check_unsolved(self, composite, atoms, position) -> Check:
        return Check("solved" not in atoms[position].payload.get("flags", []), f"position {position}")


class ToySym(_Toy):
    name = "toysym"
    relation = "SHARES_FILE"


class ToyChain(_Toy):
    name = "toychain"
    relation = "FEEDS"


# Registered for every test by conftest's `_domains` fixture, and gone after it.
DOMAINS = (ToySym, ToyChain)
