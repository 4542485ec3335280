"""Property-based bad input for every loader and for `cw grade`'s predictions: truncated JSON, wrong types,
missing fields, non-UTF-8 bytes, huge fields, deep nesting, unparseable patches. Each either loads or
fails with an InputError that names the file and the corrupted line, never a traceback; and a failed
`load` leaves the store exactly as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codewalk.errors import InputError
from codewalk.grading import read_predictions
from codewalk.loaders import acsl, codecomplex, demo, fempd, swebench, verusbench
from codewalk.loaders.diff import patch_files
from codewalk.loading import load
from codewalk.store.columns import graph_tables
from tests.shared_data import require
from tests.toy import atoms

PATCH = "diff --git a/pkg/x.py b/pkg/x.py\n--- a/pkg/x.py\n+++ b/pkg/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
TEST_PATCH = PATCH.replace("pkg/x.py", "tests/test_x.py")


def swebench_row(i: int) -> dict:
    return {"instance_id": f"o__r-{i}", "repo": "o/r", "base_commit": "abcdef1", "patch": PATCH,
            "test_patch": TEST_PATCH, "FAIL_TO_PASS": json.dumps([f"tests/test_x.py::t{i}"]),
            "PASS_TO_PASS": [], "created_at": "2024-01-01T00:00:00Z"}




def fempd_index(tmp_path: Path) -> Path:
    """Where a FEMPD index goes: a folder whose pair files are the real ones."""
    (tmp_path / "fempd" / "labeled").mkdir(parents=True, exist_ok=True)
    pairs = tmp_path / "fempd" / "labeled" / "pairs"
    if not pairs.exists():
        pairs.symlink_to(require("fempd", "labeled", "pairs"))  # CC BY-NC 4.0, read in place
    return tmp_path / "fempd" / fempd.INDEX


def fempd_read(index: Path):
    return fempd.read(index.parents[1])


def first_lines(path: Path) -> list:
    return [json.loads(line) for line in path.read_text().splitlines()[:3]]


# reader, valid records (made when a test runs: FEMPD's come from the dataset), fields whose absence is an
# error, the fields that are strings
READERS = {
    "demo": (demo.read, lambda: first_lines(demo.CATALOGUE), demo.FIELDS, ("pre", "post", "buggy", "fixed")),
    "codecomplex": (codecomplex.read, lambda: [{"id": f"p{i}", "src": "print(input())", "complexity": "linear"}
                                               for i in range(3)], ("id", "src", "complexity"), ("src",)),
    "swebench": (swebench.read, lambda: [swebench_row(i) for i in range(3)], swebench.REQUIRED,
                 ("patch", "test_patch")),
    "predictions": (read_predictions, lambda: [{"task_id": f"t{i}", "output": "VERDICT: 1"} for i in range(3)],
                    ("task_id",), ("output",)),
    "fempd": (fempd_read, lambda: first_lines(require("fempd", fempd.INDEX)), fempd.FIELDS,
              ("return_type", "pair_file")),
}
PLACE = {"fempd": fempd_index}  # where the input file must sit; elsewhere tmp/input.jsonl

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                           | st.text(max_size=20),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                       max_size=4),
                           max_leaves=12)


def write(tmp_path: Path, lines: list[bytes], name: str = "") -> Path:
    path = PLACE.get(name, lambda tmp: tmp / "input.jsonl")(tmp_path)
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def lines_of(records: list[dict]) -> list[bytes]:
    return [json.dumps(r).encode() for r in records]


def assert_names_line(error: InputError, path: Path, line: int) -> None:
    assert error.source == str(path) and error.where == line
    assert str(error).startswith(f"{path}:{line}: ")


@st.composite
def must_fail(draw, records, required):
    """A corruption no reader may accept: (position, the corrupted line)."""
    at = draw(st.integers(0, len(records) - 1))
    line = json.dumps(records[at]).encode()
    kind = draw(st.sampled_from(["truncate", "drop", "non_utf8", "nested", "not_object", "huge_int"]))
    if kind == "truncate":
        line = line[:draw(st.integers(1, len(line) - 1))]
    elif kind == "drop":
        record = dict(records[at])
        del record[draw(st.sampled_from(sorted(required)))]
        line = json.dumps(record).encode()
    elif kind == "non_utf8":
        cut = draw(st.integers(1, len(line) - 1))
        line = line[:cut] + draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80"])) + line[cut:]
    elif kind == "nested":
        line = b"[" * 100_000 + b"]" * 100_000
    elif kind == "not_object":
        line = json.dumps(draw(st.lists(json_values, max_size=3) | st.integers() | st.text())).encode()
    else:
        line = line[:-1] + b', "n": ' + b"9" * 5000 + b"}"
    return at, line


@pytest.mark.parametrize("name", READERS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_corrupted_line_is_an_input_error_naming_that_line(name, data, tmp_path):
    read, make_records, required, _ = READERS[name]
    records = make_records()
    at, bad = data.draw(must_fail(records, required))
    lines = lines_of(records)
    lines[at] = bad
    path = write(tmp_path, lines, name)
    with pytest.raises(InputError) as caught:
        read(path)
    if name == "swebench" and at == 0 and bad.startswith(b"["):  # read as one JSON array: the file is named
        assert caught.value.source == str(path) and caught.value.where is None
    else:
        assert_names_line(caught.value, path, at + 1)


@pytest.mark.parametrize("name", READERS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_field_of_any_type_or_size_loads_or_names_its_line(name, data, tmp_path):
    read, make_records, _, strings = READERS[name]
    records = make_records()
    at = data.draw(st.integers(0, len(records) - 1))
    record = dict(records[at])
    field = data.draw(st.sampled_from(sorted(record)))
    record[field] = data.draw(json_values | st.just("x" * 2_000_000) if field in strings else json_values)
    lines = lines_of(records)
    lines[at] = json.dumps(record).encode()
    path = write(tmp_path, lines, name)
    try:
        read(path)
    except InputError as e:
        assert_names_line(e, path, at + 1)


@pytest.mark.parametrize("name", READERS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=300))
def test_arbitrary_bytes_never_escape_as_anything_but_an_input_error(name, raw, tmp_path):
    read = READERS[name][0]
    path = PLACE.get(name, lambda tmp: tmp / "input.jsonl")(tmp_path)
    path.write_bytes(raw)
    try:
        read(path)
    except InputError as e:
        assert e.source == str(path)


# Lines a diff is made of, whole and broken, so the parser meets headers and hunks in every order.
PATCH_LINES = st.sampled_from([
    "diff --git a/x.py b/x.py", "diff --git ", "diff --git a", 'diff --git "a/x\\', 'diff --git "a/x y" "b/x y"',
    "--- a/x.py", "--- ", "+++ b/x.py", "+++ ", "--- /dev/null", "@@ -1 +1 @@", "@@ -1,2 +1,3 @@", "@@ -0,0 @@",
    "@@ -x +y @@", "@@", "new file mode 100644", "new mode ", "deleted file mode 100644", "rename from ",
    "rename to a", "copy from", "+a", "-b", " c", "", "\\ No newline at end of file", "index 0..1"]) | st.text(max_size=12)
patches = (st.lists(PATCH_LINES, max_size=12).map("\n".join)
           | st.builds(lambda cut: PATCH[:cut], st.integers(1, len(PATCH) - 1)))


@settings(max_examples=500, deadline=None)
@given(patch=patches)
def test_any_text_parses_as_a_patch_or_is_a_value_error(patch):
    try:
        patch_files(patch)
    except ValueError:
        pass


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(patch=patches)
def test_a_gold_patch_that_does_not_parse_names_its_line(patch, tmp_path):
    rows = [swebench_row(i) for i in range(3)]
    rows[1]["patch"] = patch
    path = write(tmp_path, lines_of(rows))
    try:
        instances = swebench.read(path)
    except InputError as e:
        assert_names_line(e, path, 2)
    else:
        assert instances[1].files  # accepted only if it names the files it changes


def test_a_json_array_source_that_is_cut_off_is_an_input_error_naming_the_file(tmp_path):
    path = tmp_path / "rows.json"
    path.write_text(json.dumps([swebench_row(0)])[:-5])
    with pytest.raises(InputError, match=f"^{path}: not valid JSON"):
        swebench.read(path)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_failed_load_leaves_the_store_as_it_was(store, tmp_path, data):
    before_atoms = atoms("demo", 3, note="already stored")
    store.write(*graph_tables(before_atoms, []))
    records = READERS["demo"][1]()
    at, bad = data.draw(must_fail(records, demo.FIELDS))
    lines = lines_of(records)
    lines[at] = bad
    path = write(tmp_path, lines)
    with pytest.raises(InputError):
        load(store, "demo", path)
    assert sorted(row[0] for row in store.atom_index("demo")) == sorted(a.id for a in before_atoms)
    assert store.run("MATCH ()-[r]->() RETURN count(r) AS n")[0]["n"] == 0


def verus_texts() -> list[str]:
    return [p.read_text() for p in sorted(require("verus-bench", "MBPP", "verified").glob("*.rs"))[:5]]


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_a_damaged_verus_program_parses_or_is_an_input_error_naming_the_file(data):
    text = data.draw(st.sampled_from(verus_texts()))
    cut = data.draw(st.integers(0, len(text)))
    damaged = text[:cut] + data.draw(st.sampled_from(["", "{", "}", "(", "/*", "\"", "fn", "verus!{", "#[", "#!["])) + text[cut:][
        data.draw(st.integers(0, 40)):]
    try:
        verusbench.program_items(damaged, "prog.rs")
    except InputError as e:
        assert e.source == "prog.rs"




@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_damaged_acsl_example_loads_skips_or_is_an_input_error_naming_its_file(data, tmp_path):
    example = data.draw(st.sampled_from(["max_element", "clamp", "max_seq"]))
    root = tmp_path / "acsl"
    (root / "MinMax").mkdir(parents=True, exist_ok=True)
    (root / "subdirs.list").write_text("MinMax\n")
    (root / "MinMax" / "examples.list").write_text(f"{example}\n")
    for suffix in (".h", ".c"):
        (root / "MinMax" / f"{example}{suffix}").write_bytes(require("acsl-bench", "acsl-by-example", "MinMax", f"{example}{suffix}").read_bytes())
    damaged = root / "MinMax" / f"{example}{data.draw(st.sampled_from(['.h', '.c']))}"
    raw = damaged.read_bytes()
    cut = data.draw(st.integers(0, len(raw)))
    insert = data.draw(st.sampled_from([b"", b"\xff\xfe", b"/*@", b"*/", b"{", b"}", b"(", b"requires", b"\x00"]))
    damaged.write_bytes(raw[:cut] + insert + raw[cut + data.draw(st.integers(0, 60)):])
    try:
        acsl.read(root)
    except InputError as e:
        assert Path(e.source).parent == damaged.parent
