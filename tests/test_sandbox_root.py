"""The sandbox holds when codewalk runs as root (as CI does): an isolated run is an ordinary uid in its own
user namespace with no capabilities, so it cannot mount, make a device, or open a host file by its handle
around the view (the "shocker" escape: a handle made on the host, opened through the run's writable folder)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from codewalk.errors import Unisolated
from codewalk.runtime import sandbox
from codewalk.runtime.sandbox import run, workdir

needs_isolation = pytest.mark.skipif(not sandbox._bwrap_works() and not os.environ.get("CI"),
                                     reason=f"this machine gives: {sandbox.isolation()}")
PY = sys.executable

# ctypes wrappers for name_to_handle_at / open_by_handle_at, shared by the host side and the probe.
HANDLES = r'''
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
class Handle(ctypes.Structure):
    _fields_ = [("handle_bytes", ctypes.c_uint), ("handle_type", ctypes.c_int), ("f_handle", ctypes.c_ubyte * 128)]
def handle_of(path):
    h, mount_id = Handle(), ctypes.c_int()
    h.handle_bytes = 128
    if libc.name_to_handle_at(-100, path.encode(), ctypes.byref(h), ctypes.byref(mount_id), 0) != 0:
        raise OSError(ctypes.get_errno(), "name_to_handle_at " + path)
    return h.handle_type, bytes(h.f_handle[:h.handle_bytes]).hex()
def open_by_handle(mount_fd, kind, data, flags):
    raw = bytes.fromhex(data)
    h = Handle()
    h.handle_bytes, h.handle_type = len(raw), kind
    ctypes.memmove(h.f_handle, raw, len(raw))
    fd = libc.open_by_handle_at(mount_fd, ctypes.byref(h), flags)
    if fd < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return fd
'''


def isolated_python(code: str, cwd: Path, **kwargs) -> sandbox.Completed:
    return run([PY, "-I", "-c", code], cwd=cwd, timeout=30, sees=kwargs.pop("sees", sandbox.python_runtime()),
               **kwargs)


def host_handle(path: Path) -> tuple[int, str]:
    scope: dict = {}
    exec(HANDLES, scope)
    return scope["handle_of"](str(path))


@needs_isolation
def test_an_isolated_run_has_no_capabilities_and_an_ordinary_uid():
    with workdir() as cwd:
        done = isolated_python("print(open('/proc/self/status').read())", cwd)
    assert done.returncode == 0, done.stderr
    status = dict(line.split(":", 1) for line in done.stdout.splitlines() if ":" in line)
    assert int(status["CapEff"].strip(), 16) == 0
    assert int(status["CapPrm"].strip(), 16) == 0
    assert int(status["CapBnd"].strip(), 16) == 0
    assert status["Uid"].split()[0] == str(sandbox.UID) != "0"


@needs_isolation
def test_an_isolated_run_cannot_mount():
    probe = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nos.mkdir('m')\n"
             "r = libc.mount(b'none', b'm', b'tmpfs', 0, None)\nprint(r, ctypes.get_errno())")
    with workdir() as cwd:
        done = isolated_python(probe, cwd)
    assert done.returncode == 0, done.stderr
    result, errno = map(int, done.stdout.split())
    assert result == -1 and errno == 1  # EPERM


@needs_isolation
def test_an_isolated_run_cannot_make_a_block_device():
    probe = ("import os, stat\ntry:\n    os.mknod('disk', stat.S_IFBLK | 0o600, os.makedev(8, 0))\n    print('made')\n"
             "except OSError as e:\n    print('refused', e.errno)")
    with workdir() as cwd:
        done = isolated_python(probe, cwd)
        assert not (cwd / "disk").exists()
    assert done.stdout.split()[0] == "refused", done.stdout + done.stderr


@needs_isolation
def test_an_isolated_run_cannot_open_the_users_home_by_handle_to_write_in_it():
    """The handle of $HOME, made on the host, opened through the run's own writable folder (the same
    filesystem, often): with CAP_DAC_READ_SEARCH this gave a writable descriptor of the home folder."""
    home = Path.home()
    marker = home / f".codewalk-shocker-{os.getpid()}"
    kind, data = host_handle(home)
    probe = HANDLES + (f"fd = open_by_handle(os.open('.', os.O_RDONLY), {kind}, {data!r}, os.O_RDONLY | os.O_DIRECTORY)\n"
                       f"os.close(os.open({marker.name!r}, os.O_CREAT | os.O_WRONLY, dir_fd=fd))\nprint('wrote')")
    try:
        with workdir() as cwd:
            done = isolated_python(probe, cwd)
        assert "wrote" not in done.stdout
        assert "Operation not permitted" in done.stderr, done.stderr
        assert not marker.exists()
    finally:
        marker.unlink(missing_ok=True)


@needs_isolation
def test_an_isolated_run_cannot_read_a_file_outside_its_view_by_handle(tmp_path):
    secret = Path.home() / f".codewalk-secret-{os.getpid()}"
    secret.write_text("the user's secret")
    try:
        kind, data = host_handle(secret)
        probe = HANDLES + (f"fd = open_by_handle(os.open('.', os.O_RDONLY), {kind}, {data!r}, os.O_RDONLY)\n"
                           "print(os.read(fd, 100).decode())")
        with workdir() as cwd:
            done = isolated_python(probe, cwd)
    finally:
        secret.unlink()
    assert "secret" not in done.stdout
    assert "Operation not permitted" in done.stderr, done.stderr


@needs_isolation
def test_an_isolated_run_of_the_whole_filesystem_cannot_write_the_users_home():
    """The trusted view (the whole filesystem read-only, as `patch` gets) is read-only for root's code too."""
    marker = Path.home() / f".codewalk-write-{os.getpid()}"
    with workdir() as cwd:
        done = run([PY, "-c", f"open({str(marker)!r}, 'w').write('x')"], cwd=cwd, timeout=30)
    try:
        assert done.returncode != 0 and not marker.exists()
    finally:
        marker.unlink(missing_ok=True)


@pytest.mark.parametrize("ci", ["true", ""], ids=["ci", "not-ci"])
def test_an_isolated_run_is_refused_where_bubblewrap_does_not_work_ci_or_not(monkeypatch, ci):
    """Code nobody reviewed never runs on the host as the invoking user (root, here) unless the user says so."""
    monkeypatch.setattr(sandbox, "_bwrap_works", lambda: False)
    monkeypatch.setattr(sandbox, "_unisolated_allowed", False)
    monkeypatch.delenv(sandbox.ALLOW_UNISOLATED, raising=False)
    monkeypatch.setenv("CI", ci)
    marker = Path.home() / f".codewalk-unisolated-{os.getpid()}"
    with workdir() as cwd, pytest.raises(Unisolated, match=sandbox.ALLOW_UNISOLATED):
        run([PY, "-c", f"open({str(marker)!r}, 'w').write('x')"], cwd=cwd, timeout=10)
    assert not marker.exists()  # refused before it started
    with workdir() as cwd:  # trusted tooling asks for no isolation and runs
        assert run([PY, "-c", "pass"], cwd=cwd, timeout=10, isolate=False).returncode == 0
    monkeypatch.setenv(sandbox.ALLOW_UNISOLATED, "1")  # the user's choice, for every process it starts
    with workdir() as cwd:
        assert run([PY, "-c", "pass"], cwd=cwd, timeout=10).returncode == 0
    monkeypatch.delenv(sandbox.ALLOW_UNISOLATED)
    monkeypatch.setattr(sandbox, "_unisolated_allowed", True)  # --allow-unisolated
    with workdir() as cwd:
        assert run([PY, "-c", "pass"], cwd=cwd, timeout=10).returncode == 0


@needs_isolation
def test_a_build_run_has_the_network_but_no_capabilities_and_only_its_view(tmp_path):
    """network=True (environment builds) keeps the host's network, never the capabilities or the view."""
    outside = Path.home() / f".codewalk-build-{os.getpid()}"
    outside.write_text("x")
    try:
        probe = ("import json, os, socket\nstatus = open('/proc/self/status').read()\n"
                 "cap = [l for l in status.splitlines() if l.startswith('CapEff')][0].split()[1]\n"
                 f"print(json.dumps([cap, os.path.exists({str(outside)!r}), os.path.exists('/etc/resolv.conf'), "
                 "[i[1] for i in socket.if_nameindex()]]))")
        with workdir() as cwd:
            done = isolated_python(probe, cwd, network=True)
    finally:
        outside.unlink()
    assert done.returncode == 0, done.stderr
    cap, sees_home, resolv, interfaces = json.loads(done.stdout)
    assert int(cap, 16) == 0 and not sees_home
    assert resolv == os.path.exists("/etc/resolv.conf")
    assert set(interfaces) == {i[1] for i in socket.if_nameindex()}  # the host's own interfaces


@needs_isolation
def test_the_agents_local_testbed_runs_commands_without_capabilities(tmp_path):
    """The other bwrap call site: each command of the agent's bash tool (-T runtime=local)."""
    import anyio

    from codewalk.domains.repair.env import Env
    from codewalk.evals.testbed import LocalTestbed

    venv = tmp_path / "venv"
    subprocess.run([PY, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    (tmp_path / "testbed").mkdir()
    (tmp_path / "tmp").mkdir()
    bed = LocalTestbed(tmp_path, Env(venv, "", "", ()))
    probe = ("import ctypes, os; print(open('/proc/self/status').read()); "
             "print('mount', ctypes.CDLL(None, use_errno=True).mount(b'none', b'/tmp', b'tmpfs', 0, None))")
    done = anyio.run(lambda: bed.exec(["python", "-c", probe], timeout=60))
    assert done.returncode == 0, done.stderr
    status = dict(line.split(":", 1) for line in done.stdout.splitlines() if ":" in line)
    assert int(status["CapEff"].strip(), 16) == 0
    assert status["Uid"].split()[0] == str(sandbox.UID)
    assert "mount -1" in done.stdout
