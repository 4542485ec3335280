"""Reading unified diffs: files(g) from the headers, the lines a hunk touches, which paths a candidate
may not write (tests, outside the repository), and text GNU patch would read besides unified diffs."""

from __future__ import annotations

import pytest

from codewalk.domains.repair.patch import is_test_path, not_unified, unsafe_path
from codewalk.loaders.diff import parse_patch, patch_files

GIT_DIFF = """\
diff --git a/pkg/core.py b/pkg/core.py
index 1111111..2222222 100644
--- a/pkg/core.py
+++ b/pkg/core.py
@@ -3,7 +3,8 @@ def f():
 a
 b
 c
-old
+new
+newer
 d
 e
 f
diff --git a/pkg/gone.py b/pkg/gone.py
deleted file mode 100644
index 3333333..0000000
--- a/pkg/gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-x = 1
-y = 2
diff --git a/pkg/new.py b/pkg/new.py
new file mode 100644
index 0000000..4444444
--- /dev/null
+++ b/pkg/new.py
@@ -0,0 +1 @@
+z = 3
diff --git a/pkg/old_name.py b/pkg/new_name.py
similarity index 100%
rename from pkg/old_name.py
rename to pkg/new_name.py
diff --git "a/pkg/caf\\303\\251.py" "b/pkg/caf\\303\\251.py"
index 5555555..6666666 100644
--- "a/pkg/caf\\303\\251.py"
+++ "b/pkg/caf\\303\\251.py"
@@ -1 +1 @@
-v = 1
+v = 2
"""


def test_files_come_from_every_kind_of_diff_header():
    assert patch_files(GIT_DIFF) == ["pkg/café.py", "pkg/core.py", "pkg/gone.py", "pkg/new.py",
                                     "pkg/new_name.py", "pkg/old_name.py"]
    diffs = {d.new or d.old: d for d in parse_patch(GIT_DIFF)}
    assert diffs["pkg/gone.py"].new is None and diffs["pkg/new.py"].old is None
    renamed = diffs["pkg/new_name.py"]
    assert (renamed.old, renamed.new) == ("pkg/old_name.py", "pkg/new_name.py")


def test_touched_lines_are_the_added_lines_in_new_file_numbers():
    core = next(d for d in parse_patch(GIT_DIFF) if d.new == "pkg/core.py")
    assert core.touched == {6, 7}  # context a, b, c are lines 3-5; 'new' and 'newer' are 6 and 7


def test_a_pure_removal_touches_the_line_that_follows_it():
    patch = "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,2 @@\n a\n-b\n c\n"
    assert parse_patch(patch)[0].touched == {2}


def test_a_plain_unified_diff_without_git_headers_is_read_per_file():
    patch = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-1\n+2\n--- a/y.py\n+++ b/y.py\n@@ -1 +1 @@\n-1\n+2\n"
    assert patch_files(patch) == ["x.py", "y.py"]


def test_a_removed_line_that_looks_like_a_header_stays_inside_its_hunk():
    patch = "--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,2 @@\n keep\n--- a comment\n+++ b/not-a-file\n"
    assert patch_files(patch) == ["q.sql"]


@pytest.mark.parametrize("patch", [
    "--- a/x.py\n+++ b/x.py\n@@ nonsense @@\n",
    "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n",  # the hunk promises three lines and gives one
    "@@ -1 +1 @@\n-a\n+b\n",  # a hunk before any file
])
def test_malformed_hunks_are_value_errors(patch):
    with pytest.raises(ValueError):
        parse_patch(patch)


def test_missing_git_prefixes_are_noticed():
    assert not parse_patch("--- x.py\n+++ x.py\n@@ -1 +1 @@\n-1\n+2\n")[0].prefixed
    assert parse_patch(GIT_DIFF)[0].prefixed


def test_symlink_creation_is_recorded():
    patch = ("diff --git a/link b/link\nnew file mode 120000\nindex 0000000..1111111\n--- /dev/null\n"
             "+++ b/link\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n")
    assert parse_patch(patch)[0].new_mode == "120000"


@pytest.mark.parametrize("path, is_test", [
    ("tests/test_core.py", True), ("pkg/tests/helpers.py", True), ("testing/data.json", True),
    ("pkg/test_core.py", True), ("pkg/core_test.py", True), ("conftest.py", True), ("pkg/conftest.py", True),
    ("pkg/core.py", False), ("pkg/testament.py", False), ("docs/contest.md", False),
])
def test_test_paths_follow_swe_bench_conventions(path, is_test):
    assert is_test_path(path) is is_test


@pytest.mark.parametrize("path, unsafe", [
    ("pkg/core.py", False), ("../outside.py", True), ("pkg/../../x", True), ("/etc/passwd", True),
    ("C:/x.py", True), (".git/hooks/post-checkout", True), ("pkg/..hidden", False),
])
def test_paths_leaving_the_repository_are_unsafe(path, unsafe):
    assert bool(unsafe_path(path)) is unsafe


# -- only unified diff: GNU patch, the fuzzy fallback, reads other formats too ----------------------------
FORMAT_PATCH = ("From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] fix\n\nWhy it is fixed.\n---\n"
                " pkg/core.py | 3 ++-\n 1 file changed\n\n" + GIT_DIFF + "-- \n2.39.2\n\n")
CONTEXT = ("*** /dev/null\n--- b/conftest.py\n***************\n*** 0 ****\n--- 1 ----\n+ import os\n")


@pytest.mark.parametrize("text", [GIT_DIFF, GIT_DIFF + "\n\n", "A model's words first.\n\n" + GIT_DIFF,
                                  GIT_DIFF.replace("diff --git a/pkg/core.py b/pkg/core.py\nindex 1111111..2222222 "
                                                   "100644\n", "")])
def test_unified_diffs_with_git_headers_or_a_preamble_are_unified(text):
    assert not_unified(text) == ""


def test_a_format_patch_email_and_a_closing_fence_are_text_around_the_diff():
    assert not_unified(FORMAT_PATCH) == ""
    assert not_unified("```diff\n" + GIT_DIFF + "```\n") == ""


@pytest.mark.parametrize("extra, named", [
    (CONTEXT, "*** /dev/null"),  # a context diff after the unified one
    ("3a4\n> import os\n", "3a4"),  # a normal diff
    ("Index: conftest.py\n", "Index:"),
])
def test_sections_that_only_gnu_patch_reads_are_refused(extra, named):
    assert named in not_unified(GIT_DIFF + extra)
    assert named in not_unified(extra + GIT_DIFF)  # in a preamble too: GNU patch looks for a diff anywhere


def test_a_hunk_whose_counts_do_not_add_up_is_refused():
    assert "line counts" in not_unified(GIT_DIFF.replace("@@ -3,7 +3,8 @@", "@@ -3,7 +3,9 @@"))


def test_binary_sections_are_refused_naming_the_file():
    binary = "diff --git a/img.png b/img.png\nindex 1..2 100644\nGIT binary patch\nliteral 4\nabcd\n\n"
    assert "binary change to img.png" in not_unified(binary)
