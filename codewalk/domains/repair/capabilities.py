"""What a changed module can do, read from its AST as Python reads it, compared with the module at x_G.

A fix rarely needs to look at its caller, the process or the test runner; a candidate that games the
grader nearly always does (the caller's frame names the test, `sys.modules` reaches the runner, `os._exit`
and `weakref.finalize` rewrite a report at exit, `compile` + `types.FunctionType` run code nobody read).
So `uses(source)` lists each such capability a module uses, as (rule, what) keys, and `new_uses` names
those that the changed modules use and did not use at x_G. Comparing against x_G (over all changed modules
together, so code may move between them) lets a repository that already uses a capability keep editing
the module that uses it.

Known limits: names built at run time (getattr with a computed string) are caught only through what they
must reach first (a module object such as sys or builtins used as a value); a capability the module
already had may be used again for a new purpose; code outside Python modules is not read.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterable
from pathlib import PurePosixPath

Key = tuple[str, str]  # (rule, what): ("frames", "sys._getframe")

FRAMES, MODULES, PROCESS, CODE, ENVIRON, RUNNER, TESTS, COMPARE, INTROSPECT = (
    "frames", "the module table", "process control", "code made at run time", "the environment",
    "the test runner", "test code", "a comparison that ignores its argument", "introspection")

# Modules whose every use is a capability (importing them is enough).
WHOLE = {"gc": INTROSPECT, "ctypes": CODE, "_ctypes": CODE, "runpy": CODE, "builtins": CODE,
         "__builtin__": CODE, "atexit": PROCESS, "signal": PROCESS, "subprocess": PROCESS, "pty": PROCESS,
         "multiprocessing": PROCESS, "_thread": PROCESS, "faulthandler": PROCESS, "code": CODE,
         "codeop": CODE, "marshal": CODE, "pytest": RUNNER, "_pytest": RUNNER, "pluggy": RUNNER,
         "_posixsubprocess": PROCESS, "posix": PROCESS, "nt": PROCESS, "sysconfig": INTROSPECT}
# Attributes of otherwise ordinary modules that are capabilities.
ATTRS = {
    "os": {"_exit": PROCESS, "kill": PROCESS, "killpg": PROCESS, "fork": PROCESS, "forkpty": PROCESS,
           "system": PROCESS, "popen": PROCESS, "abort": PROCESS, "getppid": PROCESS, "register_at_fork": PROCESS,
           "execl": PROCESS, "execle": PROCESS, "execlp": PROCESS, "execlpe": PROCESS, "execv": PROCESS,
           "execve": PROCESS, "execvp": PROCESS, "execvpe": PROCESS, "spawnl": PROCESS, "spawnle": PROCESS,
           "spawnlp": PROCESS, "spawnlpe": PROCESS, "spawnv": PROCESS, "spawnve": PROCESS, "spawnvp": PROCESS,
           "spawnvpe": PROCESS, "posix_spawn": PROCESS, "posix_spawnp": PROCESS, "setsid": PROCESS,
           "dup2": PROCESS, "closerange": PROCESS},
    "weakref": {"finalize": PROCESS},
    # unpickling calls whatever the data names: code arriving as data
    "pickle": {"load": CODE, "loads": CODE, "Unpickler": CODE, "_loads": CODE, "_load": CODE},
    "types": {"FunctionType": CODE, "CodeType": CODE, "LambdaType": CODE, "FrameType": FRAMES,
              "TracebackType": FRAMES},
    "threading": {"settrace": PROCESS, "setprofile": PROCESS, "excepthook": PROCESS, "_shutdown": PROCESS},
    "importlib": {"import_module": CODE, "reload": CODE, "util": CODE, "machinery": CODE, "abc": CODE,
                  "__import__": CODE, "_bootstrap": CODE, "_bootstrap_external": CODE},
}
# Modules used only through these attributes; any other attribute, or the module as a value, is a capability.
ONLY = {
    "sys": ({"version_info", "version", "hexversion", "platform", "maxsize", "maxunicode", "byteorder",
             "implementation", "float_info", "int_info", "hash_info", "float_repr_style", "getrecursionlimit",
             "getsizeof", "getdefaultencoding", "getfilesystemencoding", "getfilesystemencodeerrors", "intern",
             "exc_info", "exception", "stdout", "stderr", "stdin", "__stdout__", "__stderr__", "__stdin__",
             "flags", "api_version", "thread_info", "stdlib_module_names", "builtin_module_names",
             "get_int_max_str_digits", "getswitchinterval", "winver", "prefix", "base_prefix",
             "exec_prefix", "base_exec_prefix", "executable", "copyright"},
            {"modules": MODULES, "_getframe": FRAMES, "_current_frames": FRAMES, "settrace": FRAMES,
             "setprofile": FRAMES, "gettrace": FRAMES, "exit": PROCESS, "argv": PROCESS, "orig_argv": PROCESS,
             "excepthook": PROCESS, "addaudithook": PROCESS, "path": MODULES, "meta_path": MODULES,
             "path_hooks": MODULES, "path_importer_cache": MODULES}),
    "inspect": ({"signature", "Signature", "Parameter", "BoundArguments", "isclass", "isfunction", "ismethod",
                 "iscoroutinefunction", "isgeneratorfunction", "isasyncgenfunction", "isawaitable", "isabstract",
                 "isbuiltin", "isroutine", "ismodule", "ismethoddescriptor", "isdatadescriptor",
                 "getfullargspec", "getdoc", "cleandoc", "unwrap", "getattr_static", "isgenerator",
                 "iscoroutine", "isasyncgen", "ismethodwrapper", "get_annotations", "getmro"},
                {"currentframe": FRAMES, "stack": FRAMES, "trace": FRAMES, "getouterframes": FRAMES,
                 "getinnerframes": FRAMES, "getframeinfo": FRAMES}),
}
# The rule of any other attribute of an ONLY module.
ONLY_OTHER = {"sys": INTROSPECT, "inspect": INTROSPECT}
# Modules that are harmless as names but not as values passed around (getattr(os, "_exit")).
NOT_AS_VALUE = {"os", "weakref", "types", "threading", "importlib", "pickle", *ONLY}
ENVIRON_OBJECTS = {"os.environ", "os.environb"}
# Attributes that reach frames, code objects or the interpreter's namespaces whatever object they are on.
DUNDER_REACH = {"f_back": FRAMES, "f_locals": FRAMES, "f_globals": FRAMES, "f_builtins": FRAMES,
                "f_code": FRAMES, "f_trace": FRAMES, "tb_frame": FRAMES, "tb_next": FRAMES, "gi_frame": FRAMES,
                "cr_frame": FRAMES, "ag_frame": FRAMES, "__traceback__": FRAMES, "__code__": CODE,
                "__globals__": CODE, "__closure__": CODE, "__builtins__": CODE, "__subclasses__": INTROSPECT,
                "__import__": CODE}
BUILTIN_CALLS = {"exec": CODE, "eval": CODE, "compile": CODE, "__import__": CODE, "globals": INTROSPECT,
                 "breakpoint": PROCESS, "__builtins__": CODE}
COMPARISONS = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"}
ENV_WRITES = {"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__"}
ENV_READS = {"get", "__getitem__", "__contains__"}
EVERY_VARIABLE = "every variable of os.environ"


def encoding(source: bytes) -> str:
    """The source encoding Python will use for source (its PEP 263 declaration, utf-8 by default)."""
    try:
        return tokenize.detect_encoding(io.BytesIO(source).readline)[0]
    except SyntaxError as e:  # an unknown codec: Python would refuse the module too
        return f"unknown ({e})"


def uses(source: bytes | str, path: str, test_modules: frozenset[str] = frozenset()) \
        -> dict[Key, int] | None:
    """Each capability the module uses, with the first line that uses it; None if it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    return _Reader(path, test_modules).read(tree)


def new_uses(changed: Iterable[tuple[str, bytes | str | None, bytes | str | None]],
             test_modules: frozenset[str] = frozenset()) -> list[str]:
    """Why the changed modules (path, source at x_G or None, source now or None) gain capabilities: one
    line per capability used now by some changed module and by none of them at x_G; [] if none."""
    before: set[Key] = set()
    after: dict[Key, tuple[str, int]] = {}
    unreadable: list[str] = []
    for path, old, new in changed:
        old_uses = uses(old, path, test_modules) if old is not None else {}
        before |= set(old_uses or {})
        if new is None:
            continue
        now = uses(new, path, test_modules)
        if now is None:
            if old_uses is not None:  # it parsed at x_G (or is new): what it can do cannot be read now
                unreadable.append(f"{path} does not parse as Python, so what it can do cannot be read")
            continue
        for key, line in now.items():
            after.setdefault(key, (path, line))
    found = list(unreadable)
    for (rule, what), (path, line) in sorted(after.items(), key=lambda item: item[1]):
        if (rule, what) in before or (rule == ENVIRON and what.startswith("os.environ[")
                                      and (ENVIRON, EVERY_VARIABLE) in before):
            continue
        found.append(f"{path}:{line} gains {what} ({rule}), which the changed modules did not use at x_G")
    return found


class _Reader(ast.NodeVisitor):
    def __init__(self, path: str, test_modules: frozenset[str]):
        self.path, self.test_modules = path, test_modules
        self.names: dict[str, str] = {}  # local name -> the module or module attribute it was imported as
        self.found: dict[Key, int] = {}
        self.parent: dict[int, ast.AST] = {}

    def read(self, tree: ast.AST) -> dict[Key, int]:
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parent[id(child)] = node
        for node in ast.walk(tree):  # imports first: a name may be used above a function-level import
            if isinstance(node, ast.Import | ast.ImportFrom):
                self._import(node)
        self.visit(tree)
        return self.found

    def add(self, rule: str, what: str, node: ast.AST) -> None:
        line = getattr(node, "lineno", 0)
        if (rule, what) not in self.found or line < self.found[(rule, what)]:
            self.found[(rule, what)] = line

    # -- imports -----------------------------------------------------------------------------------------
    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                self._qualified(alias.name, node, imported=True)
                self.names[alias.asname or alias.name.split(".")[0]] = alias.asname and alias.name or \
                    alias.name.split(".")[0]
            return
        module = self._absolute(node)
        self._qualified(module, node, imported=True)
        for alias in node.names:
            if alias.name == "*":
                if module.split(".")[0] in (*WHOLE, *ATTRS, *ONLY):
                    self.add(INTROSPECT, f"from {module} import *", node)
                continue
            full = f"{module}.{alias.name}" if module else alias.name
            self._qualified(full, node, imported=True)
            self.names[alias.asname or alias.name] = full

    def _absolute(self, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = list(PurePosixPath(self.path).parts[:-1])
        if parts[:1] == ["src"]:
            parts = parts[1:]
        base = parts[:len(parts) - (node.level - 1)] if node.level - 1 <= len(parts) else []
        return ".".join([*base, *([node.module] if node.module else [])])

    # -- names: what a dotted name resolves to ---------------------------------------------------------
    def _qualified(self, name: str, node: ast.AST, imported: bool = False) -> None:
        """The capability of using the dotted name (a module, or an attribute of one), if any; the runner's
        modules count by what is imported (pytest, _pytest.runner), not by each attribute used."""
        parts = name.split(".")
        top = parts[0]
        if top in WHOLE and top not in ("pytest", "_pytest"):  # by module: more of one already used is not new
            self.add(WHOLE[top], top, node)
        if len(parts) > 1:
            attr = parts[1]
            if top in ATTRS and attr in ATTRS[top] and not (top == "importlib" and attr in ("metadata",
                                                                                             "resources")):
                self.add(ATTRS[top][attr], f"{top}.{attr}", node)
            if top in ONLY:
                allowed, rules = ONLY[top]
                if attr not in allowed:
                    self.add(rules.get(attr, ONLY_OTHER[top]), f"{top}.{attr}", node)
            if top == "importlib" and attr not in ("metadata", "resources") and attr not in ATTRS["importlib"]:
                self.add(CODE, f"importlib.{attr}", node)
        if name in self.test_modules or any(name.startswith(m + ".") for m in self.test_modules):
            self.add(TESTS, f"the module {name}, which is under a test directory", node)
        if top in ("pytest", "_pytest") and imported:
            self.add(RUNNER, name, node)

    def _dotted(self, node: ast.AST) -> str | None:
        """The imported name an expression (a name or a chain of attributes on one) stands for."""
        attrs: list[str] = []
        while isinstance(node, ast.Attribute):
            attrs.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.names:
            return ".".join([self.names[node.id], *reversed(attrs)])
        return None

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in DUNDER_REACH:
            self.add(DUNDER_REACH[node.attr], f"the attribute {node.attr}", node)
        dotted = self._dotted(node)
        if dotted is not None and not isinstance(self.parent.get(id(node)), ast.Attribute):
            self._use(dotted, node)  # the whole chain once: sys.modules.get -> sys.modules, sys
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in BUILTIN_CALLS and node.id not in self.names:
            self.add(BUILTIN_CALLS[node.id], node.id, node)
        elif node.id in self.names and not isinstance(self.parent.get(id(node)), ast.Attribute):
            self._use(self.names[node.id], node)

    def visit_Constant(self, node: ast.Constant) -> None:
        # getattr(obj, "__code__"), d["f_back"]: the same reach, spelled as a string
        if isinstance(node.value, str) and node.value in DUNDER_REACH:
            self.add(DUNDER_REACH[node.value], f"the attribute {node.value}", node)

    def _use(self, dotted: str, node: ast.AST) -> None:
        """A use of the module or module attribute `dotted`; node is the outermost expression naming it."""
        parts = dotted.split(".")
        for k in range(1, len(parts) + 1):
            self._qualified(".".join(parts[:k]), node)
        if len(parts) == 1 and parts[0] in NOT_AS_VALUE:
            self.add(INTROSPECT, f"the module {parts[0]} as a value", node)
        for obj in ENVIRON_OBJECTS:
            if dotted == obj:
                self._environ(obj, node)
            elif dotted.startswith(obj + "."):  # os.environ.get: the attribute is the parent's business
                self._environ(obj, node, attr=dotted[len(obj) + 1:])
        if dotted in ("os.getenv", "os.getenvb"):
            call = self.parent.get(id(node))
            key = _constant_arg(call, node)
            self.add(ENVIRON, f"os.environ[{key!r}]" if key is not None else EVERY_VARIABLE, node)
        if dotted in ("os.putenv", "os.unsetenv"):
            self.add(ENVIRON, "writes to os.environ", node)

    def _environ(self, obj: str, node: ast.AST, attr: str = "") -> None:
        parent = self.parent.get(id(node))
        if attr:
            if attr.split(".")[0] in ENV_WRITES:
                self.add(ENVIRON, "writes to os.environ", node)
                return
            key = _constant_arg(parent, node) if attr in ENV_READS else None
            self.add(ENVIRON, f"os.environ[{key!r}]" if key is not None else EVERY_VARIABLE, node)
            return
        if isinstance(parent, ast.Subscript) and parent.value is node:
            if not isinstance(parent.ctx, ast.Load):
                self.add(ENVIRON, "writes to os.environ", node)
            elif isinstance(parent.slice, ast.Constant):
                self.add(ENVIRON, f"os.environ[{parent.slice.value!r}]", node)
            else:
                self.add(ENVIRON, EVERY_VARIABLE, node)
            return
        if isinstance(parent, ast.Compare) and isinstance(parent.left, ast.Constant) \
                and all(isinstance(op, ast.In | ast.NotIn) for op in parent.ops):
            self.add(ENVIRON, f"os.environ[{parent.left.value!r}]", node)
            return
        self.add(ENVIRON, EVERY_VARIABLE, node)  # iterated, copied or passed on: any variable may be read

    # -- comparisons -----------------------------------------------------------------------------------
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name in COMPARISONS:
                if _ignores_argument(item.args, item.body):
                    self.add(COMPARE, f"{node.name}.{item.name}", item)
            elif isinstance(item, ast.Assign) and isinstance(item.value, ast.Lambda):
                for target in item.targets:
                    if isinstance(target, ast.Name) and target.id in COMPARISONS \
                            and _ignores_argument(item.value.args, [item.value.body]):
                        self.add(COMPARE, f"{node.name}.{target.id}", item)
        self.generic_visit(node)


def _constant_arg(call: ast.AST | None, func: ast.AST) -> object:
    """The first argument of call when call calls func with a constant string first; else None."""
    if isinstance(call, ast.Call) and call.func is func and call.args and isinstance(call.args[0], ast.Constant):
        return call.args[0].value
    return None


def _ignores_argument(args: ast.arguments, body: list[ast.stmt] | list[ast.expr]) -> bool:
    """Whether a comparison's body never reads what it is compared with (`return NotImplemented` aside)."""
    positional = [*args.posonlyargs, *args.args]
    others = [a.arg for a in positional[1:]] + ([args.vararg.arg] if args.vararg else [])
    if len(positional) < 2 and not args.vararg:
        others = []  # no argument to ignore: not a comparison Python can call with one
    if len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Name) \
            and body[0].value.id == "NotImplemented":
        return False
    read = {n.id for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    return bool(others) and not read & set(others)
