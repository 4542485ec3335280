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
Stat, readlink, exec and descriptors opened before (the channel's pipe) keep working.

The test files (issue 51, round 11b): given the files a run keeps (`keep`: test files, renamed copies,
conftests), the ruleset (ABI 2+) also handles removing, making and (REFER) moving or linking across folders,
and keeps those files from every process of the run, whoever started it (a shell, a fork, `python -I`: the
audit hook lives in one interpreter, the domain in the kernel). The folders from `/` down to each kept file
are its *chain*. Full rights are granted beneath every entry of a chain folder that is not itself on the
chain (enumerated here, when the ruleset is made); on a chain folder only reading, listing and making new
plain entries (files, folders, sockets, fifos: no symlink, no device), and on the existing files directly in
a chain folder that are not kept, writing and truncating. So no process of the run can open a kept file to
write or truncate it (WRITE_FILE, TRUNCATE: open, O_TRUNC, truncate()), remove or rename it or anything
else in a chain folder, either way, RENAME_EXCHANGE too (REMOVE_FILE, REMOVE_DIR on its folder), rename or
remove a chain folder (the same on its parent, up to `/`), replace a kept file by a rename or link onto its
name (the removal is asked of its folder), nor link it out to a writable folder (REFER is not granted on a
chain folder: moving or linking across folders needs it on both). Mounting is refused to a process in a
domain. What a run no longer may do: write a new file (or one in a new folder) directly in a chain folder,
or remove or rename an entry there (the tree's root, the tests' folders); beneath any other entry of the
tree, the home and TMPDIR, as before. Where the kernel's ABI is under 2 (no REFER: a ruleset would refuse
every move across folders) the ruleset keeps /proc alone and the report says the test files are not kept
by the kernel (`files_guard`). Where the kernel has no Landlock (or seccomp refuses it) the runner's audit
hook keeps a fallback for /proc (boot.py: `_proc_files`), and the run's report says which guard held.

Signals (issue 51, round 13b): under --runtime local the harness is of the tests' uid, so a process of the run
could stop, kill or terminate it (no verdict; stopped, the grader waits for the sandbox's timeout). From ABI 6
the ruleset is also scoped (LANDLOCK_SCOPE_SIGNAL): no process of the domain may signal a process outside it
(the harness, the sandbox's init), while the runner and its children still signal each other, and the harness
still signals them. `ruleset_scoped` says which held (`signal_guard`).
Standard library only (ctypes), Python 3.6+; Linux only.
"""

import ctypes
import os
import stat

# linux/landlock.h: the same syscall numbers on every architecture but alpha (unified table, 5.13+)
CREATE, ADD_RULE, RESTRICT = 444, 445, 446
CREATE_RULESET_VERSION, RULE_PATH_BENEATH, PR_SET_NO_NEW_PRIVS = 1, 1, 38
WRITE_FILE, READ_FILE, READ_DIR, REMOVE_DIR, REMOVE_FILE = 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 5
MAKE_CHAR, MAKE_DIR, MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = (1 << n for n in range(6, 13))
REFER, TRUNCATE = 1 << 13, 1 << 14  # REFER: ABI 2+; TRUNCATE: ABI 3+
# From ABI 2 every ruleset denies moving or linking a file to another folder (EXDEV) unless a rule grants REFER
# on both sides: granted with the rest beneath every entry off the chain, so os.rename and os.link between
# folders work there as before
FILE_RIGHTS = READ_FILE | WRITE_FILE | TRUNCATE  # a rule on a file that is no folder may hold only these
MAKE = MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM
# on a chain folder (and so beneath it, kept files included): read, list, make a new plain entry (it is made
# empty: nothing beneath a chain folder but its existing files may be written); no removal, no move across
# folders, no symlink (a name that would point elsewhere), no device
CHAIN_RIGHTS = READ_FILE | READ_DIR | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]  # the later ABIs' fields stay off (size 8)


class _ScopedRulesetAttr(ctypes.Structure):  # ABI 6+: no network access handled; signals scoped
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


SCOPE_SIGNAL = 1 << 1  # LANDLOCK_SCOPE_SIGNAL (ABI 6+); 1 << 0, abstract unix sockets, is not asked for


class _PathBeneath(ctypes.Structure):
    _pack_ = 1  # packed in the kernel's header
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def ruleset(keep=(), held=()):
    """(ruleset descriptor, "landlock ABI n", what keeps the files of `keep`) for restrict(), or (None, why
    not, why not). Run in the harness, before the runner starts: it reads /proc/self/mountinfo to know where
    procfs is mounted, and lists the folders on the way to each file of `keep` (absolute paths, no link).
    `held` (round 14b): the other files of the tree as it landed: one directly in a chain folder is kept as the
    files of `keep` are (no rule of its own); beneath the folder off the chain that holds any other, no folder
    may be removed or renamed (no REMOVE_DIR: a folder swapped for another and put back would leave each file's
    identity as it was), while files are made, written, renamed and removed as before (new files stay writable;
    the digests see a landed file written, replaced or renamed)."""
    return ruleset_scoped(keep, held)[:3]


def ruleset_scoped(keep=(), held=()):
    """ruleset(keep, held), and what keeps the processes outside the domain (the harness) from the run's signals:
    "landlock ABI n" (scoped, ABI 6+), or "not the kernel: why"."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        abi = libc.syscall(CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    except (OSError, AttributeError) as e:  # no libc to call: not Linux
        return None, "no landlock: " + str(e), "no landlock", "not the kernel: no landlock"
    if abi < 1:
        why = "no landlock: " + os.strerror(ctypes.get_errno())  # ENOSYS: old kernel; EPERM: seccomp
        return None, why, why, "not the kernel: " + why
    handled = READ_FILE | WRITE_FILE | READ_DIR | (REFER if abi >= 2 else 0) | (TRUNCATE if abi >= 3 else 0)
    keeping = bool(keep) and abi >= 2
    if keeping:
        handled |= REMOVE_FILE | REMOVE_DIR | MAKE
        kept = f"landlock ABI {abi}" + ("" if abi >= 3 else " (truncate() not handled before ABI 3)")
    else:
        kept = "none: nothing to keep" if not keep else f"not the kernel: landlock ABI {abi} has no REFER (2+)"
    if abi >= 6:
        attr, signals = _ScopedRulesetAttr(handled, 0, SCOPE_SIGNAL), f"landlock ABI {abi}"
    else:
        attr, signals = _RulesetAttr(handled), f"not the kernel: landlock ABI {abi} scopes no signal (6+)"
    fd = libc.syscall(CREATE, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0))
    if fd < 0 and abi >= 6:  # the scope refused: keep the files and /proc guards without it rather than lose them
        signals = "not the kernel: the signal scope refused: " + os.strerror(ctypes.get_errno())
        attr = _RulesetAttr(handled)
        fd = libc.syscall(CREATE, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0))
    if fd < 0:
        why = "no landlock ruleset: " + os.strerror(ctypes.get_errno())
        return None, why, why, "not the kernel: " + why
    procs = _proc_mounts()
    files, chain = _chain(keep) if keeping else (set(), set())
    holding = set()  # the folders holding a held file off the chain, and those above them
    for path in held if keeping else ():
        path = os.path.normpath(path)
        folder = os.path.dirname(path)
        if folder in chain:
            files.add(path)
        while folder not in chain and folder not in holding:
            holding.add(folder)
            folder = os.path.dirname(folder)
    try:
        _allow(libc, fd, "/", procs, handled, files, chain, holding)
    except OSError as e:
        os.close(fd)
        why = "no landlock rule: " + str(e)
        return None, why, why, "not the kernel: " + why
    return (fd, libc), f"landlock ABI {abi}", kept, signals


def restrict(made):
    """In the runner's process (Popen's preexec_fn), before exec: no new privileges (Landlock requires it of
    an unprivileged process; the tests have no setuid program to gain from), then the ruleset, for good."""
    fd, libc = made
    if libc.prctl(PR_SET_NO_NEW_PRIVS, *(ctypes.c_ulong(v) for v in (1, 0, 0, 0))) != 0 or libc.syscall(RESTRICT, fd, ctypes.c_uint32(0)) != 0:
        raise OSError(ctypes.get_errno(), "landlock_restrict_self: " + os.strerror(ctypes.get_errno()))
    os.close(fd)


def _chain(keep):
    """The kept files and the folders from / down to each (normalised absolute paths)."""
    files, chain = set(), {"/"}
    for path in keep:
        path = os.path.normpath(path)
        files.add(path)
        folder = os.path.dirname(path)
        while folder not in chain:
            chain.add(folder)
            folder = os.path.dirname(folder)
    return files, chain


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


def _allow(libc, ruleset_fd, folder, procs, handled, files=frozenset(), chain=frozenset(), holding=frozenset()):
    """A rule for each entry of folder, except a proc mount; a folder a proc mount lies under, or on the chain
    to a kept file, is entered instead (so /proc, or a procfs mounted deeper, is beneath no rule), and a chain
    folder that holds no proc mount gets CHAIN_RIGHTS itself. Beneath an entry off the chain every handled
    right; a kept file gets no rule of its own (its folder's lets it be read); any other file directly in a
    chain folder may be read, written and truncated. Links are skipped: what they point to is beneath the
    rule of its own folder, and a link to /proc must not carry one. An entry off the chain in `holding` (a folder
    of the landed tree, round 14b) gets every right but REMOVE_DIR. A stack, not recursion (round 14b: a chain
    of ~1,000 folders, a deep test data folder, raised RecursionError: no verdict)."""
    stack = [folder]
    while stack:
        folder = stack.pop()
        if folder in chain and not any(p == folder or p.startswith(folder.rstrip("/") + "/") for p in procs):
            _rule(libc, ruleset_fd, folder, handled & CHAIN_RIGHTS, True)
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if path in procs or path in files:
                continue
            if path in chain or any(p.startswith(path + "/") for p in procs):
                stack.append(path)
                continue
            _rule(libc, ruleset_fd, path, handled & ~REMOVE_DIR if path in holding else handled, False)


def _rule(libc, ruleset_fd, path, rights, folder_only):
    try:
        fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return  # gone since listed
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISLNK(mode) or (folder_only and not stat.S_ISDIR(mode)):
            return
        rule = _PathBeneath(rights if stat.S_ISDIR(mode) else rights & FILE_RIGHTS, fd)
        if libc.syscall(ADD_RULE, ruleset_fd, RULE_PATH_BENEATH, ctypes.byref(rule), ctypes.c_uint32(0)):
            raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)
