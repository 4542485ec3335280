"""Run one verifier command: own session, resource limits, a minimal environment and a hard timeout.

Every verifier call goes through `run`. The command starts a new session, so its whole process tree
shares one process group that is SIGKILLed when the call ends (on timeout, and also after a normal exit
so no stray grandchild outlives it). The limits (`run`'s arguments, the only place they are stated) and
the pids cgroup are set by `prlimit` and a shell just before the command; where prlimit is missing, in the
child between fork and exec, which is slower (`isolation()` says which). The environment carries nothing
of the caller's (no tokens, no store passwords).

Code nobody reviewed (composites, graded predictions) runs isolated where the machine allows it, with
bubblewrap (`bwrap`, the sandbox Flatpak uses): its own user namespace as an ordinary uid with no
capabilities (so root's code can neither mount, make devices nor open files by handle around the view),
no network, its own PID namespace (when its first process dies the kernel kills every process left, even
one that called setsid()), and its work directory read-write (TMPDIR points there). What else it sees is
an allow-list when the caller gives one (`sees`: the system directories, then only those paths read-only;
/tmp, the home folder, the store and every cache are absent), else the whole filesystem read-only (left to
runs of trusted tools on reviewed inputs: patch applying a patch to a worktree). Outside its namespace the
run is still the invoking user, so the view, not the uid, is what keeps it from that user's files. Process count is capped at the caller's
`max_procs` by a pids cgroup when one is writable (root ignores RLIMIT_NPROC; bwrap's own two processes
are added only when it runs), else by RLIMIT_NPROC. `isolation()` says what this machine gives; where
bwrap cannot run, an isolated run is refused (Unisolated, naming what to install), on every machine: code
nobody reviewed never runs on the host as the invoking user, who is often root. Only the user can lift that
(CODEWALK_ALLOW_UNISOLATED=1, or a command's --allow-unisolated: `allow_unisolated`); `cw demo`, whose code
is codewalk's own, lifts it for its own runs (`unisolated_for`). Trusted
tooling (git on a trusted git directory, `find_python`) passes `isolate=False`; building an environment
runs isolated with the network (`network=True`).
"""

from __future__ import annotations

import atexit
import errno
import functools
import itertools
import multiprocessing.util
import os
import resource
import secrets
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..errors import InfraError, Unisolated
from . import meter

MB = 1024 * 1024


@dataclass(frozen=True)
class Completed:
    returncode: int  # negative: killed by that signal (-9 after a timeout)
    stdout: str
    stderr: str
    timed_out: bool
    duration: float  # wall-clock seconds


def _true(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("", "0", "false", "no")


def under_ci() -> bool:
    """Whether CI is set to a true value (CI=true, as CI services set it; CI=false or CI=0 is not CI): tests
    then fail, instead of skipping, where a tool or a sandbox they need is missing."""
    return _true(os.environ.get("CI"))


BWRAP_PROCS = 2  # processes bwrap adds to a run: itself and the init of its PID namespace
# Who an isolated run is: an ordinary user (the uid the docker runtime's tests run as) in a user namespace
# of its own, with every capability dropped, even when codewalk runs as root.
UID = GID = 1000
# Files of /etc a run with the network needs to resolve names and check certificates (environment builds).
NETWORK_FILES = ("/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/host.conf", "/etc/gai.conf",
                 "/etc/ssl", "/etc/ca-certificates", "/etc/pki", "/etc/pip.conf")
ALLOW_UNISOLATED = "CODEWALK_ALLOW_UNISOLATED"  # set to 1: runs meant to be isolated go ahead without bwrap
_unisolated_allowed = False


def allow_unisolated() -> None:
    """Let isolated runs go ahead without bubblewrap in this process (the user said so: --allow-unisolated)."""
    global _unisolated_allowed
    _unisolated_allowed = True


def unisolated_allowed() -> bool:
    """Whether the user lifted the refusal of unisolated runs (allow_unisolated, or CODEWALK_ALLOW_UNISOLATED)."""
    return _unisolated_allowed or _true(os.environ.get(ALLOW_UNISOLATED))


@contextmanager
def unisolated_for(why: str) -> Iterator[str]:
    """Within the block, runs go ahead unisolated where bwrap cannot run (the code they run is codewalk's own:
    `why` says so); yields the note to show the user, "" where runs are isolated anyway. Worker processes
    started in the block inherit it through the environment."""
    if isolated() or unisolated_allowed():
        yield ""
        return
    os.environ[ALLOW_UNISOLATED] = "1"
    try:
        yield f"no isolation here ({isolation()}): {why}, so it runs unisolated"
    finally:
        os.environ.pop(ALLOW_UNISOLATED, None)


def unavailable(what: str) -> str:
    """Why `what` is refused where runs cannot be isolated, and the ways out."""
    return (f"refusing to run {what} unisolated on this host ({isolation()}): install bubblewrap (Debian: "
            f"apt-get install bubblewrap), or set {ALLOW_UNISOLATED}=1 to run it as you, unisolated, anyway")


def require_isolation(what: str) -> None:
    """Raise Unisolated unless isolated runs are isolated here or the user allowed them not to be."""
    if not isolated() and not unisolated_allowed():
        raise Unisolated(unavailable(what))


def namespaces(network: bool = False) -> list[str]:
    """bwrap's options that make a run unprivileged and alone, for every place that starts bwrap: a user
    namespace as UID/GID with no capabilities, its own PID, IPC and UTS namespaces, and no network unless
    asked (an environment build fetches packages); it dies with its parent."""
    return ["--unshare-user", "--uid", str(UID), "--gid", str(GID), "--cap-drop", "ALL",
            *([] if network else ["--unshare-net"]), "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--die-with-parent"]


def run(cmd: list[str], *, cwd: Path, timeout: float, stdin: str | None = None, memory_mb: int = 1024,
        cpu_seconds: int | None = None, max_procs: int | None = 256, max_file_mb: int = 64,
        env: dict | None = None, isolate: bool = True, writable: Sequence[Path] = (),
        sees: Sequence[Path] | None = None, network: bool = False) -> Completed:
    """Run cmd in cwd and capture its output; raise InfraError only if it cannot be started.

    With isolate (the default) the command sees no network and can write only to cwd and `writable`,
    where bubblewrap is available (see `isolation()`); with `sees` it sees nothing of the filesystem but
    the system directories, cwd, `writable` and those paths (read-only). network=True keeps the host's
    network (and adds the files of /etc that name resolution and TLS read to `sees`): builds only."""
    limits = {resource.RLIMIT_AS: memory_mb * MB, resource.RLIMIT_FSIZE: max_file_mb * MB,
              resource.RLIMIT_CORE: 0}
    if cpu_seconds is not None:  # without it the wall-clock timeout is the only bound on CPU
        limits[resource.RLIMIT_CPU] = cpu_seconds
    if max_procs is not None and os.geteuid() != 0:  # root ignores it; the pids cgroup covers root
        limits[resource.RLIMIT_NPROC] = max_procs
    # An unprivileged process cannot raise a hard limit, so never ask for more than the current one.
    limits = {what: _at_most_hard(what, value) for what, value in limits.items()}
    program = Path(cmd[0]).name  # what the meter counts the time under (bwrap is only its wrapper)
    if not shutil.which(cmd[0], path=(env or {}).get("PATH", os.environ.get("PATH", os.defpath))):
        raise InfraError(f"cannot start {cmd[0]}: not found")  # bwrap or prlimit would only say "exit 1"
    cap = max_procs
    if isolate:
        require_isolation(program)
    if isolate and _bwrap_works():
        if network and sees is not None:
            sees = [*sees, *map(Path, NETWORK_FILES)]
        cmd = _bwrap_prefix(Path(cwd), writable, sees, network) + list(cmd)
        env = {"TMPDIR": str(cwd), **(env or {})}  # /tmp is read-only inside
        if cap is not None:  # bwrap's own two processes (itself and its namespace's init) count in the group
            cap += BWRAP_PROCS
    with _pids_cgroup(cap) as member:
        return _run(cmd, cwd, timeout, stdin, limits, member, env, program)


def _run(cmd, cwd, timeout, stdin, limits, member, env, program) -> Completed:
    launcher = _launcher(limits, member)
    if launcher:
        cmd, set_limits = launcher + list(cmd), None
    else:
        def set_limits() -> None:  # runs in the child between fork and exec
            for what, value in limits.items():
                resource.setrlimit(what, (value, value))
            if member is not None:
                with open(member, "w") as f:
                    f.write("0")  # "0": the writer itself

    # Output goes to files, not pipes: RLIMIT_FSIZE then caps how much a runaway writer can produce, and
    # a grandchild holding the output open cannot make the call wait past its timeout.
    with tempfile.TemporaryFile() as inp, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        inp.write((stdin or "").encode())
        inp.seek(0)
        base = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(cwd), "LANG": "C.UTF-8"}
        start = time.monotonic()
        try:
            proc = subprocess.Popen(cmd, cwd=cwd, stdin=inp, stdout=out, stderr=err, env=base | (env or {}),
                                    start_new_session=True, preexec_fn=set_limits)
        except OSError as e:
            raise InfraError(f"cannot start {cmd[0]}: {e}") from e
        spawned = time.monotonic()  # fork and exec: codewalk's start-up, not the tool's time
        try:
            timed_out = not _exited_within(proc, timeout)
        finally:
            # The group id is the leader's pid (new session); the kernel does not reuse it while any member
            # lives. SIGKILL cannot be trapped, so children that ignore SIGTERM die too.
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:  # nobody left in the group
                pass
            proc.wait()
        ended = time.monotonic()
        meter.process(program, spawned, ended, spawned - start)
        duration = ended - start
        out.seek(0)
        err.seek(0)
        return Completed(proc.returncode, out.read().decode(errors="replace"),
                         err.read().decode(errors="replace"), timed_out, duration)


# util-linux prlimit's option for each limit; a value sets both the soft and the hard limit
_PRLIMIT = {resource.RLIMIT_AS: "--as", resource.RLIMIT_FSIZE: "--fsize", resource.RLIMIT_CORE: "--core",
            resource.RLIMIT_CPU: "--cpu", resource.RLIMIT_NPROC: "--nproc"}


def _launcher(limits: dict[int, int], member: Path | None) -> list[str] | None:
    """Commands that set the limits and join the cgroup, then exec the run, so that Popen can vfork (no
    Python runs in the child): forking a worker to run Python between fork and exec took 10 ms a start in
    a busy two-worker pool, measured, against under 1 ms. None without prlimit: then the child does it."""
    prlimit = _prlimit()
    if not prlimit:
        return None
    cmd = [prlimit, *(f"{_PRLIMIT[what]}={value}" for what, value in limits.items()), "--"]
    if member is not None:  # the shell moves itself ("0": the writer, see _pids_cgroup), then execs
        cmd = ["/bin/sh", "-c", 'echo 0 > "$0" && exec "$@"', str(member), *cmd]
    return cmd


def _exited_within(proc: subprocess.Popen, timeout: float) -> bool:
    """Wait for proc to exit, at most timeout seconds. Popen.wait(timeout) polls with sleeps of up to 50 ms,
    which a run of a tenth of a second pays as a third of its time; a pidfd wakes the moment the child ends."""
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # not Linux 5.3+: poll
        try:
            proc.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            return False
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            return bool(sel.select(timeout))
    finally:
        os.close(fd)


def isolation() -> str:
    """What an isolated run gets on this machine, in words (test skip reasons, bug reports)."""
    fs_net = (f"bubblewrap: uid {UID} in its own user namespace without capabilities, no network, own PID "
              "namespace, read-only filesystem but the work directory" if _bwrap_works() else
              "no bubblewrap (or it cannot make a user namespace here): network and filesystem are not isolated")
    procs = "pids cgroup" if _pids_root() else (
        "RLIMIT_NPROC" if os.geteuid() != 0 else "no process cap (root without a writable pids cgroup)")
    limits = "set by prlimit" if _prlimit() else "set in the child before exec (no prlimit: slower starts)"
    return f"{fs_net}; process count: {procs}; limits {limits}"


def isolated() -> bool:
    """Whether isolated runs really are isolated on this machine (bubblewrap works here)."""
    return _bwrap_works()


@functools.cache
def _bwrap_works() -> bool:
    """bwrap installed and allowed to make namespaces here (containers may forbid it)."""
    if not _bwrap():
        return False
    try:
        probe = subprocess.run([*_bwrap_prefix(Path("/"), ()), "true"], capture_output=True, timeout=30,
                               check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


@functools.cache
def _prlimit() -> str:
    return shutil.which("prlimit") or ""


@functools.cache
def _bwrap() -> str:
    """bwrap's absolute path: the command's own PATH (a domain may pass one) need not contain it."""
    return shutil.which("bwrap") or ""


# What every allow-listed run sees read-only: programs and libraries, and the few files of /etc the
# dynamic linker and the C library read. Not /etc as a whole (root can read its secrets), not /tmp, /home,
# /root, /var or the checkout.
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc/ld.so.cache",
          "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/alternatives", "/etc/java-17-openjdk")


@functools.cache
def python_runtime() -> tuple[Path, ...]:
    """The running interpreter's installation, for a sandboxed `python -I -S` (standard library only)."""
    return tuple(dict.fromkeys(Path(p).resolve() for p in (sys.base_prefix, sys.prefix)))


def _view(sees: Sequence[Path] | None) -> list[str]:
    if sees is None:
        return ["--ro-bind", "/", "/"]
    return [*_system_view(), *(arg for seen in sees for arg in ("--ro-bind-try", str(seen), str(seen)))]


@functools.cache
def _system_view() -> tuple[str, ...]:
    args: list[str] = []
    for path in SYSTEM:
        if os.path.islink(path):  # merged /usr: /bin -> usr/bin
            args += ["--symlink", os.readlink(path), path]
        else:
            args += ["--ro-bind-try", path, path]
    return tuple(args)


def _bwrap_prefix(cwd: Path, writable: Sequence[Path], sees: Sequence[Path] | None = None,
                  network: bool = False) -> list[str]:
    binds = [arg for path in (cwd, *writable) for arg in ("--bind", str(path), str(path))]
    return [_bwrap(), *_view(sees), "--dev", "/dev", "--proc", "/proc", *binds, *namespaces(network),
            "--chdir", str(cwd), "--"]


@functools.cache
def _pids_root() -> Path | None:
    """A pids cgroup hierarchy we may create groups in (cgroup v1 `pids/`, or v2 with pids enabled).
    Found once per process, which then removes the groups processes that are gone left behind."""
    for root in (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup")):
        if root == Path("/sys/fs/cgroup") and "pids" not in _read(root / "cgroup.subtree_control"):
            continue
        probe = root / f"codewalk-probe-{os.getpid()}"
        try:
            probe.mkdir()
            ok = (probe / "pids.max").exists()
            probe.rmdir()
        except OSError:
            continue
        if ok:
            _remove_orphans(root)
            return root
    return None


def _remove_orphans(root: Path) -> None:
    """Remove the empty groups of codewalk processes that no longer run (killed before they could)."""
    for group in root.glob("codewalk-*-*"):
        pid = group.name.split("-")[1]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            try:
                group.rmdir()
            except OSError:
                pass  # not empty yet, or another process removed it first


# Why a pool of groups and not one group per worker: a run's group must hold no charge when a run starts
# in it, or what is left counts against that run's cap. An isolated run leaves one for about 2 s: bwrap
# exits before its namespace's init is reaped, so the init's zombie goes to PID 1, which may reap it late
# (measured: one charge per run, released 1.8-2.0 s later; runs of 30 ms would pile up about 60 in one
# group). So a group is reused only once nothing is charged to it, and runs at once (threads) never share
# one. Moving into a group writes "0" (the writer itself) to cgroup v1's `tasks`, which moves one thread:
# moving a whole process (cgroup.procs) waits for an RCU grace period, 13-15 ms a run, measured; a
# process with one thread is wholly moved either way. cgroup v2 has only cgroup.procs.
_cgroup_ids = itertools.count()
_idle_groups: dict[int, deque[Path]] = {}  # per process (a forked worker must not take its parent's), oldest first
_idle_lock = threading.Lock()  # runs at once in threads (inspect's samples) must not take the same idle group


@contextmanager
def _pids_cgroup(cap: int | None) -> Iterator[Path | None]:
    """The file a process writes "0" to, to join a pids cgroup capped at `cap` that no other run is in;
    None without a cap or where no pids cgroup is writable. This process's groups go when it ends (or,
    if it was killed, when the next codewalk process starts)."""
    root = _pids_root() if cap is not None else None
    if cap is None or root is None:
        yield None
        return
    with _idle_lock:
        idle = _idle_groups.get(os.getpid())
        if idle is None:
            idle = _idle_groups[os.getpid()] = deque()
            atexit.register(_remove_idle_groups)  # a process that exits normally
            multiprocessing.util.Finalize(None, _remove_idle_groups, exitpriority=0)  # a pool's worker
        group = _reusable(idle, cap)
    if group is None:
        group = root / f"codewalk-{os.getpid()}-{next(_cgroup_ids)}"
        group.mkdir()
        (group / "pids.max").write_text(str(cap))
    try:
        yield group / "tasks" if (group / "tasks").exists() else group / "cgroup.procs"
    finally:
        idle.append(group)


def _reusable(idle: deque[Path], cap: int) -> Path | None:
    """The oldest idle group (the likeliest empty), capped at `cap`, if nothing is charged to it."""
    if not idle or _read(idle[0] / "pids.current").strip() != "0":
        return None
    group = idle.popleft()
    try:
        (group / "pids.max").write_text(str(cap))
    except OSError:  # removed meanwhile (another container's codewalk took it for an orphan)
        return None
    return group


def _remove_idle_groups() -> None:
    """Remove this process's groups, retrying for about a second while their last members are reaped."""
    for group in _idle_groups.pop(os.getpid(), deque()):
        pause = 0.0001
        for _ in range(28):
            try:
                group.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(pause)
                pause = min(2 * pause, 0.05)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _at_most_hard(what: int, value: int) -> int:
    hard = resource.getrlimit(what)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


@contextmanager
def workdir() -> Iterator[Path]:
    """A fresh temporary directory for one verifier call, removed afterwards whatever happened (remove_tree:
    what the call left there is code's, however deep)."""
    path = Path(tempfile.mkdtemp(prefix="codewalk-"))
    try:
        yield path
    finally:
        remove_tree(path)


HOIST = 32  # folders deeper than this below the top are moved up to it before they are emptied (remove_tree)
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_tree(path: Path | str) -> None:
    """Remove path and everything beneath it, whatever code left there, errors ignored (issue 51, round 12b).

    shutil.rmtree (Python 3.11, and TemporaryDirectory's cleanup) recurses once per folder level: a chain of
    1,500 folders made by a test or shipped in a diff raised RecursionError in the grader, which ignore_errors
    does not catch, and left the tree on the host. Here nothing recurses: folders are walked with a stack of
    descriptors, one name at a time, never following a link (O_NOFOLLOW; unlink and rmdir by dir_fd: a link is
    removed, never entered), and a folder deeper than HOIST is first moved up to the top folder under a fresh
    name, so no more than HOIST descriptors are open at once whatever the depth. A folder that cannot be listed,
    entered or written is made the owner's (chmod 0700 through its own descriptor, never a link) once, as
    TemporaryDirectory's cleanup does; what still cannot be removed is left."""
    top = _open_folder(str(path), None)
    if top is None:
        _quietly(os.unlink, path)  # a link or a file where the folder was
        return
    # (descriptor, its name in the folder below it on the stack, its folders not yet removed)
    stack: list[tuple[int, str, list[str]]] = [(top, "", _emptied(top))]
    try:
        while stack:
            fd, name, pending = stack[-1]
            if not pending:
                os.close(stack.pop()[0])
                if stack:
                    _writable(os.rmdir, name, stack[-1][0])
                continue
            sub = pending.pop()
            if len(stack) > HOIST:  # moved up to the top, emptied from there
                moved = _hoist(sub, fd, top)
                if moved:
                    stack[0][2].append(moved)
                continue
            inner = _open_folder(sub, fd)
            if inner is None:  # gone, or not a folder any more: removed as what it is, or left
                _writable(os.unlink, sub, fd) or _writable(os.rmdir, sub, fd)
                continue
            stack.append((inner, sub, _emptied(inner)))
    finally:
        for fd, _, _ in stack:
            os.close(fd)
    _quietly(os.rmdir, path)


def _hoist(name: str, parent: int, top: int) -> str | None:
    """Move the folder name (under parent) up to top under a fresh name, which nothing there holds yet."""
    for _ in range(4):  # a name the code left there already: another one
        fresh = f".codewalk-hoisted-{secrets.token_hex(8)}"
        if _quietly(os.rename, name, fresh, src_dir_fd=parent, dst_dir_fd=top):
            return fresh
    return None


def _open_folder(name: str, parent: int | None) -> int | None:
    for attempt in (0, 1):
        try:
            return os.open(name, _DIR, dir_fd=parent)
        except PermissionError:
            if attempt or not _owner_only(name, parent):
                return None
        except OSError:
            return None
    return None


def _owner_only(name: str, parent: int | None) -> bool:
    """chmod 0700 the folder name (under parent) through a descriptor of its own: a link put there since is
    neither followed nor changed (os.chmod by name follows one; Linux has no lchmod)."""
    try:
        fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    except OSError:
        return False
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            return False
        os.chmod(f"/proc/self/fd/{fd}", 0o700)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _writable(remove, name: str, parent: int) -> bool:  # type: ignore[no-untyped-def]
    """remove(name, dir_fd=parent), once more after the parent is made the owner's if it was read-only."""
    try:
        remove(name, dir_fd=parent)
        return True
    except PermissionError:
        if not _quietly(os.chmod, parent, 0o700):  # fchmod: the descriptor's own folder
            return False
    except OSError:
        return False
    return _quietly(remove, name, dir_fd=parent)


def _emptied(fd: int) -> list[str]:
    """Remove every entry of the folder at fd that is not a folder; the names of the folders left."""
    for attempt in (0, 1):
        try:
            names = os.listdir(fd)
            break
        except PermissionError:
            if attempt or not _quietly(os.chmod, fd, 0o700):
                return []
        except OSError:
            return []
    folders = []
    for name in names:
        try:
            is_dir = stat.S_ISDIR(os.lstat(name, dir_fd=fd).st_mode)
        except OSError:
            continue
        if is_dir:
            folders.append(name)
        else:
            _writable(os.unlink, name, fd)
    return folders


def _quietly(call, *args, **kwargs) -> bool:  # type: ignore[no-untyped-def]
    try:
        call(*args, **kwargs)
        return True
    except OSError:
        return False

DEPTH = 64  # folders deeper than this below the top are left out of a copy (copy_tree): no honest edit is as deep




def copy_tree(src: Path | str, dst: Path | str, depth: int = DEPTH) -> None:
    """Copy what code left under src to dst (created): folders, regular files (their mode bits) and symbolic
    links (as links, never followed), leaving out every `.git` (a folder or a file, at any level: a repository
    the code made or pointed at is not read), what is neither (a FIFO would block, a device) and folders deeper
    than `depth`. Nothing recurses (shutil.copytree does, once per folder level: a chain of 1,500 folders raised
    RecursionError on the host, round 12b) and nothing on the way is followed: each folder and file is opened by
    its name under its parent's descriptor with O_NOFOLLOW, so at most `depth` descriptors are open."""
    Path(dst).mkdir(parents=True)
    stack: list[tuple[int, Path, list[str]]] = []
    try:
        top = os.open(src, _DIR)
        stack.append((top, Path(dst), _names(top)))
        while stack:
            fd, into, pending = stack[-1]
            if not pending:
                os.close(stack.pop()[0])
                continue
            name = pending.pop()
            try:
                mode = os.lstat(name, dir_fd=fd).st_mode
                if stat.S_ISDIR(mode) and len(stack) <= depth:
                    inner = os.open(name, _DIR, dir_fd=fd)
                    try:
                        (into / name).mkdir()
                    except OSError:
                        os.close(inner)
                        raise
                    stack.append((inner, into / name, _names(inner)))
                elif stat.S_ISLNK(mode):
                    os.symlink(os.readlink(name, dir_fd=fd), into / name)
                elif stat.S_ISREG(mode):
                    _copy_file(name, fd, into / name, stat.S_IMODE(mode))
            except OSError as error:
                if not _left_out(error):
                    raise
    finally:
        for fd, _, _ in stack:
            os.close(fd)


def _left_out(error: OSError) -> bool:
    """What copy_tree leaves out of a copy: a name gone, swapped (a link where a folder or file was), unreadable
    or too long at its depth. Any other error (no descriptor left, a full disk) is raised: a copy with less in
    it is never graded as the agent's edit."""
    return isinstance(error, (FileNotFoundError, NotADirectoryError, PermissionError)) or error.errno in (
        errno.ENAMETOOLONG, errno.ELOOP)


def _names(fd: int) -> list[str]:
    try:
        return [n for n in os.listdir(fd) if n != ".git"]
    except OSError as error:
        if not _left_out(error):
            raise
        return []


def _copy_file(name: str, parent: int, to: Path, mode: int) -> None:
    source = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=parent)
    with open(source, "rb") as reader:
        if not stat.S_ISREG(os.fstat(source).st_mode):  # swapped since it was looked at (a FIFO, a device)
            return
        with open(to, "xb") as writer:
            shutil.copyfileobj(reader, writer)
    os.chmod(to, (mode & 0o777) | 0o600)
