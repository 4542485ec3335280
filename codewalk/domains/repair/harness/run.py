"""codewalk's test-run harness: starts the runner with the outcome channel open, and reports.

Run as `python -I run.py CONFIG` (a JSON file, removed once read) or with the JSON on stdin. It makes the
run's key, hands the runner two inherited descriptors (the key to read once, a pipe to write outcomes to:
see boot.py, the runner it starts in place of pytest), starts the runner in its own session (as another user
when `uid` is given: in a container the harness is root and the code under test is not), kills the whole
session at the timeout and when the runner exits, then every other process the run left (the harness is their
subreaper: a process that left the session is still its descendant), before it takes any digest, and prints one line: the host's token, then JSON with the
exit code, the outcome records whose signature verifies over the whole line (HMAC-SHA256 with the key), how
many lines did not, whether the verified records are numbered without a gap, and which of the protected
files (test files, renamed copies and conftests: made read-only first) differ after the run from before it, each
opened one name at a time without following a link and compared by device, inode, ctime, mode and content;
which guard keeps the runner from /proc (`proc_guard`: the kernel's, confine.py, or the runner's audit hook
alone) and what keeps the protected files from every process of the run (`files_guard`: the kernel's, or
not: then the hook and the digests alone). The test data (`data`: every other file beneath the folders that
hold test files, issue 51 round 13b) and every other file of the tree as it landed that the candidate's diff did
not change (`tree`, round 14b: test data at the root, the package's data, a configuration the tests read) are
kept and digested as the protected files are, though the runner's hook does not watch them (a test opens its
data); `data_kept` and `tree_kept` say how many were kept, `unhashed` how many were digested without their
content (past HASHED bytes: their ctime still shows any write). What keeps the harness from the run's
signals: `signal_guard` (confine.py's scope, Landlock ABI 6+).
Standard library only, for any Python 3.6 or later.
"""

import binascii
import ctypes
import hashlib
import hmac
import importlib.util
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time

CONFINE = True  # the kernel guard (confine.py); the tests turn it off to show what it stops is a real cheat
# the digests compare each protected file's identity (device, inode, ctime, mode, opened without following a
# link) as well as its content; the tests turn it off (content only, links followed: as before round 11b) to
# show that what the hook stops is a real cheat
IDENTITY = True
PR_SET_CHILD_SUBREAPER = 36
# bytes of the kept files' content read for the digests (each twice a run), in the order given (the test files,
# their data, then the rest of the tree); past it a file's identity is taken without its content (round 14b)
HASHED = 256 << 20


def main():
    began = time.time()  # the host compares it with when it asked for the run: the container's cost before it
    if len(sys.argv) > 1:
        with open(sys.argv[1]) as handle:
            config = json.load(handle)
        os.unlink(sys.argv[1])
    else:
        config = json.loads(sys.stdin.read())
        os.close(0)
    key = binascii.hexlify(os.urandom(32))
    out_r, out_w = os.pipe()
    key_r, key_w = os.pipe()
    os.write(key_w, key)
    os.close(key_w)
    env = dict(config["env"])
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", os.defpath)
    env["CODEWALK_OUTCOMES_FD"], env["CODEWALK_KEY_FD"] = str(out_w), str(key_r)
    # the tree's entries of sys.path go to the runner's guard, which adds them once pytest has loaded; the
    # harness's own folder is none of them (plain pytest has no such entry)
    here = os.path.realpath(os.path.dirname(os.path.abspath(__file__)))
    tree_paths = [p for p in env.pop("PYTHONPATH", "").split(os.pathsep) if p and os.path.realpath(p) != here]
    env["CODEWALK_GUARD"] = json.dumps({"changed": config.get("changed", []), "path": tree_paths,
                                        "protected": config.get("protected", [])})
    uid = config.get("uid")
    root = os.path.realpath(config["cwd"])
    # the files the tests hold (the hook's too: boot.py) and the test data beside them (round 13b: every other
    # file beneath the folders holding test files): both kept by the kernel and digested
    paths = config.get("protected", [])
    data = config.get("data", [])
    # round 14b: every other file of the tree as it landed that the candidate's diff did not change (its root, the
    # package's data, a configuration the tests read): the tree is what is graded, so no process of the run may
    # change what the tests read from it; kept and digested as the test data is
    tree = config.get("tree", [])
    protected = _protect(root, paths + data + tree)
    if protected and os.geteuid() == 0 and uid is not None:
        _git_trusts(env, root)
    memory = config.get("memory_mb")
    kept = paths + [p for p in data if protected[p][1] is not None]
    held = [p for p in tree if protected[p][1] is not None]
    made, restrict, proc_guard, files_guard, signal_guard = _confine(here, _kept(root, kept), _kept(root, held))
    _subreaper()

    def start():
        os.setsid()
        if memory:  # as the local sandbox limits it: a test that asks too much gets MemoryError, not the OOM killer
            resource.setrlimit(resource.RLIMIT_AS, (memory << 20, memory << 20))
        if made:  # before exec and before any of the runner's code: it and all it starts cannot open /proc
            restrict(made)
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)

    log = tempfile.TemporaryFile()
    plugins = " ".join("-p " + p for p in _plugins()) if config.get("plugins") else ""
    argv = [a.replace("{python}", sys.executable).replace("{plugins}", plugins) for a in config["argv"]]
    started = time.time()
    proc = subprocess.Popen(argv, cwd=config["cwd"], env=env, stdin=subprocess.DEVNULL, stdout=log,
                            stderr=subprocess.STDOUT, pass_fds=(out_w, key_r), preexec_fn=start)
    os.close(out_w)
    os.close(key_r)
    if made:
        os.close(made[0])
    chunks = []
    reader = threading.Thread(target=_drain, args=(out_r, chunks), daemon=True)
    reader.start()
    # the runner's exit, waited for without reaping it: until every other process of the run is gone its pid
    # stays taken (a zombie), so none that waits for it to go sees it go
    waiter = threading.Thread(target=os.waitid, args=(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT), daemon=True)
    waiter.start()
    waiter.join(config["timeout"])
    timed_out = waiter.is_alive()
    for kill in (lambda: os.killpg(proc.pid, signal.SIGKILL), lambda: os.kill(proc.pid, signal.SIGKILL)):
        try:  # the runner's whole session
            kill()
        except OSError:
            pass
    _kill_the_rest(proc.pid)  # and every process of the run that left it, before any digest
    proc.wait()
    reader.join(5)  # every writer of the pipe is gone: it ends at once
    records, unsigned = [], 0
    for line in b"".join(chunks).split(b"\n"):
        mac, _, body = line.partition(b" ")
        if hmac.compare_digest(mac, hmac.new(key, body, hashlib.sha256).hexdigest().encode()):
            records.append(json.loads(body.decode("utf-8")))
        elif line.strip():
            unsigned += 1
    gaps = [r["seq"] for n, r in enumerate(records) if r.get("seq") != n]
    log.seek(0, 2)
    log.seek(max(0, log.tell() - 4000))
    report = {"exit": proc.returncode, "timed_out": timed_out, "records": records, "unsigned": unsigned,
              "seconds": round(time.time() - started, 3), "began": began, "output": log.read().decode("utf-8", "replace"),
              "python": ".".join(str(v) for v in sys.version_info[:3]),
              "gap": gaps[0] if gaps else None, "changed": _changed(config["cwd"], protected),
              "proc_guard": proc_guard, "files_guard": files_guard, "signal_guard": signal_guard,
              # how many were kept (a file gone or unreadable before the run is not), not how many were asked for
              "data_kept": sum(protected[p][1] is not None for p in data),
              "tree_kept": sum(protected[p][1] is not None for p in tree),
              "unhashed": sum(IDENTITY and protected[p][1] is not None and protected[p][1][4] is None
                              for p in paths + data + tree)}
    sys.stdout.write(config["token"] + " " + json.dumps(report) + "\n")
    sys.stdout.flush()


def _confine(here, keep, held=()):
    """(the Landlock ruleset or None, the function that applies it, which guard keeps the runner from /proc,
    what keeps the files of `keep` from every process of the run, what keeps the harness from the run's
    signals), from confine.py beside this script, loaded
    by its path (run with -I, this folder is not on sys.path)."""
    if not CONFINE:
        off = "not the kernel: the kernel guard is off"
        return None, None, "audit hook: the kernel guard is off", off, off
    spec = importlib.util.spec_from_file_location("codewalk_confine", os.path.join(here, "confine.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made, what, kept, signals = module.ruleset_scoped(keep, held)
    if not made:
        return None, module.restrict, "audit hook: " + what, "not the kernel: " + kept, signals
    return made, module.restrict, what, kept, signals


def _kept(root, paths):
    """The absolute paths the kernel keeps: each protected file by its name in the tree and, if a link, where
    it leads (both names' folders go on the chain)."""
    found = set()
    for path in paths:
        full = os.path.normpath(os.path.join(root, path))
        found.update((full, os.path.realpath(full)))
    return sorted(found)


def _subreaper():
    """Make the harness the subreaper of everything it starts: a process of the run whose parent exits (a
    double fork, with or without setsid) becomes the harness's child, not init's, so _kill_the_rest finds it."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, *(ctypes.c_ulong(v) for v in (1, 0, 0, 0)))
    except (OSError, AttributeError):
        pass


def _kill_the_rest(runner):
    """SIGKILL every child of the harness but the runner, and reap it, until none is left: the processes of
    the run that outlived the runner's session (each orphan is reparented to the harness, its subreaper, as
    its parent dies). The runner stays unreaped (the caller reaps it after)."""
    while True:
        others = [p for p in _children() if p != runner]
        if not others:
            return
        for pid in others:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in others:
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass


def _children():
    """The harness's children (every thread's: an orphan goes to any live thread of its subreaper)."""
    found = set()
    try:
        for task in os.listdir("/proc/self/task"):
            with open("/proc/self/task/" + task + "/children") as handle:
                found.update(int(p) for p in handle.read().split())
        return found
    except OSError:  # a kernel without CONFIG_PROC_CHILDREN: every process's parent, read from its stat
        pass
    me = os.getpid()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/" + name + "/stat") as handle:
                    if int(handle.read().rpartition(")")[2].split()[1]) == me:
                        found.add(int(name))
            except (OSError, ValueError, IndexError):
                pass
    return found


def _plugins():
    """The modules of the pytest plugins installed for this interpreter (pytest11 entry points), read by the
    harness before the runner starts: run with -I, the tree under test is not on sys.path."""
    try:
        from importlib.metadata import entry_points
    except ImportError:  # Python 3.6 and 3.7
        import pkg_resources
        return sorted({ep.module_name for ep in pkg_resources.iter_entry_points("pytest11")})
    found = entry_points()
    group = found.select(group="pytest11") if hasattr(found, "select") else found.get("pytest11", ())
    return sorted({ep.value.split(":")[0].strip() for ep in group})


def _protect(root, paths):
    """The identity of each file the tests must not change (_identity: taken after it is made read-only), by
    its path. Where the harness is root (the tests run as another user), each is root's, and so is every folder
    from the tree's root down to each one's, made sticky and writable by all (as /tmp is): the tests may still
    make and remove their own files there, but the kernel refuses them renaming or linking over, or removing,
    a file or folder that is not theirs (issue 51, round 10b: a test file moved over; round 11b: the tests'
    folder moved aside, by a process no hook watches)."""
    root_owned = os.geteuid() == 0
    for path in paths:
        full = os.path.join(root, path)
        try:
            if root_owned:
                os.chown(full, 0, 0)
            os.chmod(full, 0o444 | os.stat(full).st_mode & 0o111)  # read-only; a fixture script still runs
        except OSError:
            pass
    if root_owned:
        folders = set()
        for path in paths:
            folder = os.path.dirname(os.path.normpath(os.path.join(root, path)))
            while folder not in folders and (folder == root or folder.startswith(root.rstrip("/") + "/")):
                folders.add(folder)
                folder = os.path.dirname(folder)
        for folder in folders:
            try:
                if not os.path.islink(folder):
                    os.chown(folder, 0, 0)
                    os.chmod(folder, 0o1777)
            except OSError:
                pass
    found, budget = {}, HASHED
    for path in paths:  # the content of each, in order, while the budget lasts; then identity alone (the ctime)
        real = os.path.realpath(os.path.join(root, path))
        identity = _identity(real, budget > 0)
        if IDENTITY and identity is not None and identity[4] is not None:
            budget -= identity[5]
        found[path] = (real, identity)
    return found


def _git_trusts(env, root):
    """git run by the tests' user in the tree, whose root _protect made root's, would refuse it as another
    user's ("dubious ownership"): the runner's environment names the tree a safe directory (the command
    line's level of git's configuration, which git reads for this setting)."""
    n = int(env.get("GIT_CONFIG_COUNT") or 0)
    env["GIT_CONFIG_KEY_" + str(n)], env["GIT_CONFIG_VALUE_" + str(n)] = "safe.directory", root
    env["GIT_CONFIG_COUNT"] = str(n + 1)


def _changed(root, protected):
    return sorted(p for p, (real, before) in protected.items()
                  if _identity(real, before is None or not IDENTITY or before[4] is not None) != before)


def _identity(path, content=True):
    """(device, inode, ctime, mode, sha256 or None, size) of the file at the absolute path, opened one name at a
    time from / without following a link (a folder put back as a link to the originals, a file swapped for another
    with the same text, a mode changed and changed back are each a change); None if it cannot be opened so.
    content=False (past the HASHED budget) leaves the text unread: any write, truncation or chmod still changes
    the ctime, which no process of the run can set back."""
    if not IDENTITY:
        try:
            with open(path, "rb") as handle:
                return hashlib.sha256(handle.read()).hexdigest()
        except OSError:
            return None
    parts = [p for p in path.split("/") if p]
    flags = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open("/", flags)
    except OSError:
        return None
    try:
        for name in parts[:-1]:
            inner = os.open(name, flags, dir_fd=fd)
            os.close(fd)
            fd = inner
        inner = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
        os.close(fd)
        fd = inner
        found = os.fstat(fd)
        if not content:
            return [found.st_dev, found.st_ino, found.st_ctime_ns, found.st_mode, None, found.st_size]
        digest, size = hashlib.sha256(), 0
        while True:
            data = os.read(fd, 1 << 20)
            if not data:
                break
            digest.update(data)
            size += len(data)
        return [found.st_dev, found.st_ino, found.st_ctime_ns, found.st_mode, digest.hexdigest(), size]
    except (OSError, IndexError):
        return None
    finally:
        os.close(fd)


def _drain(fd, chunks):
    while True:
        data = os.read(fd, 65536)
        if not data:
            return
        chunks.append(data)


if __name__ == "__main__":
    main()
