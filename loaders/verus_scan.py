"""Reading Verus source: the one scanner that the Verus-Bench reader (verusbench.py) and the candidate
guard (codewalk/domains/proofs/verus_guard.py) share, so that they cannot disagree on where a comment, a
string, a bracket group or a proof statement ends. It lives with the readers because a reader never
imports a domain.

Two views of a program:
- masked text (`mask`): the source with the insides of comments, strings and char literals blanked, same
  length and lines, so that brackets and keywords are found on it while the original text is sliced;
  the reader works on it, tolerant of whatever the benchmark holds;
- tokens (`lex`): Rust/Verus tokens without comments or layout, strict; the guard compares them.

The bracket walkers (`close`, `top_level`, `last_group`, `first_group`, `statement_end`) read either view
as a sequence of units: the tokens' texts, or masked text character by character (`units` makes each
word one unit at its first character, for `statement_end`, which looks for the word `by`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

FN_CLAUSES = ("requires", "ensures", "recommends", "decreases", "returns", "opens_invariants", "no_unwind")
LOOP_CLAUSES = ("invariant", "invariant_except_break", "invariant_ensures", "ensures", "decreases")


# -- masking --------------------------------------------------------------------------------------
_LEXEME = re.compile(r"//[^\n]*|/\*|b?\"(?:\\.|[^\"\\])*\"|'(?:\\.[^']*|[^'\\])'")  # a char literal, not a lifetime


def mask(text: str) -> str:
    """text with the insides of comments, strings and char literals blanked (same length, same lines)."""
    out, i = [], 0
    while m := _LEXEME.search(text, i):
        out.append(text[i:m.start()])
        lexeme = m[0]
        if lexeme == "/*":
            j = block_end(text, m.end())
            out.append(_blank(text[m.start():j]))
            i = j
            continue
        if lexeme.startswith("//"):
            out.append(_blank(lexeme))
        else:  # keep the quotes, blank what is between them
            q = lexeme.index(lexeme[-1])
            out.append(lexeme[:q + 1] + _blank(lexeme[q + 1:-1]) + lexeme[-1])
        i = m.end()
    out.append(text[i:])
    return "".join(out)


def decomment(text: str) -> str:
    """text with each comment replaced by a space (strings and char literals kept)."""
    out, i = [], 0
    while m := _LEXEME.search(text, i):
        out.append(text[i:m.start()])
        if m[0] == "/*":
            out.append(" ")
            i = block_end(text, m.end())
            continue
        out.append(" " if m[0].startswith("//") else m[0])
        i = m.end()
    out.append(text[i:])
    return "".join(out)


def block_end(text: str, j: int) -> int:
    """The end of a block comment whose `/*` ends at j (block comments nest in Rust)."""
    depth = 1
    while depth and j < len(text):
        nxt = min((k for k in (text.find("/*", j), text.find("*/", j)) if k >= 0), default=len(text))
        depth += 1 if text.startswith("/*", nxt) else -1
        j = nxt + 2
    return j


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def units(masked: str) -> list[str]:
    """Masked text as units for the walkers: its characters, a word standing whole at its first one
    (so the offsets stay those of the text)."""
    out = list(masked)
    for m in re.finditer(r"\w+", masked):
        out[m.start()] = m[0]
    return out


# -- brackets -------------------------------------------------------------------------------------
def close(units: Sequence[str], at: int) -> int | None:
    """Index of the bracket closing the one at `at`, None if none does. `(`, `[` and `{` count
    together; `<` counts only `<` and `>`, passing over the `>` of `->` and `=>`."""
    opens, closes = (("<",), (">",)) if units[at] == "<" else (("(", "[", "{"), (")", "]", "}"))
    depth = 0
    for j in range(at, len(units)):
        c = units[j]
        if c in opens:
            depth += 1
        elif c in closes and not (c == ">" and units[j - 1] in ("-", "=")):
            depth -= 1
            if depth == 0:
                return j
    return None


def top_level(units: Sequence[str], start: int, end: int) -> list[int]:
    """Indices in [start, end) at bracket depth 0 relative to start (brackets themselves left out)."""
    out, depth = [], 0
    for j in range(start, end):
        c = units[j]
        if c in ("(", "[", "{"):
            depth += 1
        elif c in (")", "]", "}"):
            depth -= 1
        elif depth == 0:
            out.append(j)
    return out


def last_group(units: Sequence[str], start: int) -> int | None:
    """The `{` of the last brace group at depth 0 from start (a function's body), None if there is none."""
    last, depth = None, 0
    for j in range(start, len(units)):
        c = units[j]
        if c == "{" and depth == 0:
            last = j
        if c in ("(", "[", "{"):
            depth += 1
        elif c in (")", "]", "}"):
            depth -= 1
    return last


def first_group(units: Sequence[str], start: int) -> int:
    """The first `{` at depth 0 from start (a loop's body), or len(units) if there is none."""
    depth = 0
    for j in range(start, len(units)):
        c = units[j]
        if c == "{" and depth == 0:
            return j
        if c in ("(", "[", "{"):
            depth += 1
        elif c in (")", "]", "}"):
            depth -= 1
    return len(units)


def statement_end(units: Sequence[str], at: int) -> int:
    """End of an assert/assume/reveal/ghost statement starting at `at`: after its `;`, or after the `}`
    of a trailing `by { .. }` (and its `;`, if any), or at the bracket closing the enclosing group."""
    depth, by = 0, False
    j = at
    while j < len(units):
        c = units[j]
        if c == "by" and depth == 0:
            by = True
        if c == "{" and depth == 0 and by:
            end = close(units, j)
            if end is None:
                raise ValueError(f"unbalanced {c!r}")
            j = end + 1
            while j < len(units) and units[j].isspace():  # masked text: spaces before the `;`
                j += 1
            return j + 1 if j < len(units) and units[j] == ";" else end + 1
        if c in ("(", "[", "{"):
            depth += 1
        elif c in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return j
        elif c == ";" and depth == 0:
            return j + 1
        j += 1
    return j


# -- lexing (for comparing a candidate with its task) ------------------------------------------------
@dataclass(frozen=True)
class Token:
    text: str
    line: int


# Rust's and Verus's operators of more than one character, longest first: `==>` is one token, `= =>` two
_OPERATORS = ("<==>", "=~~=", "!~~=", "...", "..=", "<<=", ">>=", "==>", "<==", "===", "!==", "=~=", "!~=", "&&&",
              "|||", "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "^=",
              "&=", "|=", "<<", ">>", "..")
_LEX = re.compile(
    r"(?P<space>[ \t\n\x0b\x0c]+)|(?P<comment>//[^\n]*)|(?P<block>/\*)"
    r"|(?P<raw>b?r#*\"|r#[^\W\d]|c\"|cr#*\")"  # raw strings and identifiers, C strings: not lexed, refused
    r"|(?P<string>b?\"(?:\\.|[^\"\\])*\")"
    r"|(?P<char>b?'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F_]{1,6}\}|[nrt\\0'\"])|[^'\\\n\r\t])')"
    r"|(?P<lifetime>'[A-Za-z_]\w*(?!'))"
    r"|(?P<number>\d[\d_]*\.\d[\w]*|\d\w*)"
    r"|(?P<ident>[A-Za-z_]\w*)"
    r"|(?P<op>" + "|".join(re.escape(o) for o in _OPERATORS) + r"|[-+*/%^!&|=<>@.,;:#$?~()\[\]{}])",
    re.ASCII | re.DOTALL,
)


def lex(text: str) -> list[Token]:
    """Rust/Verus tokens without comments or layout, each token as Verus reads it.

    Strict on purpose (a ValueError says what and where): raw strings, raw identifiers, non-ASCII
    characters outside comments and strings, control characters and unterminated literals are not
    lexed, so that the tokens joined by spaces (`render`) are read by rustc as these same tokens."""
    text = text.replace("\r\n", "\n")
    out, i, line = [], 0, 1
    while i < len(text):
        m = _LEX.match(text, i)
        if m is None or m.lastgroup == "raw":
            what = f"a raw string, raw identifier or C string `{m[0]}`" if m else _unexpected(text[i])
            raise ValueError(f"line {line}: {what} is not accepted")
        if m.lastgroup == "block":
            end = block_end(text, m.end())
            if not text.startswith("*/", end - 2) or end > len(text):
                raise ValueError(f"line {line}: unterminated block comment")
        else:
            end = m.end()
            if m.lastgroup not in ("space", "comment"):
                if m.lastgroup == "ident" and text[end:end + 1] in ("\"", "'", "#"):
                    raise ValueError(f"line {line}: a literal prefix `{text[i:end + 1]}` is not accepted")
                out.append(Token(m[0], line))
        line += text.count("\n", i, end)
        i = end
    return out


def _unexpected(char: str) -> str:
    if char in "\"'":
        return f"an unterminated literal starting with {char}"
    return f"the character {char!r} (U+{ord(char):04X}) outside comments and strings"


def render(toks: list[Token]) -> str:
    """The tokens as source text: one space between tokens on a line, a line break where the source had one."""
    out: list[str] = []
    for k, t in enumerate(toks):
        if k:
            out.append("\n" if t.line != toks[k - 1].line else " ")
        out.append(t.text)
    return "".join(out)


def tokens(text: str) -> list[str]:
    """The tokens of a piece of code without its comments: for comparing code modulo layout."""
    pieces = r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/'  # a string is kept, a comment goes
    code = re.sub(pieces, lambda m: m[0] if m[0][0] == '"' else " ", text, flags=re.DOTALL)
    return re.findall(r"\w+|\S", code)
