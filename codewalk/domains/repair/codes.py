"""The repair grader's rule codes: every refusal (static) and every run stopped without a verdict (run time)
names one `Rule`, in a verdict's `Check.evidence["rule"]`. The rules themselves are in rules.py (files and
the entry point), capabilities.py (source) and the harness (run time)."""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple


class Rule(StrEnum):
    # the diff as text (repair/__init__.py `_refusal`, patch.not_unified)
    EMPTY = "empty"  # no patch, or no file diff in it
    UNREADABLE_PATCH = "unreadable_patch"  # the diff reader cannot read it
    NOT_UNIFIED = "not_unified"  # a line GNU patch could read as another diff format
    UNPREFIXED = "unprefixed"  # file paths without git's a/ and b/ prefixes
    UNSAFE_PATH = "unsafe_path"  # absolute, ../, inside .git, or through a symlink out of the tree
    # the tree as it landed (guard)
    TEST_FILE = "test_file"  # a test file, or a file the task's test patch touches
    UNNAMED_PATH = "unnamed_path"  # a path changed on disk that the diff does not name
    SYMLINK = "symlink"
    SPECIAL_FILE = "special_file"  # neither a regular file nor a directory
    BINARY = "binary"  # content with a NUL byte, or a binary section in the diff
    CONFIG_FILE = "config_file"  # pytest's configuration, git's own files
    STARTUP_HOOK = "startup_hook"  # sitecustomize, usercustomize, *.pth
    PACKAGE_METADATA = "package_metadata"  # dist-info/egg-info, entry points, a pytest11 plugin, bytecode
    SHADOWS_ENVIRONMENT = "shadows_environment"  # a new top-level name the environment imports without the tree
    NOT_SOURCE = "not_source"  # a file that is not a Python module (data, configuration, docs), or a mode change
    TEST_SUPPORT = "test_support"  # a module the tests read, not the library (guard.test_support), or one beside it
    # source as Python reads it (capabilities)
    ENCODING = "encoding"  # a source encoding other than utf-8
    UNPARSEABLE = "unparseable"  # a module that parsed at x_G (or is new) does not parse
    IMPORT_NOT_ALLOWED = "import_not_allowed"  # a module (or a part of one) outside the allow-list
    REFLECTION = "reflection"  # dunder/private names, getattr & co, 3-argument type(), modules as values
    FORMAT_PATH = "format_path"  # a format string whose fields walk attributes or indexes
    DYNAMIC_IMPORT = "dynamic_import"  # import by a dotted string, code from text, evaluated annotations
    COMPARISON = "comparison"  # a comparison dunder that ignores its argument
    ENVIRONMENT = "environment"  # a new read or any write of os.environ
    TEST_CODE = "test_code"  # library code importing a module under a test directory
    # the run itself (harness/boot.py and channel.py): no verdict, graded a failure with reason no_verdict
    AUDIT_DENIED = "audit_denied"  # an audit event denied while changed code was on the stack (evidence "event")
    REPORT_PATH_CHANGED = "report_path_changed"  # pytest's report-making path differs from before the tree loaded
    CLASS_CHANGED = "class_changed"  # a class's comparison, truth, ... dunder changed after it was made (boot.py)
    CHANNEL_FORGED = "channel_forged"  # outcome records that do not verify, add up, or come from the plugin
    TESTS_CHANGED = "tests_changed"  # a test file, renamed copy or conftest differs from its digest after the run


class Refusal(NamedTuple):
    """One refusal: its rule, the file, the line (0: the whole file) and what was found."""

    rule: Rule
    path: str
    line: int
    what: str

    def text(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where} {self.what} [{self.rule}]"
