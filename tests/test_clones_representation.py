"""Round 4's input families (issue 50): where Java's String, Character and StringBuilder behave differently by
representation. Each family has a pair of small methods written here that no earlier input separates (the
first 1,000 inputs and round 3's families) and that its own values do; mixes count for a family when they
carry one of its values inside. Lone surrogates reach the JVM and come back exactly.

One JVM batch for all pairs (about 1,300 inputs each, all fast). No FEMPD data needed.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

import pytest

from codewalk.domains.clones import verdicts
from codewalk.domains.clones.inputs import generate
from codewalk.domains.clones.java import CallUnit, Java
from codewalk.domains.clones.verify import INPUTS

inputs_module = importlib.import_module("codewalk.domains.clones.inputs")

PAIRS = r"""import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.Locale;

class Repr {
    // BEYOND_BMP: compareTo orders UTF-16 units, so U+FFFF sorts after U+1F600; code point order puts it before
    static int unitOrder(String a, String b) { return Integer.signum(a.compareTo(b)); }
    static int pointOrder(String a, String b) {
        int i = 0, j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i), y = b.codePointAt(j);
            if (x != y) return Integer.signum(x - y);
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Integer.signum((a.length() - i) - (b.length() - j));
    }

    // LONE_SURROGATES: the encoder writes '?' for a lone half; counting by hand gives it three bytes
    static int utf8Bytes(String s) { return s.getBytes(StandardCharsets.UTF_8).length; }
    static int utf8Counted(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) n += 1;
            else if (c < 0x800) n += 2;
            else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else n += 3;
        }
        return n;
    }

    // CASE_LENGTH: an upper-casing that knows the length-changing letters round 3 tried (ß, ﬁ, ŉ) only
    static String upper(String s) { return s.toUpperCase(Locale.ROOT); }
    static String upperKnown(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            i += Character.charCount(c);
            if (c == 0xdf) b.append("SS");
            else if (c == 0xfb01) b.append("FI");
            else if (c == 0x149) b.append("\u02bcN");
            else b.appendCodePoint(Character.toUpperCase(c));
        }
        return b.toString();
    }

    // CASE_FOLD: equalsIgnoreCase compares upper and lower forms char by char ("falſe" is "false" to it)
    static boolean ignoringCase(String s) { return s.equalsIgnoreCase("false"); }
    static boolean lowered(String s) { return s.toLowerCase(Locale.ROOT).equals("false"); }

    // COMBINING_FORMS: canonically equivalent strings are equal after NFC, not to equals
    static boolean same(String a, String b) { return a.equals(b); }
    static boolean sameNfc(String a, String b) {
        String x = Normalizer.normalize(a, Normalizer.Form.NFC);  // a null throws, as a.equals does
        return b != null && x.equals(Normalizer.normalize(b, Normalizer.Form.NFC));
    }

    // DIGITS_SPACES: spaces and digits by Character, against the ones round 3 tried, listed by hand
    static int kinds(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            i += Character.charCount(c);
            if (Character.isWhitespace(c) || Character.isSpaceChar(c)) n += 100;
            else if (Character.isDigit(c)) n += 1;
        }
        return n;
    }
    static int kindsKnown(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            i += Character.charCount(c);
            if (c == ' ' || (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x1f) || c == 0xa0 || c == 0x2003 || c == 0x3000
                    || c == 0x2028) n += 100;
            else if ((c >= '0' && c <= '9') || (c >= 0x660 && c <= 0x669) || (c >= 0xff10 && c <= 0xff19)
                    || (c >= 0x1d7ce && c <= 0x1d7ff)) n += 1;
        }
        return n;
    }

    // MIXES: a cut at 12 UTF-16 units against one at 12 code points; only a long string with a supplementary
    // character inside tells them apart
    static String cutUnits(String s) { return s.length() <= 12 ? s : s.substring(0, 12); }
    static String cutPoints(String s) {
        return s.codePointCount(0, s.length()) <= 12 ? s : s.substring(0, s.offsetByCodePoints(0, 12));
    }

    // transport: the string as the JVM got it, unit by unit
    static String units(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) b.append(i > 0 ? "," : "").append((int) s.charAt(i));
        return b.toString();
    }
    static String echo(String s) { return s; }
    static int charCode(char c) { return c; }
    static int charCodeToo(char c) { return (int) c; }
}
"""
# family -> (method1, method2, parameter types, seed)
FAMILIES = {
    "BEYOND_BMP": ("unitOrder", "pointOrder", ("String", "String"), "0:1"),
    "LONE_SURROGATES": ("utf8Bytes", "utf8Counted", ("String",), "0:2"),
    "CASE_LENGTH": ("upper", "upperKnown", ("String",), "0:3"),
    "CASE_FOLD": ("ignoringCase", "lowered", ("String",), "0:7"),
    "COMBINING_FORMS": ("same", "sameNfc", ("String", "String"), "0:4"),
    "DIGITS_SPACES": ("kinds", "kindsKnown", ("String",), "0:5"),
    "MIXES": ("cutUnits", "cutPoints", ("String",), "0:6"),
}
FIXED = ("BEYOND_BMP", "LONE_SURROGATES", "CASE_LENGTH", "CASE_FOLD", "COMBINING_FORMS", "DIGITS_SPACES")
LONE = ["\ud83d", "a\ud83d", "\ude00\ud83d", "\U0001f600\ude00"]


def _earlier(params: tuple[str, ...], seed: str) -> int:
    """How many of the inputs came before round 4: the first INPUTS and round 3's families."""
    first = generate(params, seed, INPUTS)
    seen = {json.dumps(r) for r in first}
    return len(first) + sum(json.dumps(r) not in seen for r in inputs_module._families(tuple(params), seed))


def _values(family: str) -> set[str]:
    values = set(getattr(inputs_module, family))
    pairs = {"BEYOND_BMP": inputs_module.BEYOND_BMP_PAIRS, "COMBINING_FORMS": inputs_module.COMBINING_PAIRS}
    return values | {v for pair in pairs.get(family, []) for v in pair}


def _family_of(row: list[Any]) -> set[str]:
    """The families a round-4 input belongs to: its values are family values, or mixes carrying some inside."""
    fixed = {f for f in FIXED if any(v in _values(f) for v in row if isinstance(v, str))}
    if fixed:
        return fixed
    return {"MIXES"} | {f"MIXES:{f}" for f in FIXED for v in row if isinstance(v, str)
                        for x in getattr(inputs_module, f) if x in v}


@pytest.fixture(scope="module")
def java(tmp_path_factory) -> Java:
    return Java(tmp_path_factory.mktemp("cache") / "clones")


@pytest.fixture(scope="module")
def runs(java):
    """Each family's pair on every input generated for it, and the transport units: name -> (inputs, outcomes)."""
    units, rows = {}, {}
    for family, (m1, m2, params, seed) in FAMILIES.items():
        rows[family] = generate(params, seed, INPUTS, families=True)
        units[family] = CallUnit({"Repr.java": PAIRS}, (("Repr", m1), ("Repr", m2)), params, rows[family])
    rows["units"] = [[v] for v in LONE]
    units["units"] = CallUnit({"Repr.java": PAIRS}, (("Repr", "units"), ("Repr", "units")), ("String",), rows["units"])
    rows["echo"] = [[v] for v in LONE]
    units["echo"] = CallUnit({"Repr.java": PAIRS}, (("Repr", "echo"), ("Repr", "echo")), ("String",), rows["echo"])
    rows["char"] = [["\ud800"], ["\udfff"], ["\uffff"]]
    units["char"] = CallUnit({"Repr.java": PAIRS}, (("Repr", "charCode"), ("Repr", "charCodeToo")), ("char",),
                             rows["char"])
    results = java.calls(list(units.values()), 100)
    for r in results:
        assert r.errors is None, r.errors
    return {name: (rows[name], r.outcomes) for name, r in zip(units, results)}


def _separating(runs, family: str) -> tuple[int, list[int]]:
    rows, outcomes = runs[family]
    assert len(outcomes) == len(rows)
    return _earlier(FAMILIES[family][2], FAMILIES[family][3]), [i for i, line in sorted(outcomes.items())
                                                                 if line["v"] == "differ"]


@pytest.mark.parametrize("family", FIXED)
def test_representation_family_separates_a_pair_no_earlier_input_does(runs, family):
    earlier, differ = _separating(runs, family)
    rows = runs[family][0]
    assert differ and all(i >= earlier for i in differ), [rows[i] for i in differ if i < earlier]
    # every separating input is one of the family's values, or a mix carrying one inside
    for i in differ:
        kinds = _family_of(rows[i])
        assert family in kinds or f"MIXES:{family}" in kinds, (rows[i], kinds)
    assert any(family in _family_of(rows[i]) for i in differ)  # and its own values do, not only mixes


def test_mixes_separate_a_pair_no_other_input_does(runs):
    earlier, differ = _separating(runs, "MIXES")
    rows = runs["MIXES"][0]
    assert differ and all(i >= earlier and _family_of(rows[i]) & {"MIXES"} for i in differ), \
        [rows[i] for i in differ]


def test_beyond_bmp_witness_orders_u_ffff_against_a_supplementary_character(runs):
    rows, outcomes = runs["BEYOND_BMP"]
    at = rows.index(["\uffff", "\U0001f600"])
    assert outcomes[at]["final"] == ["r:1", "r:-1"]


def test_lone_surrogates_reach_java_as_single_utf16_units_and_come_back_escaped(runs):
    rows, outcomes = runs["units"]
    assert [outcomes[i]["out"][0] for i in range(len(rows))] == \
        ['r:"55357"', 'r:"97,55357"', 'r:"56832,55357"', 'r:"55357,56832,56832"']
    rows, outcomes = runs["echo"]
    for i, (value,) in enumerate(rows):
        text = outcomes[i]["out"][0]
        assert text.isascii() and json.loads(text[2:]) == value  # the very string, escaped by Json.quote
    rows, outcomes = runs["char"]
    assert [outcomes[i]["out"][0] for i in range(3)] == ["r:55296", "r:57343", "r:65535"]


def test_a_lone_surrogate_witness_survives_the_verdict_file(tmp_path):
    record = {"pair_id": 1, "witness": {"input": ["a\ud83d", ["\ude00", "\ud83d"]], "method1": 'r:"\\ud83d"',
                                        "method2": "r:3"}}
    path = verdicts.save([record], tmp_path / "v.jsonl")
    assert path.read_bytes().isascii() and verdicts.read(path)[1] == record


def test_round_four_inputs_come_after_the_earlier_ones_and_change_none_of_them():
    for params in (("String",), ("String", "String"), ("char[]",), ("String[]", "int")):
        rows = generate(params, "0:4431", INPUTS, families=True)
        earlier = _earlier(params, "0:4431")
        assert rows[:INPUTS] == generate(params, "0:4431", INPUTS) and len(rows) > earlier
        assert not any("\ud83d" in json.dumps(r, ensure_ascii=False) for r in rows[:INPUTS])


def test_representation_values_reach_string_char_and_array_parameters():
    rows = {json.dumps(r) for r in generate(("String",), "0:1", INPUTS, families=True)}
    assert all(json.dumps([v]) in rows for v in inputs_module.REPRESENTATION_STRINGS)
    rows = {json.dumps(r) for r in generate(("String", "String"), "0:1", INPUTS, families=True)}
    assert all(json.dumps(list(p)) in rows for p in inputs_module.REPRESENTATION_PAIRS)
    chars = {json.dumps(r) for r in generate(("char[]",), "0:1", INPUTS, families=True)}
    assert all(json.dumps([a]) in chars for a in inputs_module.REPRESENTATION_CHAR_ARRAYS)
    arrays = {json.dumps(r) for r in generate(("String[]",), "0:1", INPUTS, families=True)}
    assert all(json.dumps([a]) in arrays for a in inputs_module.REPRESENTATION_STRING_ARRAYS)
