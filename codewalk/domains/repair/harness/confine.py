"""codewalk's kernel guard for a test run: the test process and everything it starts cannot open /proc.

The process's memory (/proc/self/mem) holds the outcome channel's key, and under --runtime local the harness's
memory and descriptors (/proc/<pid>/...) are the tests' user's too. An audit hook judges a path by reading it,
and Python has more spellings of a path than any check: `//proc`, a link the run makes, `/dev/fd/..`, a
descriptor of `/` given as dir_fd (the audit event does not carry it), and a check that reads the path races
with the threads that change it (issue 51, round 9b). Landlock (Linux 5.13+) makes the kernel refuse instead:
run.py builds a ruleset in the harness's own process (`ruleset`) that handles reading, writing, listing and
(ABI 3+) truncating files, with one rule allowing them beneath each top-level entry of `/` other than the proc
mounts, and the runner's process applies it in its preexec hook, before exec (`restrict`): whatever path, link,
`..` or dir_fd it is opened by, a file of procfs lies beneath no rule, so open() fails with EACCES, in every
thread and every child (a domain is inherited and cannot be left). The harness itself stays outside the domain,
so the tests cannot ptrace it or read its memory either (Landlock denies ptrace out of a domain).
Nothing else changes: stat, readlink, exec, making and removing files stay as they were (not handled), a
file moved or linked to another folder still is (REFER, granted), and descriptors opened before (the
channel's pipe) keep working. Where the kernel has no Landlock (or seccomp refuses it) the runner's audit
hook keeps a fallback (boot.py: `_proc_files`), and the run's report says which guard held.
Standard library only (ctypes), Python 3.6+; Linux only.
"""

import ctypes
import os
import stat

# linux/landlock.h: the same syscall numbers on every architecture but alpha (unified table, 5.13+)
CREATE, ADD_RULE, RESTRICT = 444, 445, 446
CREATE_RULESET_VERSION, RULE_PATH_BENEATH, PR_SET_NO_NEW_PRIVS = 1, 1, 38
READ_FILE, WRITE_FILE, READ_DIR, TRUNCATE = 1 << 2, 1 << 1, 1 << 3, 1 << 14  # TRUNCATE: ABI 3+
# From ABI 2 every ruleset denies moving or linking a file to another folder (EXDEV) unless a rule grants REFER
# on both sides: granted with the rest, so os.rename and os.link between folders work as before
REFER = 1 << 13
FILE_RIGHTS = READ_FILE | WRITE_FILE | TRUNCATE  # a rule on a file that is no folder may hold only these


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]  # the later ABIs' fields stay off (size 8)


class _PathBeneath(ctypes.Structure):
    _pack_ = 1  # packed in the kernel's header
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def ruleset():
    """(ruleset descriptor, "landlock ABI n") for restrict(), or (None, why not). Run in the harness, before
    the runner starts: it reads /proc/self/mountinfo to know where procfs is mounted."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        abi = libc.syscall(CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    except (OSError, AttributeError) as e:  # no libc to call: not Linux
        return None, "no landlock: " + str(e)
    if abi < 1:
        return None, "no landlock: " + os.strerror(ctypes.get_errno())  # ENOSYS: old kernel; EPERM: seccomp
    handled = READ_FILE | WRITE_FILE | READ_DIR | (REFER if abi >= 2 else 0) | (TRUNCATE if abi >= 3 else 0)
    attr = _RulesetAttr(handled)
    fd = libc.syscall(CREATE, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0))
    if fd < 0:
        return None, "no landlock ruleset: " + os.strerror(ctypes.get_errno())
    procs = _proc_mounts()
    try:
        _allow(libc, fd, "/", procs, handled)
    except OSError as e:
        os.close(fd)
        return None, "no landlock rule: " + str(e)
    return (fd, libc), f"landlock ABI {abi}"


def restrict(made):
    """In the runner's process (Popen's preexec_fn), before exec: no new privileges (Landlock requires it of
    an unprivileged process; the tests have no setuid program to gain from), then the ruleset, for good."""
    fd, libc = made
    if libc.prctl(PR_SET_NO_NEW_PRIVS, *(ctypes.c_ulong(v) for v in (1, 0, 0, 0))) != 0 or libc.syscall(RESTRICT, fd, ctypes.c_uint32(0)) != 0:
        raise OSError(ctypes.get_errno(), "landlock_restrict_self: " + os.strerror(ctypes.get_errno()))
    os.close(fd)


def _proc_mounts():
    """Where procfs is mounted (its mount points, unescaped), from the harness's own mount table."""
    found = {"/proc"}  # whatever the table says (or if it cannot be read)
    try:
        with open("/proc/self/mountinfo") as table:
            for line in table:
                fields, _, rest = line.partition(" - ")
                if rest.split(" ", 1)[0] == "proc":
                    found.add(_unescape(fields.split(" ")[4]))
    except OSError:
        pass
    return found


def _unescape(path):
    for code in ("\\040", "\\011", "\\012", "\\134"):
        path = path.replace(code, chr(int(code[1:], 8)))
    return path


def _allow(libc, ruleset_fd, folder, procs, handled):
    """A rule for each entry of folder, except a proc mount; a folder a proc mount lies under is entered
    instead (so /proc, or a procfs mounted deeper, is beneath no rule). Links are skipped: what they point
    to is beneath the rule of its own top-level folder, and a link to /proc must not carry one."""
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if path in procs:
            continue
        if any(p.startswith(path + "/") for p in procs):
            _allow(libc, ruleset_fd, path, procs, handled)
            continue
        try:
            fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue  # gone since listed
        try:
            mode = os.fstat(fd).st_mode
            if stat.S_ISLNK(mode):
                continue
            rule = _PathBeneath(handled if stat.S_ISDIR(mode) else handled & FILE_RIGHTS, fd)
            if libc.syscall(ADD_RULE, ruleset_fd, RULE_PATH_BENEATH, ctypes.byref(rule), ctypes.c_uint32(0)):
                raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}: {os.strerror(ctypes.get_errno())}")
        finally:
            os.close(fd)
