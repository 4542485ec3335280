"""What the new code of changed modules may do: an allow-list, judged on the new code's AST nodes.

Deny-lists of capabilities lost to spellings twice (issues 34 and 51): Python has more ways to reach a
frame, a module or the runner than any list names. So the new code may only do what is known to be
harmless, and anything else is refused with the rule it breaks (rules.Rule):

- import_not_allowed: a changed or added module may import only the repository's own modules, what the
  changed modules imported at x_G (code may move between them), and the reviewed standard-library modules
  of REVIEWED below (some only through the attributes listed there). An attribute chain on an allowed
  module is resolved against the real module object of this interpreter: a chain that reaches another
  module (`os.sys`, `re.enum.sys`, `pathlib.os`) must reach an allowed one, and only through allowed parts.
- reflection: dunder and underscore-private names of objects the repository does not define (`self._x`
  and private names the changed modules define are the repository's; dunders only where defined at x_G or
  none of Python's own objects has them; a few harmless dunders such as `__name__` are not refused), the attributes that reach frames and code whatever their object (`f_back`, `tb_frame`,
  `gi_frame`, ...), the same names as string constants or keywords, getattr/setattr/delattr/vars/globals/
  locals/eval/exec/compile/__import__/breakpoint, three-argument type(), a module object used as a value,
  writing an attribute of a module that is not the repository's, a dunder borrowed from another object
  in a class body (`__eq__ = str.__eq__`). Plain code spelled otherwise is judged as that code: a constant
  name in getattr/setattr/delattr as the attribute it spells, hasattr's name as a string (it answers a bool),
  a namespace (`x.__dict__`, vars(x), globals(), locals()) read by a constant key as that attribute, and its
  membership tests, keys() and writes as what they are (no value by a computed key; a class's dict is read-only).
  Third round (issue 51): a name that can hold only literal strings is judged as those constants; a proxy's
  __getattr__, super().__setattr__ in an instance method, a namespace's names or text, three-argument type()
  with a namespace read whole and a module's logger are allowed (each with why, at its code and in the docs).
  Round 11: private names given as constant keys of a namespace, a route name called on the repository's own
  chain, a class's namespace iterated under isinstance of a plain class here, a class cloned from one class's
  namespace copy and bases, and typing._GenericAlias (docs: "Round 11: the static layer's honest cost").
- format_path: a string constant whose format fields walk attributes or indexes (`"{0.__globals__}"`,
  `"{x[k]}"`), used with str.format/format_map or anywhere in the new code. An f-string is code: its
  fields are AST nodes, judged by the rules above like any other expression.
- dynamic_import: a call that imports a dotted string, evaluates source text or string annotations
  (importlib.import_module, pkgutil.resolve_name, typing.get_type_hints, timeit, logging.config, inspect's
  eval_str=True as a keyword of any call or a string, ...),
  even on a module the file imported at x_G: the same capability aimed at a new target is a new node; a
  string annotation that is not a plain type expression.
- comparison: a comparison dunder that never reads what it compares with.
- environment: a read of os.environ (or os.getenv) that the changed modules did not make at x_G, any write.
- test_code: an import of a module under a test directory.

"What changed" is judged on nodes: each finding is keyed by the node it is found at (the call with its
arguments, the whole attribute chain, the subscript), and only findings whose node does not occur, the
same, in the changed modules at x_G are refused. A capability the code already had may stay where it
was; aimed at a new target it is a new node. Imports are keyed by module: a module any changed module
imported at x_G may be imported again.

Modules imported at x_G but outside REVIEWED (third-party packages, `sys` beyond its plain part, pytest
in a plugin repository) stay usable: new nodes on them are judged by reflection (private and dunder
names) and by KNOWN, the capabilities the earlier deny-list named (frames, the module table, process
control, code from text, import by name), which is still worth refusing where the allow-list cannot reach.

Known limits: the rules read the code, not the values it computes at run time; an object the module
legitimately holds can be walked through its public attributes; modules are resolved on the grader's
interpreter (3.11+), not the task's. The run-time layer (audit hooks in the harness) covers what reading
cannot: see docs/repair-grading-rules.md.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.machinery
import importlib.util
import io
import pkgutil
import re
import string
import sys
import tokenize
import types
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import NamedTuple

from .codes import Refusal, Rule
from .patch import is_test_path


@dataclass(frozen=True)
class Reviewed:
    """A standard-library module new code may import: why, and which parts (None: every public one)."""

    why: str
    only: frozenset[str] | None = None  # the attributes new code may use; None: all public ones
    without: frozenset[str] = frozenset()  # public attributes that are not allowed after all
    private: frozenset[str] = frozenset()  # private attributes allowed all the same (each with why, in `why`)


def _r(why: str, only: str = "", without: str = "", private: str = "") -> Reviewed:
    return Reviewed(why, frozenset(only.split()) if only else None, frozenset(without.split()),
                    frozenset(private.split()))


REFLECTION_CALLS = {"getattr", "setattr", "delattr", "vars", "globals", "locals", "eval", "exec", "compile",
                    "__import__", "breakpoint"}
REFLECTION_NAMES = REFLECTION_CALLS  # as builtins' attributes too (builtins.getattr)
# The reviewed standard-library modules: none gives a path to frames, code from text, import by name or
# the process through its public parts (parts that do are left out or listed in `without`). A module not
# here is not known to be harmless, so a new import of it is refused.
REVIEWED: dict[str, Reviewed] = {
    "__future__": _r("compiler directives only"),
    "abc": _r("abstract base classes: class machinery, no frames or code objects"),
    "array": _r("typed arrays of numbers"),
    "base64": _r("pure data encodings"),
    "binascii": _r("pure data encodings"),
    "bisect": _r("searching sorted lists"),
    "calendar": _r("date arithmetic"),
    "cmath": _r("complex math"),
    "collections": _r("containers; namedtuple validates its field names before it builds the class"),
    "collections.abc": _r("abstract container classes"),
    "contextlib": _r("context-manager helpers; they call only what they are given"),
    "copy": _r("copying values"),
    "csv": _r("reading and writing CSV text"),
    "dataclasses": _r("class decoration; generated methods are built from validated field names",
                      without="make_dataclass"),
    "datetime": _r("dates and times"),
    "decimal": _r("decimal arithmetic"),
    "difflib": _r("text comparison"),
    "enum": _r("enumerations"),
    "errno": _r("error numbers"),
    "fnmatch": _r("shell-style pattern matching"),
    "fractions": _r("rational numbers"),
    "functools": _r("function combinators (string annotations, which singledispatch evaluates, are refused "
                    "apart)"),
    "glob": _r("file-name patterns"),
    "hashlib": _r("digests"),
    "heapq": _r("heaps over lists"),
    "hmac": _r("keyed digests"),
    "html": _r("escaping HTML"),
    "io": _r("in-memory streams and file wrappers"),
    "ipaddress": _r("IP addresses"),
    "itertools": _r("iterator combinators"),
    "json": _r("JSON text to values and back; no object hooks by name"),
    "keyword": _r("the keyword list"),
    "math": _r("math"),
    "numbers": _r("numeric abstract classes"),
    "operator": _r("operators as functions; attrgetter/methodcaller take names as strings, so their "
                   "constant arguments are judged as attribute names and other arguments are refused"),
    "os": _r("paths, files and directories only: os also reaches processes, descriptors and sys; fstat reads a "
             "descriptor's metadata (size, mode, times), as stat reads a path's: no content, no write; fdopen is "
             "io.open of a descriptor number (round 13), which open() does already",
             only="path sep altsep extsep pathsep linesep curdir pardir devnull name fspath fsencode "
                  "fsdecode PathLike getcwd getcwdb listdir scandir walk stat lstat makedirs mkdir remove "
                  "unlink rmdir removedirs rename renames replace chmod utime access F_OK R_OK W_OK X_OK "
                  "strerror urandom cpu_count get_terminal_size terminal_size error environ getenv chdir getpid "
                  "stat_result DirEntry SEEK_SET SEEK_CUR SEEK_END fstat fdopen"),
    "os.path": _r("path manipulation (posixpath/ntpath); expandvars reads the environment (judged by the "
                  "environment rule as a read of every variable, round 13)",
                  without="expandvars"),
    "posixpath": _r("path manipulation; expandvars reads the environment", without="expandvars"),
    "ntpath": _r("path manipulation; expandvars reads the environment", without="expandvars"),
    "genericpath": _r("path manipulation"),
    "pathlib": _r("path objects"),
    "pprint": _r("pretty-printing values"),
    "random": _r("pseudo-random numbers"),
    "re": _r("regular expressions"),
    "reprlib": _r("abbreviated repr"),
    "secrets": _r("random tokens"),
    "shlex": _r("shell-like splitting and quoting (no running)"),
    "shutil": _r("copying and removing files; which() finds a program without running it"),
    "stat": _r("file-mode constants"),
    "socket": _r("a client connection only: the run has no network (sandbox, container without one), and a "
                 "descriptor can be opened with open() anyway, which the run-time layer watches",
                 only="create_connection error gaierror herror timeout AF_INET AF_INET6 AF_UNIX SOCK_STREAM "
                      "SOCK_DGRAM gethostname getfqdn gethostbyname getaddrinfo inet_aton inet_ntoa inet_pton "
                      "inet_ntop htons ntohs htonl ntohl"),
    "statistics": _r("statistics over numbers"),
    "string": _r("string constants and $-templates; Formatter walks attribute paths from text",
                 without="Formatter"),
    "struct": _r("binary packing of values"),
    "sys": _r("read-only facts about the interpreter; everything else of sys reaches frames, modules or "
              "the process",
              only="version_info version hexversion platform maxsize maxunicode byteorder implementation "
                   "float_info int_info hash_info float_repr_style getrecursionlimit getsizeof "
                   "getdefaultencoding getfilesystemencoding getfilesystemencodeerrors intern stdout stderr "
                   "stdin exc_info exception flags api_version thread_info get_int_max_str_digits "
                   "getswitchinterval"),
    "tempfile": _r("temporary files and directories"),
    "textwrap": _r("wrapping text"),
    "queue": _r("thread-safe queues; the module's threading is left out",
                only="Queue LifoQueue PriorityQueue SimpleQueue Empty Full"),
    "email.utils": _r("address and date formatting for mail headers",
                      only="parseaddr formataddr getaddresses parsedate parsedate_tz parsedate_to_datetime "
                           "formatdate format_datetime mktime_tz make_msgid quote unquote localtime decode_params "
                           "decode_rfc2231 encode_rfc2231 collapse_rfc2231_value"),
    "codecs": _r("text encodings; register() would add a codec that source declarations could name",
                 without="register unregister"),
    "platform": _r("facts about the interpreter and the system; architecture() and the like run programs",
                   only="python_implementation python_version python_version_tuple system machine release "
                        "version uname node platform"),
    "weakref": _r("weak references and mappings; finalize runs code at exit (atexit under another name)",
                  without="finalize"),
    "urllib": _r("the package: its parse module only", only="parse"),
    "xml": _r("the package: its ElementTree only", only="etree"),
    "xml.etree": _r("the package: its ElementTree only", only="ElementTree"),
    "importlib": _r("the package: its metadata module only (the rest imports by name)", only="metadata"),
    "threading": _r("locks and thread-local values only: threads, trace and exception hooks are left out",
                    only="local Lock RLock Event Condition Semaphore BoundedSemaphore get_ident"),
    "gettext": _r("translating messages; install() would write builtins",
                  only="gettext ngettext pgettext npgettext"),
    "typing_extensions": _r("the typing backport (a distribution, reviewed like typing): its evaluators of "
                            "string annotations are left out",
                            without="get_type_hints ForwardRef evaluate_forward_ref get_annotations"),
    "time": _r("clocks and time formatting"),
    "types": _r("a few value types; the rest makes functions, code or classes from parts",
                only="SimpleNamespace MappingProxyType GeneratorType CoroutineType AsyncGeneratorType "
                     "BuiltinFunctionType BuiltinMethodType MethodType ModuleType NoneType TracebackType FrameType "
                     "NotImplementedType EllipsisType GenericAlias UnionType"),
    "typing": _r("type annotations; get_type_hints and ForwardRef evaluate strings as code. Round 11: the private "
                 "_GenericAlias is `type(typing.List[int])`, a class plain code reaches already (attrs tests "
                 "isinstance against it)", without="get_type_hints ForwardRef", private="_GenericAlias"),
    "unicodedata": _r("the Unicode database"),
    "urllib.parse": _r("URL parsing"),
    "unittest": _r("raising SkipTest only (a skipped test fails the grade); unittest.mock's ANY equals "
                   "anything", only="SkipTest"),
    "uuid": _r("UUIDs"),
    "warnings": _r("issuing and filtering warnings; a record of caught warnings names the caller's file "
                   "and line, so catch_warnings(record=True) is refused apart, as filters by module or line",
                   only="warn simplefilter filterwarnings catch_warnings resetwarnings"),
    "zlib": _r("compression"),
    "gzip": _r("compression"),
    "html.parser": _r("parsing HTML"),
    "html.entities": _r("HTML entity tables"),
    "xml.etree.ElementTree": _r("parsing XML into elements (no entity expansion of external files)"),
    "graphlib": _r("topological sorting"),
    "zoneinfo": _r("time zones"),
    "contextvars": _r("context variables"),
    "locale": _r("locale conventions"),
    "mimetypes": _r("file types by name"),
    "bz2": _r("compression"),
    "lzma": _r("compression"),
    "zipfile": _r("zip archives"),
    "importlib.metadata": _r("an installed distribution's version, metadata and requirements, and which "
                             "distribution provides a module: text only (entry points load code by name)",
                             only="version PackageNotFoundError metadata requires packages_distributions"),
    "ast": _r("syntax trees of source text: a tree is data, and what would make code of it (compile, exec, eval, "
              "types.FunctionType) is refused apart; parsing itself compiles, which the run-time layer denies"),
    "http": _r("status codes and the cookie modules", only="HTTPStatus cookiejar cookies client"),
    "http.cookiejar": _r("cookie jars: values and policies",
                         only="Cookie CookieJar CookiePolicy DefaultCookiePolicy FileCookieJar MozillaCookieJar "
                              "LWPCookieJar LoadError"),
    "http.cookies": _r("cookie headers: values", only="SimpleCookie BaseCookie Morsel CookieError"),
    "http.client": _r("a client connection, as socket.create_connection: the run has no network",
                      only="HTTPConnection HTTPSConnection HTTPResponse HTTPException responses HTTP_PORT "
                           "HTTPS_PORT IncompleteRead RemoteDisconnected"),
    "markupsafe": _r("escaping HTML (a distribution, reviewed like typing_extensions): strings that know they "
                     "are safe", only="Markup escape escape_silent soft_str soft_unicode"),
    "idna": _r("internationalised domain names to ASCII and back (a distribution): text only",
               only="encode decode IDNAError InvalidCodepoint"),
    "six": _r("Python 2 and 3 compatibility (a distribution): its constants and type helpers only; six.moves, "
              "exec_ and the getters of a function's code, globals and closure are left out",
              only="PY2 PY3 PY34 MAXSIZE string_types integer_types class_types text_type binary_type u b "
                   "unichr int2byte byte2int indexbytes iterbytes iteritems iterkeys itervalues iterlists "
                   "viewkeys viewvalues viewitems next advance_iterator callable Iterator with_metaclass "
                   "add_metaclass python_2_unicode_compatible ensure_str ensure_binary ensure_text StringIO "
                   "BytesIO wraps raise_from"),
    "builtins": _r("the builtin names as attributes (builtins.open, builtins.str): each is the bare name, which new "
                   "code may use anyway; the reflective ones (getattr, setattr, vars, globals, locals, eval, exec, "
                   "compile, __import__, breakpoint) and hasattr, which the rules judge only where spelled bare, are "
                   "left out (builtins.type is judged as type: three arguments are refused), as are site's help, exit and quit (help "
                   "runs pydoc); writing an attribute of builtins is writing a module that is not the repository's",
                   only=" ".join(sorted(n for n in dir(builtins) if not n.startswith("_") and n not in {
                       *REFLECTION_NAMES, "hasattr", "super", "help", "exit", "quit", "copyright",
                       "credits", "license"}))),
    "select": _r("waiting until descriptors are ready: it says whether one can be read or written, reads and "
                 "writes nothing, and a descriptor it is given was opened by other means",
                 only="select poll epoll devpoll kqueue kevent error PIPE_BUF POLLIN POLLPRI POLLOUT POLLERR "
                      "POLLHUP POLLNVAL POLLRDNORM POLLRDBAND POLLWRNORM POLLWRBAND POLLMSG POLLRDHUP EPOLLIN "
                      "EPOLLOUT EPOLLPRI EPOLLERR EPOLLHUP EPOLLET EPOLLONESHOT EPOLLEXCLUSIVE EPOLLRDHUP "
                      "EPOLLRDNORM EPOLLRDBAND EPOLLWRNORM EPOLLWRBAND EPOLLMSG EPOLL_CLOEXEC"),
    "selectors": _r("select's waiting, as objects (its imports, selectors.select and selectors.sys, are left out)",
                    only="BaseSelector DefaultSelector SelectSelector PollSelector EpollSelector "
                         "DevpollSelector KqueueSelector SelectorKey EVENT_READ EVENT_WRITE"),
    "pipes": _r("quote only, which is shlex.quote: Template runs shell pipelines", only="quote"),
    "logging": _r("a module's logger only (third round): `log = logging.getLogger(__name__)` at module level, used "
                  "only to log (LOGGER_CALLS, without stack_info or stacklevel, which put the callers' frames and "
                  "source lines in a record); the rest hands out handlers (the runner's capture among them), "
                  "findCaller, the manager's loggers, and configuration (logging.disable would hide what a test "
                  "asserts was not logged)", only="getLogger DEBUG INFO WARNING ERROR CRITICAL NOTSET"),
    "inspect": _r("signatures and type predicates only; the rest reaches frames, source and members",
                  only="signature Signature Parameter BoundArguments isclass isfunction ismethod "
                       "iscoroutinefunction isgeneratorfunction isasyncgenfunction isawaitable isabstract "
                       "isbuiltin isroutine ismodule isgenerator iscoroutine isasyncgen cleandoc "
                       "isdatadescriptor ismethoddescriptor getfullargspec getargspec getcallargs getmro "
                       "unwrap getdoc isgetsetdescriptor ismemberdescriptor"),
}
# Python 2's standard-library modules that Python 3 removed. A task runs on Python 3 (the harness needs 3.6+),
# so a new import of one can only fail, unless the environment installs a module of that name: rules.refusals
# passes new_refusals those the task's environment cannot import (`absent`), and only those are allowed.
PYTHON2_ONLY = frozenset("""
__builtin__ cStringIO StringIO UserDict UserList UserString cPickle cookielib Cookie urllib2 urlparse httplib
HTMLParser htmlentitydefs Queue sets dummy_threading compiler ConfigParser SocketServer BaseHTTPServer
SimpleHTTPServer CGIHTTPServer xmlrpclib SimpleXMLRPCServer thread commands md5 sha new exceptions copy_reg
anydbm dbhash whichdb dumbdbm gdbm robotparser Tkinter tkMessageBox _winreg mimetools rfc822 popen2
""".split())
# The standard library's Windows-only modules: a task runs on Linux or macOS (the sandbox, a container), where
# they do not exist, so a new import of one can only fail; rules.refusals counts them absent there.
WINDOWS_ONLY = frozenset({"winreg", "_winreg", "msvcrt", "winsound", "_winapi", "_overlapped", "nt"})
# Python 2's urllib functions: Python 3's urllib is a package of submodules without them (an AttributeError).
PYTHON2_URLLIB = frozenset("""
quote quote_plus unquote unquote_plus urlencode urlopen urlretrieve urlcleanup pathname2url url2pathname
getproxies getproxies_environment proxy_bypass proxy_bypass_environment splittype splithost splitport
splitquery splittag splituser splitpasswd splitattr splitvalue basejoin FancyURLopener URLopener
ContentTooShortError
""".split())
# Top-level names whose dunders are not the repository's own even when it has a module of that name: the
# standard library's and the runner's (`__pytest_wrapped__`), whose objects define such dunders themselves.
OUTSIDE_PREFIXES = frozenset(sys.stdlib_module_names) | frozenset(sys.builtin_module_names) | {
    "pytest", "_pytest", "pluggy", "py", "mro", "class", "init", "set", "reduce", "array", "length", "dataclass",
    "test", "tests", "testing", "conftest", "setup", "docs", "getattr", "setattr", "slot", "slots", "weak", "type",
    "cause", "context", "suppress", "abstract", "obj", "path", "prepare", "orig", "text", "get", "sub", "all"}
# Names of one module object under several names: os.path is posixpath (or ntpath).
ALIASES = {"os.path": "posixpath"}
# The module-level dunders a module may read of any module: plain strings.
MODULE_DUNDERS = {"__name__", "__doc__", "__version__", "__file__", "__all__", "__qualname__", "__module__",
                  "__package__", "__stdout__", "__stderr__", "__stdin__"}
# Dunders that are the object protocol (called through super(), a class, or the object itself): reading
# one gives a bound method of the object at hand, not a way out of it.
PROTOCOL = {
    "__name__", "__qualname__", "__doc__", "__module__", "__class__", "__version__", "__all__", "__file__",
    "__init__", "__new__", "__init_subclass__", "__call__", "__enter__", "__exit__", "__aenter__", "__aexit__",
    "__iter__", "__next__", "__aiter__", "__anext__", "__len__", "__length_hint__", "__contains__", "__getitem__",
    "__setitem__", "__delitem__", "__missing__", "__reversed__", "__bool__", "__hash__", "__repr__", "__str__",
    "__format__", "__bytes__", "__fspath__", "__index__", "__int__", "__float__", "__complex__", "__round__",
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__add__", "__radd__", "__iadd__", "__sub__",
    "__rsub__", "__isub__", "__mul__", "__rmul__", "__imul__", "__truediv__", "__rtruediv__", "__floordiv__",
    "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__and__", "__rand__", "__or__", "__ror__",
    "__xor__", "__rxor__", "__neg__", "__pos__", "__abs__", "__invert__", "__lshift__", "__rshift__",
    "__matmul__", "__getattr__", "__setattr__", "__delattr__", "__get__", "__set__", "__delete__",
    "__set_name__", "__slots__", "__wrapped__", "__copy__", "__deepcopy__", "__reduce__", "__reduce_ex__",
    "__getstate__", "__setstate__", "__sizeof__", "__dir__", "__instancecheck__", "__subclasscheck__",
    "__class_getitem__", "__post_init__", "__attrs_post_init__", "__await__", "__package__", "__unicode__",
    "__nonzero__", "__div__", "__bases__", "__mro__", "__version_info__", "__annotations__", "__func__",
    "__getattribute__", "__html__", "__signature__",  # not __self__: a builtin function's is its module
    # plain data of enums, generics and weak-referenceable instances
    "__members__", "__origin__", "__args__", "__parameters__", "__weakref__", "__forward_arg__",
    "__abstractmethods__", "__isabstractmethod__",  # abstract classes' names of abstract methods, and the flag
    # the rest of the numeric protocol (third round: `super().__ior__(other)`), as __iadd__ and __or__ above
    "__ior__", "__iand__", "__ixor__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__", "__ilshift__",
    "__irshift__", "__imatmul__", "__rmatmul__", "__rlshift__", "__rrshift__", "__divmod__", "__rdivmod__",
    "__trunc__", "__floor__", "__ceil__",
}
# The dunders Python's own objects have (builtin types, the types module's, functions, methods, modules, frames,
# generators): measured, not listed. A dunder the change itself defines is the repository's new protocol only
# when it is not one of these (`__processor_tags__`); one of these (`__self__`, `__objclass__`, `__func__`) is
# the repository's only where the changed modules defined it at x_G, else defining it would excuse reading it
# on any object (`class K: __self__ = None` beside `sys.getsizeof.__self__.modules`).
_PYTHONS_OBJECTS: list[object] = [
    *(v for v in vars(builtins).values() if isinstance(v, type)), *(v for v in vars(types).values() if isinstance(v, type)),
    len, print, types, type, object, lambda: 0, [].append, str.join, object.__init__, int.real,
    types.SimpleNamespace(), sys, sys._getframe(), iter(()), (n for n in "x"), sys.flags]
PYTHON_DUNDERS = frozenset(n for o in _PYTHONS_OBJECTS for n in dir(o) if n.startswith("__") and n.endswith("__"))
# namedtuple's documented API, underscored only to keep clear of field names; the runner defines none of them.
NAMEDTUPLE = {"_make", "_replace", "_asdict", "_fields", "_field_defaults"}
# Dunders that, set from outside a class body, change what an instance compares equal to or is
# (`C.__eq__ = always`, `obj.__class__ = Other`); others (`__doc__`, `__setattr__` of a frozen class) may be set.
OUTSIDE = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__bool__", "__nonzero__",
           "__len__", "__contains__", "__instancecheck__", "__subclasscheck__", "__class__", "__getattr__",
           "__getattribute__"}
# Dunder-named string constants that are plain words in honest code (`if __name__ == "__main__"`).
HARMLESS_STRINGS = {"__main__", "__name__", "__qualname__", "__doc__", "__module__", "__version__", "__all__",
                    "__init__", "__iter__", "__len__", "__getitem__", "__call__", "__enter__", "__exit__",
                    "__fspath__", "__slots__", "__wrapped__", "__package__"}
# Attributes that reach frames and code objects whatever object they are read on (not dunders).
FRAME_ATTRS = {"f_back", "f_locals", "f_globals", "f_builtins", "f_code", "f_trace", "f_lineno", "tb_frame",
               "tb_next", "tb_lineno", "gi_frame", "gi_code", "cr_frame", "cr_code", "ag_frame", "ag_code",
               "co_consts", "co_code", "co_names", "co_varnames", "co_filename", "co_name"}
# The process seen as files: its descriptors (the outcome channel's among them), argv, environment, memory.
PROCESS_FILES = re.compile(r"/proc/(self|thread-self|\d+|\{)|/dev/fd\b|/dev/std(in|out|err)\b")
# Module names that, met inside a chain on the repository's own modules (pkg.utils.sys), are the module
# that repository module imported, not a submodule of its own: the chain goes on as one on that module.
ROUTES = {"sys", "os", "builtins", "importlib", "inspect", "gc", "ctypes", "subprocess", "traceback", "weakref",
          "atexit", "signal", "_pytest", "pytest", "pluggy", "pkgutil", "runpy", "marshal", "pickle", "threading",
          "__builtin__", "shutil", "pathlib", "posixpath", "linecache", "logging", "fcntl", "socket"}
BUILTIN_NAMES = frozenset(dir(builtins))
SELVES = {"self", "cls", "mcs", "metacls"}
# Calls that import by a dotted string or turn text into code.
DYNAMIC = {"importlib.import_module", "importlib.__import__", "importlib.reload", "importlib.util",
           "importlib.machinery", "importlib.metadata.entry_points", "importlib.metadata.EntryPoint",
           "importlib.resources", "pkgutil", "pkg_resources", "runpy", "zipimport", "timeit", "cProfile",
           "profile", "pdb", "code", "codeop", "doctest", "pydoc", "logging.config", "typing.get_type_hints",
           "typing.ForwardRef", "inspect.get_annotations", "unittest.mock.patch", "pickle.load", "pickle.loads",
           "pickle.Unpickler", "marshal", "types.FunctionType",
           "types.CodeType", "types.LambdaType", "builtins.eval", "builtins.exec", "builtins.compile"}
# Round 15b: classes of functions and code, refused for what calling them makes; a class tested against (the second
# argument of isinstance/issubclass, alone or in a tuple literal, or an operand of `is`) makes nothing (_tested_class)
TESTED_CLASSES = frozenset({"types.FunctionType", "types.LambdaType", "types.CodeType"})
# Round 15b: inspect.getattr_static called with its value dropped only tells whether the attribute exists (_dropped_call)
DROPPED_CALLS = frozenset({"inspect.getattr_static"})
# What the earlier deny-list knew, applied to modules imported at x_G outside REVIEWED (their new nodes).
KNOWN = {"sys.modules", "sys._getframe", "sys._current_frames", "sys.settrace", "sys.setprofile", "sys.gettrace",
         "sys.exit", "sys.argv", "sys.orig_argv", "sys.excepthook", "sys.addaudithook", "sys.path", "sys.meta_path",
         "sys.path_hooks", "sys.path_importer_cache", "sys.displayhook", "sys.unraisablehook", "sys.breakpointhook",
         "inspect.currentframe", "inspect.stack", "inspect.trace", "inspect.getouterframes",
         "inspect.getinnerframes", "inspect.getframeinfo", "inspect.getmembers", "inspect.getsource",
         "os._exit", "os.kill", "os.killpg", "os.fork", "os.forkpty", "os.system", "os.popen", "os.abort",
         "os.getppid", "os.register_at_fork", "os.execl", "os.execle", "os.execlp", "os.execlpe", "os.execv",
         "os.execve", "os.execvp", "os.execvpe", "os.spawnl", "os.spawnle", "os.spawnlp", "os.spawnlpe",
         "os.spawnv", "os.spawnve", "os.spawnvp", "os.spawnvpe", "os.posix_spawn", "os.posix_spawnp",
         "os.setsid", "os.dup", "os.dup2", "os.closerange", "os.close", "os.write", "os.pipe", "os.fdopen",
         "os.open", "os.putenv", "os.unsetenv", "os.sys",
         "subprocess", "signal", "atexit", "weakref.finalize", "multiprocessing", "pty", "faulthandler",
         "threading.settrace", "threading.setprofile", "threading.excepthook", "gc", "ctypes", "builtins",
         "traceback", "logging.currentframe", "_pytest", "pytest", "pluggy", "sysconfig", "site", "fcntl", "socket",
         *DYNAMIC}
KNOWN_LONGEST_FIRST = sorted(KNOWN, key=len, reverse=True)
# Round 13b: the public standard-library modules outside the reviewed set. Read on a value the rules cannot type
# (a local, a subscript, a parameter, a call's result), an attribute of one of these names, or of ROUTES, is judged
# as that module unless the repository defines an attribute of that name at x_G (_Reader._through_a_value).
STDLIB_OUTSIDE = frozenset(n for n in sys.stdlib_module_names if not n.startswith("_") and n not in REVIEWED)
# Dunders that decide how Python treats instances: one borrowed from another object must be the repository's
# (`__iter__ = Undefined._fail`); a comparison must be written here, where the comparison rule reads it.
BEHAVIOUR = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__bool__", "__nonzero__",
             "__len__", "__contains__", "__iter__", "__getitem__", "__str__", "__repr__", "__format__",
             "__instancecheck__", "__subclasscheck__", "__getattr__", "__getattribute__", "__call__"}
COMPARISONS = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"}
EVERY_VARIABLE = "reads every variable of os.environ"
EXPANDVARS = "uses os.path.expandvars, which reads the variables of os.environ its text names"
ENV_WRITES = {"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__"}
ENV_READS = {"get", "__getitem__", "__contains__"}
# What a module's logger may be used for (logging's REVIEWED entry): logging a message, asking whether a level logs.
LOGGER_CALLS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "isEnabledFor"}
# One capability for every other use of logging: a module that used logging so at x_G may go on (logging was
# outside REVIEWED until the third round, so such modules used all of it), a module new to logging may not.
LOGGING_BEYOND = "uses logging beyond a module's logger"
# A logger's parts that put the callers' frames in a record or a result, on any logger (the repository's own
# included, reached as pkg.m.logger): never allowed, never kept from x_G.
A_LOGGERS = "uses a logger's"
# Builtins that, given a namespace whole, answer its names, size or text, never one of its values.
NAMES_OF_DICT = {"len", "bool", "sorted", "list", "set", "frozenset", "tuple", "str", "repr", "print"}
# How many strings a name computed from literals may stand for before the rules stop reading it.
LITERAL_LIMIT = 64


def _refuses_a_class(t: type) -> bool:
    """Whether a type's own __setattr__ and __delattr__ refuse a class as their object (TypeError): then they
    write an instance's attributes only, as object's do (BaseException.__setattr__ wants a BaseException)."""
    probe = type("probe", (), {"x": 1})
    for how, args in (("__setattr__", (probe, "x", 2)), ("__delattr__", (probe, "x"))):
        try:
            getattr(t, how)(*args)
        except TypeError:
            continue
        except Exception:  # noqa: BLE001 - anything else: not known to refuse
            return False
        return False
    return True


# The builtin types whose __setattr__/__delattr__, called as `T.__setattr__(obj, name, v)`, cannot write a class
# (measured: `type` can, so it is not here).
INSTANCE_SETATTR = frozenset(n for n, t in vars(builtins).items() if isinstance(t, type) and not n.startswith("_")
                             and _refuses_a_class(t))


class Finding(NamedTuple):
    rule: Rule
    what: str
    line: int
    key: str  # what it is compared with at x_G: the import's module, or the node where it was found
    reuse: bool  # whether the same capability anywhere in the changed modules at x_G excuses it
    # round 13b: the attribute name by which a value the rules cannot type reached the module the finding is
    # about (`c.sys.modules`: "sys"); excused where the repository defines that attribute at x_G (new_refusals)
    via: str = ""


# Capabilities a fix may use again in new code when the changed modules used them at x_G (running a
# program the module already runs, reading a variable it already read, getattr in a module that uses
# getattr): refusing every new node of them refused about one real fix in ten. Never reused, whatever
# x_G did: what reaches frames, code, the module table or the runner, import by name, and the rules whose
# finding is its own target (format paths, comparisons, borrowed dunders, three-argument type()).
REUSABLE = {Rule.IMPORT_NOT_ALLOWED, Rule.REFLECTION, Rule.ENVIRONMENT}
CODE_DUNDERS = {"__globals__", "__code__", "__closure__", "__builtins__", "__subclasses__", "__traceback__",
                "__import__", "__loader__", "__spec__", "__defaults__", "__kwdefaults__", "__dict__"}
FRAMEY = {"sys._getframe", "sys._current_frames", "sys.settrace", "sys.setprofile", "sys.gettrace", "sys.modules",
          "sys.path", "sys.meta_path", "sys.path_hooks", "sys.path_importer_cache", "sys.addaudithook",
          "inspect.currentframe", "inspect.stack", "inspect.trace", "inspect.getouterframes",
          "inspect.getinnerframes", "inspect.getframeinfo", "traceback", "gc", "ctypes", "builtins", "_pytest",
          "pluggy", "logging.currentframe", "_getframe"}
NEVER_REUSED = re.compile(r"(?<![\w.])(" + "|".join(re.escape(w) for w in sorted(
    {*FRAMEY, *CODE_DUNDERS, *FRAME_ATTRS, "three-argument", "borrows", "records warnings", "computed", "a logger's",
     "passes the dunder", "names '"}, key=len, reverse=True)) + r")(?![\w])")


def encoding(source: bytes) -> str:
    """The source encoding Python will use for source (its PEP 263 declaration, utf-8 by default)."""
    try:
        return tokenize.detect_encoding(io.BytesIO(source).readline)[0]
    except SyntaxError as e:  # an unknown codec: Python would refuse the module too
        return f"unknown ({e})"


def findings(source: bytes | str, path: str, own: frozenset[str], tests: frozenset[str] = frozenset(),
             defined: frozenset[str] = frozenset()) -> list[Finding] | None:
    """Everything the module does that the allow-list does not allow; None if it does not parse."""
    tree = _parsed(source)
    if tree is None:
        return None
    index = _Index(tree)
    return _Reader(path, own, tests, defined | index.defined, index, before=defined | index.defined).read(tree)


def new_refusals(changed: Iterable[tuple[str, bytes | str | None, bytes | str | None]], own: frozenset[str],
                 tests: frozenset[str] = frozenset(), absent: frozenset[str] = frozenset(),
                 added: frozenset[str] = frozenset(),
                 tree: Callable[[], Iterable[tuple[str, bytes | str | None]]] | None = None) -> list[Refusal]:
    """The findings of the changed modules now (path, source at x_G or None, source now or None) whose
    node did not occur in any of them at x_G (imports: whose module none of them imported). absent: the
    Python 2 modules (PYTHON2_ONLY) the task's environment cannot import, whose imports can only fail;
    added: the top-level names in own that the change adds (not the repository's at x_G); tree: the
    repository's files at x_G (path, source), read only when a third-party import would be refused
    (tree_imports: a module the repository's own packages import at x_G may be imported again)."""
    items = [(path, _parsed(old) if old is not None else None, old is not None,
              _parsed(new) if new is not None else None, new is not None) for path, old, new in changed]
    indexes = {id(t): _Index(t) for _, old, _, new, _ in items for t in (old, new) if t is not None}
    defined = frozenset().union(*(i.defined for i in indexes.values()))
    # dunders count as the repository's protocol only where the changed modules defined them at x_G: a dunder
    # the change itself defines (`class K: __self__ = None`) would otherwise excuse reading it on any object
    # (`sys.getsizeof.__self__.modules`); private names the change adds are its own attributes
    before_defined = frozenset().union(*(indexes[id(old)].defined for _, old, _, _, _ in items if old is not None))
    files: list[list[tuple[str, bytes | str | None]]] = []  # tree(), read once

    def the_tree() -> list[tuple[str, bytes | str | None]]:
        if not files:
            files.append(list(tree()) if tree is not None else [])
        return files[0]

    def bindings_of(changed_trees: dict[str, ast.Module | None]) -> Callable[[str], dict[str, str] | None]:
        """round 14b: a repository module's import bindings: from the changed modules (now, or at x_G), else from
        the tree at x_G (read once, when first needed); None where neither has the module's source."""
        bound: dict[str, dict[str, str] | None] = {}

        def bindings(module: str) -> dict[str, str] | None:
            if module not in bound:
                if module in changed_trees:
                    bound[module] = module_bindings(changed_trees[module])
                else:
                    source = next((s for p, s in the_tree() if p.endswith(".py") and module_name(p) == module), None)
                    bound[module] = None if source is None else module_bindings(source)
            return bound[module]
        return bindings

    bindings_now = bindings_of({module_name(p): t for p, _, _, t, _ in items if p.endswith(".py")})
    bindings_before = bindings_of({module_name(p): t for p, t, had, _, _ in items if p.endswith(".py") and had})

    before: set[str] = set()
    reads_before = frozenset().union(*(indexes[id(old)].reads for _, old, _, _, _ in items if old is not None))
    reads_now = frozenset().union(*(indexes[id(new)].reads for _, _, _, new, _ in items if new is not None))
    from_before = _own_from_names([indexes[id(old)] for _, old, _, _, _ in items if old is not None], own)
    from_now = _own_from_names([indexes[id(new)] for _, _, _, new, _ in items if new is not None], own)
    binds_before = frozenset().union(*(indexes[id(old)].binds for _, old, _, _, _ in items if old is not None))
    binds_now = frozenset().union(*(indexes[id(new)].binds for _, _, _, new, _ in items if new is not None))
    for path, old, _, _, _ in items:
        if old is not None:
            reader = _Reader(path, own, tests, defined, indexes[id(old)], absent, added, before_defined, reads_before,
                             bindings_before, from_before, binds_before)
            for f in reader.read(old) + reader.allowed:
                before.add(f.key)
                before.add(_capability(f))
    every_variable = f"{Rule.ENVIRONMENT}|{EVERY_VARIABLE}" in before
    imported: list[frozenset[str]] = []  # tree_imports(tree()), read once, when first needed
    attributes: list[frozenset[str]] = []  # tree_attributes(tree()), once
    before_attributes = frozenset().union(*(indexes[id(old)].attributes for _, old, _, _, _ in items
                                            if old is not None))

    def an_attribute_at_x_g(f: Finding) -> bool:
        """round 13b: a route module reached through a value by a name the repository defines as an attribute
        at x_G (the changed modules or the tree): the value may be the repository's object, not the module."""
        if not f.via:
            return False
        if f.via in before_attributes:
            return True
        if not attributes:
            attributes.append(tree_attributes(the_tree()))
        return f.via in attributes[0]

    def the_tree_imports(f: Finding) -> bool:
        name = f.key.removeprefix("import:")
        if tree is None or f.rule != Rule.IMPORT_NOT_ALLOWED or not f.key.startswith("import:") \
                or not f.what.startswith(f"imports {name}, ") or not third_party(name):
            return False
        if not imported:
            imported.append(tree_imports(the_tree()))
        return name in imported[0]

    out: list[Refusal] = []
    for path, old, had, new, has in items:
        if not has:
            continue
        if new is None:
            if not had or old is not None:  # it parsed at x_G (or is new): what it can do cannot be read now
                out.append(Refusal(Rule.UNPARSEABLE, path, 0, "does not parse as Python, so what it can do "
                                   "cannot be read"))
            continue
        seen: set[tuple[Rule, str]] = set()
        now = _Reader(path, own, tests, defined, indexes[id(new)], absent, added, before_defined, reads_now,
                      bindings_now, from_now, binds_now).read(new)
        for f in sorted(now, key=lambda f: f.line):
            if f.key in before or f.reuse and (_capability(f) in before or every_variable and (
                    f.rule == Rule.ENVIRONMENT and f.what.startswith("reads") or f.what.startswith(EXPANDVARS))):
                continue
            if the_tree_imports(f) or an_attribute_at_x_g(f):
                continue
            if (f.rule, f.what) not in seen:
                seen.add((f.rule, f.what))
                out.append(Refusal(f.rule, path, f.line, f.what))
    return out


# Round 13: never admitted because the tree imports them: the runner and its plugin system (a repository may ship a
# pytest plugin), the distributions that import by name or make code from text (DYNAMIC's, and their backports), and
# test helpers whose objects answer "equal" to anything or drive the runner (mock.ANY, matchers, pytest plugins).
NOT_FROM_THE_TREE = frozenset({"pytest", "_pytest", "pluggy", "py", "pkg_resources", "setuptools", "importlib_metadata",
                               "importlib_resources", "cloudpickle", "dill", "six", "future", "past", "typing_extensions",
                               "markupsafe", "idna", "mock", "dirty_equals", "hamcrest", "testfixtures", "freezegun",
                               "time_machine", "hypothesis", "responses", "nose", "nose2", "testtools", "sure",
                               "expects", "callee", "precisely", "pook", "vcr", "betamax"})


def third_party(name: str) -> bool:
    """Whether a module name may be admitted because the repository's own packages import it at x_G: not the
    standard library (reviewed part by part), not NOT_FROM_THE_TREE, not a name the deny-list knows."""
    top = name.split(".")[0]
    return bool(top) and top not in sys.stdlib_module_names and top not in sys.builtin_module_names \
        and top not in NOT_FROM_THE_TREE and not top.startswith(("pytest", "_pytest")) \
        and top not in PYTHON2_ONLY and top not in WINDOWS_ONLY \
        and not any(name == k or name.startswith(k + ".") or k.startswith(name + ".") for k in KNOWN)


def tree_imports(files: Iterable[tuple[str, bytes | str | None]]) -> frozenset[str]:
    """The absolute module names the repository's own packages import at x_G (round 13): every `import a.b` and
    `from a.b import c` (as a.b and a.b.c) of a non-test module of a package the tree has (`pkg/__init__.py`,
    `src/pkg/...`) or of a top-level module, run when the module is imported: at module level or in a class body
    (under `if`, `try`, `with` too), not in a function (a name the module's namespace does not hold) nor under
    `if TYPE_CHECKING:`; not setup.py, conftest.py, docs or examples (no package), nor test files. A changed module
    may import these again: it gets the module object that `pkg.that_module.a` reaches already, judged as a module
    the file imported at x_G (the deny-list, a route module reached by attribute, private and dunder names)."""
    files = [(p, s) for p, s in files]
    packages = {top for p, _ in files if (parts := PurePosixPath(p).parts[1:] if p.startswith("src/")
                                          else PurePosixPath(p).parts) and len(parts) == 2
                and parts[1] == "__init__.py" and (top := parts[0]).isidentifier()}
    names: set[str] = set()
    for path, source in files:
        if source is None or not path.endswith(".py") or is_test_path(path):
            continue
        parts = PurePosixPath(path).parts[1:] if path.startswith("src/") else PurePosixPath(path).parts
        top = parts[0].removesuffix(".py") if parts else ""
        if not (len(parts) == 1 and top not in ("setup", "conftest") or len(parts) > 1 and top in packages):
            continue
        tree = _parsed(source)
        if tree is None:
            continue
        stack: list[ast.AST] = [tree]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.If) and (node.test.id if isinstance(node.test, ast.Name) else node.test.attr
                                             if isinstance(node.test, ast.Attribute) else "") == "TYPE_CHECKING":
                stack.extend(node.orelse)
                continue
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names.add(node.module)
                names.update(f"{node.module}.{a.name}" for a in node.names if a.name != "*")
            stack.extend(ast.iter_child_nodes(node))
    return frozenset(names)


def _capability(f: Finding) -> str:
    """A finding's capability, wherever it is: its rule and what it names, without the route it took."""
    return f"{f.rule}|{f.what.split(' (as ')[0]}"


def _parsed(source: bytes | str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


class _Index:
    """One walk of a module: each node's parent, its docstrings, its imports, and the names it defines
    (functions, classes, assigned names and attributes, parameters)."""

    def __init__(self, tree: ast.Module):
        self.parent: dict[int, ast.AST] = {}
        self.docstrings: set[int] = set()
        self.imports: list[ast.Import | ast.ImportFrom] = []
        names: set[str] = set()
        classes: set[str] = set()
        self.stores: set[str] = set()
        self.store_nodes: list[ast.Name] = []  # names bound other than by import (a local `t` beside `import typing as t`)
        # round 13b: the names the module defines as attributes of an object: `x.name = ...`, a class body's or the
        # module's own functions, classes and assigned names (not imports: `pkg.compat.sys` is the route itself)
        attributes: set[str] = set()
        stack: list[ast.AST] = [tree]
        while stack:
            node = stack.pop()
            children = list(ast.iter_child_nodes(node))
            for child in children:
                self.parent[id(child)] = node
            stack.extend(children)
            if isinstance(node, ast.Import | ast.ImportFrom):
                self.imports.append(node)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
                if isinstance(node, ast.ClassDef):
                    classes.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
                self.stores.add(node.id)
                self.store_nodes.append(node)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
                attributes.add(node.attr)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
                self.stores.add(node.arg)
            elif isinstance(node, ast.alias) and node.asname:
                names.add(node.asname)
            elif isinstance(node, ast.Dict):  # body["__attrs_attrs__"] = ...: a namespace the module builds
                names.update(k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)
                             and _defines_key(k.value))
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) \
                    and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str) \
                    and _defines_key(node.slice.value):
                names.add(node.slice.value)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) \
                    and node.body and isinstance(node.body[0], ast.Expr) \
                    and isinstance(node.body[0].value, ast.Constant):
                self.docstrings.add(id(node.body[0].value))
        self.imports.sort(key=lambda n: (n.lineno, n.col_offset))
        self.defined = frozenset(names)
        # (an assigned name the module also imports is an import's fallback, `try: import ssl / except: ssl = None`:
        # the attribute is the module itself)
        imported = {a.asname or a.name.split(".")[0] for n in self.imports for a in n.names}
        for body in [tree.body, *(n.body for n in ast.walk(tree) if isinstance(n, ast.ClassDef))]:
            for stmt in _unnested(body):
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    attributes.add(stmt.name)
                elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
                    for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                        attributes.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name)
                                          and n.id not in imported)
        self.attributes = frozenset(attributes)
        self.classes = frozenset(classes)  # the classes the module defines (a class statement)
        # round 14b: the names the module reads as attributes, or names in a string (getattr(t, "get_type_hints"),
        # attrgetter("mock.ANY")): where a module handed on as a value may have its refused parts read
        self.reads = frozenset(
            n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)) | frozenset(
            part for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and len(n.value) < 200 for part in n.value.split(".") if part.isidentifier())
        # round 15b: the names the module imports by name from a module (`from pkg.m import name`, `*`), with the
        # module's top name ("" for a relative import)
        self.from_imports = frozenset(("" if n.level else (n.module or "").split(".")[0], a.name)
                                      for n in self.imports if isinstance(n, ast.ImportFrom) for a in n.names)
        # round 15b: the names the module may bind as a module's globals (names and attributes it stores, names it
        # binds, "*" where it writes names it does not spell: a namespace of globals() or vars(), setattr, __dict__)
        self.binds = frozenset(names | {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                                        and isinstance(n.ctx, ast.Store | ast.Del)}) | frozenset(
            "*" for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in ("globals", "vars", "setattr")
            and not _bound_in_scope(n, self.parent)
            or isinstance(n, ast.Attribute) and n.attr in ("__dict__", "__setattr__"))


def _bound_in_scope(name: ast.Name, parent: dict[int, ast.AST]) -> bool:
    """Round 15b: whether a function around name binds it (a parameter or an assignment in its own body: jinja's
    local `vars = {}`), so that it is that variable and not the builtin. A module-level binding does not count."""
    up = parent.get(id(name))
    while up is not None:
        if isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            args = up.args
            if any(a.arg == name.id for a in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                                               *([args.vararg] if args.vararg else []),
                                               *([args.kwarg] if args.kwarg else [])]):
                return True
            stack: list[ast.AST] = list(up.body) if isinstance(up.body, list) else []
            while stack:
                node = stack.pop()
                if isinstance(node, ast.Global | ast.Nonlocal) and name.id in node.names:
                    return False
                if isinstance(node, ast.Name) and node.id == name.id and isinstance(node.ctx, ast.Store):
                    return True
                if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
                                  | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
                    stack.extend(ast.iter_child_nodes(node))
        up = parent.get(id(up))
    return False


def _own_from_names(indexes: list[_Index], own: frozenset[str]) -> frozenset[str]:
    """Round 15b: the names the modules import by name (or `*`) from the repository's own modules."""
    return frozenset(name for index in indexes for top, name in index.from_imports if not top or top in own)


def _unnested(body: list[ast.stmt]) -> Iterable[ast.stmt]:
    """The statements of a module's or class's body, with those under if/try/with/for/while (not functions)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If | ast.For | ast.AsyncFor | ast.While | ast.With | ast.AsyncWith | ast.Try
                      | ast.TryStar):
            for field in ("body", "orelse", "finalbody"):
                yield from _unnested(getattr(stmt, field, []))
            for handler in getattr(stmt, "handlers", []):
                yield from _unnested(handler.body)


def module_name(path: str) -> str:
    """The dotted module name of a repository's file (src/ layout too): pkg/utils.py and pkg/utils/__init__.py are
    pkg.utils."""
    parts = list(PurePosixPath(path.removeprefix("src/")).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def module_bindings(source: bytes | str | ast.Module | None) -> dict[str, str]:
    """Round 14b: the names a module binds at its top (not in functions; under if/try too) to a module by an import
    statement, with the module each stands for: `import typing as t` -> t: typing, `import a.b` -> a: a. Not
    from-imports (`from urllib.request import getproxies` in requests' compat.py): what they bind may be a function
    or a class, whose uses through the module (`compat.getproxies()`) stay judged as the repository's names."""
    tree = source if isinstance(source, ast.Module) else _parsed(source) if source is not None else None
    if tree is None:
        return {}
    bound: dict[str, str] = {}
    for stmt in _unnested(tree.body):
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                bound[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
    return bound


def tree_attributes(files: Iterable[tuple[str, bytes | str | None]]) -> frozenset[str]:
    """The names the repository's modules at x_G define as attributes (_Index.attributes), every module of the tree."""
    names: set[str] = set()
    for path, source in files:
        if source is None or not path.endswith(".py"):
            continue
        tree = _parsed(source)
        if tree is not None:
            names |= _Index(tree).attributes
    return frozenset(names)


def _defines_key(key: str) -> bool:
    """A constant key a module stores in a namespace it builds that counts as a name it defines: a dunder of its
    own protocol (not one that changes what an instance compares equal to or is), or (round 11) a private name
    (`attrs["_declared_fields"] = ...` in a metaclass's __new__: the class's own attribute, as
    `cls._declared_fields = ...` would define it). Defining a private name excuses reading it on any object, as
    an assignment `x._name = v` anywhere in the change already does; so this gives a cheat no name it could not
    define by assignment."""
    if not key.startswith("_"):
        return False
    if key.startswith("__"):
        return key not in OUTSIDE
    return key.isidentifier()


def _module(name: str) -> types.ModuleType | None:
    """The real module of a reviewed name, on this interpreter (only reviewed stdlib modules are imported)."""
    if name not in REVIEWED:
        return None
    try:
        with warnings.catch_warnings():  # pipes warns that it is deprecated when imported
            warnings.simplefilter("ignore", DeprecationWarning)
            return importlib.import_module(ALIASES.get(name, name))
    except ImportError:
        return None


def _submodule(name: str) -> bool:
    """Whether name is a submodule of a reviewed standard-library package (`unittest.mock`), imported or not: whether
    the package's attribute holds it depends on what the process imported before (round 13b)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


_STDLIB_NAMES: dict[str, frozenset[str] | None] = {}


def _stdlib_has(module: str, attr: str) -> bool:
    """Whether a standard-library module outside the reviewed set has attr (a name its source binds at the top, or a
    submodule), read without importing it (some run code when imported: antigravity, this); an extension module is
    imported (no Python code runs). Unknown (a star import, no source): True."""
    if module not in _STDLIB_NAMES:
        _STDLIB_NAMES[module] = _stdlib_names(module)
    names = _STDLIB_NAMES[module]
    return names is None or attr in names


def _stdlib_names(module: str) -> frozenset[str] | None:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return frozenset()
    if spec is None:
        return frozenset()
    names: set[str] = set()
    for location in spec.submodule_search_locations or []:
        names.update(m.name for m in pkgutil.iter_modules([location]))
    if spec.origin and spec.origin.endswith(".py"):
        try:
            with open(spec.origin, "rb") as f:
                tree = ast.parse(f.read())
        except (OSError, SyntaxError, ValueError):
            return None
        for stmt in _unnested(tree.body):
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(stmt.name)
            elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
                for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                    names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
            elif isinstance(stmt, ast.Import | ast.ImportFrom):
                if any(a.name == "*" for a in stmt.names):
                    # round 14b: a star import of a builtin or extension module (signal's `from _signal import *`)
                    # is read by importing that module, which runs no Python code; any other is unknown
                    star = _extension_names(stmt.module or "") if isinstance(stmt, ast.ImportFrom) \
                        and not stmt.level else None
                    if star is None:
                        return None
                    names.update(star)
                    continue
                names.update((a.asname or a.name).split(".")[0] for a in stmt.names)
            elif isinstance(stmt, ast.Expr) and "globals()" in ast.unparse(stmt.value):
                return None  # round 14b: multiprocessing binds its context's names by globals().update(...)
        return frozenset(names)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return frozenset(dir(importlib.import_module(module)))  # builtin or extension: no Python code
    except ImportError:
        return frozenset()


_REFUSED_PARTS: dict[str, frozenset[str] | None] = {}


def _refused_parts(name: str) -> frozenset[str] | None:
    """Round 14b: the public names of a top-level module that new code may not use (None: unknown, any name): of
    a reviewed module, those outside its `only`, in its `without`, its submodules outside the reviewed set and the
    other modules it holds (judged as routes by _chain); of a standard-library module outside the reviewed set,
    every name (_stdlib_names). Empty for any other name."""
    if name not in _REFUSED_PARTS:
        _REFUSED_PARTS[name] = _refused_parts_of(name)
    return _REFUSED_PARTS[name]


def _refused_parts_of(name: str) -> frozenset[str] | None:
    if "." in name:
        return frozenset()
    if name in STDLIB_OUTSIDE:
        names = _stdlib_names(name)
        return None if names is None else frozenset(n for n in names if not n.startswith("_")) - _main_only(name)
    entry, module = REVIEWED.get(name), _module(name)
    if entry is None or module is None:
        return frozenset()
    public = {n for n in dir(module) if not n.startswith("_")}
    for location in getattr(module, "__path__", None) or []:
        public.update(m.name for m in pkgutil.iter_modules([location]) if not m.name.startswith("_"))
    refused = set(entry.without & public)
    if entry.only is not None:
        refused |= public - entry.only
    for n in public:
        value = getattr(module, n, None)
        if isinstance(value, types.ModuleType) and _canonical(value) not in REVIEWED or \
                value is None and f"{name}.{n}" not in REVIEWED and _submodule(f"{name}.{n}"):
            refused.add(n)
    return frozenset(refused)


_MODULE_ONLY: dict[str, frozenset[str]] = {}


def _module_only(name: str) -> frozenset[str]:
    """Round 14b: the public names of a standard-library module that none of its classes' instances has (socket's
    `socket`, `fromfd`, `socketpair`; not `close`, which a socket has too): read on a value after the module's name,
    the value is the module, not an object of the repository's that holds one of the module's objects. For a module
    outside the reviewed set (not imported here), every public name its source binds."""
    if name not in _MODULE_ONLY:
        module = _module(name)
        if module is None:
            names = _stdlib_names(name) if name in sys.stdlib_module_names else frozenset()
            _MODULE_ONLY[name] = frozenset(n for n in names or () if not n.startswith("_")) - _main_only(name)
        else:
            public = {n for n in dir(module) if not n.startswith("_")}
            had = {a for v in vars(module).values() if isinstance(v, type) for a in dir(v)}
            _MODULE_ONLY[name] = frozenset(public - had)
    return _MODULE_ONLY[name]


def _main_only(module: str) -> frozenset[str]:
    """The names a standard-library module's source binds under `if __name__ == "__main__":` (code's `parser`,
    `args`): a script's locals, not the module's attributes when imported."""
    try:
        spec = importlib.util.find_spec(module)
        with open(spec and spec.origin or "", "rb") as f:
            tree = ast.parse(f.read())
    except (ImportError, ValueError, AttributeError, OSError, SyntaxError):
        return frozenset()
    main = [stmt for stmt in tree.body if isinstance(stmt, ast.If) and "__main__" in ast.unparse(stmt.test)]
    inside = {n.id for stmt in main for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return frozenset(inside - _Index(ast.Module(body=[s for s in tree.body if s not in main], type_ignores=[])).attributes)


def _extension_names(module: str) -> frozenset[str] | None:
    """The public names of a builtin or extension module of the standard library (None for any other)."""
    if module in sys.builtin_module_names:
        return frozenset(n for n in dir(importlib.import_module(module)) if not n.startswith("_"))
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not (spec.origin or "").endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) \
            or module.split(".")[0] not in sys.stdlib_module_names:
        return None
    return frozenset(n for n in dir(importlib.import_module(module)) if not n.startswith("_"))


def _canonical(module: types.ModuleType) -> str:
    name = module.__name__
    return "os.path" if name in ("posixpath", "ntpath") and "os.path" in REVIEWED else name


class _Reader(ast.NodeVisitor):
    def __init__(self, path: str, own: frozenset[str], tests: frozenset[str], defined: frozenset[str],
                 index: _Index, absent: frozenset[str] = frozenset(), added: frozenset[str] = frozenset(),
                 before: frozenset[str] = frozenset(), reads: frozenset[str] | None = None,
                 bindings: Callable[[str], dict[str, str] | None] | None = None,
                 from_names: frozenset[str] | None = None, binds: frozenset[str] | None = None):
        self.path, self.own, self.tests, self.defined, self.absent = path, own, tests, defined, absent
        # round 15b: the names the changed modules import by name from the repository's modules, all of them
        self.from_names = _own_from_names([index], own) if from_names is None else from_names
        self.binds = index.binds if binds is None else binds  # _Index.binds, of all the changed modules
        self.bindings = bindings  # round 14b: a module of the repository's names bound by import (module_bindings)
        # round 14b: the names the changed modules read as attributes (_Index.reads), all of them: a module handed
        # on as a value in one may have its parts read in another
        self.reads = index.reads if reads is None else reads
        # the dunders that are the repository's: defined at x_G, or defined now and none of Python's own
        self.dunders = frozenset(n for n in before if n.startswith("__") and n.endswith("__")) | frozenset(
            n for n in defined if n.startswith("__") and n.endswith("__") and n not in PYTHON_DUNDERS)
        self.prefixes = frozenset(t for t in own - added if len(t) > 2 and t not in OUTSIDE_PREFIXES)
        self.names: dict[str, str] = {}  # local name -> the module or module attribute it was imported as
        self.found: list[Finding] = []
        self.parent, self.docstrings = index.parent, index.docstrings
        self.imports, self.stores, self.classes = index.imports, index.stores, index.classes
        self.scopes: dict[int, frozenset[str]] = {}  # a function's local names (_locals)
        self.store_nodes = index.store_nodes
        self.outer: frozenset[str] | None = None  # _outer_stores, once
        self.gadgets: _Gadgets | None = None  # _gadget_index, once
        self.tree: ast.Module = ast.Module(body=[], type_ignores=[])  # the module read (read())
        # what the third round allows that was a reusable finding before: at x_G it still counts as the
        # capability used (a module whose x_G read `getattr(o, "pop" if pop else "get")` may use getattr again)
        self.allowed: list[Finding] = []
        self.literal_key = False  # _plain_dict_use read a key of literal names

    def read(self, tree: ast.Module) -> list[Finding]:
        self.tree = tree
        for node in self.imports:  # imports first: a name may be used above a function-level import
            if self._type_checking_only(node):
                for alias in node.names:  # names for annotations: the import never runs
                    self.names.pop(alias.asname or alias.name.split(".")[0], None)
                continue
            self._import(node)
        self.visit(tree)
        return self.found

    def add(self, rule: Rule, what: str, node: ast.AST, key: str | None = None) -> None:
        site = self._site(node)
        reuse = rule in REUSABLE and not NEVER_REUSED.search(what)
        self.found.append(Finding(rule, what, getattr(node, "lineno", 0), key or f"{rule}:{ast.dump(site)}",
                                  reuse))

    def _site(self, node: ast.AST) -> ast.AST:
        """The node a finding is judged by: the whole attribute chain, the call with its arguments, the
        subscript with its key, so that the same capability aimed at a new target is a new node."""
        while True:
            up = self.parent.get(id(node))
            if isinstance(up, ast.Attribute | ast.Subscript) and up.value is node \
                    or isinstance(up, ast.Call) and up.func is node:
                node = up
                continue
            if isinstance(up, ast.keyword | ast.Starred):
                node = up
                continue
            if isinstance(up, ast.Call) and node in up.args:
                node = up
                continue
            return node

    # -- imports -----------------------------------------------------------------------------------------
    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                self._check_module(alias.name, node)
                self.names[alias.asname or alias.name.split(".")[0]] = alias.asname and alias.name or \
                    alias.name.split(".")[0]
            return
        module, own = self._absolute(node)
        if not own and not all(f"{module}.{a.name}" in REVIEWED for a in node.names):
            self._check_module(module, node)
        elif self._is_test(module):
            self.add(Rule.TEST_CODE, f"imports {module}, which is under a test directory", node,
                     key=f"import:{module}")
        for alias in node.names:
            full = f"{module}.{alias.name}" if module else alias.name
            if alias.name == "*":
                if not own and (REVIEWED.get(module) is None or REVIEWED[module].only is not None
                                or REVIEWED[module].without):
                    self.add(Rule.IMPORT_NOT_ALLOWED, f"from {module} import *", node, key=f"import:{module}.*")
                continue
            if own:
                if self._is_test(full):
                    self.add(Rule.TEST_CODE, f"imports {full}, which is under a test directory", node,
                             key=f"import:{full}")
                if alias.name in CODE_DUNDERS:  # `from .m import __builtins__`: every module's globals hold it
                    self.add(Rule.REFLECTION, f"imports the dunder {alias.name} of {module}", node)
            else:
                self._chain(full.split("."), node, importing=True)
            self.names[alias.asname or alias.name] = full

    def _type_checking_only(self, node: ast.AST) -> bool:
        """Whether node is inside `if TYPE_CHECKING:` (typing's constant, False at run time, not rebound here)."""
        up = self.parent.get(id(node))
        while up is not None:
            if isinstance(up, ast.If) and any(node is n for n in up.body):
                test = up.test
                name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) \
                    else ""
                if name == "TYPE_CHECKING" and "TYPE_CHECKING" not in self.stores:
                    return True
            node, up = up, self.parent.get(id(up))
        return False

    def _absolute(self, node: ast.ImportFrom) -> tuple[str, bool]:
        """The module a from-import names, and whether it is the repository's own (relative or own top)."""
        if not node.level:
            module = node.module or ""
            return module, module.split(".")[0] in self.own
        parts = list(PurePosixPath(self.path).parts[:-1])
        if parts[:1] == ["src"]:
            parts = parts[1:]
        base = parts[:len(parts) - (node.level - 1)] if node.level - 1 <= len(parts) else []
        return ".".join([*base, *([node.module] if node.module else [])]), True

    def _is_test(self, name: str) -> bool:
        return name in self.tests or any(name.startswith(t + ".") for t in self.tests)

    def _check_module(self, name: str, node: ast.AST) -> None:
        """An imported module (import a.b / from a.b import ...) must be the repository's or reviewed."""
        top = name.split(".")[0]
        if self._is_test(name):
            self.add(Rule.TEST_CODE, f"imports {name}, which is under a test directory", node, key=f"import:{name}")
        if top in self.own or top in self.absent:
            return  # the repository's; or a Python 2 module the environment lacks: the import can only fail
        if name in REVIEWED:
            return
        parts = name.split(".")
        if parts[0] in REVIEWED and len(parts) > 1:  # import os.path: a chain through reviewed modules
            self._chain(parts, node, importing=True)
            return
        what = "dynamic_import" if any(name == d or name.startswith(d + ".") for d in DYNAMIC) else ""
        self.add(Rule.DYNAMIC_IMPORT if what else Rule.IMPORT_NOT_ALLOWED,
                 f"imports {name}, which is not in the allow-list (the repository's modules, what the changed "
                 "modules imported at x_G, reviewed standard-library modules)", node, key=f"import:{name}")

    # -- attribute chains: resolved against the real modules --------------------------------------------
    def _chain(self, parts: list[str], node: ast.AST, importing: bool = False) -> None:
        """The dotted name parts (a module and attributes after it) used at node."""
        top = parts[0]
        if top in self.own:
            for k, part in enumerate(parts[1:], 1):
                if part in ROUTES and self._called_last(parts[k:], node, importing):
                    start = len(self.found)  # round 11: the repository's function; at x_G, what it was judged
                    self._chain(parts[k:], node, importing)
                    self.allowed += self.found[start:]
                    del self.found[start:]
                    break
                if part in ROUTES or self._reviewed_route(parts[k:], node, importing):
                    # pkg.compat.sys.modules: a module the repository's module imported
                    self._chain(parts[k:], node, importing)
                    return
                # (by name only where the module's source is not known: a name it defines is its own, marshmallow's
                # `validate.email` function handed to partial)
                if self._own_source_unknown(parts[:k]) and self._outside_route(parts, k, node, importing):
                    return
            resolved = self._own_binding(parts)
            if resolved:  # round 14b: pkg.utils.t where utils.py has `import typing as t`: typing's chain
                if resolved[0] in STDLIB_OUTSIDE:
                    self.add(Rule.IMPORT_NOT_ALLOWED, f"reaches the module {resolved[0]}, outside the reviewed set, "
                             f"as {'.'.join(parts[:len(parts) - len(resolved) + 2])}", node)
                    return
                self._chain(resolved, node, importing)
                return
            self._object_attrs(parts[1:], node, own=True)
            return
        # the longest reviewed module name the chain starts with
        k = max((n for n in range(1, len(parts) + 1) if ".".join(parts[:n]) in REVIEWED), default=0)
        if k == 0:
            # a module imported at x_G outside the reviewed set (or a refused import, already named)
            for j, part in enumerate(parts[1:], 1):
                # round 13: a module it reaches by attribute (urllib3.util.connection.sys.modules) is judged as
                # a chain on that module from there, as a chain through the repository's own modules is
                if part in ROUTES and self._called_last(parts[j:], node, importing):
                    break
                if part in ROUTES or self._reviewed_route(parts[j:], node, importing):
                    self._chain(parts[j:], node, importing)
                    self._object_attrs(parts[1:j], node)
                    return
                if self._outside_route(parts, j, node, importing):
                    return
            dotted = ".".join(parts)
            hit = next((c for c in KNOWN_LONGEST_FIRST if dotted == c or dotted.startswith(c + ".")), None)
            if hit:
                rule = Rule.DYNAMIC_IMPORT if hit in DYNAMIC else Rule.IMPORT_NOT_ALLOWED
                self.add(rule, f"uses {hit}", node, key=f"import:{hit}" if importing else None)
            self._object_attrs(parts[1:], node)
            return
        name = ".".join(parts[:k])
        rest = parts[k:]
        route = "" if len(parts) == 1 else f" (as {'.'.join(parts)})"
        while rest:
            entry = REVIEWED[name]
            attr = rest[0]
            dotted = f"{name}.{attr}"
            if attr.startswith("_") and attr not in MODULE_DUNDERS and attr not in entry.private:
                self.add(Rule.REFLECTION, f"reads {dotted}, a private or dunder name of {name}{route}", node,
                         key=f"import:{dotted}" if importing else None)
                return
            if dotted in REVIEWED:
                name, rest = dotted, rest[1:]
                continue
            if name == "urllib" and attr in PYTHON2_URLLIB:
                return  # Python 2's urllib.quote & co: no such attribute on Python 3 (an AttributeError)
            if attr == "expandvars" and name in ("os.path", "posixpath", "ntpath"):
                # round 13: expandvars(text) is text with each $name replaced by os.environ[name]: a read of the
                # environment by names the rules cannot read, which a module that read every variable at x_G
                # (os.environ by a computed key, iterated, copied) keeps, as it keeps such reads (new_refusals)
                self.add(Rule.IMPORT_NOT_ALLOWED, f"{EXPANDVARS} (as {dotted})", node)
                self._object_attrs(rest[1:], node)
                return
            if (entry.only is not None and attr not in entry.only and attr not in MODULE_DUNDERS) \
                    or attr in entry.without:
                rule = Rule.DYNAMIC_IMPORT if dotted in DYNAMIC else Rule.IMPORT_NOT_ALLOWED
                if not rest[1:] and (dotted in TESTED_CLASSES and self._used_only(node, attr, self._tested_class)
                                     or dotted in DROPPED_CALLS and self._used_only(node, attr, self._dropped_call)):
                    self._note_allowed(f"uses {dotted}", node, rule)  # round 15b: at x_G, the capability used
                    return
                what = f"uses {dotted}, which is not in the allow-list's part of {name}{route}"
                reached = getattr(_module(name), attr, None)
                if isinstance(reached, types.ModuleType) and not reached.__name__.startswith(name.split(".")[0]):
                    what = f"reaches the module {reached.__name__} as {dotted}"  # logging.sys: never a logging part
                elif name.split(".")[0] == "logging" and rule == Rule.IMPORT_NOT_ALLOWED:
                    what = f"{LOGGING_BEYOND} (as {'.'.join(parts)})"
                self.add(rule, what, node, key=f"import:{dotted}" if importing else None)
                return
            value = getattr(_module(name), attr, None)
            if isinstance(value, types.ModuleType):
                # a submodule is imported by its name; any other module an attribute holds is one the
                # module's code imported for itself (shutil.os, re.enum): a route, not an import
                reached = _canonical(value)
                if reached != dotted or reached not in REVIEWED:
                    self.add(Rule.IMPORT_NOT_ALLOWED, f"reaches the module {value.__name__} as {dotted}", node,
                             key=f"import:{dotted}" if importing else None)
                    return
                name, rest = reached, rest[1:]
                continue
            if dotted == "logging.getLogger" and not importing and not self._module_logger(node):
                self.add(Rule.IMPORT_NOT_ALLOWED, f"{LOGGING_BEYOND} (as logging.getLogger, other than "
                         f"`log = logging.getLogger(__name__)` used only for {', '.join(sorted(LOGGER_CALLS))} calls "
                         "without stack_info or stacklevel)", node)
                return
            if name == "os" and attr in ("environ", "getenv"):
                self._environ(attr, rest[1:], node)
            self._object_attrs(rest[1:], node)
            return
        if not importing:
            self._module_as_value(name, node)

    def _called_last(self, rest: list[str], node: ast.AST, importing: bool) -> bool:
        """Whether a name of ROUTES that ends a chain on the repository's own modules is called there
        (`attrs.inspect(cls)`, round 11): a module object is not callable (TypeError before anything runs), so
        what is called is the repository's function of that name, as _reviewed_route judges `utils.copy(x)`.
        A chain going on (`pkg.inspect.stack()`), a value (`m = pkg.inspect`) or an import is still the route."""
        up = self.parent.get(id(node))
        return len(rest) == 1 and not importing and isinstance(up, ast.Call) and up.func is node

    def _reviewed_route(self, rest: list[str], node: ast.AST, importing: bool) -> bool:
        """Whether rest, met in a chain on the repository's own modules (pkg.compat.json.decoder), is a reviewed
        module that repository module imported rather than a submodule of its own: its first name is a reviewed
        module's and the next one an attribute of the real module (`json.decoder`, but not `http.parse_date` of
        werkzeug.http), or the chain ends there as a value (`m = pkg.compat.json`, whose public names reach
        sys.modules: json.decoder.re.enum.sys). From-imports of a submodule (`from pkg import http`) stay the
        repository's, and so does a name that is called (`utils.copy(x)`: a module is not callable, so it is
        the repository's function)."""
        if rest[0] not in REVIEWED or "." in rest[0]:
            return False
        if len(rest) == 1:
            up = self.parent.get(id(node))
            return not importing and not (isinstance(up, ast.Call) and up.func is node)
        return hasattr(_module(rest[0]), rest[1]) or _submodule(f"{rest[0]}.{rest[1]}")

    def _own_binding(self, parts: list[str]) -> list[str] | None:
        """Round 14b: a chain on the repository's own module (pkg.utils.t.get_type_hints) whose name after a module
        is one that module binds by importing a module outside the repository (`import typing as t`): the chain on
        what it imported (typing.get_type_hints), read from the module's
        source (the changed modules now, or the tree at x_G). A name bound under another name is no route name the
        other rules can see."""
        if self.bindings is None or len(parts) < 3:
            return None
        for k in range(len(parts) - 1, 0, -1):
            target = (self.bindings(".".join(parts[:k])) or {}).get(parts[k])
            if target and target.split(".")[0] not in self.own:
                return [*target.split("."), *parts[k + 1:]]
        return None

    def _own_source_unknown(self, parts: list[str]) -> bool:
        """Whether the repository's module named by parts has no source the rules can read (no tree, not changed)."""
        return self.bindings is None or self.bindings(".".join(parts)) is None

    def _outside_route(self, parts: list[str], k: int, node: ast.AST, importing: bool) -> bool:
        """Round 14b: whether parts[k], in a chain on a module outside the reviewed set (a third-party module the
        changed module imported at x_G, or the repository's own), is a standard-library module outside the reviewed
        set that module imported (urllib3.util.ssl_.ssl, jinja2.loaders.zipimport, pkg.utils.asyncio): named so and
        followed by one of that module's names, or ending the chain as a value (not called, not an import: a
        from-import is judged where its name is used); if so it is refused as reaching that module. The deny-list
        knew some of these modules by name from the chain's start only; the principle is the reviewed set's."""
        name = parts[k]
        if name not in STDLIB_OUTSIDE:
            return False
        if k + 1 < len(parts):
            if not _stdlib_has(name, parts[k + 1]):
                return False
        else:
            up = self.parent.get(id(node))
            if importing or isinstance(up, ast.Call) and up.func is node:
                return False
        dotted = ".".join(parts[:k + 1])
        # (named with the name read on it: a capability kept from x_G is that very read, not every read through
        # a module of that name: dask.multiprocessing.get is dask's own module, dask.multiprocessing.multiprocessing
        # the standard library's)
        self.add(Rule.IMPORT_NOT_ALLOWED, f"reaches the module {name}, outside the reviewed set, as "
                 f"{'.'.join(parts[:k + 2])}", node, key=f"import:{dotted}" if importing else None)
        return True

    # -- round 15b: a class tested against, a call whose value is dropped ---------------------------------
    def _used_only(self, node: ast.AST, attr: str, where: Callable[[ast.expr], bool]) -> bool:
        """Whether the module's name at node (`types.FunctionType` spelled there; `from types import FunctionType`,
        the import or a use of the name it binds) is used only where `where` says it hands nothing on. A name the
        import binds must be bound by it alone and read nowhere else: not as an attribute or a name in a string of
        any changed module (`m.FunctionType`, `getattr(m, "FunctionType")`), nor imported by name from a module
        (`from pkg.m import FunctionType`, a star import) there: the module global would hand it on."""
        if isinstance(node, ast.Attribute):
            return where(node)
        if isinstance(node, ast.ImportFrom):
            bound = [a.asname or a.name for a in node.names if a.name == attr]
            if len(bound) != 1:
                return False
            name = bound[0]
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            name = node.id
        else:
            return False
        if name in self.stores or name in self.reads or name in self.from_names or "*" in self.from_names \
                or sum(1 for n in self.imports for a in n.names if (a.asname or a.name) == name) != 1:
            return False
        return all(where(n) for n in ast.walk(self.tree) if isinstance(n, ast.Name) and n.id == name
                   and not isinstance(n.ctx, ast.Del))

    def _rebound(self, name: str) -> bool:
        """Whether the module binds name itself (an assignment, a parameter, a def or class, an import)."""
        return name in self.stores or name in self.names or any(
            isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and n.name == name
            or isinstance(n, ast.alias) and (n.asname or n.name) == name
            or isinstance(n, ast.Global | ast.Nonlocal) and name in n.names for n in ast.walk(self.tree))

    def _class_test(self, node: ast.expr) -> bool:
        """node is the second argument of isinstance/issubclass, the builtins, whose check is type's own for a class
        of the types module: it reads the first argument's class, hands this one to nothing. The builtin only if no
        changed module can make the name a module global: none binds it (`isinstance = f` here, `m.isinstance = f`
        from another module) or writes names it does not spell (`globals()[k] = f`, `vars(m)[k] = f`, setattr,
        `__dict__`): a global of that name would be called with the class instead."""
        call = self.parent.get(id(node))
        return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) \
            and call.func.id in ("isinstance", "issubclass") and len(call.args) == 2 and call.args[1] is node \
            and not call.keywords and not self._rebound(call.func.id) and call.func.id not in self.binds \
            and "*" not in self.binds

    def _tested_class(self, node: ast.expr) -> bool:
        """Round 15b: a function or code class (`types.FunctionType`, `LambdaType`, `CodeType`) used only as a class
        tested against makes nothing: isinstance/issubclass's second argument, alone or in a tuple literal there
        (jinja: `isinstance(obj, (CodeType, TracebackType))`), an operand of `is`/`is not` (`type(obj) is
        FunctionType`: no dunder runs), or an element of a tuple literal bound once to a name read only as such a
        second argument (`_kinds = (FunctionType, MethodType)`). Calling it, handing it on, reading its attributes,
        `==` or `in` (the other operand's dunder gets it) stay refused; so does an annotation (inspect.signature
        hands it back)."""
        up = self.parent.get(id(node))
        if isinstance(up, ast.Compare):
            return all(isinstance(op, ast.Is | ast.IsNot) for op in up.ops)
        if self._class_test(node):
            return True
        if not isinstance(up, ast.Tuple) or not isinstance(up.ctx, ast.Load) \
                or any(isinstance(e, ast.Starred | ast.NamedExpr) for e in up.elts):
            return False
        if self._class_test(up):
            return True
        bind = self.parent.get(id(up))
        if not (isinstance(bind, ast.Assign) and bind.value is up and len(bind.targets) == 1
                and isinstance(bind.targets[0], ast.Name)):
            return False
        name = bind.targets[0].id
        if name in self.reads or name in self.from_names or "*" in self.from_names or name in self.names:
            return False
        uses = [n for n in ast.walk(self.tree) if isinstance(n, ast.Name) and n.id == name]
        if any(isinstance(n, ast.arg) and n.arg == name or isinstance(n, ast.Global | ast.Nonlocal) and name in n.names
                for n in ast.walk(self.tree)):
            return False
        return all(n is bind.targets[0] or isinstance(n.ctx, ast.Load) and self._class_test(n) for n in uses)

    def _dropped_call(self, node: ast.expr) -> bool:
        """Round 15b: inspect.getattr_static called as a statement, its value dropped (jinja: `try:
        getattr_static(obj, name) except AttributeError: ...`): it runs no descriptor and no code of the object, and
        hands nothing back; whether it raises tells what hasattr(obj, name) tells, which the rules allow."""
        call = self.parent.get(id(node))
        return isinstance(call, ast.Call) and call.func is node and isinstance(self.parent.get(id(call)), ast.Expr)

    def _refused_part_read(self, name: str) -> str:
        """Round 14b: a name of a module (a reviewed one, or one of the standard library outside the reviewed set)
        that the allow-list refuses and that the changed modules read as an attribute or name in a string ("" if
        none): `mock` of unittest, `get_type_hints` of typing, any name of ssl. A module whose names cannot be read
        (a star import): any name."""
        parts = _refused_parts(name)
        if parts is None:
            return "any name" if self.reads else ""
        return min(parts & self.reads, default="")

    def _module_as_value(self, name: str, node: ast.AST) -> None:
        """A module object used other than by reading an attribute: passed, stored, returned."""
        self.add(Rule.REFLECTION, f"uses the module {name} as a value", node)

    def _object_attrs(self, attrs: list[str], node: ast.AST, own: bool = False) -> None:
        for attr in attrs:  # a module's __dict__ holds the modules it imported, the repository's too
            self._attr_name(attr, node, receiver_own=own and attr != "__dict__")

    def _refused_attr(self, attr: str) -> bool:
        if attr.startswith("__") and attr.endswith("__"):
            return attr in CODE_DUNDERS or attr not in PROTOCOL and attr not in self.dunders and not self._ours(attr)
        return attr in FRAME_ATTRS or (attr.startswith("_") and attr not in self.defined and attr not in NAMEDTUPLE)

    def _ours(self, dunder: str) -> bool:
        """A dunder named after one of the repository's top-level modules at x_G (attrs' `__attrs_attrs__`):
        the repository's own protocol, which nothing outside it (Python, the standard library, the runner)
        defines; not after a name of the standard library or the harness, nor after a module the change adds."""
        inner = dunder[2:-2]
        return any(inner.startswith(top) for top in self.prefixes)

    def _attr_name(self, attr: str, node: ast.AST, receiver_own: bool = False, at: ast.AST | None = None) -> None:
        """An attribute read on an object: frames and code, dunders, private names the repository lacks. at: the
        expression that reads it (`x.__dict__`, or getattr(x, "__dict__")), where its use can be judged."""
        if attr == "__dict__" and not receiver_own and at is not None and self._plain_dict_use(at, node):
            return
        if attr == "__kwdefaults__" and isinstance(at, ast.Attribute) and self._kwdefaults_copied(at):  # round 15a
            self._note_allowed(f"reads the dunder {attr}", node)
            return
        if attr == "findCaller":  # a logger's: the callers' file, line, function and source lines as text
            self.add(Rule.IMPORT_NOT_ALLOWED, f"{A_LOGGERS} findCaller: the callers' frames as text", node)
        elif attr in FRAME_ATTRS:
            self.add(Rule.REFLECTION, f"reads the attribute {attr}, which reaches frames or code", node)
        elif attr.startswith("__") and attr.endswith("__"):
            if (attr != "__dict__" or not receiver_own) and (
                    attr in CODE_DUNDERS or attr not in PROTOCOL and attr not in self.dunders
                    and not self._ours(attr)):
                self.add(Rule.REFLECTION, f"reads the dunder {attr}", node)
        elif attr.startswith("_") and not receiver_own and attr not in self.defined and attr not in NAMEDTUPLE:
            self.add(Rule.REFLECTION, f"reads {attr}, a private name the repository does not define", node)

    def _plain_dict_use(self, at: ast.AST, node: ast.AST, writes: bool = True) -> bool:
        """Whether a namespace (at: `x.__dict__`, `vars(x)`, `globals()`, `locals()`) is used only in ways
        that hand out no value by a key the rules cannot read, whatever it holds. A class's __dict__ gives
        its descriptors by name (`type.__dict__[k]` gives __subclasses__, `len.__class__.__dict__[k]` the
        __self__ descriptor: the builtins module), a module's its globals (`globals()["__builtins__"]`: the
        builtins, `__import__`); so a value may come out only by a constant key, judged as the attribute it
        names:
        - `"name" in x.__dict__`, `x.__dict__.keys()`: a bool, names;
        - `x.__dict__["name"]`, `.get("name", d)`, `.setdefault("name", d)`, `.pop("name", d)`: x.name;
        - with writes, `x.__dict__[k] = v`, `del x.__dict__[k]`, `x.__dict__.update(m)`: a class's read-only
          mapping refuses them (TypeError), so they reach an instance, whose dunders Python's operators never
          look up, or a module's globals (`globals()`: this module's), which `x.name = v` on a variable and
          `global name` write as plainly. Not `locals()`: in a class body it is the class's namespace, where a
          computed key could be `__eq__`.
        Anything else (copying, passing it on, a computed key read) is refused as before; but (third round)
        text and names come out of it without a value: iterating (keys), `len`, `sorted`, `list`, `str`,
        `print` of it; and a function's local bound once to it is judged by each of its reads."""
        up = self.parent.get(id(at))
        if self._names_only(at, up):
            return True
        if self._filtered_values(at, up) or self._clone_copy(at, up):
            self._note_allowed("reads the dunder __dict__", node)  # round 11: at x_G, still the capability used
            return True
        if isinstance(up, ast.Assign) and up.value is at and len(up.targets) == 1 and isinstance(up.targets[0], ast.Name):
            return self._plain_alias(up, node, writes)
        if isinstance(up, ast.Compare) and any(at is c for c in up.comparators) \
                and all(isinstance(op, ast.In | ast.NotIn) for op in up.ops):
            return True
        key: ast.expr | None = None
        if isinstance(up, ast.Subscript) and up.value is at:
            if not isinstance(up.ctx, ast.Load):
                return writes
            key = up.slice
        elif isinstance(up, ast.Attribute) and up.value is at:
            call = self.parent.get(id(up))
            if not (isinstance(call, ast.Call) and call.func is up):
                return False
            if up.attr == "keys" and not call.args:
                return True
            if up.attr == "update":
                return writes
            if up.attr in ("get", "setdefault", "pop") and call.args:
                key = call.args[0]
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier():
            self._attr_name(key.value, node)
            return True
        values = self._literal_values(key) if key is not None else None  # a key of a few literal names
        if values and all(v.isidentifier() for v in values):
            self.literal_key = True
            start = len(self.found)
            for v in sorted(values):
                self._attr_name(v, node)
            self.found[start:] = [f._replace(what=f"reads a namespace (__dict__, vars(), globals()) by a key the rules "
                                              f"read: {f.what}") for f in self.found[start:]]
            return True
        return False

    def _filtered_values(self, at: ast.AST, up: ast.AST | None) -> bool:
        """Round 11: `[(k, v) for k, v in x.__dict__.items() if isinstance(v, C) ...]` (or `.values()`, or a for
        statement whose whole body is `if isinstance(v, C):` without else), C a plain class this module defines
        (_instance_class): the first thing done with each value is the isinstance test, so the only values that
        come out are instances of C (or objects whose class claims C as its `__class__`, which only code naming C
        can write), never a descriptor of another class's namespace (`type.__dict__`'s __subclasses__, a
        builtin's __self__) nor a module. Keys are strings."""
        if not (isinstance(up, ast.Attribute) and up.value is at and up.attr in ("items", "values")):
            return False
        call = self.parent.get(id(up))
        if not (isinstance(call, ast.Call) and call.func is up and not call.args and not call.keywords):
            return False
        loop = self.parent.get(id(call))
        if not isinstance(loop, ast.comprehension | ast.For) or loop.iter is not call:
            return False
        target = loop.target
        if up.attr == "items":
            if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
                return False
            target = target.elts[1]
        if not isinstance(target, ast.Name):
            return False
        if isinstance(loop, ast.comprehension):
            test = loop.ifs[0] if loop.ifs else None
        else:
            if loop.orelse or len(loop.body) != 1 or not isinstance(loop.body[0], ast.If) or loop.body[0].orelse:
                return False
            test = loop.body[0].test
        return isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" \
            and test.func.id not in self.stores and test.func.id not in self.names and not test.keywords \
            and self._builtin_name(test.func) and test.func.id not in self.binds and not self._globals_written() \
            and len(test.args) == 2 and isinstance(test.args[0], ast.Name) and test.args[0].id == target.id \
            and self._instance_class(test.args[1], set())

    def _globals_written(self) -> bool:
        """Round 15: whether the module may bind names it does not spell in its own globals: `globals()` or
        `locals()` used but to read a key (`globals()[k] = f`, `.update(...)`, the dict handed on), or a `*` import.
        Such a module may have made `isinstance` a global of its own (h-static15b's open case: round 11's filter
        would then let every value of a namespace through, `type`'s descriptors among them)."""
        for n in ast.walk(self.tree):
            if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names):
                return True
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("globals", "locals") \
                    and not n.args and self._builtin_name(n.func):
                up = self.parent.get(id(n))
                if not (isinstance(up, ast.Subscript) and up.value is n and isinstance(up.ctx, ast.Load)):
                    return True
        return False

    def _kwdefaults_copied(self, at: ast.Attribute) -> bool:
        """Round 15a: `R.__kwdefaults__ = O.__kwdefaults__` (either side), in a function where R is a local bound once,
        by `types.FunctionType(O.__code__, ...)`, and O a parameter bound nowhere else (boltons c2b04b4cb1's
        copy_function): a copy of O's code given O's keyword-only defaults, as O has them, so that calling the copy
        is calling O. The dict is shared, but reaching it again takes another __kwdefaults__ read, judged as any.
        Not a dict read and kept, handed on or changed, nor given to another function's code, nor __defaults__
        (a tuple of the library's objects given to code they were not made for is refused the same way)."""
        up = self.parent.get(id(at))
        if not (isinstance(up, ast.Assign) and len(up.targets) == 1):
            return False
        target, value = up.targets[0], up.value
        if not (at is target or at is value) or not all(
                isinstance(a, ast.Attribute) and a.attr == "__kwdefaults__" and isinstance(a.value, ast.Name)
                for a in (target, value)):
            return False
        copy, orig = target.value.id, value.value.id  # type: ignore[attr-defined]
        scope = self.parent.get(id(up))
        while not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
            if scope is None or isinstance(scope, ast.Lambda | ast.ClassDef):
                return False
            scope = self.parent.get(id(scope))
        if copy == orig or _bindings_in(scope, orig) != [scope.args]:
            return False
        made = _bindings_in(scope, copy)
        if not made or len(made) != 1 or not isinstance(made[0], ast.Name):
            return False
        bound = self.parent.get(id(made[0]))
        call = bound.value if isinstance(bound, ast.Assign) and bound.targets == [made[0]] else None
        if not (isinstance(call, ast.Call) and call.args and isinstance(code := call.args[0], ast.Attribute)
                and code.attr == "__code__" and isinstance(code.value, ast.Name) and code.value.id == orig):
            return False
        dotted = self._dotted(call.func)
        return dotted is not None and dotted[0] == ["types", "FunctionType"] and isinstance(dotted[1], ast.Name) \
            and not _binds(scope, dotted[1].id) and len(_bindings_in(self.tree, dotted[1].id) or [0, 0]) == 1

    def _deletes_filtered(self, call: ast.Call) -> bool:
        """Round 15a: `delattr(X, name)` deleting the names round 11's filter found in X's own namespace (attrs
        8b490b8586): in a function, the statement right before `for name, _ in L:` (the same block) is
        `L = [(k, v) for k, v in X.__dict__.items() if isinstance(v, C) ...]` (_filtered_values: C a plain class of
        this module), and the call is in that loop's body; X, L and name are the function's locals, the loop body
        neither binds X, L or name nor reads L, and nothing else binds between. Each name deleted is then that of an
        entry of X's own namespace whose value passed type's own isinstance test against C: an object only code
        naming C makes. On a class, type's delattr removes that entry (the class falls back to what it inherits); on
        an instance it is `del X.__dict__[name]` (allowed), or X's class's own deleter for a name whose entry the
        change itself put there. setattr by the same names writes a value under them: not this."""
        if len(call.args) != 2 or call.keywords or not all(isinstance(a, ast.Name) for a in call.args):
            return False
        obj, name = call.args[0].id, call.args[1].id  # type: ignore[attr-defined]
        child: ast.AST = call
        up = self.parent.get(id(call))
        while not (isinstance(up, ast.For) and any(child is b for b in up.body)):
            if up is None or isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
                                        | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
                return False
            child, up = up, self.parent.get(id(up))
        loop = up
        target = loop.target
        if not (isinstance(loop.iter, ast.Name) and isinstance(target, ast.Tuple) and len(target.elts) == 2
                and all(isinstance(t, ast.Name) for t in target.elts) and target.elts[0].id == name  # type: ignore
                and target.elts[1].id not in (obj, loop.iter.id) and len({obj, name, loop.iter.id}) == 3):  # type: ignore
            return False
        listed = loop.iter.id
        for n in (m for stmt in loop.body for m in ast.walk(stmt)):
            if isinstance(n, ast.Global | ast.Nonlocal) or isinstance(n, ast.Name) and (
                    n.id == listed or n.id in (obj, name) and not isinstance(n.ctx, ast.Load)):
                return False
        block = next((b for f in ("body", "orelse", "finalbody") if isinstance(b := getattr(
            self.parent.get(id(loop)), f, None), list) and any(loop is x for x in b)), None)
        at = next(i for i, x in enumerate(block) if x is loop) if block is not None else 0
        if block is None or at == 0:
            return False
        made = block[at - 1]
        if not (isinstance(made, ast.Assign) and len(made.targets) == 1 and isinstance(made.targets[0], ast.Name)
                and made.targets[0].id == listed and isinstance(made.value, ast.ListComp)
                and len(made.value.generators) == 1 and not made.value.generators[0].is_async
                and not any(isinstance(n, ast.NamedExpr) for n in ast.walk(made.value))):
            return False
        gen, elt = made.value.generators[0], made.value.elt
        pair = gen.target
        if not (isinstance(elt, ast.Tuple) and isinstance(pair, ast.Tuple) and len(elt.elts) == len(pair.elts) == 2
                and all(isinstance(e, ast.Name) and isinstance(t, ast.Name) and e.id == t.id
                        for e, t in zip(elt.elts, pair.elts))):
            return False
        items = gen.iter
        if not (isinstance(items, ast.Call) and isinstance(items.func, ast.Attribute) and items.func.attr == "items"
                and isinstance(items.func.value, ast.Attribute) and items.func.value.attr == "__dict__"
                and isinstance(items.func.value.value, ast.Name) and items.func.value.value.id == obj
                and self._filtered_values(items.func.value, items.func)):
            return False
        scope = self.parent.get(id(loop))
        while scope is not None and not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
            if isinstance(scope, ast.Lambda | ast.ClassDef | ast.Module):
                return False
            scope = self.parent.get(id(scope))
        return scope is not None and all(bool(_bindings_in(scope, n)) for n in (obj, name, listed))

    def _instance_class(self, node: ast.AST, seen: set[str]) -> bool:
        """Whether node names a class this module defines by one top-level class statement, never rebound,
        undecorated, without a metaclass (none given, bases only `object`, builtin types that are not metaclasses,
        or such classes of this module): `isinstance(v, C)` then runs type's own check, which no code of the
        change can steer (an ABC's __subclasshook__ or a metaclass's __instancecheck__ could answer True)."""
        if not isinstance(node, ast.Name) or node.id in seen or not self._own_class(node) \
                or node.id in self.stores and not self._rebound_as_itself(node.id):  # round 15a
            return False
        made = [n for n in ast.walk(self.tree) if isinstance(n, ast.ClassDef) and n.name == node.id]
        if len(made) != 1 or made[0] not in self.tree.body or made[0].keywords or made[0].decorator_list:
            return False
        for base in made[0].bases:
            if isinstance(base, ast.Name) and base.id in self.classes:
                if not self._instance_class(base, seen | {node.id}):
                    return False
                continue
            real = getattr(builtins, base.id, None) if isinstance(base, ast.Name) else None
            if not (isinstance(base, ast.Name) and base.id not in self.names and base.id not in self.stores
                    and isinstance(real, type) and type(real) is type and not issubclass(real, type)):
                return False
        return True

    def _rebound_as_itself(self, name: str) -> bool:
        """Round 15a: whether every binding of name but its class statement is a module-level `name = f(g(name))`
        (attrs's `_CountingAttr = _add_cmp(_add_repr(_CountingAttr))`), each f a def of the module bound once,
        undecorated, plain, whose every own return is `return p`, p its first parameter, bound nowhere else in it:
        the name is then the same class object again (or None where a def falls off its end: isinstance raises), and
        a function cannot change a class's metaclass, where __instancecheck__ is looked up. No parameter, import,
        global declaration, loop target or other assignment of the name anywhere."""
        for n in ast.walk(self.tree):
            if isinstance(n, ast.arg) and n.arg == name or isinstance(n, ast.Global | ast.Nonlocal) and name in n.names \
                    or isinstance(n, ast.alias) and (n.asname or n.name.split(".")[0]) == name \
                    or isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name \
                    or isinstance(n, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and n.name == name:
                return False
            if not (isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)):
                continue
            stmt = self.parent.get(id(n))
            if not (isinstance(n.ctx, ast.Store) and isinstance(stmt, ast.Assign) and stmt.targets == [n]
                    and any(stmt is b for b in self.tree.body) and isinstance(stmt.value, ast.Call)):
                return False
            value: ast.expr = stmt.value
            while isinstance(value, ast.Call):
                if not (value.args and not any(isinstance(a, ast.Starred) for a in value.args)
                        and isinstance(value.func, ast.Name) and self._returns_its_first(value.func.id)):
                    return False
                value = value.args[0]
            if not (isinstance(value, ast.Name) and value.id == name):
                return False
        return True

    def _returns_its_first(self, name: str) -> bool:
        """Round 15a: name is a module def bound once, undecorated, plain (_only_def), whose own returns (not those of
        the scopes nested in it) all return its first parameter, which nothing in it binds again."""
        fn = _only_def(self.tree, name) if name not in self.names else None
        params = [*fn.args.posonlyargs, *fn.args.args] if fn is not None else []
        if fn is None or not params or _bindings_in(fn, params[0].arg) != [fn.args]:
            return False
        returns: list[ast.Return] = []
        stack: list[ast.AST] = list(fn.body)
        while stack:
            n = stack.pop()
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                continue
            if isinstance(n, ast.Return):
                returns.append(n)
            stack.extend(ast.iter_child_nodes(n))
        return bool(returns) and all(isinstance(r.value, ast.Name) and r.value.id == params[0].arg for r in returns)

    def _clone_copy(self, at: ast.AST, up: ast.AST | None) -> bool:
        """Round 11: `ns = dict(X.__dict__)` in a function, ns a namespace only given to
        `type(name, X.__bases__, ns)` (_clone_namespace): a class's copy, slotted (attrs)."""
        if not (isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id == "dict"
                and up.args == [at] and not up.keywords and isinstance(at, ast.Attribute)):
            return False
        assign = self.parent.get(id(up))
        return isinstance(assign, ast.Assign) and assign.value is up and len(assign.targets) == 1 \
            and isinstance(assign.targets[0], ast.Name) and self._clone_namespace(assign.targets[0]) is not None

    def _clone_namespace(self, name: ast.Name) -> ast.Assign | None:
        """Round 11: a class cloned from another, as attrs makes a slotted class (`cd = dict(cls.__dict__);
        cd["__slots__"] = ...; cd.pop(k, None); cls = type(cls.__name__, cls.__bases__, cd)`). name is a function's
        local bound once, by `name = dict(X.__dict__)` with X a local or parameter of the function not bound again
        after that statement (which is in no loop there), and every other use of name is:
        - a store by a constant key that a class statement could spell (_namespace_key: public names, what a class
          statement sets itself, `__init__`, the repository's own dunders): never a behaviour dunder;
        - `del name[k]` or `name.pop(k, ...)` as a statement, by any key: an entry dropped, its value not used;
        - the namespace of `type(n, X.__bases__, name)`, the same X.
        No value comes out of the copy (no read by a key, no iteration, not handed on), so it gives no descriptor
        of another class's namespace by a computed key; and the class made has X's own entries (less some), X's
        bases and plain public names: what X did, X's bases do, or plain data. It borrows nothing from a third
        class, so it compares as X or X's bases would, and X() or X.__bases__[i]() (plain code) already make
        such objects. Returns the binding statement, or None."""
        scope, bindings, param = self._bindings(name)
        if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) or param or len(bindings) != 1:
            return None
        assign = bindings[0]
        if not (isinstance(assign, ast.Assign) and len(assign.targets) == 1 and isinstance(assign.value, ast.Call)):
            return None
        copy = assign.value
        if not (isinstance(copy.func, ast.Name) and copy.func.id == "dict" and "dict" not in self.stores
                and "dict" not in self.names and len(copy.args) == 1 and not copy.keywords
                and isinstance(copy.args[0], ast.Attribute) and copy.args[0].attr == "__dict__"
                and isinstance(copy.args[0].value, ast.Name)):
            return None
        source = copy.args[0].value
        assert isinstance(source, ast.Name)
        src_scope, src_bindings, _ = self._bindings(source)
        if src_scope is not scope or self._in_loop(assign, scope):
            return None
        made: list[ast.Call] = []
        for n in ast.walk(scope):
            if not (isinstance(n, ast.Name) and n.id == name.id) or n is assign.targets[0]:
                continue
            if isinstance(n.ctx, ast.Store):
                return None
            use = self.parent.get(id(n))
            if isinstance(use, ast.Subscript) and use.value is n:
                if isinstance(use.ctx, ast.Store) and isinstance(use.slice, ast.Constant) \
                        and self._namespace_key(use.slice.value) or isinstance(use.ctx, ast.Del):
                    continue
                return None
            if isinstance(use, ast.Attribute) and use.value is n and use.attr == "pop":
                call = self.parent.get(id(use))
                if isinstance(call, ast.Call) and call.func is use and isinstance(self.parent.get(id(call)), ast.Expr):
                    continue
                return None
            if isinstance(use, ast.Call) and isinstance(use.func, ast.Name) and use.func.id == "type" \
                    and "type" not in self.names and "type" not in self.stores and len(use.args) == 3 \
                    and use.args[2] is n and not use.keywords and use.lineno > assign.lineno \
                    and isinstance(use.args[1], ast.Attribute) and use.args[1].attr == "__bases__" \
                    and isinstance(use.args[1].value, ast.Name) and use.args[1].value.id == source.id \
                    and not self._in_loop(use, scope):
                made.append(use)
                continue
            return None
        # X is not bound again between the copy and the class made of it (the statement making it may rebind X:
        # `cls = type(cls.__name__, cls.__bases__, cd)` reads X before it binds it)
        for b in src_bindings:
            line = getattr(b, "lineno", 0)
            if line >= assign.lineno and not all(
                    any(m is c for c in ast.walk(b)) or line > (m.end_lineno or m.lineno) for m in made):
                return None
        return assign if made else None

    def _in_loop(self, node: ast.AST, scope: ast.AST) -> bool:
        up = self.parent.get(id(node))
        while up is not None and up is not scope:
            if isinstance(up, ast.For | ast.AsyncFor | ast.While | ast.comprehension | ast.Lambda
                          | ast.FunctionDef | ast.AsyncFunctionDef):
                return True
            up = self.parent.get(id(up))
        return False

    # -- expressions ---------------------------------------------------------------------------------------
    def _dotted(self, node: ast.AST) -> tuple[list[str], ast.AST] | None:
        """The imported name an expression (a name or a chain of attributes on one) stands for, and its root."""
        attrs: list[str] = []
        while isinstance(node, ast.Attribute):
            attrs.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.names:
            return [*self.names[node.id].split("."), *reversed(attrs)], node
        return None

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._gadget_attribute(node)
        up = self.parent.get(id(node))
        if isinstance(up, ast.Attribute):  # judged once, as the whole chain
            self.generic_visit(node)
            return
        # the gadget rules judge every link of a chain, not its last only: `_Put.put.__get__(obj)` uses the
        # setter `_Put.put` as a value as much as `_Put.put(obj, ...)` does (the chain below visits its root only)
        link = node.value
        while isinstance(link, ast.Attribute):
            self._gadget_attribute(link)
            link = link.value
        dotted = self._dotted(node)
        if dotted is not None:
            self._chain(dotted[0], node)
            if isinstance(node.ctx, ast.Store | ast.Del) and dotted[0][0] not in self.own:
                self.add(Rule.REFLECTION, f"writes the attribute {'.'.join(dotted[0])} of a module that is not "
                         "the repository's", node)
            return
        chain: list[ast.Attribute] = []
        inner: ast.AST = node
        while isinstance(inner, ast.Attribute):
            chain.append(inner)
            inner = inner.value
        root_own = isinstance(inner, ast.Name) and inner.id in SELVES or (
            isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "super")
        if isinstance(node.ctx, ast.Store | ast.Del) and node.attr in OUTSIDE:
            self.add(Rule.REFLECTION, f"sets {node.attr} from outside a class body", node)
        # obj.__dict__ only on the object at hand or a class this code defines: a variable may hold any class
        # (`t = type`, `t = len.__class__`), whose dict hands out __subclasses__ and the descriptor of a builtin's
        # __self__ (the builtins module) by a computed key
        # (a name `cls` or `self` is the object at hand only as a method's bound first parameter: `def f(cls, k):
        # return cls.__dict__[k]` at module level takes `type`, whose dict gives __subclasses__ by a computed key)
        plain = self._own_class(inner) or root_own and (not isinstance(inner, ast.Name)
                                                        or self._bound_self(inner, write=False))
        for k, a in enumerate(reversed(chain)):
            self._attr_name(a.attr, node, receiver_own=(root_own and a.attr != "__dict__"
                                                        or plain and a.attr == "__dict__") and k == 0, at=a)
        self._through_a_value([a.attr for a in reversed(chain)], node)
        self.visit(inner)

    def _through_a_value(self, attrs: list[str], node: ast.AST, called: bool | None = None) -> None:
        """Round 13b: attributes read on a value the rules cannot type (a local, a subscript, a parameter, a call's
        result: `c = urllib3.util.connection; c.sys.modules`). The first one named like a route module (ROUTES), or
        like a standard-library module outside the reviewed set or a reviewed module and followed by one of that
        module's names or submodules (`c.unittest.mock`, not `self.cmd.get_help_option`), is judged as that module from there, as on a chain on a module (_chain); the findings carry the
        name (Finding.via), excused in new_refusals where the repository defines an attribute of that name at x_G.
        A name called last is the object's method (a module is not callable); a name written last, a binding.
        node: the expression the last name is read at (called: whether it is called there, if not node's parent)."""
        up = self.parent.get(id(node))
        if called is None:
            called = isinstance(up, ast.Call) and up.func is node
        for k, name in enumerate(attrs):
            last = k == len(attrs) - 1
            if last and (called or not isinstance(getattr(node, "ctx", ast.Load()), ast.Load)):
                return
            if name in ROUTES:
                start = len(self.found)
                self._chain(attrs[k:], node)
            elif last:
                # another module's name ending the chain is judged only if a name of that module is read on it after
                # (`e.code`, `lex.token`, `match.string`, `self.types` of real fixes); round 14b: or if the module is
                # handed on (a call's argument, a local, a return, a container, a default, an object's attribute) and
                # one of its refused parts is read on anything in the changed modules (`u.mock.ANY`,
                # `t.get_type_hints(fn)`): a module used only for its allowed part stays allowed wherever it flows
                part = self._refused_part_read(name)
                if part:
                    self.add(Rule.REFLECTION, f"uses the module {name} as a value (reached through a value's "
                             f"attribute, as .{'.'.join(attrs)}), and {part} is read in the changed modules", node)
                    self.found[-1] = self.found[-1]._replace(via=name)
                return
            elif name in STDLIB_OUTSIDE and _stdlib_has(name, attrs[k + 1]):
                start = len(self.found)
                self.add(Rule.IMPORT_NOT_ALLOWED, f"reaches the module {name} through a value's attribute (as "
                         f".{'.'.join(attrs[k:])})", node)
                self._chain(attrs[k:], node)
            elif name in REVIEWED and self._reviewed_route(attrs[k:], node, False):
                start = len(self.found)
                self._chain(attrs[k:], node)
            else:
                continue
            # round 14b: the excuse of an attribute the repository defines at x_G (the value may be its object, a
            # socket in werkzeug's `self.socket`) holds for names such an object may have, not for a name only the
            # module has (`.socket.socket()`, `.socket.fromfd(...)`: no socket has them); and what is read beyond it
            # is judged again as read on any value (`.socket.os.system`: `os`, whatever `socket` is)
            via = "" if k + 1 < len(attrs) and attrs[k + 1] in _module_only(name) else name
            self.found[start:] = [f._replace(via=via) for f in self.found[start:]]
            if via:
                self._through_a_value(attrs[k + 1:], node, called)
            return

    def visit_Name(self, node: ast.Name) -> None:
        self._gadget_name(node)
        if isinstance(node.ctx, ast.Del) or self._bound_locally(node):
            return  # unbinding a name uses nothing; a function's own variable is neither a module nor a builtin
        if node.id in self.names:
            up = self.parent.get(id(node))
            if isinstance(up, ast.Attribute) or not isinstance(node.ctx, ast.Load) \
                    or node.id in self._outer_stores():
                return  # judged as the chain; a binding; or a name the module rebinds (`json = None`)
            if isinstance(up, ast.Call) and up.args and up.args[0] is node and isinstance(up.func, ast.Name) \
                    and up.func.id in ("getattr", "hasattr") and len(up.args) >= 2 \
                    and isinstance(up.args[1], ast.Constant) and isinstance(up.args[1].value, str):
                self._chain([*self.names[node.id].split("."), up.args[1].value], node)  # module.name, spelled
                return
            self._chain(self.names[node.id].split("."), node)
            return
        if node.id in REFLECTION_CALLS and isinstance(node.ctx, ast.Load) and not self._plain_getattr(node):
            self.add(Rule.DYNAMIC_IMPORT if node.id in ("__import__", "eval", "exec", "compile")
                     else Rule.REFLECTION, f"uses {node.id}", node)
        elif node.id.startswith("__") and node.id.endswith("__") and node.id not in MODULE_DUNDERS \
                and node.id not in ("__debug__", "__class__", "__package__", "__path__") \
                and node.id not in self.defined:  # a name the code binds is its own variable
            self.add(Rule.REFLECTION, f"uses the name {node.id}", node)

    def _plain_getattr(self, node: ast.Name) -> bool:
        """A reflection builtin whose call is plain code spelled otherwise, judged as that code (issue 51: allow
        what is provably equivalent to what the rules already read):
        - getattr/setattr/delattr(obj, "name", ...) with a constant name: obj.name read, written or deleted,
          judged as the attribute it spells (frames and code, dunders, private names, and for a write the
          dunders that change what an instance compares equal to);
        - with a computed name only on the object at hand (getattr(self, "visit_" + kind), setattr(self, k, v));
        - vars(x) of self, cls or a class the changed modules define: x.__dict__, which the rules allow there."""
        call = self.parent.get(id(node))
        if not isinstance(call, ast.Call) or call.func is not node:
            return False
        if node.id == "vars" and len(call.args) == 1 and not call.keywords:
            arg = call.args[0]
            return isinstance(arg, ast.Name) and (arg.id in SELVES and self._bound_self(arg, write=False)
                                                  or self._own_class(arg)) \
                or self._plain_namespace(call, writes=True)
        if node.id in ("globals", "locals") and not call.args and not call.keywords:
            self.literal_key = False
            # round 15a: locals() at the module's top level is the module's globals, the dict globals() returns
            plain = self._plain_namespace(call, writes=node.id == "globals" or self._module_locals(node))
            if plain and self.literal_key:
                self._note_allowed(f"uses {node.id}", node)
            return plain
        if node.id not in ("getattr", "setattr", "delattr") or len(call.args) < 2:
            return False
        first, name = call.args[0], call.args[1]
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            if not name.value.isidentifier():
                return False  # an attribute no spelling can name
            if isinstance(first, ast.Name) and first.id in self.names:
                return node.id == "getattr"  # a module's attribute: judged as the chain (visit_Name)
            self._spelled(node.id, name.value, first, call)
            return True
        values = self._literal_values(name)  # a few literal names: each judged as its constant spelling
        if values and all(v.isidentifier() for v in values) and not (isinstance(first, ast.Name)
                                                                     and first.id in self.names):
            for v in sorted(values):
                self._spelled(node.id, v, first, call)
            self._note_allowed(f"uses {node.id}", node)
            return True
        if node.id == "getattr" and self._forwarded(name, first):
            self._note_allowed(f"uses {node.id}", node)
            return True
        if node.id == "delattr" and self._builtin_name(node) and self._deletes_filtered(call):  # round 15a
            self._note_allowed(f"uses {node.id}", node)
            return True
        # a computed name on the object at hand: reading self's or cls's own attributes, or writing an
        # instance's (not a class's: setattr(cls, ...) could give it a comparison the rules never read)
        return isinstance(first, ast.Name) and (first.id in SELVES if node.id == "getattr" else first.id == "self") \
            and self._bound_self(first, write=node.id != "getattr")

    def _module_locals(self, node: ast.Name) -> bool:
        """Round 15a: whether node is the builtin `locals` read at the module's top level (no def, lambda, class
        body or comprehension around it; `if`, `for`, `try`, `with` are no scope): there locals() returns the
        module's globals, the very dict globals() returns (requests 1278ecdf71's `locals()[package] = ...`). A class
        body's locals() is its namespace (a computed key could be __eq__), a function's a snapshot: not these. The
        name is the builtin when the module binds it nowhere (no assignment, import or global declaration) and
        imports no names by `*`."""
        if node.id != "locals" or not self._builtin_name(node) or any(
                isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names) for n in ast.walk(self.tree)):
            return False
        up = self.parent.get(id(node))
        while up is not None and not isinstance(up, ast.Module):
            if isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef | ast.ListComp
                          | ast.SetComp | ast.DictComp | ast.GeneratorExp):
                return False
            up = self.parent.get(id(up))
        return isinstance(up, ast.Module)

    def _plain_namespace(self, call: ast.Call, writes: bool) -> bool:
        """vars(x), globals() or locals() used as _plain_dict_use allows, with a constant key that is plain too;
        otherwise the call is judged as before (`uses globals`, which a module that used it at x_G may reuse)."""
        start = len(self.found)
        if self._plain_dict_use(call, call, writes) and len(self.found) == start:
            return True
        del self.found[start:]
        return False

    def _spelled(self, how: str, attr: str, obj: ast.expr, call: ast.Call) -> None:
        """getattr/setattr/delattr(obj, attr) judged as obj.attr (visit_Attribute's rules for one attribute)."""
        own = isinstance(obj, ast.Name) and obj.id in SELVES or isinstance(obj, ast.Call) \
            and isinstance(obj.func, ast.Name) and obj.func.id == "super"
        plain = self._own_class(obj) or own and (not isinstance(obj, ast.Name) or self._bound_self(obj, write=False))
        own = own and attr != "__dict__"  # the dict of a `cls` that is no bound first parameter: judged by its use
        if how == "getattr" and (self._class_expr(obj) or isinstance(obj, ast.Name) and obj.id in SELVES - {"self"}):
            self._reflecting_by_name(attr, call)  # getattr(C, "put") is C.put
        start = len(self.found)
        if how != "getattr" and attr in OUTSIDE:
            self.add(Rule.REFLECTION, f"sets {attr} from outside a class body", call)
        self._attr_name(attr, call, receiver_own=own or plain and attr == "__dict__",
                        at=call if how == "getattr" else None)
        if how == "getattr":  # round 13b: getattr(c, "sys").modules is c.sys.modules
            self._through_a_value(*self._read_on(attr, call))
        self.found[start:] = [f._replace(what=f"uses {how} with {attr!r}: {f.what}") for f in self.found[start:]]

    def _read_on(self, attr: str, node: ast.AST) -> tuple[list[str], ast.AST]:
        """attr, read at node (getattr(c, attr), vars(c)[attr]), with the attributes read on it after (`.modules`),
        and the expression the last of them is read at."""
        attrs = [attr]
        up = self.parent.get(id(node))
        while isinstance(up, ast.Attribute) and up.value is node:
            attrs.append(up.attr)
            node, up = up, self.parent.get(id(up))
        return attrs, node

    def _outer_stores(self) -> frozenset[str]:
        """Names bound other than by import outside any function (module or class level): there a name of an
        import may be rebound (`except ImportError: json = None`). A parameter is not one: its default runs
        in the enclosing scope (`def f(sys=sys)` passes the module)."""
        if self.outer is None:
            found: set[str] = set()
            for n in self.store_nodes:
                up = self.parent.get(id(n))
                while up is not None and not isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
                                                            | ast.ListComp | ast.SetComp | ast.DictComp
                                                            | ast.GeneratorExp):
                    up = self.parent.get(id(up))
                if up is None:
                    found.add(n.id)
            self.outer = frozenset(found)
        return self.outer

    def _own_class(self, node: ast.AST) -> bool:
        """Whether node names a class the changed modules define (and nothing else of that name is bound)."""
        return isinstance(node, ast.Name) and node.id in self.classes and node.id not in self.names \
            and not self._bound_locally(node)

    def _bound_locally(self, node: ast.Name) -> bool:
        """Whether node's name is bound in an enclosing function (a parameter, an assignment, a def), other
        than by an import or a global/nonlocal declaration: then it is that local variable, never a builtin
        or a module of the same name (Python resolves such a name in the function, wherever it is read)."""
        child: ast.AST = node
        up = self.parent.get(id(node))
        while up is not None:
            # only from inside the body: defaults, decorators and annotations run in the enclosing scope
            if isinstance(up, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
                # a comprehension's targets, seen from all but its first iterable (run in the enclosing scope)
                if child is not up.generators[0].iter and any(
                        isinstance(t, ast.Name) and t.id == node.id
                        for g in up.generators for t in ast.walk(g.target)):
                    return True
            inside = child is up.body if isinstance(up, ast.Lambda) else \
                isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef) and any(child is b for b in up.body)
            if inside and node.id in self._locals(up):  # type: ignore[arg-type]
                return True
            child, up = up, self.parent.get(id(up))
        return False

    def _locals(self, scope: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> frozenset[str]:
        key = id(scope)
        if key not in self.scopes:
            args = scope.args
            names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
            names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
            declared: set[str] = set()
            stack: list[ast.AST] = list(scope.body) if isinstance(scope.body, list) else [scope.body]
            while stack:
                n = stack.pop()
                if isinstance(n, ast.Global | ast.Nonlocal):
                    declared.update(n.names)
                elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
                    names.add(n.id)
                elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    names.add(n.name)  # its body is another scope
                    stack.extend([*n.decorator_list, *getattr(n, "bases", [])])
                    continue
                elif isinstance(n, ast.Import | ast.ImportFrom | ast.Lambda | ast.ListComp | ast.SetComp
                                | ast.DictComp | ast.GeneratorExp):
                    continue  # imports bind modules; comprehensions and lambdas are scopes of their own
                stack.extend(ast.iter_child_nodes(n))
            self.scopes[key] = frozenset(names - declared)
        return self.scopes[key]

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("__setattr__", "__delattr__") and len(node.args) >= 2 \
                and not (isinstance(node.args[0], ast.Name) and node.args[0].id == "self"
                         and self._bound_self(node.args[0], write=True)) \
                and not (_is_super(func.value) and self._super_of_instance(node)):
            key = node.args[1]  # object.__setattr__(inst, "x", v) is an assignment; a computed or dunder name is not
            names = self._literal_values(key)  # a constant, or a few literal names (`name in ("__cause__",)`)
            # object's own __setattr__ refuses a class ("can't apply this __setattr__ to type object"): it only
            # writes an instance's attributes, which give no behaviour (dunders are looked up on the type);
            # __class__ and the like stay refused, and assigning __class__ is audited at run time. So do the
            # builtin types' (BaseException.__setattr__ wants a BaseException): INSTANCE_SETATTR, measured
            if isinstance(func.value, ast.Name) and func.value.id in INSTANCE_SETATTR \
                    and func.value.id not in self.stores and func.value.id not in self.names:
                refused = names is not None and any(n in OUTSIDE or n in CODE_DUNDERS for n in names)
            else:
                refused = names is None or any(n in OUTSIDE or n.startswith("__") for n in names)
            if refused:
                self.add(Rule.REFLECTION, f"calls {func.attr} on an object other than self with a computed or "
                         "dunder name", node)
        if isinstance(func, ast.Name) and func.id == "type" and len(node.args) == 3 and "type" not in self.names \
                and not _plain_class(node.args[1], node.args[2]) and not self._readable_class(node.args[1], node.args[2]):
            if isinstance(node.args[2], ast.Name) and self._clone_namespace(node.args[2]) is not None \
                    or self._builtin_name(func):
                # round 11: a clone (x_G: still used); round 14: the builtin type() whatever its namespace holds,
                # as abc.ABCMeta(name, bases, ns) was allowed: a class made by the builtin type() from a changed
                # module's frame takes that module as its __module__, so it is a changed file's class for the
                # class guard (boot.py, made_from_changed), which judges its comparisons and truth at run time;
                # what its namespace holds by a constant key is judged at the namespace (visit_Dict)
                self._note_allowed("makes a class with three-argument type()", node)
            else:  # `type` a name bound where the call reads it (a parameter, a local, an import): not the builtin
                self.add(Rule.REFLECTION, "makes a class with three-argument type()", node)
        if len(node.args) == 3 and self._builtins_type(func):
            self.add(Rule.REFLECTION, "makes a class with three-argument type() (as builtins.type)", node)
        if len(node.args) == 3 and isinstance(func, ast.Call) and (
                isinstance(func.func, ast.Name) and func.func.id == "type" or self._builtins_type(func.func)):
            self.add(Rule.REFLECTION, "makes a class with the metaclass of another (type(x)(name, bases, ns))", node)
        if isinstance(func, ast.Attribute) and func.attr in ("format", "format_map") \
                and isinstance(func.value, ast.Constant) and isinstance(func.value.value, str):
            self._format(func.value.value, node)
        dotted = self._dotted(func)
        name = ".".join(dotted[0]) if dotted else ""
        if name in ("operator.attrgetter", "operator.methodcaller") or (
                isinstance(func, ast.Name) and func.id == "hasattr"):
            # hasattr answers True or False: no value of the attribute reaches the code, so its name is judged
            # only as a string (names of frames and code stay refused wherever they are spelled)
            args = node.args if name == "operator.attrgetter" else node.args[:1] if name else []
            for arg in args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    for part in arg.value.split("."):
                        self._attr_name(part, node)
                    if name == "operator.attrgetter":  # round 13b: attrgetter("sys.modules")(c) is c.sys.modules
                        self._through_a_value(arg.value.split("."), node, called=False)
                elif name:
                    self.add(Rule.REFLECTION, f"{name} with a name computed at run time", node)
        if name == "warnings.catch_warnings" and any(k.arg == "record" for k in node.keywords):
            self.add(Rule.REFLECTION, "records warnings, which name the caller's file and line", node)
        # a filter on module or line (an "error" filter raising only where warn(stacklevel=...) lands) tells
        # which line called: the running test's assert, as a frame would (round 7)
        where = {"warnings.filterwarnings": 3, "warnings.simplefilter": 2}.get(name)
        if where is not None and (len(node.args) > where or any(k.arg in ("module", "lineno", None)
                                                                 for k in node.keywords)):
            self.add(Rule.REFLECTION, "filters warnings by module or line, which tells the caller's line", node)
        for kw in node.keywords:
            if kw.arg == "stack_info":  # logging: the callers' frames as text in a record, for any handler to read
                self.add(Rule.IMPORT_NOT_ALLOWED, f"{A_LOGGERS} stack_info: the callers' stack as text", node)
            if kw.arg == "stacklevel" and _last_name(func) in LOGGER_CALLS | {"warn"} and name != "warnings.warn":
                # a record made for an outer frame names its function (the running test) for any handler
                self.add(Rule.IMPORT_NOT_ALLOWED, f"{A_LOGGERS} stacklevel: the record names an outer frame's "
                         "function", node)
            if kw.arg == "eval_str" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False):
                # inspect.signature, Signature.from_callable, get_annotations (round 11): the annotations, text, run
                # as code; given to a functools.partial as a keyword too (the call it makes is C's: no frame)
                self.add(Rule.DYNAMIC_IMPORT, "eval_str: inspect evaluates string annotations as code", node)
            if kw.arg and kw.arg.startswith("__") and kw.arg.endswith("__") and kw.arg not in HARMLESS_STRINGS:
                self.add(Rule.REFLECTION, f"passes the dunder {kw.arg} as a keyword", node)
        self._gadget_call(node, name)
        self.generic_visit(node)

    def _hasattr_name(self, node: ast.Constant) -> bool:
        """Round 15a: the name of the builtin `hasattr(x, "__kwdefaults__")` (boltons c2b04b4cb1): it answers a bool,
        the value is dropped, and the string is used nowhere else. Any other use of the string is judged as before."""
        up = self.parent.get(id(node))
        return isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id == "hasattr" \
            and len(up.args) == 2 and up.args[1] is node and not up.keywords and self._builtin_name(up.func)

    def _builtins_type(self, func: ast.AST) -> bool:
        dotted = self._dotted(func)
        return dotted is not None and dotted[0] == ["builtins", "type"]

    def visit_Constant(self, node: ast.Constant) -> None:
        if not isinstance(node.value, str) or id(node) in self.docstrings:
            return
        text = node.value
        if (text in FRAME_ATTRS or text in CODE_DUNDERS and text != "__dict__") and not self._hasattr_name(node):
            self.add(Rule.REFLECTION, f"names {text!r} in a string", node)
        if text == "eval_str":  # **{"eval_str": True}, dict(eval_str=...) spelled as a key: inspect evaluates text
            self.add(Rule.DYNAMIC_IMPORT, "eval_str, named in a string: inspect evaluates string annotations", node)
        if text in ("findCaller", "stack_info"):  # getattr(log, name), methodcaller(name), log.info(**{name: True})
            self.add(Rule.IMPORT_NOT_ALLOWED, f"{A_LOGGERS} {text}, named in a string", node)
        if "{" in text:
            self._format(text, node)
        if PROCESS_FILES.search(text):
            self.add(Rule.REFLECTION, f"names the process's own files in a string ({text[:40]!r}): its "
                     "descriptors, command line and environment", node)

    def visit_Dict(self, node: ast.Dict) -> None:
        for key, value in zip(node.keys, node.values):  # a namespace that gives a class behaviour: type(), a
            # metaclass, new_class; round 14: a function the module defines is what a class body's def is
            if isinstance(key, ast.Constant) and key.value in BEHAVIOUR:
                what = f"puts {key.value} in a namespace (a class made without a class statement)"
                if self._own_function(value, key.value):  # round 14 (x_G: still the finding it was)
                    self._note_allowed(what, key)
                else:
                    self.add(Rule.REFLECTION, what, key)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        up = self.parent.get(id(node))
        if isinstance(node.ctx, ast.Store) and isinstance(node.slice, ast.Constant) \
                and node.slice.value in BEHAVIOUR:
            what = f"puts {node.slice.value} in a namespace (a class made without a class statement)"
            if isinstance(up, ast.Assign) and len(up.targets) == 1 and up.targets[0] is node \
                    and self._own_function(up.value, node.slice.value):  # round 14 (x_G: still the finding)
                self._note_allowed(what, node)
            else:
                self.add(Rule.REFLECTION, what, node)
        value = node.value
        if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str) and (
                isinstance(value, ast.Attribute) and value.attr == "__dict__"
                or isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "vars"):
            self._reflecting_by_name(node.slice.value, node)  # C.__dict__["put"], vars(C)["put"]: the plain function
            if isinstance(node.ctx, ast.Load) and node.slice.value.isidentifier():
                self._through_a_value(*self._read_on(node.slice.value, node))  # round 13b: vars(c)["sys"] is c.sys
        self.generic_visit(node)

    def _builtin_name(self, name: ast.Name) -> bool:
        """Round 14: whether a name read resolves to the builtin of that name: no scope it is read in binds it (the
        functions enclosing it, a class body holding it directly, the module), nor declares it global or nonlocal
        (attrs's `def attrib(..., type=None)` binds `type` in that function only)."""
        child: ast.AST = name
        up = self.parent.get(id(name))
        direct = True  # no function between the name and a class body
        while up is not None:
            if isinstance(up, ast.Lambda) and child is not up.args:
                if name.id in {a.arg for a in ast.walk(up.args) if isinstance(a, ast.arg)}:
                    return False
                direct = False
            elif isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef) and child in up.body:
                if _binds(up, name.id):
                    return False
                direct = False
            elif isinstance(up, ast.ClassDef) and direct and child in up.body and _binds(up, name.id):
                return False
            elif isinstance(up, ast.Module):
                return not _binds(up, name.id)
            child, up = up, self.parent.get(id(up))
        return False

    def _own_function(self, value: ast.expr, dunder: str) -> bool:
        """Round 14: a value put in a namespace under a behaviour dunder that is a function this module defines, as
        a class body's def is: a lambda, the name of a def bound once in its scope (no other binding, no global or
        nonlocal declaration of it), or the call of such a def whose every return gives a def bound once in its
        own body (attrs's `_make_operator("eq", eq)`). Whatever class is made from the namespace then holds a
        changed file's function, so the class guard counts it a changed file's class and judges its comparisons
        and truth at run time (boot.py, made_from_changed); a comparison among them that ignores its argument stays
        refused, as in a class body. Anything else (a library function, a C slot, a partial, a method of another
        class, a parameter) stays refused."""
        functions = self._defined_functions(value)
        return bool(functions) and all(_answers(f, dunder) for f in functions)

    def _defined_functions(self, value: ast.expr) -> list[ast.Lambda | ast.FunctionDef]:
        if isinstance(value, ast.Lambda):
            return [value] if _plain_function(value) else []
        if isinstance(value, ast.Name) and isinstance(value.ctx, ast.Load):
            fn = self._def_named(value)
            return [fn] if fn is not None else []
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            factory = self._def_named(value.func)
            returns = _own_returns(factory.body) if factory is not None else []
            made: list[ast.Lambda | ast.FunctionDef] = []
            for r in returns:
                inner = _only_def(factory, r.value.id) if factory is not None and isinstance(r.value, ast.Name) \
                    else None
                if inner is None:
                    return []
                made.append(inner)
            return made
        return []

    def _def_named(self, name: ast.Name) -> ast.FunctionDef | None:
        """The def a name read resolves to when the rules can tell: in the nearest enclosing function (or the
        module) that binds it, bound there by that def alone; None for a class body's name or any other binding."""
        child: ast.AST = name
        up = self.parent.get(id(name))
        while up is not None:
            if isinstance(up, ast.ClassDef) and any(child is b for b in up.body):
                return None  # a class body's name: its namespace first
            if isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.Module) and (
                    isinstance(up, ast.Module) or child is not getattr(up, "args", None)):
                if isinstance(up, ast.Lambda):
                    if name.id in {a.arg for a in ast.walk(up.args) if isinstance(a, ast.arg)}:
                        return None
                elif isinstance(up, ast.Module) or _binds(up, name.id):
                    return _only_def(up, name.id)
            child, up = up, self.parent.get(id(up))
        return None

    def _reflecting_by_name(self, name: str, node: ast.AST) -> None:
        """A method that gets or sets attributes of its first parameter by computed names, looked up by a
        constant name in a namespace or with getattr on something else than the instance at hand: the function
        then takes any first argument, as `C.put(obj, ...)` does."""
        if name in self._gadget_index(node).reflecting | self._gadget_index(node).reflecting_cm:
            self.add(Rule.REFLECTION, f"looks up {name!r}, which gets or sets attributes of its first argument by "
                     "names computed at run time, where it takes another first argument than self", node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        for value in node.values:  # the literal parts of an f-string are not format templates
            if isinstance(value, ast.FormattedValue):
                self.visit(value)

    def _format(self, text: str, node: ast.AST) -> None:
        try:
            fields = [f for _, f, _, _ in string.Formatter().parse(text) if f]
        except ValueError:
            return
        for field in fields:
            # a field walks attributes (.name) and items ([key]); items and public names are what code could
            # read as plainly, so the walk is refused where an attribute would be
            names = [p.split("[")[0] for p in field.split("[")[0].split(".")[1:]]
            names += [p.split("]", 1)[1].lstrip(".") for p in field.split("[")[1:] if "]" in p]
            if any(self._refused_attr(n) for n in names if n):
                self.add(Rule.FORMAT_PATH, f"formats the field {{{field}}}, which walks to a name the rules "
                         "refuse", node)
                return

    def visit_arg(self, node: ast.arg) -> None:
        self._annotation(node.annotation)
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._annotation(node.returns)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._annotation(node.annotation)
        self.generic_visit(node)

    def _annotation(self, ann: ast.expr | None) -> None:
        """A string annotation is code that typing.get_type_hints or singledispatch may evaluate: it must be
        a plain type expression (names, attributes, subscripts, unions, None)."""
        if ann is None:
            return
        for node in ast.walk(ann):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                try:
                    parsed = ast.parse(node.value, mode="eval")
                except SyntaxError:
                    self.add(Rule.DYNAMIC_IMPORT, "a string annotation that is not a type expression", node)
                    continue
                plain = (ast.Expression, ast.Name, ast.Attribute, ast.Subscript, ast.Tuple, ast.List, ast.Load,
                         ast.BinOp, ast.BitOr, ast.Constant, ast.UnaryOp, ast.USub, ast.Slice)
                bad = [n for n in ast.walk(parsed) if not isinstance(n, plain)
                       or isinstance(n, ast.Attribute) and n.attr.startswith("_")
                       or isinstance(n, ast.Name) and n.id.startswith("__")]
                if bad:
                    self.add(Rule.DYNAMIC_IMPORT, f"a string annotation that is not a type expression: "
                             f"{node.value[:40]!r}", node)

    # -- os.environ ----------------------------------------------------------------------------------
    def _environ(self, attr: str, rest: list[str], node: ast.AST) -> None:
        """A read of os.environ keyed by a constant is named by its key; anything else reads every variable."""
        site = node
        parent = self.parent.get(id(site))
        if attr == "getenv":
            key = _constant_arg(parent, site)
            self.add(Rule.ENVIRONMENT, f"reads os.environ[{key!r}]" if key is not None
                     else EVERY_VARIABLE, node)
            return
        if rest:
            if rest[0] in ENV_WRITES:
                self.add(Rule.ENVIRONMENT, "writes to os.environ", node)
                return
            key = _constant_arg(parent, site) if rest[0] in ENV_READS else None
            self.add(Rule.ENVIRONMENT, f"reads os.environ[{key!r}]" if key is not None
                     else EVERY_VARIABLE, node)
            return
        if isinstance(parent, ast.Subscript) and parent.value is site:
            if not isinstance(parent.ctx, ast.Load):
                self.add(Rule.ENVIRONMENT, "writes to os.environ", node)
            elif isinstance(parent.slice, ast.Constant):
                self.add(Rule.ENVIRONMENT, f"reads os.environ[{parent.slice.value!r}]", node)
            else:
                self.add(Rule.ENVIRONMENT, EVERY_VARIABLE, node)
            return
        if isinstance(parent, ast.Compare) and isinstance(parent.left, ast.Constant) \
                and all(isinstance(op, ast.In | ast.NotIn) for op in parent.ops):
            self.add(Rule.ENVIRONMENT, f"reads os.environ[{parent.left.value!r}]", node)
            return
        self.add(Rule.ENVIRONMENT, EVERY_VARIABLE, node)

    # -- classes: comparisons and borrowed dunders ------------------------------------------------------
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._gadget_class(node)
        local = {i.name for i in node.body if isinstance(i, ast.FunctionDef | ast.AsyncFunctionDef)}
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name in COMPARISONS:
                if _ignores_argument(item.args, item.body):
                    what = f"defines {node.name}.{item.name}, which ignores its argument"
                    if _always_raises(item):  # round 14: it answers nothing (x_G: still the finding it was)
                        self._note_allowed(what, item, Rule.COMPARISON)
                    else:
                        self.add(Rule.COMPARISON, what, item)
            elif isinstance(item, ast.Assign):
                for target in item.targets:
                    if not (isinstance(target, ast.Name) and target.id.startswith("__")
                            and target.id.endswith("__")):
                        continue
                    value = item.value
                    if isinstance(value, ast.Lambda):
                        if target.id in COMPARISONS and _ignores_argument(value.args, [value.body]):
                            self.add(Rule.COMPARISON, f"defines {node.name}.{target.id}, which ignores its "
                                     "argument", item)
                    elif target.id in BEHAVIOUR and not (
                            isinstance(value, ast.Constant) or isinstance(value, ast.Name) and value.id in local
                            or target.id not in COMPARISONS and self._default_of_object(value, target.id)
                            or target.id not in COMPARISONS and _rooted_in(value, self.defined - set(self.names))):
                        what = f"borrows {node.name}.{target.id} from another object"
                        if self._module_function(value, node, target.id):  # round 14 (x_G: still the finding)
                            self._note_allowed(what, item)
                        else:
                            self.add(Rule.REFLECTION, what, item)
        self.generic_visit(node)


    def _module_function(self, value: ast.expr, cls: ast.ClassDef, dunder: str) -> bool:
        """Round 14: a behaviour dunder of a module-level class body bound to a function the module defines, as its
        own def would be: a module-level def (`__eq__ = __ne__ = fail_with_undefined_error`, jinja) or a method of a
        module-level class of plain metaclass (`Undefined._fail_with_undefined_error`), each bound once, undecorated,
        the name not bound in the class body first. A comparison among them must read its argument or raise on every
        path (it then answers no verdict), as the class body's own def must."""
        module = self.parent.get(id(cls))
        if not isinstance(module, ast.Module):
            return False
        fn: ast.FunctionDef | None = None
        if isinstance(value, ast.Name) and not _binds(cls, value.id):
            fn = _only_def(module, value.id)
        elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) \
                and not _binds(cls, value.value.id):
            found = _bindings_in(module, value.value.id)
            owner = found[0] if found and len(found) == 1 else None
            if isinstance(owner, ast.ClassDef) and not owner.keywords and not owner.decorator_list and all(
                    isinstance(b, ast.Name) and b.id == "object" and not _binds(module, "object") for b in owner.bases):
                fn = _only_def(owner, value.attr)  # a plain class's attribute: the function its body bound
        return fn is not None and _answers(fn, dunder)

    def _default_of_object(self, value: ast.expr, dunder: str) -> bool:
        """`__hash__ = object.__hash__`: the default every class has from object (identity), restored."""
        return isinstance(value, ast.Attribute) and value.attr == dunder and isinstance(value.value, ast.Name) \
            and value.value.id == "object" and "object" not in self.stores and "object" not in self.names

    # -- gadgets that carry attribute names as data (issue 51, red team round 5) ----------------------------
    # Each closes a route by which new code reads or writes attributes named by data, or gives a class a
    # behaviour nobody reads, through code whose spelling names nothing the rules above refuse.
    def _gadget_index(self, node: ast.AST) -> _Gadgets:
        if self.gadgets is None:
            root = node
            while id(root) in self.parent:
                root = self.parent[id(root)]
            self.gadgets = _Gadgets(root, self.store_nodes, self.parent)
        return self.gadgets

    def _bound_self(self, name: ast.Name, write: bool) -> bool:
        """Whether name is the first parameter of a method, bound to the object at hand: a function defined in
        a class body, not a staticmethod, not __new__/__init_subclass__/__class_getitem__ (their first
        parameter is a class); for a write (setattr, delattr) neither a classmethod nor a method of a
        metaclass (its instances are classes). The exemption of `self` is about what the parameter is bound
        to, not what it is called: `def put(self, k, v): setattr(self, k, v)` at module level takes any class."""
        child: ast.AST = name
        up = self.parent.get(id(name))
        while up is not None:
            inside = child is up.body if isinstance(up, ast.Lambda) else \
                isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef) and any(child is b for b in up.body)
            if inside and name.id in self._locals(up):  # type: ignore[arg-type]
                if not isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef):
                    return False
                positional = [*up.args.posonlyargs, *up.args.args]
                owner = self.parent.get(id(up))
                if not positional or positional[0].arg != name.id or not isinstance(owner, ast.ClassDef) \
                        or up.name in CLASS_FIRST:
                    return False
                decorators = {_last_name(d) for d in up.decorator_list}
                if "staticmethod" in decorators:
                    return False
                if write and ("classmethod" in decorators or owner.name in self._gadget_index(name).metaclasses
                              or not self._plain_class_statement(owner, set())):
                    return False
                return True
            child, up = up, self.parent.get(id(up))
        return False

    def _reduce_hooks(self, node: ast.ClassDef) -> None:
        """The copy protocol (copy.copy, deepcopy) builds an object by calling what __reduce__/__reduce_ex__
        returns first, then writes the state it returns into that object's __dict__ (or hands it to its
        __setstate__): with a library class first, every attribute the state names is written onto a library
        instance, by keys nobody spells as attributes (the hook its comparison calls). So the maker must be the
        object's own class (`type(self)`, a class this module defines) or the default (`super().__reduce__()`)."""
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name in REDUCERS:
                values = [n.value for n in _own_returns(item.body)]
                positional = [*item.args.posonlyargs, *item.args.args]
                first = positional[0].arg if positional else ""
            elif isinstance(item, ast.Assign) and any(isinstance(t, ast.Name) and t.id in REDUCERS
                                                      for t in item.targets):
                if not isinstance(item.value, ast.Lambda):
                    self.add(Rule.REFLECTION, "sets a copy hook (__reduce__) to a value the rules cannot read: its "
                             "maker and state are computed at run time", item)
                    continue
                values = [item.value.body]
                positional = [*item.value.args.posonlyargs, *item.value.args.args]
                first = positional[0].arg if positional else ""
            else:
                continue
            for value in values:
                if not self._own_reduction(value, first, node):
                    self.add(Rule.REFLECTION, f"defines {node.name}'s copy hook returning "
                             f"{(ast.unparse(value) if value else 'None')[:60]}: an object made by another maker than "
                             "its own class gets the state's attributes by names computed at run time",
                             value or item)

    def _own_reduction(self, value: ast.expr | None, first: str, owner: ast.ClassDef) -> bool:
        if value is None or isinstance(value, ast.Constant) and isinstance(value.value, str):
            return True  # a string names a global: copy returns the object itself
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in REDUCERS \
                and (_is_super(value.func.value) or isinstance(value.func.value, ast.Name)
                     and value.func.value.id == "object" and "object" not in self.stores
                     or ast.unparse(value.func.value) in {ast.unparse(b) for b in owner.bases} and value.args
                     and isinstance(value.args[0], ast.Name) and value.args[0].id == first):
            return True  # the default, or a base's own hook given the object (Base.__reduce__(self))
        if not isinstance(value, ast.Tuple) or not value.elts:
            return False
        if len(value.elts) < 3 or isinstance(value.elts[2], ast.Constant) and value.elts[2].value is None:
            return True  # no state: the maker is only called with its arguments, as code may call it anyway
        maker = value.elts[0]
        if isinstance(maker, ast.Call) and isinstance(maker.func, ast.Name) and maker.func.id == "type" \
                and not self._bound_locally(maker.func) and "type" not in self._outer_stores() \
                and len(maker.args) == 1 and isinstance(maker.args[0], ast.Name) and maker.args[0].id == first:
            return True
        if isinstance(maker, ast.Attribute) and maker.attr == "__class__" and isinstance(maker.value, ast.Name) \
                and maker.value.id == first and "__class__" not in self.defined:
            return True  # self.__class__, unless some class here defines a __class__ of its own
        return isinstance(maker, ast.Name) and (maker.id == owner.name or self._own_class(maker)) \
            and maker.id not in self.stores

    def _wrapper_target(self, node: ast.Call, name: str) -> None:
        """update_wrapper(wrapper, wrapped) and wraps(wrapped)(wrapper) write the wrapper: a setattr per assigned
        name and, by default, `wrapper.__dict__.update(wrapped.__dict__)`, every attribute of one object copied
        onto another by names nobody spells (onto a module: its globals; onto a library instance: the hook its
        comparison calls). So the wrapper must be a function this module defines (or the instance at hand,
        `update_wrapper(self, func)` in a decorator class): then it writes that function's own attributes."""
        up = self.parent.get(id(node))
        if name == "functools.update_wrapper":
            target = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "wrapper"), None)
        elif isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef) and node in up.decorator_list:
            return  # @wraps(f) on a def: the wrapper is that function
        elif isinstance(up, ast.Call) and up.func is node and len(up.args) == 1 and not up.keywords:
            target = up.args[0]
        else:
            self.add(Rule.REFLECTION, f"uses {name}(...) other than on a function defined here: it copies attributes "
                     "onto any object by names computed at run time", node)
            return
        if target is None or not self._function_defined_here(target):
            self.add(Rule.REFLECTION, f"applies {name} to {ast.unparse(target) if target else 'nothing'}, not a "
                     "function defined here: it copies attributes onto it by names computed at run time", node)

    def _function_defined_here(self, node: ast.expr) -> bool:
        """A lambda, the instance at hand (a method's bound `self`), or a name only ever bound by a def of this
        module that has no decorator but wraps (a decorator could return any object); `typing.cast(T, f)` is f."""
        if isinstance(node, ast.Call) and len(node.args) == 2 and self._dotted(node.func) is not None \
                and self._dotted(node.func)[0][-2:] == ["typing", "cast"]:  # type: ignore[index]
            node = node.args[1]
        if isinstance(node, ast.Lambda):
            return True
        if isinstance(node, ast.Name) and node.id not in self.names:
            scope, bindings, param = self._bindings(node)
            if scope is not None and bindings and not param and all(
                    isinstance(b, ast.Assign) and isinstance(b.value, ast.Call) and self._dotted(b.value.func)
                    is not None and self._dotted(b.value.func)[0] == ["functools", "partial"]  # type: ignore[index]
                    for b in bindings):
                return True  # a partial made here: its own __dict__, which its call never reads
        if not isinstance(node, ast.Name) or node.id in self.names or node.id in self.stores:
            return self._bound_self(node, write=True) if isinstance(node, ast.Name) else False
        index = self._gadget_index(node)
        defs = index.functions.get(node.id, [])
        return bool(defs) and node.id not in index.classes and all(
            _last_name(d.func if isinstance(d, ast.Call) else d) == "wraps" for f in defs for d in f.decorator_list)

    def _plain_class_statement(self, cls: ast.ClassDef, seen: set[str]) -> bool:
        """Whether a class statement is known to make a plain class (no metaclass: its instances are no classes),
        by its bases: none, `object` or a builtin type other than `type`, a plain class this module defines, a
        class of a reviewed library that does not derive from `type` (`typing.NamedTuple`'s maker too). Anything
        else is not known (a variable, `_T = type`; a call; a class imported from the repository, which the rules
        do not see), and a metaclass by any route is a metaclass: `setattr(self, ...)` in its method sets a
        class's attributes, its __eq__ among them."""
        if cls.name in seen:
            return False
        seen = seen | {cls.name}
        return all(self._plain_base(b, seen) for b in cls.bases)

    def _plain_base(self, base: ast.expr, seen: set[str]) -> bool:
        while isinstance(base, ast.Subscript):  # Generic[T], List[int]: the class subscripted
            base = base.value
        if isinstance(base, ast.Name) and base.id not in self.names:
            if base.id in self.stores or self._bound_locally(base):
                return False  # a variable (`_T = type`), whatever it holds
            index = self._gadget_index(base)
            if base.id in index.classes:
                return self._plain_class_statement(index.classes[base.id], seen)
            real = getattr(builtins, base.id, None)
            return isinstance(real, type) and not issubclass(real, type)
        dotted = self._dotted(base)
        if dotted is None or dotted[0][0] in self.own:
            return False
        parts = dotted[0]
        real = _module(parts[0])
        for k, part in enumerate(parts[1:], 1):
            if real is None:
                return False
            if isinstance(real, types.ModuleType) and _module(".".join(parts[:k + 1])) is not None:
                real = _module(".".join(parts[:k + 1]))
                continue
            real = getattr(real, part, None)
        if isinstance(real, type):
            return not issubclass(real, type)
        return real is not None and hasattr(real, "__mro_entries__")

    def _gadget_call(self, node: ast.Call, name: str) -> None:
        func = node.func
        if any(k.arg is None for k in node.keywords) and (name in WRAPPERS or self._enum_maker(func) is not None):
            self.add(Rule.REFLECTION, f"passes **keywords to {name or 'an enum'}: names computed at run time", node)
        if name in WRAPPERS:
            self._wrapper_target(node, name)
        if name in WRAPPERS:  # update_wrapper(wrapper, wrapped, assigned, updated): a getattr + setattr per name
            given = [*node.args[WRAPPERS[name]:], *(k.value for k in node.keywords if k.arg in ("assigned", "updated"))]
            for value in given:
                names = self._literal_names(value)
                if names is None:
                    self.add(Rule.REFLECTION, f"passes attribute names computed at run time to {name} (assigned, "
                             "updated): a getattr and setattr of any name", node)
                    break
                for attr in names:
                    if attr in OUTSIDE or attr in CODE_DUNDERS and attr != "__dict__" or self._refused_attr(attr):
                        self.add(Rule.REFLECTION, f"copies {attr!r} with {name}: names '{attr}'", node)
        offset = self._enum_maker(func)
        if offset is not None:  # Enum("X", names): the functional API puts each name in a class namespace
            members = node.args[offset + 1] if len(node.args) > offset + 1 else \
                next((k.value for k in node.keywords if k.arg == "names"), None)
            if members is not None:
                bad = _enum_members(members)
                if bad is not None:
                    self.add(Rule.REFLECTION, f"makes an enum from names computed at run time or private ({bad}): "
                             "the functional API puts them in a class namespace", node)
        if isinstance(func, ast.Attribute) and func.attr in GETTERS and node.args:
            target, key = (node.args[0], node.args[1]) if len(node.args) >= 2 else (func.value, node.args[0])
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                self._attr_name(key.value, node)
            elif not (isinstance(target, ast.Name) and self._bound_self(target, write=False) or _is_super(target)):
                self.add(Rule.REFLECTION, f"calls {func.attr} with a name computed at run time (a getattr)", node)
        if name == "operator.methodcaller" and node.args and isinstance(node.args[0], ast.Constant) \
                and node.args[0].value in NAME_TAKERS:
            self.add(Rule.REFLECTION, f"operator.methodcaller({node.args[0].value!r}): a name computed at run time",
                     node)
        if isinstance(func, ast.Name) and func.id == "getattr" and func.id not in self.names and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) and node.args[1].value in NAME_TAKERS \
                and not self._literal_receiver(node.args[0]):
            self.add(Rule.REFLECTION, f"getattr(..., {node.args[1].value!r}): a name computed at run time", node)

    def _literal_names(self, value: ast.expr) -> list[str] | None:
        """The attribute names an assigned/updated argument spells: literals, functools' defaults, sums."""
        if isinstance(value, ast.Tuple | ast.List):
            if all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
                return [e.value for e in value.elts]  # type: ignore[attr-defined]
            return None
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            left, right = self._literal_names(value.left), self._literal_names(value.right)
            return None if left is None or right is None else left + right
        dotted = self._dotted(value)
        if dotted and ".".join(dotted[0]) in ("functools.WRAPPER_ASSIGNMENTS", "functools.WRAPPER_UPDATES"):
            return []
        return self._names_of_literals(value, 3)

    def _names_of_literals(self, value: ast.expr, depth: int) -> list[str] | None:
        """The string constants of an expression made only of them, functools' defaults, set and tuple
        operations on them, and names only ever bound to such expressions (`tuple(set(WRAPPER_ASSIGNMENTS)
        .difference(("__name__",)))`); None if anything else is in it."""
        found: list[str] = []
        for n in ast.walk(value):
            if isinstance(n, ast.Constant):
                if isinstance(n.value, str):
                    found.append(n.value)
            elif isinstance(n, ast.Name):
                dotted = self._dotted(n)
                if dotted and ".".join(dotted[0]) in ("functools.WRAPPER_ASSIGNMENTS", "functools.WRAPPER_UPDATES"):
                    continue
                call = self.parent.get(id(n))
                if n.id in LITERAL_BUILDERS and n.id not in self.stores and isinstance(call, ast.Call) \
                        and call.func is n:
                    continue
                values = [self.parent.get(id(s)) for s in self.store_nodes if s.id == n.id]
                if depth == 0 or not values or n.id in self.names or n.id in self._gadget_index(n).params or not all(
                        isinstance(a, ast.Assign) and len(a.targets) == 1 and a.targets[0].id == n.id  # type: ignore[attr-defined]
                        for a in values):
                    return None
                for a in values:
                    inner = self._names_of_literals(a.value, depth - 1)  # type: ignore[union-attr]
                    if inner is None:
                        return None
                    found += inner
            elif isinstance(n, ast.Attribute):
                if n.attr not in SET_METHODS:
                    dotted = self._dotted(n)
                    if not dotted or ".".join(dotted[0]) not in ("functools.WRAPPER_ASSIGNMENTS",
                                                                  "functools.WRAPPER_UPDATES"):
                        return None
            elif not isinstance(n, ast.Call | ast.Tuple | ast.List | ast.Set | ast.BinOp | ast.operator | ast.Load
                                | ast.Starred):
                return None
        return found

    def _enum_maker(self, func: ast.expr) -> int | None:
        """For a call of an enum class (enum.Enum, an enum class defined here), where its names argument
        follows: 0 (`Enum("X", names)`) or 1 (`EnumMeta.__call__(Enum, "X", names)`); None if no enum."""
        dotted = self._dotted(func)
        if dotted:
            parts = dotted[0]
            if len(parts) >= 2 and parts[0] == "enum" and parts[1] in ENUM_TYPES:
                return 0 if len(parts) == 2 else 1 if parts[2:] == ["__call__"] else None
            return None
        if isinstance(func, ast.Name) and self._own_class(func) and self._enum_class(func.id, func, set()):
            return 0
        return None

    def _enum_class(self, name: str, at: ast.AST, seen: set[str]) -> bool:
        """Whether the class of that name defined here derives from an enum class."""
        cls = self._gadget_index(at).classes.get(name)
        if cls is None or name in seen:
            return False
        seen.add(name)
        for base in cls.bases:
            dotted = self._dotted(base)
            if dotted and len(dotted[0]) >= 2 and dotted[0][0] == "enum" and dotted[0][1] in ENUM_TYPES:
                return True
            if isinstance(base, ast.Name) and self._enum_class(base.id, at, seen):
                return True
        return False

    def _literal_receiver(self, value: ast.expr) -> bool:
        """Whether a format string is text the rules read: a constant, a name only ever bound to constants,
        the translation of a constant (`_("...")`), or an object's own method named format."""
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return True
        index = self._gadget_index(value)
        if isinstance(value, ast.Name):
            if value.id in index.constant_strings or self._formatted_once(value):
                return True
            return value.id in SELVES and bool(index.format_methods) and self._bound_self(value, write=False)
        if isinstance(value, ast.Call) and _last_name(value.func) in TRANSLATORS \
                and len(value.args) >= TRANSLATORS[_last_name(value.func)] and all(
                    isinstance(a, ast.Constant) and isinstance(a.value, str)
                    for a in value.args[:TRANSLATORS[_last_name(value.func)]]):
            return True  # the messages constant (ngettext's count is not one)
        return False

    def _formatted_once(self, name: ast.Name) -> bool:
        """Round 11: `message = message.format(...)` where message is a function's local otherwise bound only to
        string literals (marshmallow: `if many: message = "{0} are ..." else: message = "{0} is ..."`, then the
        statement): the statement is in no loop there, so it runs once per call, when message holds one of those
        literals (each a whole template, whose fields the rules read) and never its own result, which holds the
        arguments' text (braces among it)."""
        up = self.parent.get(id(name))
        call = self.parent.get(id(up))
        statement = self.parent.get(id(call))
        if not (isinstance(up, ast.Attribute) and up.value is name and up.attr in ("format", "format_map")
                and isinstance(call, ast.Call) and call.func is up and isinstance(statement, ast.Assign)
                and statement.value is call and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == name.id):
            return False
        scope, bindings, param = self._bindings(name)
        if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) or param \
                or self._in_loop(statement, scope):
            return False
        others = [b for b in bindings if b is not statement]
        return len(others) == len(bindings) - 1 and bool(others) and all(
            isinstance(b, ast.Assign) and len(b.targets) == 1 and _string_sum(b.value, set()) for b in others)

    def _gadget_attribute(self, node: ast.Attribute) -> None:
        up = self.parent.get(id(node))
        called = isinstance(up, ast.Call) and up.func is node
        if node.attr in ("format", "format_map") and isinstance(node.ctx, ast.Load) and self._dotted(node) is None:
            receiver = node.value
            if isinstance(receiver, ast.Name) and receiver.id == "str" and "str" not in self.stores \
                    and "str" not in self.names:  # str.format(template, ...)
                ok = called and bool(up.args) and self._literal_receiver(up.args[0])  # type: ignore[union-attr]
            else:
                ok = self._literal_receiver(receiver)
            if not ok:
                self.add(Rule.FORMAT_PATH, f"calls {node.attr} on a format string computed at run time (its fields "
                         "can walk attributes)", node)
        if node.attr in GETTERS and not called:
            self.add(Rule.REFLECTION, f"uses {node.attr} as a value: a getattr of names computed at run time", node)
        if node.attr == "__class__" and self._class_expr(node.value):
            self.add(Rule.REFLECTION, "reads __class__ of a class: its metaclass makes classes as three-argument "
                     "type() does", node)
        if node.attr == "__path__" and (not isinstance(node.ctx, ast.Load) or self._path_written(node)):
            self.add(Rule.REFLECTION, "writes a package's __path__: module locations computed at run time", node)
        index = self._gadget_index(node)
        receiver = node.value
        if node.attr in index.reflecting and isinstance(node.ctx, ast.Load) and (
                self._class_expr(receiver) or isinstance(receiver, ast.Name) and receiver.id in SELVES - {"self"}):
            # H.put(S, k, v): a method called through a class takes any first argument; `self` is then S
            first = up.args[0] if called and up.args else None  # type: ignore[union-attr]
            if not (isinstance(first, ast.Name) and self._bound_self(first, write=True)):
                self.add(Rule.REFLECTION, f"uses {ast.unparse(node)}, which gets or sets attributes of its first "
                         "argument by names computed at run time, with another first argument than self", node)
        if node.attr in index.reflecting and isinstance(node.ctx, ast.Load) and _is_super(receiver) \
                and isinstance(receiver, ast.Call) and len(receiver.args) == 2 and not (
                    isinstance(receiver.args[1], ast.Name) and self._bound_self(receiver.args[1], write=True)):
            # super(C, obj).put(...) binds the method to obj, whatever obj is
            self.add(Rule.REFLECTION, f"uses {ast.unparse(node)}, which gets or sets attributes of its first "
                     "argument by names computed at run time, bound by super() to another object than self", node)
        if node.attr == "__func__" and isinstance(receiver, ast.Attribute) and (
                receiver.attr in index.reflecting_cm or receiver.attr in index.reflecting):
            # a bound method's __func__ is the plain function: it takes any first argument
            self.add(Rule.REFLECTION, f"uses {ast.unparse(node)}, which gets or sets attributes of its first "
                     "argument by names computed at run time, with another first argument than its class or instance", node)

    def _class_expr(self, node: ast.expr) -> bool:
        """Whether node is statically a class: its __class__ is then a metaclass (type or one of its own)."""
        if isinstance(node, ast.Attribute) and node.attr == "__class__":
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type" \
                and "type" not in self.stores and "type" not in self.names:
            return True
        if isinstance(node, ast.Name):
            return self._own_class(node) or node.id in BUILTIN_TYPES and node.id not in self.stores \
                and node.id not in self.names
        return False

    def _path_written(self, node: ast.expr) -> bool:
        """A package's __path__ (a Name or attribute) used other than read: stored, mutated, handed out."""
        up = self.parent.get(id(node))
        if isinstance(up, ast.Subscript) and up.value is node:
            return not isinstance(up.ctx, ast.Load)
        if isinstance(up, ast.Call) and node in up.args and _last_name(up.func) in PATH_READERS:
            return False
        if isinstance(up, ast.For | ast.comprehension) and up.iter is node or isinstance(up, ast.Compare):
            return False
        return True

    def _gadget_name(self, node: ast.Name) -> None:
        if node.id == "__path__" and (not isinstance(node.ctx, ast.Load) or self._path_written(node)):
            self.add(Rule.REFLECTION, "writes a package's __path__: module locations computed at run time", node)

    def _gadget_class(self, node: ast.ClassDef) -> None:
        """Comparisons are pure and compare: one that stores into its own object can adopt the value it is
        compared with (`self[:] = other`), and one that never compares something of its object with
        something of the other (`isinstance(other, list)`, `other == other`) answers without comparing."""
        self._reduce_hooks(node)
        for item in node.body:
            body: list[ast.stmt] | list[ast.expr]
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name in COMPARISONS:
                args, body, dunder = item.args, item.body, item.name
            elif isinstance(item, ast.Assign) and isinstance(item.value, ast.Lambda) and any(
                    isinstance(t, ast.Name) and t.id in COMPARISONS for t in item.targets):
                args, body = item.value.args, [item.value.body]
                dunder = next(t.id for t in item.targets if isinstance(t, ast.Name) and t.id in COMPARISONS)
            else:
                continue
            positional = [a.arg for a in [*args.posonlyargs, *args.args]]
            others = set(positional[1:]) | ({args.vararg.arg} if args.vararg else set())
            if not positional or not others or _ignores_argument(args, body) or len(body) == 1 and isinstance(
                    body[0], ast.Return) and isinstance(body[0].value, ast.Name) and body[0].value.id == "NotImplemented":
                continue
            mine = _derived({positional[0]}, body, plain=True)
            stored = _stores_into(mine, body)
            if stored:
                self.add(Rule.COMPARISON, f"defines {node.name}.{dunder}, which stores into its own object "
                         f"({stored}): a comparison must not change what it compares", item)
            elif not _compares(_derived({positional[0]}, body), _derived(others, body), body, node.name):
                self.add(Rule.COMPARISON, f"defines {node.name}.{dunder}, which never compares something of its "
                         "own object with something of the other", item)

    # -- names whose values the rules can read (issue 51, third round of allowances) ---------------------------
    # A name computed at run time is refused where it names an attribute or a namespace key (getattr, setattr,
    # globals()[k]): the rules cannot read its value. A name that can only hold a few literal strings is that
    # many constant names, each judged as its constant spelling is (`setattr(C, name, f)` over a literal tuple
    # is `C.clear = f; C.copy = f`; `globals()[f"_{name}"]` under `if name in {"LazyFile"}` is `_LazyFile`).
    # Read: the variable of a `for` over a literal collection (or a comprehension's), a parameter never rebound
    # and tested by an enclosing `if name in {...}:`/`if name == "...":`, a local bound once to such a value,
    # and f-strings, sums and conditional expressions of them. A function's locals cannot be written from
    # outside it (frames are refused); a module-level name only when nothing in the module can rebind it
    # (`global`, an attribute store of that name, a namespace written by a computed key).
    def _literal_values(self, node: ast.AST, depth: int = 3) -> frozenset[str] | None:
        """Every string node can evaluate to, when the rules can read them all (at most LITERAL_LIMIT)."""
        if depth < 0:
            return None
        values: frozenset[str] | None
        if isinstance(node, ast.Constant):
            return frozenset({node.value}) if isinstance(node.value, str) else None
        if isinstance(node, ast.JoinedStr | ast.BinOp):
            parts = node.values if isinstance(node, ast.JoinedStr) else [node.left, node.right]
            if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.Add):
                return None
            values = frozenset({""})
            for part in parts:
                if isinstance(part, ast.FormattedValue):
                    if part.conversion != -1 or part.format_spec is not None:
                        return None
                    part = part.value
                more = self._literal_values(part, depth)
                if more is None:
                    return None
                values = frozenset(a + b for a in values for b in more)
                if len(values) > LITERAL_LIMIT:
                    return None
            return values
        if isinstance(node, ast.IfExp):
            a, b = self._literal_values(node.body, depth), self._literal_values(node.orelse, depth)
            return None if a is None or b is None else a | b
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            return self._name_values(node, depth)
        return None

    def _literal_collection(self, node: ast.AST, depth: int) -> frozenset[str] | None:
        """The strings a literal tuple, list, set or dict (its keys) holds, or a local name bound once to one
        and only read (membership, items, iteration)."""
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            values: frozenset[str] = frozenset()
            for e in node.elts:
                more = self._literal_values(e, depth - 1)
                if more is None:
                    return None
                values |= more
            return values
        if isinstance(node, ast.Dict):
            keys = [k for k in node.keys if k is not None]  # None: a **spread
            return self._literal_collection(ast.Tuple(elts=keys, ctx=ast.Load()), depth) \
                if len(keys) == len(node.keys) else None
        if isinstance(node, ast.Name) and depth > 0:
            scope, bindings, param = self._bindings(node)
            if scope is None or param or len(bindings) != 1 or not isinstance(bindings[0], ast.Assign) \
                    or not isinstance(bindings[0].value, ast.Tuple | ast.List | ast.Set | ast.Dict):
                return None
            if not all(self._read_only(n) for n in ast.walk(scope)
                       if isinstance(n, ast.Name) and n.id == node.id and isinstance(n.ctx, ast.Load)):
                return None
            return self._literal_collection(bindings[0].value, depth - 1)
        return None

    def _read_only(self, name: ast.Name) -> bool:
        """A use of a collection that cannot change it: a membership test, an item read, .get/.keys/.items/
        .values, iteration."""
        up = self.parent.get(id(name))
        if isinstance(up, ast.Compare):
            return any(name is c for c in up.comparators) and all(isinstance(o, ast.In | ast.NotIn) for o in up.ops)
        if isinstance(up, ast.Subscript):
            return up.value is name and isinstance(up.ctx, ast.Load)
        if isinstance(up, ast.Attribute):
            call = self.parent.get(id(up))
            return up.attr in ("get", "keys", "items", "values") and isinstance(call, ast.Call) and call.func is up
        return isinstance(up, ast.For | ast.comprehension) and up.iter is name

    def _name_values(self, node: ast.Name, depth: int) -> frozenset[str] | None:
        guard: frozenset[str] | None = None
        child: ast.AST = node
        up = self.parent.get(id(node))
        while up is not None:
            if isinstance(up, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
                binders = [g for g in up.generators if any(isinstance(t, ast.Name) and t.id == node.id
                                                           for t in ast.walk(g.target))]
                if binders and child is not up.generators[0].iter:
                    g = binders[0]
                    if len(binders) != 1 or not isinstance(g.target, ast.Name):
                        return None
                    return self._literal_collection(g.iter, depth)
            elif isinstance(up, ast.If) and any(child is b for b in up.body) and guard is None:
                guard = self._guard(up.test, node.id, depth)
            elif isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef | ast.Module):
                inside = isinstance(up, ast.Module) or (child is up.body if isinstance(up, ast.Lambda)
                                                        else any(child is b for b in up.body))
                if inside:
                    break
            child, up = up, self.parent.get(id(up))
        scope, bindings, param = self._bindings(node)
        if scope is None:
            return None
        if param:
            return guard if not bindings else None
        if len(bindings) != 1:
            return None
        binding = bindings[0]
        values = None
        if isinstance(binding, ast.For) and isinstance(binding.target, ast.Name) \
                and self._within(node, binding.body):
            values = self._literal_collection(binding.iter, depth)
        elif isinstance(binding, ast.Assign) and len(binding.targets) == 1 and isinstance(binding.targets[0], ast.Name):
            values = self._literal_values(binding.value, depth - 1)
        return values

    def _super_of_instance(self, node: ast.AST) -> bool:
        """Whether a zero-argument super() call at node (`super().__setattr__(name, value)`) is bound to the
        instance at hand: its function is a method whose first parameter _bound_self takes for a write, so
        the call is setattr(self, name, value), which the rules allow."""
        call = node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else None
        if not isinstance(call, ast.Call) or call.args or call.keywords:
            return False
        up = self.parent.get(id(node))
        while up is not None and not isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            up = self.parent.get(id(up))
        if not isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef):
            return False
        positional = [*up.args.posonlyargs, *up.args.args]
        if not positional:
            return False
        probe = ast.Name(id=positional[0].arg, ctx=ast.Load())  # the first parameter, read at the body's start
        self.parent[id(probe)] = up.body[0]
        try:
            return self._bound_self(probe, write=True)
        finally:
            del self.parent[id(probe)]

    def _forwarded(self, name: ast.expr, first: ast.expr) -> bool:
        """getattr(self.<attr>, name) in a class's `def __getattr__(self, name)`: a proxy handing a failed
        attribute lookup on to an object it holds. The name is the one the lookup spelled where it was made,
        judged there as on any object (`proxy._x`, `proxy.__globals__` are refused), or a computed getattr,
        refused there; calling __getattr__ itself with a computed name or taking it as a value is refused
        (_gadget_call, _gadget_attribute). So the proxy reads no name its caller could not spell. The object
        must be an attribute chain on the bound self: not a module, whose names the rules judge by its parts."""
        if not isinstance(name, ast.Name):
            return False
        scope, bindings, param = self._bindings(name)
        if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) or scope.name != "__getattr__" \
                or not param or bindings or not isinstance(self.parent.get(id(scope)), ast.ClassDef):
            return False
        positional = [*scope.args.posonlyargs, *scope.args.args]
        if len(positional) != 2 or positional[1].arg != name.id:
            return False
        root = first
        while isinstance(root, ast.Attribute):
            root = root.value
        return first is not root and isinstance(root, ast.Name) and root.id == positional[0].arg \
            and self._bound_self(root, write=False)

    def _names_only(self, at: ast.AST, up: ast.AST | None) -> bool:
        """A namespace iterated (its keys) or given whole to a builtin that answers its names, size or text
        (`print(x.__dict__)`, `sorted(vars(o))`): no value comes out to the code."""
        if isinstance(up, ast.For | ast.comprehension) and up.iter is at:
            return True
        return isinstance(up, ast.Call) and len(up.args) == 1 and up.args[0] is at and not up.keywords \
            and isinstance(up.func, ast.Name) and up.func.id in NAMES_OF_DICT and up.func.id not in self.stores \
            and up.func.id not in self.names

    def _plain_alias(self, assign: ast.Assign, node: ast.AST, writes: bool) -> bool:
        """`d = getattr(base, "__dict__", {})` in a function, d bound only there: plain when each read of d is
        (`"__weakref__" in d`, `d.get("__slots__")`)."""
        alias = assign.targets[0]
        assert isinstance(alias, ast.Name)
        scope, bindings, param = self._bindings(alias)
        if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) or param or bindings != [assign]:
            return False
        start = len(self.found)
        if all(self._plain_dict_use(n, node, writes) for n in ast.walk(scope)
               if isinstance(n, ast.Name) and n.id == alias.id and isinstance(n.ctx, ast.Load)):
            return True
        del self.found[start:]
        return False

    def _readable_class(self, bases: ast.expr, namespace: ast.expr) -> bool:
        """type(name, bases, ns) whose namespace the rules read whole: a dict display with constant keys, a
        conditional between such displays, or a function's local bound once to one and afterwards only given
        more constant keys, read, tested, popped or deleted from; every key a public name, what a class
        statement sets itself, `__init__`, or a dunder of the repository's own protocol (`__attrs_post_init__`):
        no comparison, truth, iteration or other behaviour of Python's can be put in a class made without a
        class statement. Bases: a name or attribute chain (`bases`, `cls.__bases__`; `class X(*bases):` spells
        the same, and what a class inherits is judged by the class guard at run time as a base's) or a tuple
        of them (a call, `type(mock.ANY)`, stays refused as in _plain_class)."""
        chain = bases
        while isinstance(chain, ast.Attribute):
            chain = chain.value
        if not isinstance(chain, ast.Name) and not _plain_class(bases, ast.Dict(keys=[], values=[])):
            return False
        if isinstance(namespace, ast.IfExp):
            return self._readable_class(bases, namespace.body) and self._readable_class(bases, namespace.orelse)
        if isinstance(namespace, ast.Dict):
            return all(isinstance(k, ast.Constant) and self._namespace_key(k.value) for k in namespace.keys)
        if not isinstance(namespace, ast.Name):
            return False
        scope, bindings, param = self._bindings(namespace)
        if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) or param or len(bindings) != 1 \
                or not isinstance(bindings[0], ast.Assign) or not self._readable_class(bases, bindings[0].value):
            return False
        for n in ast.walk(scope):
            if not (isinstance(n, ast.Name) and n.id == namespace.id and isinstance(n.ctx, ast.Load)) \
                    or n is namespace:
                continue
            up = self.parent.get(id(n))
            if isinstance(up, ast.Subscript) and up.value is n:
                if isinstance(up.ctx, ast.Store) and not (isinstance(up.slice, ast.Constant)
                                                          and self._namespace_key(up.slice.value)):
                    return False
            elif isinstance(up, ast.Attribute) and up.value is n:
                call = self.parent.get(id(up))
                if up.attr not in ("get", "pop", "keys", "items", "values", "copy") \
                        or not (isinstance(call, ast.Call) and call.func is up):
                    return False
            elif not (isinstance(up, ast.Compare) and any(n is c for c in up.comparators)):
                return False
        return True

    def _namespace_key(self, key: object) -> bool:
        return isinstance(key, str) and key.isidentifier() and (
            not key.startswith("__") or key in PLAIN_NAMESPACE or key == "__init__"
            or key.endswith("__") and self._ours(key))

    def _module_logger(self, node: ast.AST) -> bool:
        """`log = logging.getLogger(__name__)` (or a constant name, or none) at module level, log bound only
        there, and every read of log anywhere in the module a call of one of LOGGER_CALLS without stack_info or
        stacklevel: no handler, record, frame, manager or level of any logger reaches the code."""
        call = self.parent.get(id(node))
        if not isinstance(call, ast.Call) or call.func is not node or call.keywords or len(call.args) > 1 \
                or call.args and not (isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)
                                      or isinstance(call.args[0], ast.Name) and call.args[0].id == "__name__"):
            return False
        assign = self.parent.get(id(call))
        if not isinstance(assign, ast.Assign) or len(assign.targets) != 1 or not isinstance(assign.targets[0], ast.Name):
            return False
        log = assign.targets[0]
        if self.parent.get(id(assign)) is not self.tree:  # module level, bound only here
            return False
        for n in ast.walk(self.tree):
            if isinstance(n, ast.Global | ast.Nonlocal) and log.id in n.names:
                return False
            if isinstance(n, ast.Name) and n.id == log.id and n is not log:
                up = self.parent.get(id(n))
                use = self.parent.get(id(up))
                if not (isinstance(n.ctx, ast.Load) and isinstance(up, ast.Attribute) and up.attr in LOGGER_CALLS
                        and isinstance(use, ast.Call) and use.func is up
                        and not any(k.arg in ("stack_info", "stacklevel") or k.arg is None for k in use.keywords)):
                    return False
        return True

    def _note_allowed(self, what: str, node: ast.AST, rule: Rule = Rule.REFLECTION) -> None:
        """Keep what the rules before the third round found here (reflection, `what`) as a capability used."""
        start = len(self.found)
        self.add(rule, what, node)
        self.allowed += self.found[start:]
        del self.found[start:]

    def _within(self, node: ast.AST, body: list[ast.stmt]) -> bool:
        up = self.parent.get(id(node))
        while up is not None:
            if any(node is b for b in body):
                return True
            node, up = up, self.parent.get(id(up))
        return False

    def _guard(self, test: ast.expr, name: str, depth: int) -> frozenset[str] | None:
        """The values `if name in {...}` / `if name == "..."` (or a conjunct of one) lets into its body."""
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            for part in test.values:
                found = self._guard(part, name, depth)
                if found is not None:
                    return found
            return None
        if not isinstance(test, ast.Compare) or len(test.ops) != 1:
            return None
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, ast.In) and isinstance(left, ast.Name) and left.id == name:
            return self._literal_collection(right, depth)
        if isinstance(op, ast.Eq):
            for a, b in ((left, right), (right, left)):
                if isinstance(a, ast.Name) and a.id == name and isinstance(b, ast.Constant) and isinstance(b.value, str):
                    return frozenset({b.value})
        return None

    def _bindings(self, node: ast.Name) -> tuple[ast.AST | None, list[ast.AST], bool]:
        """The scope a name read belongs to (a function, or the module; None: one the rules do not read, such
        as a class body or a name declared global or nonlocal), the statements that bind it there, and whether
        it is a parameter there."""
        child: ast.AST = node
        up = self.parent.get(id(node))
        scope: ast.AST | None = None
        while up is not None:
            if isinstance(up, ast.ClassDef) and any(child is b for b in up.body):
                return None, [], False
            if isinstance(up, ast.Lambda) and child is up.body:
                return None, [], False
            if isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef) and any(child is b for b in up.body):
                scope = up
                break
            child, up = up, self.parent.get(id(up))
        if scope is None:  # a module's (or class body's) name: another module can rebind it meanwhile
            return None, [], False
        name = node.id
        param = False
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
            a = scope.args
            param = name in {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, *(v for v in (a.vararg, a.kwarg)
                                                                                       if v is not None)]}
        bindings: list[ast.AST] = []
        stack: list[ast.AST] = list(scope.body)  # type: ignore[attr-defined]
        while stack:
            n = stack.pop()
            if isinstance(n, ast.Global | ast.Nonlocal) and name in n.names:
                return None, [], False
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
                if not isinstance(n, ast.Lambda) and n.name == name:
                    return None, [], False
                # a nested scope may declare the name nonlocal (or global, for a module's name)
                if any(isinstance(m, ast.Global | ast.Nonlocal) and name in m.names for m in ast.walk(n)):
                    return None, [], False
                continue
            if isinstance(n, ast.alias) and (n.asname or n.name.split(".")[0]) == name \
                    or isinstance(n, ast.ExceptHandler) and n.name == name \
                    or isinstance(n, ast.MatchAs | ast.MatchStar) and n.name == name:
                return None, [], False
            if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store | ast.Del):
                if not self._comprehension_target(n):
                    bindings.append(self._binder(n))
                continue
            stack.extend(ast.iter_child_nodes(n))
        return scope, bindings, param

    def _comprehension_target(self, node: ast.Name) -> bool:
        child: ast.AST = node
        up = self.parent.get(id(node))
        while isinstance(up, ast.Tuple | ast.List | ast.Starred):
            child, up = up, self.parent.get(id(up))
        return isinstance(up, ast.comprehension) and up.target is child

    def _binder(self, node: ast.Name) -> ast.AST:
        """The statement that binds a Name (a For, an Assign with it as a whole target, anything else)."""
        up = self.parent.get(id(node))
        if isinstance(up, ast.For) and up.target is node:
            return up
        if isinstance(up, ast.Assign) and any(t is node for t in up.targets):
            return up
        return node  # a tuple target, augmented assignment, walrus, with, del: not read


# Keys a namespace literal of type() may hold besides public names: what a class statement sets itself.
PLAIN_NAMESPACE = {"__module__", "__doc__", "__qualname__", "__slots__"}


def _plain_class(bases: ast.expr, namespace: ast.expr) -> bool:
    """type(name, bases, ns) that a class statement could spell and the rules could read: bases a tuple of
    names or dotted names (no call, so no type(mock.ANY)), ns a dict literal whose keys are all public
    string constants, so no behaviour dunder can be in it (a computed key or **spread could be one)."""
    if not isinstance(bases, ast.Tuple) or not isinstance(namespace, ast.Dict):
        return False
    for base in bases.elts:
        while isinstance(base, ast.Attribute) and not base.attr.startswith("_"):
            base = base.value
        if not isinstance(base, ast.Name) or base.id.startswith("_"):
            return False
    return all(isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.isidentifier()
               and (not k.value.startswith("_") or k.value in PLAIN_NAMESPACE) for k in namespace.keys)


def _bindings_in(scope: ast.AST, name: str) -> list[ast.AST] | None:
    """Every binding of name in one scope (a function's or the module's body, not the scopes nested in it); None
    when a nested scope declares it global or nonlocal, or the scope declares it global (another scope binds it)."""
    found: list[ast.AST] = []
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        a = scope.args
        if name in {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, *(v for v in (a.vararg, a.kwarg) if v)]}:
            found.append(scope.args)
    stack: list[ast.AST] = list(getattr(scope, "body", []))
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Global | ast.Nonlocal) and name in n.names:
            return None
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            if not isinstance(n, ast.Lambda) and n.name == name:
                found.append(n)
            if any(isinstance(m, ast.Global | ast.Nonlocal) and name in m.names for m in ast.walk(n)):
                return None
            if not isinstance(n, ast.Lambda):
                stack.extend(n.decorator_list)
            continue
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) \
                or isinstance(n, ast.alias) and (n.asname or n.name.split(".")[0]) == name \
                or isinstance(n, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and n.name == name:
            found.append(n)
        stack.extend(ast.iter_child_nodes(n))
    return found


def _binds(scope: ast.AST, name: str) -> bool:
    found = _bindings_in(scope, name)
    return found is None or bool(found)


def _only_def(scope: ast.AST, name: str) -> ast.FunctionDef | None:
    """The def that alone binds name in scope (no other binding: no assignment, import, parameter, second def),
    undecorated (a decorator binds the name to what it returns) and a plain function (no coroutine, no generator:
    what it returns is its answer)."""
    found = _bindings_in(scope, name)
    if found is None or len(found) != 1 or not isinstance(found[0], ast.FunctionDef) or found[0].decorator_list \
            or not _plain_function(found[0]):
        return None
    return found[0]


def _answers(fn: ast.FunctionDef | ast.Lambda, dunder: str) -> bool:
    """Whether fn, put under dunder, is a comparison the rules accept: it reads its argument, or raises on every
    path (no verdict at all); any other dunder is judged by its code as a class body's def is."""
    return dunder not in COMPARISONS or not _ignores_argument(
        fn.args, [fn.body] if isinstance(fn, ast.Lambda) else fn.body) or _always_raises(fn)


def _always_raises(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> bool:
    """Round 14: a plain function with no return of its own whose body's last statement is a raise: every call ends
    in an exception (jinja's fail_with_undefined_error; `def __lt__(self, other): raise TypeError(...)`)."""
    return isinstance(fn, ast.FunctionDef) and _plain_function(fn) and not _own_returns(fn.body) \
        and bool(fn.body) and isinstance(fn.body[-1], ast.Raise)


def _plain_function(fn: ast.FunctionDef | ast.Lambda) -> bool:
    """Whether fn's own body neither yields nor awaits (its call answers what it returns, not a generator)."""
    stack: list[ast.AST] = [fn.body] if isinstance(fn, ast.Lambda) else list(fn.body)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Yield | ast.YieldFrom | ast.Await):
            return False
        if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(n))
    return True


def _rooted_in(node: ast.AST, names: frozenset[str] | set[str]) -> bool:
    """Whether node is an attribute chain on one of names (`Undefined._fail`, a class of the repository)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in names


def _constant_arg(call: ast.AST | None, func: ast.AST) -> object:
    """The first argument of call when call calls func with a constant first; else None."""
    if isinstance(call, ast.Attribute):  # os.environ.get: the call is one level up
        return None
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



# -- gadgets that carry attribute names as data (issue 51, red team round 5) --------------------------------
# update_wrapper/wraps and where their `assigned` argument starts: each name is a getattr on the wrapped
# object and a setattr on the wrapper (`assigned=(key,)` with key = "__e" + "q__" gives a class a comparison).
WRAPPERS = {"functools.update_wrapper": 2, "functools.wraps": 1, "six.wraps": 1}
# Enum classes whose call with a names argument makes a class (Enum("X", {"__eq__": f}) puts it in the namespace).
ENUM_TYPES = {"Enum", "IntEnum", "Flag", "IntFlag", "StrEnum", "ReprEnum", "EnumMeta", "EnumType"}
# The object protocol's getters: called with a computed name they are getattr.
GETTERS = {"__getattribute__", "__getattr__"}
# Methods that take an attribute name (or a format path) as data when named through methodcaller or getattr.
NAME_TAKERS = {"__getattribute__", "__getattr__", "__setattr__", "__delattr__", "format", "format_map"}
# Methods whose first parameter is a class, whatever it is called.
CLASS_FIRST = {"__new__", "__init_subclass__", "__class_getitem__"}
# Functions that translate a constant message (gettext's `_("...")`): their result is the message, or the
# catalog's translation of it.
# The value is how many leading arguments are the message texts.
TRANSLATORS = {"_": 1, "gettext": 1, "ugettext": 1, "gettext_lazy": 1, "lazy_gettext": 1, "_l": 1, "ngettext": 2,
               "ungettext": 2, "pgettext": 2, "npgettext": 3}
# Builtins and set methods that make a tuple of names from literals (`tuple(set(WRAPPER_ASSIGNMENTS) - {...})`).
LITERAL_BUILDERS = {"tuple", "set", "frozenset", "list", "sorted"}
SET_METHODS = {"difference", "union", "intersection", "symmetric_difference"}
BUILTIN_TYPES = frozenset(n for n in BUILTIN_NAMES if isinstance(getattr(builtins, n), type))
# Builtins that read a package's __path__ without handing the list itself out.
PATH_READERS = {"len", "list", "tuple", "sorted", "iter", "enumerate", "set", "str", "repr", "print"}
# Method names that change the object they are called on (lists, dicts, sets, streams, the object protocol).
MUTATORS = {"append", "extend", "insert", "remove", "pop", "clear", "update", "setdefault", "add", "discard", "sort",
            "reverse", "popitem", "intersection_update", "difference_update", "symmetric_difference_update",
            "appendleft", "extendleft", "popleft", "rotate", "write", "writelines", "truncate",
            "__setitem__", "__delitem__", "__setattr__", "__delattr__", "__init__", "__iadd__", "__ior__",
            "__iand__", "__isub__", "__imul__", "__setstate__", "__set__"}


def _last_name(node: ast.AST) -> str:
    """The last identifier of a name or attribute chain (`functools.wraps` -> wraps), or ""."""
    if isinstance(node, ast.Call):
        node = node.func
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _is_super(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _enum_members(members: ast.expr) -> str | None:
    """What is not literal or private in an enum's names argument (None: all literal public names)."""
    names: list[object]
    if isinstance(members, ast.Constant) and isinstance(members.value, str):
        names = list(members.value.replace(",", " ").split())
    elif isinstance(members, ast.Tuple | ast.List):
        names = []
        for e in members.elts:
            if isinstance(e, ast.Tuple | ast.List) and len(e.elts) == 2:
                e = e.elts[0]
            names.append(e.value if isinstance(e, ast.Constant) and isinstance(e.value, str) else None)
    elif isinstance(members, ast.Dict):
        names = [k.value if isinstance(k, ast.Constant) and isinstance(k.value, str) else None for k in members.keys]
    else:
        return "not a literal"
    for n in names:
        if not isinstance(n, str):
            return "a computed name"
        if n.startswith("_"):
            return repr(n)
    return None


def _derived(roots: set[str], body: list[ast.stmt] | list[ast.expr], plain: bool = False) -> set[str]:
    """roots and the local names assigned from them (`s = self`; unless plain, any value that reads one)."""
    names = set(roots)
    for _ in range(2):
        for n in (n for stmt in body for n in ast.walk(stmt)):
            if isinstance(n, ast.Assign | ast.AnnAssign) and n.value is not None:
                value = n.value
                if plain and isinstance(value, ast.Name) and value.id in names or not plain and any(
                        isinstance(v, ast.Name) and v.id in names for v in ast.walk(value)):
                    targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                    if plain:
                        names |= {t.id for t in targets if isinstance(t, ast.Name)}
                    else:  # `inc, exc = f(other)`, `seen[k] = other`: every name bound is the other's too
                        names |= {r.id for t in targets for r in ast.walk(t) if isinstance(r, ast.Name)}
    return names


def _root(node: ast.AST) -> ast.AST:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
        node = node.value
    return node


def _stores_into(selves: set[str], body: list[ast.stmt] | list[ast.expr]) -> str:
    """How a function body changes the object named by selves ("" if it does not, as far as can be read)."""
    for n in (n for stmt in body for n in ast.walk(stmt)):
        targets: list[ast.expr] = []
        if isinstance(n, ast.Assign):
            targets = n.targets
        elif isinstance(n, ast.AugAssign | ast.AnnAssign):
            targets = [n.target]
        elif isinstance(n, ast.Delete):
            targets = n.targets
        for t in (t for target in targets for t in ast.walk(target)):
            if isinstance(t, ast.Attribute | ast.Subscript) and isinstance(r := _root(t), ast.Name) and r.id in selves:
                return "an assignment"
        if isinstance(n, ast.Call):
            func = n.func
            if isinstance(func, ast.Attribute) and func.attr in MUTATORS and isinstance(r := _root(func.value),
                                                                                        ast.Name) and r.id in selves:
                return f"calls {func.attr}"
            if any(isinstance(a, ast.Name) and a.id in selves for a in n.args) and (
                    isinstance(func, ast.Name) and func.id in ("setattr", "delattr")
                    or isinstance(func, ast.Attribute) and func.attr in MUTATORS):
                return f"passes it to {_last_name(func)}"
    return ""


def _compares(mine: set[str], theirs: set[str], body: list[ast.stmt] | list[ast.expr], cls: str = "") -> bool:
    """Whether some comparison or call reads both something of the object (or super()) and of the other; a
    sentinel's `type(other) == Cls` (or `is`) compares the other with the object's class."""
    for n in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], ast.Eq | ast.Is) and any(
                isinstance(side, ast.Name) and side.id == cls for side in (n.left, n.comparators[0])) and any(
                isinstance(v, ast.Name) and v.id in theirs for v in ast.walk(n)):
            return True
        if isinstance(n, ast.Compare | ast.Call):
            inner = list(ast.walk(n))
            read = {v.id for v in inner if isinstance(v, ast.Name)}
            if read & theirs and (read & mine or any(_is_super(v) for v in inner)):
                return True
    return False


# The copy protocol's hooks that name the maker of the copy (copy.copy, deepcopy).
REDUCERS = {"__reduce__", "__reduce_ex__"}


def _own_returns(body: list[ast.stmt]) -> list[ast.Return]:
    """The return statements of a function's body, not of the functions and classes nested in it."""
    found: list[ast.Return] = []
    stack: list[ast.AST] = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Return):
            found.append(n)
        if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(n))
    return found


def _string_sum(node: ast.expr, names: set[str]) -> bool:
    """Whether node is string literals added together, or with names of the set; each literal a whole format
    template (round 11: `t = "{0." + "__globals__}"` joins two pieces that each fail to parse, so the rules read no
    field in either, into a field that walks `__globals__`). Templates that each parse join into one whose fields
    are theirs: the parser leaves each outside any field, `{{` and `}}` being escapes."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _string_sum(node.left, names) and _string_sum(node.right, names)
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and _whole_template(node.value) \
        or isinstance(node, ast.Name) and node.id in names


def _whole_template(text: str) -> bool:
    try:
        list(string.Formatter().parse(text))
    except ValueError:
        return False
    return True


def _reflects_on_first(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a function gets or sets attributes of its first parameter by computed names (or its dict)."""
    positional = [*fn.args.posonlyargs, *fn.args.args]
    if not positional:
        return False
    first = positional[0].arg
    for n in (n for stmt in fn.body for n in ast.walk(stmt)):
        if isinstance(n, ast.Call) and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == first:
            name = _last_name(n.func)
            if name == "vars" or name in ("getattr", "setattr", "delattr", *GETTERS, "__setattr__", "__delattr__") \
                    and len(n.args) >= 2 and not isinstance(n.args[1], ast.Constant):
                return True
        if isinstance(n, ast.Attribute) and n.attr == "__dict__" and isinstance(n.value, ast.Name) \
                and n.value.id == first:
            return True
    return False


class _Gadgets:
    """One walk of a module for the gadget rules: its classes by name, which are metaclasses, which methods
    reflect on their first parameter by computed names, which names only ever hold constant strings."""

    def __init__(self, tree: ast.AST, store_nodes: list[ast.Name], parent: dict[int, ast.AST]):
        self.classes: dict[str, ast.ClassDef] = {}
        self.reflecting: set[str] = set()  # instance methods
        self.reflecting_cm: set[str] = set()  # classmethods
        self.format_methods: set[str] = set()
        params: set[str] = set()
        self.functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions.setdefault(node.name, []).append(node)
            if isinstance(node, ast.ClassDef):
                self.classes.setdefault(node.name, node)
                for item in node.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        kind = {_last_name(d) for d in item.decorator_list} & {"classmethod", "staticmethod"}
                        if _reflects_on_first(item) and "staticmethod" not in kind:
                            # H.m(...) binds a classmethod's first parameter; only its __func__ takes another
                            (self.reflecting_cm if kind else self.reflecting).add(item.name)
                        if item.name in ("format", "format_map"):
                            self.format_methods.add(item.name)
            elif isinstance(node, ast.arg):
                params.add(node.arg)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                    and node.attr in ("format", "format_map"):
                self.format_methods.add(node.attr)  # `self.format = fmt`: an attribute of the object's own
        self.metaclasses: set[str] = set()
        grew = True
        while grew:
            grew = False
            for name, cls in self.classes.items():
                bases = {_last_name(b) for b in cls.bases}
                if name not in self.metaclasses and ("type" in bases or bases & self.metaclasses or any(
                        b.endswith(("Meta", "Metaclass", "MetaClass", "EnumType")) for b in bases)):
                    self.metaclasses.add(name)
                    grew = True
        # names only ever bound to string literals, sums of them and of such names (`t = "a"; t += "{b}"`)
        values: dict[str, list[ast.expr | None]] = {}
        for n in store_nodes:
            up = parent.get(id(n))
            if isinstance(up, ast.Assign) and any(n is t for t in up.targets) \
                    or isinstance(up, ast.AugAssign) and isinstance(up.op, ast.Add):
                values.setdefault(n.id, []).append(up.value)
            else:
                values.setdefault(n.id, []).append(None)
        constant = {k for k in values if k not in params}
        changed = True
        while changed:
            changed = False
            for k in list(constant):
                if not all(v is not None and _string_sum(v, constant) for v in values[k]):
                    constant.discard(k)
                    changed = True
        self.constant_strings = frozenset(constant)
        self.params = frozenset(params)
