"""The Verus scanner the Verus-Bench reader and the candidate guard share (codewalk.loaders.verus_scan)."""

from __future__ import annotations

from codewalk.loaders import verusbench
from codewalk.loaders.verus_scan import close, lex, mask, statement_end, units

BODY = """{
    let x = f(a);
    assert(x * y <= 0x100000000) by(nonlinear_arith)
        requires
            x <= 0xffff, // a comment with { and ;
            y <= 0xffff,
    {
        let s = "};";
    }
    let z = x;
    assert(g(x)) by { lemma(x); };
    reveal(h);
    x
}"""


def _ends_on_masked_text(text: str) -> list[str]:
    words = units(mask(text))
    starts = [k for k, w in enumerate(words) if w in ("assert", "reveal")]
    return [" ".join(t.text for t in lex(text[k:statement_end(words, k)])) for k in starts]


def _ends_on_tokens(text: str) -> list[str]:
    toks = lex(text)
    words = [t.text for t in toks]
    starts = [k for k, w in enumerate(words) if w in ("assert", "reveal")]
    return [" ".join(words[k:statement_end(words, k)]) for k in starts]


def test_the_reader_and_the_guard_end_each_proof_statement_at_the_same_token():
    on_text, on_tokens = _ends_on_masked_text(BODY), _ends_on_tokens(BODY)
    assert on_text == on_tokens
    assert on_tokens[0].startswith("assert ( x * y") and on_tokens[0].endswith('let s = "};" ; }')
    assert on_tokens[1].endswith("lemma ( x ) ; } ;") and on_tokens[2] == "reveal ( h ) ;"


def test_strip_removes_an_assert_by_with_requires_and_its_block_whole():
    fn = "fn f(x: u32, y: u32) -> (r: u32)\n    ensures r == x,\n" + BODY
    stripped = verusbench.strip(fn)
    assert "requires" not in stripped and "nonlinear_arith" not in stripped and "lemma" not in stripped
    assert stripped.split() == "fn f(x: u32, y: u32) -> (r: u32) { let x = f(a); let z = x; x }".split()


def test_an_angle_bracket_closes_past_the_arrow_of_a_closure_type():
    masked = mask("fn apply<F: Fn(u8) -> u8, T>(f: F)")
    assert masked[close(masked, masked.index("<")):].startswith(">(f: F)")
