"""What a Verus candidate may change: the task token for token, proof only in the slots the task stripped.

`structure` is the Verus grader's guard (verus.grade runs Verus only on what it accepts, rebuilt from the
task's own parts). It reads Rust with the Verus-Bench reader's scanner (codewalk.loaders.verus_scan), the
same one that made the task, so the guard and the reader cannot disagree on what a token is or where a
bracket group or a proof statement ends.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from codewalk.loaders.verus_scan import (
    FN_CLAUSES,
    LOOP_CLAUSES,
    Token,
    close,
    first_group,
    last_group,
    lex,
    render,
    statement_end,
    top_level,
)
from codewalk.records import Reason

# -- what a candidate may change -------------------------------------------------------------------
# A candidate is the task token for token (comments and layout aside), except in these slots, which
# are what the task removed from the reference (strip() in the loader):
# - in a component's header: `ensures` and `decreases` clauses;
# - in its loops' headers: `invariant`, `invariant_except_break`, `ensures` and `decreases` clauses;
# - as statements in its body: `proof { .. }` blocks, `assert(..)` / `assert forall ..` (with `by`),
#   `reveal(..)` / `reveal_with_fuel(..)`, `let ghost` / `let tracked`;
# - as new items: lemmas, i.e. plain `proof fn`s with a body (the task removed the reference's lemmas).
# What a slot holds must be proof (_slot_refusal); anything else is refused, naming what was found.
FN_SLOTS = ("ensures", "decreases")
LOOP_SLOTS = LOOP_CLAUSES  # every clause of a loop's header is proof
STATEMENT_SLOTS = {"assert": ("(", "forall"), "reveal": ("(",), "reveal_with_fuel": ("(",), "let": ("ghost", "tracked")}
MACROS = ("seq", "set", "map", "calc", "assert_seqs_equal", "assert_sets_equal", "assert_maps_equal",
          "assert_multisets_equal", "assert_by_contradiction")  # vstd's proof macros
# words that define items, leave ghost code or escape the checks: never in a proof slot, never new anywhere
KEYWORDS = ("unsafe", "extern", "fn", "struct", "enum", "union", "impl", "trait", "mod", "use", "static", "const",
            "type", "macro_rules", "broadcast", "axiom", "uninterp", "global", "layout", "assume_specification",
            "async", "await", "return", "break", "continue", "yield", "include", "include_str", "cfg")
# parts of the names of Verus's escapes (assume, admit, external_body, exec_allows_no_decreases_clause,
# builtin::assume_, ...): an identifier holding one that the task does not have is refused
# (not `axiom`: vstd's own axiom_* lemmas are its trusted base, callable like any lemma; the keyword is refused)
BANNED = ("assume", "admit", "builtin", "verifier", "external", "exec_allows", "no_decreases", "trusted")
ITEM_WORDS = {"#", "pub", "fn", "spec", "proof", "open", "closed", "exec", "struct", "enum", "union", "impl", "const",
              "use", "type", "trait", "broadcast", "global", "mod", "uninterp", "axiom", "static", "extern", "unsafe",
              "macro_rules", "layout", "assume_specification", "tracked"}


@dataclass(frozen=True)
class Accepted:
    components: list[str]  # the candidate's components, in the task's order, rebuilt from their tokens
    lemmas: list[str]  # its new lemmas, rebuilt the same way


@dataclass(frozen=True)
class Refused:
    why: str
    reason: Reason = Reason.BYPASS  # or MALFORMED_CANDIDATE


@dataclass(frozen=True)
class _Item:
    key: tuple[str, str]  # (kind, name): ("fn", "f1_max"), ("struct", "S"), ("item", "") for anything else
    toks: list[Token]


def structure(task: str, candidate: str, components: Sequence[str]) -> Accepted | Refused:
    """Compare a candidate with its task, token for token outside the slots a proof may fill."""
    try:
        theirs, mine = lex(task), lex(candidate)
        if added := _added(theirs, mine):
            return Refused(f"the candidate adds {', '.join(added[:4])}, which the task does not have "
                           "and a proof may not use")
        t_in, m_in = _verus_block(theirs), _verus_block(mine)
        if m_in is None:
            return Refused("the candidate has no verus! { } block", Reason.MALFORMED_CANDIDATE)
        assert t_in is not None, "a task always has its verus! block"
        outside_t, outside_m = theirs[:t_in[0]] + theirs[t_in[1]:], mine[:m_in[0]] + mine[m_in[1]:]
        if why := _differs(outside_m, outside_t, "the text outside the verus! block was changed"):
            return Refused(why)
        return _compare(_items(theirs[t_in[0]:t_in[1]]), _items(mine[m_in[0]:m_in[1]]), components)
    except ValueError as e:  # a literal not lexed, brackets that do not balance, a function without parameters
        return Refused(f"the candidate cannot be read: {e}", Reason.MALFORMED_CANDIDATE)


def _compare(t_items: list[_Item], m_items: list[_Item], components: Sequence[str]) -> Accepted | Refused:
    """The task's items, each found once in the candidate (in any order) and compared; new items are lemmas."""
    given = {it.key: it for it in t_items}
    seen: dict[tuple[str, str], _Item] = {}
    new: list[_Item] = []
    for it in m_items:
        if it.key in given and it.key not in seen:
            seen[it.key] = it
        elif it.key in given:
            return Refused(f"the candidate defines {it.key[1]} twice")
        else:
            new.append(it)
    if missing := [key[1] or key[0] for key in given if key not in seen]:
        return Refused(f"the candidate omits {', '.join(missing)}", Reason.MALFORMED_CANDIDATE)
    rebuilt = []
    for key, it in given.items():
        name = key[1]
        if key[0] == "fn" and name in components:
            if why := _component_refusal(seen[key].toks, it.toks, name):
                return Refused(why)
            rebuilt.append(render(seen[key].toks))
        elif why := _differs(seen[key].toks, it.toks, f"{_what(name)} was changed"):
            return Refused(why)
    lemmas = []
    for it in new:
        if why := _lemma_refusal(it, {key[1] for key in given}):
            return Refused(why)
        lemmas.append(render(it.toks))
    return Accepted(rebuilt, lemmas)


def _what(name: str) -> str:
    if re.fullmatch(r"step\d+", name):
        return f"the step predicate {name}"
    return "chain_driver" if name == "chain_driver" else f"the given item {name or '(unnamed)'}"


def _verus_block(toks: list[Token]) -> tuple[int, int] | None:
    """[start, end) of the tokens inside the first `verus! { .. }`."""
    for k in range(len(toks) - 2):
        if [t.text for t in toks[k:k + 3]] == ["verus", "!", "{"]:
            return k + 3, _close(toks, k + 2)
    return None


def _close(toks: list[Token], at: int) -> int:
    """Index of the bracket closing the one at `at`."""
    end = close([t.text for t in toks], at)
    if end is None:
        raise ValueError(f"line {toks[at].line}: unbalanced {toks[at].text!r}")
    return end


def _items(toks: list[Token]) -> list[_Item]:
    """The items of a verus! block: each ends at a `;` or at a `}` back at depth 0 that another item follows."""
    items, start, depth = [], 0, 0
    for j, t in enumerate(toks):
        if t.text in "([{":
            depth += 1
        elif t.text in ")]}":
            depth -= 1
            if depth < 0:
                raise ValueError(f"line {t.line}: unbalanced {t.text!r}")
        if depth == 0 and (t.text == ";" or t.text == "}" and _item_follows(toks, j + 1)):
            items.append(_Item(_key(toks[start:j + 1]), toks[start:j + 1]))
            start = j + 1
    if depth:
        raise ValueError(f"line {toks[-1].line}: unbalanced brackets")
    if start < len(toks):
        raise ValueError(f"line {toks[start].line}: an item does not end inside the verus! block")
    return items


def _item_follows(toks: list[Token], k: int) -> bool:
    if k >= len(toks):
        return True
    if k + 1 < len(toks) and toks[k + 1].text == "!":  # a macro item: name!
        return True
    return toks[k].text in ITEM_WORDS


def _key(toks: list[Token]) -> tuple[str, str]:
    words = [t.text for t in _skip_attributes(toks)]
    for kind in ("fn", "struct", "enum", "union", "trait", "mod", "const", "static", "type"):
        if kind in words[:8] and words.index(kind) + 1 < len(words):
            return kind, words[words.index(kind) + 1]
    return "item", " ".join(words[:3])


def _skip_attributes(toks: list[Token]) -> list[Token]:
    k = 0
    while k + 1 < len(toks) and toks[k].text == "#":
        k = _close(toks, k + (2 if toks[k + 1].text == "!" else 1)) + 1
    return toks[k:]


def _differs(mine: list[Token], theirs: list[Token], what: str) -> str | None:
    """None if the tokens are the same, else `what` with where they first differ."""
    a, b = [t.text for t in mine], [t.text for t in theirs]
    if a == b:
        return None
    k = next((j for j, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    line = mine[min(k, len(mine) - 1)].line if mine else 0
    return (f"{what} (line {line}): `{' '.join(a[max(k - 4, 0):k + 8])}` "
            f"where the task has `{' '.join(b[max(k - 4, 0):k + 8])}`")


def _added(task: list[Token], candidate: list[Token]) -> list[str]:
    """What the candidate uses more often than the task: attributes, macros, item or escape keywords,
    identifiers naming an escape, string literals; each named as written."""
    given = Counter(_notable(task, set()))
    names = {t.text for t in task if _is_word(t.text)}
    out = []
    for what, count in Counter(_notable(candidate, names)).items():
        if count > given[what]:
            out.append(what)
    return out


def _notable(toks: list[Token], allowed_names: set[str]) -> list[str]:
    """The constructs a proof may not add, as they are written (`#[verifier::external_body]`, `include!`, ...)."""
    out, k = [], 0
    while k < len(toks):
        t = toks[k]
        nxt, after = (toks[j].text if j < len(toks) else "" for j in (k + 1, k + 2))
        if t.text == "#" and nxt in ("[", "!"):
            try:
                end = _close(toks, k + (2 if nxt == "!" else 1))
            except ValueError:
                end = len(toks) - 1
            inside = [x.text for x in toks[k:end + 1]]
            # #[trigger], #![trigger ..] and #![auto] are the only attributes a proof may hold
            trigger = inside in (["#", "[", "trigger", "]"], ["#", "!", "[", "auto", "]"]) or inside[1:4] == ["!", "[", "trigger"]
            if not trigger:  # reported whole: what it holds is not reported again
                out.append(f"the attribute `{''.join(inside)}`")
                k = end
        elif _is_word(t.text):
            if nxt == "!" and after in ("(", "[", "{") and t.text not in MACROS:
                out.append(f"the macro `{t.text}!`")
            elif t.text in KEYWORDS and t.text != "fn":
                out.append(f"`{t.text}`")
            elif t.text not in allowed_names and any(b in t.text.lower() for b in BANNED):
                out.append(f"`{t.text}`")
        elif t.text[:1] == '"' or t.text[:2] == 'b"':
            out.append(f"the string literal {t.text[:40]}")
        k += 1
    return out


def _is_word(text: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z_]\w*", text))


def _component_refusal(mine: list[Token], theirs: list[Token], name: str) -> str | None:
    """A component minus its proof slots must be the task's component; what the slots hold must be proof."""
    m_parts, t_parts = _fn_parts(mine), _fn_parts(theirs)
    if isinstance(m_parts, str):
        return f"{name} cannot be read: {m_parts}"
    assert not isinstance(t_parts, str), t_parts
    (m_head, m_clauses, m_body), (t_head, t_clauses, t_body) = m_parts, t_parts
    if why := _differs(m_head, t_head, f"the signature of {name} was changed"):
        return why
    kept = [(word, toks) for word, toks in m_clauses if word not in FN_SLOTS]
    if [w for w, _ in kept] != [w for w, _ in t_clauses]:
        extra = [w for w, _ in kept if w not in [x for x, _ in t_clauses]]
        if extra:
            return f"{name} adds a `{extra[0]}` clause: only ensures and decreases may be added to a function"
        return f"the requires clauses of {name} were changed (a clause is missing or moved)"
    for (word, toks), (_, given) in zip(kept, t_clauses):
        if why := _differs(toks, given, f"the {word} clauses of {name} were changed"):
            return why
    for word, toks in m_clauses:
        if word in FN_SLOTS and (why := _slot_refusal(toks, f"the {word} clause of {name}", ensures=word == "ensures")):
            return why
    m_fixed, m_slots = _body_slots(m_body)
    t_fixed, _ = _body_slots(t_body)
    if why := _differs(m_fixed, t_fixed, f"the code of {name} was changed"):
        return why
    for what, toks in m_slots:
        if why := _slot_refusal(toks, f"{what} in {name}"):
            return why
    return None


def _fn_parts(toks: list[Token]) -> tuple[list[Token], list[tuple[str, list[Token]]], list[Token]] | str:
    """(signature, [(clause word, clause tokens)], body with its braces) of a function item."""
    words = [t.text for t in toks]
    if "fn" not in words or words[-1] != "}":
        return "not a function with a body"
    paren = words.index("(", words.index("fn"))  # a ValueError without one: the candidate cannot be read
    after = _close(toks, paren) + 1
    body = last_group(words, after)
    if body is None:
        return "no body"
    marks = [k for k in top_level(words, after, body) if words[k] in FN_CLAUSES]
    head_end = marks[0] if marks else body
    clauses = [(words[k], toks[k:(marks[n + 1] if n + 1 < len(marks) else body)]) for n, k in enumerate(marks)]
    return toks[:head_end], clauses, toks[body:]


def _lemma_refusal(item: _Item, given: set[str]) -> str | None:
    """A new item must be a lemma: `proof fn name(..) .. { .. }` (or `pub proof fn`), holding only proof."""
    words = [t.text for t in item.toks]
    head = words[:words.index("fn") + 2] if "fn" in words[:8] else words[:3]
    if found := _notable(item.toks, set()):
        return f"the candidate adds an item holding {', '.join(dict.fromkeys(found))}: only lemmas may be added"
    plain = head[:-1] in (["proof", "fn"], ["pub", "proof", "fn"])
    if not plain or words[-1] != "}":
        what = " ".join(head[:-1]) if "fn" in head else " ".join(head)
        return (f"the candidate adds `{what}` {head[-1] if 'fn' in head else ''}".rstrip()
                + ": only lemmas (plain `proof fn`s with a body) may be added")
    name = head[-1]
    if name in given:
        return f"the lemma {name} has the name of an item of the task"
    parts = _fn_parts(item.toks)
    if isinstance(parts, str):
        return f"the lemma {name} cannot be read: {parts}"
    _, clauses, body = parts
    for word, toks in clauses:
        if why := _slot_refusal(toks, f"the {word} clause of the lemma {name}", ensures=word == "ensures"):
            return why
    return _slot_refusal(body, f"the body of the lemma {name}")


def _body_slots(body: list[Token]) -> tuple[list[Token], list[tuple[str, list[Token]]]]:
    """(the body without its proof, [(what, tokens)] of the proof slots found in it)."""
    fixed: list[Token] = []
    slots: list[tuple[str, list[Token]]] = []
    words = [t.text for t in body]
    i = 0
    while i < len(body):
        t, nxt = words[i], words[i + 1] if i + 1 < len(body) else ""
        if t == "proof" and nxt == "{":
            end = _close(body, i + 1) + 1
            slots.append(("a proof block", body[i:end]))
        elif nxt in STATEMENT_SLOTS.get(t, ()):
            end = statement_end(words, i)
            slots.append((f"`{t} {nxt}`" if t == "let" else f"`{t}`", body[i:end]))
        elif t in ("while", "for", "loop"):
            loop_body = first_group(words, i + 1)
            clause = next((j for j in top_level(words, i + 1, loop_body) if words[j] in LOOP_SLOTS), loop_body)
            fixed += body[i:clause]
            if clause < loop_body:
                slots.append((f"the {body[clause].text} clauses of a loop", body[clause:loop_body]))
            i = loop_body
            continue
        else:
            fixed.append(body[i])
            i += 1
            continue
        i = end
    return fixed, slots


def _slot_refusal(toks: list[Token], where: str, ensures: bool = False) -> str | None:
    """What a proof slot may not hold: anything _notable (attributes but triggers, macros but vstd's proof
    macros, item and escape keywords, strings), and `false` as a whole postcondition or assertion."""
    words = [t.text for t in toks]
    if found := _notable(toks, set()) + (["`fn` (a nested function)"] if "fn" in words else []):
        return f"{where} holds {', '.join(dict.fromkeys(found))}"
    if ensures:
        start = 1  # after the clause word
        for k in [*(j for j in top_level(words, 1, len(toks)) if words[j] == ","), len(toks)]:
            if words[start:k] in (["false"], ["(", "false", ")"]):
                return f"{where} is `false`"
            start = k + 1
    elif words[:4] == ["assert", "(", "false", ")"]:
        return f"{where} asserts `false`"
    return None
