"""One exception root. The CLI turns a CodewalkError into a message and an exit code in one place."""


class CodewalkError(Exception):
    """An error meant for the user: its message is printed as it is."""

    exit_code = 1


class UsageError(CodewalkError):
    """The command line asks for something that cannot be done (unknown domain, bad flag mix)."""

    exit_code = 2


class InputError(CodewalkError):
    """A record in an input file is malformed. The message names the file and line (or record)."""

    exit_code = 3

    def __init__(self, source: str, where: int | str | None, reason: str):
        self.source, self.where, self.reason = source, where, reason
        place = f"{source}:{where}" if where is not None else source
        super().__init__(f"{place}: {reason}")


class StoreError(CodewalkError):
    """The graph store refused or failed an operation."""

    exit_code = 4


class StoreUnavailable(StoreError):
    """The store cannot be reached (server down, wrong URI) or is locked by another process."""


class StoreLocked(StoreUnavailable):
    """An embedded store another process holds for writing (one writer per store file). `holder`: its pid and
    command, when the engine names the pid and the process can be read (the same machine)."""

    def __init__(self, message: str, pid: int | None = None, holder: str = ""):
        super().__init__(message)
        self.pid, self.holder = pid, holder


class StoreFull(StoreError):
    """The store's disk has no room for a write. Nothing of that write is stored; everything committed before
    is kept. `broken`: the engine itself ran out of room mid-write (the store is then left unclosed: closing
    would abort the process; the next open replays what was committed)."""

    def __init__(self, message: str, broken: bool = False):
        super().__init__(message)
        self.broken = broken


class QueryError(StoreError):
    """The store rejected a Cypher statement as written (syntax, unknown function, wrong types)."""

    exit_code = 6


class FewerAdmitted(CodewalkError):
    """A walk admitted fewer tasks than asked. Everything it attempted is stored; a script can tell."""

    exit_code = 7


class ServerError(CodewalkError):
    """Starting, stopping or finding the local Neo4j server failed."""

    exit_code = 5


class Interrupted(CodewalkError):
    """Ctrl-C during long work."""

    exit_code = 130


class InfraError(Exception):
    """A verifier could not give a verdict (timeout, crash, missing tool).

    Not a CodewalkError: admission records it as status 'error' and goes on; it never means
    'atom unsolved' or 'reference fails'.
    """


class RuntimeUnavailable(CodewalkError):
    """The runtime asked for cannot be used here: `--runtime docker` and no Docker daemon answers at
    DOCKER_HOST (an image that cannot be had is a group's error, not this)."""

    exit_code = 9


class Unisolated(CodewalkError):
    """Code nobody reviewed (candidates, references, rows) would run on this host without isolation (no
    working bubblewrap) and the user did not allow it (CODEWALK_ALLOW_UNISOLATED=1, --allow-unisolated). Not an
    InfraError: no group's verdict, the whole command's refusal, before the code runs."""

    exit_code = 10
