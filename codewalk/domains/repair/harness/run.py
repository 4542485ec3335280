"""codewalk's test-run harness: starts the runner with the outcome channel open, and reports.

Run as `python -I run.py CONFIG` (a JSON file, removed once read) or with the JSON on stdin. It makes the
run's key, hands the runner two inherited descriptors (the key to read once, a pipe to write outcomes to:
see boot.py, the runner it starts in place of pytest), starts the runner in its own session (as another user
when `uid` is given: in a container the harness is root and the code under test is not), kills the whole
session at the timeout and when the runner exits, and prints one line: the host's token, then JSON with the
exit code, the outcome records whose signature verifies over the whole line (HMAC-SHA256 with the key), how
many lines did not, whether the verified records are numbered without a gap, and which of the protected
files (test files and renamed copies: made read-only first) differ after the run from before it, and which
guard keeps the runner from /proc (`proc_guard`: the kernel's, confine.py, or the runner's audit hook alone).
Standard library only, for any Python 3.6 or later.
"""

import binascii
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
    protected = _protect(config["cwd"], config.get("protected", []))
    memory = config.get("memory_mb")
    made, restrict, proc_guard = _confine(here)

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
    timed_out = False
    try:
        proc.wait(timeout=config["timeout"])
    except subprocess.TimeoutExpired:
        timed_out = True
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the runner's whole session, stragglers too
    except OSError:
        pass
    proc.wait()
    reader.join(5)  # a process that left the session may hold the pipe open: do not wait for it
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
              "proc_guard": proc_guard}
    sys.stdout.write(config["token"] + " " + json.dumps(report) + "\n")
    sys.stdout.flush()


def _confine(here):
    """(the Landlock ruleset or None, the function that applies it, which guard keeps the runner from /proc),
    from confine.py beside this script, loaded by its path (run with -I, this folder is not on sys.path)."""
    if not CONFINE:
        return None, None, "audit hook: the kernel guard is off"
    spec = importlib.util.spec_from_file_location("codewalk_confine", os.path.join(here, "confine.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made, what = module.ruleset()
    return made, module.restrict, what if made else "audit hook: " + what


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
    """Digests of the files the tests must not change, made read-only. Where the harness is root (the tests
    run as another user), each is root's, and so is each folder holding one, made sticky and writable by all
    (as /tmp is): the tests may still make and remove their own files there, but the kernel refuses them
    renaming or linking over, or removing, a file that is not theirs (issue 51, round 10b: a test file moved
    over and put back before the digest)."""
    found = {}
    root_owned = os.geteuid() == 0
    for path in paths:
        full = os.path.join(root, path)
        found[path] = _digest(full)
        try:
            if root_owned:
                os.chown(full, 0, 0)
            os.chmod(full, 0o444)
        except OSError:
            pass
    if root_owned:
        for folder in {os.path.dirname(os.path.join(root, path)) for path in paths}:
            try:
                os.chown(folder, 0, 0)
                os.chmod(folder, 0o1777)
            except OSError:
                pass
    return found


def _changed(root, protected):
    return sorted(p for p, d in protected.items() if _digest(os.path.join(root, p)) != d)


def _digest(path):
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


def _drain(fd, chunks):
    while True:
        data = os.read(fd, 65536)
        if not data:
            return
        chunks.append(data)


if __name__ == "__main__":
    main()
