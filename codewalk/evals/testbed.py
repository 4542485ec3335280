"""The repair agent's sandbox: x_G at /testbed, one per sample, as inspect_ai sandbox providers.

inspect_ai's own `docker` sandbox drives the `docker compose` v2 plugin, which not every machine has;
these providers need only what codewalk already uses:

- `codewalk-local`: a copy of x_G in a temporary directory, each command under bubblewrap (codewalk's
  sandbox: uid 1000 in its own user namespace without capabilities, no network, own PID namespace,
  resource limits, a timeout that kills the whole process group)
  with that copy mounted at /testbed, a per-sample /tmp, and the task's cached virtualenv first on PATH.
  Nothing else of the host is writable, and /tmp, the home folder, the store and the caches are not seen.
- `codewalk-docker`: a container of the task's image (`task_image`), created with the Docker SDK without
  network, x_G copied in with put_archive, each command an exec in it.

x_G is built on the host exactly as grading builds it: the repair domain's worktree of c* with the test
patches applied strictly. /testbed is then a fresh git repository whose only commit is x_G (no history
before or after c*), so `git diff` and `git status` work as in a SWE-bench image.

Grading never runs in these sandboxes: the scorer copies /testbed out (`Testbed.export`) and grades
the diff elsewhere (codewalk.evals.agent).
"""

from __future__ import annotations

import functools
import io
import logging
import os
import secrets
import shutil
import tarfile
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any, Literal, cast, overload

import anyio.to_thread
from inspect_ai.util import ExecResult, SandboxEnvironment, sandboxenv

from codewalk.domain import Settings
from codewalk.domains.repair import RepairDomain, containers
from codewalk.domains.repair.env import Env, EnvSpec, venv_runtime
from codewalk.errors import InfraError, RuntimeUnavailable
from codewalk.runtime import DockerRuntime, LocalRuntime, sandbox

log = logging.getLogger(__name__)

TESTBED = "/testbed"
DEFAULT_TIMEOUT = 600  # seconds, for an exec that names none (the agent's bash tool always names one)


def testbed_spec(verifier: dict[str, Any]) -> dict[str, Any]:
    """What a sandbox needs to build x_G for a task, kept in the sample's metadata (`testbed`)."""
    return {k: verifier.get(k) for k in ("repo", "clone_from", "base_commit", "test_patch", "install_config",
                                         "image_name", "environment_setup_commit")}


def build_testbed(spec: dict[str, Any], into: Path, with_env: bool) -> Env | None:
    """x_G written to `into` (created) by the repair domain, as every test run's tree is: a git repository
    with x_G as its one commit; the task's virtualenv too when with_env (the local runtime runs the agent's
    commands with it)."""
    domain = RepairDomain(settings=Settings(runtime=LocalRuntime()))  # the testbed's own runtime: files and a virtualenv
    env = domain.write_x_g(spec, into, EnvSpec.from_config(spec["install_config"]) if with_env else None)
    return cast(Env, env) if with_env else None


class Testbed(SandboxEnvironment):
    """A sandbox holding x_G at /testbed; `export` copies /testbed out to the host for grading."""

    async def export(self, into: Path) -> None:
        """/testbed's files written under into (which must not exist); .git is left out."""
        raise NotImplementedError


# -- local ------------------------------------------------------------------------------------------------
@sandboxenv(name="codewalk-local")
class LocalTestbed(Testbed):
    """x_G in a temporary directory, mounted at /testbed for each command (bubblewrap)."""

    def __init__(self, root: Path, env: Env):
        super().__init__()
        self.root, self.env = root, env
        self.testbed, self.tmp = root / "testbed", root / "tmp"

    @classmethod
    async def sample_init(cls, task_name: str, config: Any, metadata: dict[str, Any]) -> dict[str, SandboxEnvironment]:
        if not sandbox.isolated():
            raise InfraError("the codewalk-local sandbox needs bubblewrap (to show the repository at /testbed "
                             f"without network): {sandbox.isolation()}; use runtime=docker")
        spec = metadata["testbed"]
        root = Path(tempfile.mkdtemp(prefix="codewalk-testbed-"))
        try:
            env = await anyio.to_thread.run_sync(build_testbed, spec, root / "testbed", True)
        except BaseException:
            sandbox.remove_tree(root)
            raise
        assert env is not None
        (root / "tmp").mkdir()
        return {"default": cls(root, env)}

    @classmethod
    async def sample_cleanup(cls, task_name: str, config: Any, environments: dict[str, SandboxEnvironment],
                             interrupted: bool) -> None:
        for environment in environments.values():
            sandbox.remove_tree(environment.as_type(LocalTestbed).root)  # the agent's: however deep

    async def exec(self, cmd: list[str], input: str | bytes | None = None, cwd: str | None = None,
                   env: dict[str, str] | None = None, user: str | None = None, timeout: int | None = None,
                   timeout_retry: bool = True, concurrency: bool = True) -> ExecResult[str]:
        if user is not None and user != "root":
            from inspect_ai.util import SandboxUserUnsupportedError

            raise SandboxUserUnsupportedError(f"the codewalk-local sandbox runs as one user, not {user!r}")
        where = str(PurePosixPath(TESTBED) / (cwd or "."))
        stdin = input.decode(errors="replace") if isinstance(input, bytes) else input
        done = await anyio.to_thread.run_sync(self._run, cmd, where, stdin, env or {}, timeout or DEFAULT_TIMEOUT,
                                              abandon_on_cancel=True)
        if done.timed_out:
            raise TimeoutError(f"the command timed out after {timeout}s")
        return ExecResult(done.returncode == 0, done.returncode, done.stdout, done.stderr)

    def _run(self, cmd: list[str], cwd: str, stdin: str | None, env: dict[str, str], timeout: int) \
            -> sandbox.Completed:
        venv = self.env.path
        paths = [TESTBED] + ([f"{TESTBED}/src"] if (self.testbed / "src").is_dir() else [])
        base = {"PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin", "VIRTUAL_ENV": str(venv),
                "PYTHONPATH": os.pathsep.join(paths), "HOME": "/tmp", "TMPDIR": "/tmp",
                "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1", "GIT_CONFIG_NOSYSTEM": "1"}
        return sandbox.run([*self._bwrap(cwd), *cmd], cwd=self.testbed, timeout=timeout, stdin=stdin,
                           memory_mb=4096, max_file_mb=256, env=base | env, isolate=False)

    def _bwrap(self, cwd: str) -> list[str]:
        # codewalk's sandbox view (system directories only), plus the environment read-only and x_G at /testbed
        # (the environment after /tmp: it may live under the host's /tmp, which the sample's own /tmp hides)
        seen = [a for path in venv_runtime(self.env.path) for a in ("--ro-bind-try", str(path), str(path))]
        return [shutil.which("bwrap") or "bwrap", *sandbox._system_view(),
                "--bind", str(self.testbed), TESTBED, "--bind", str(self.tmp), "/tmp", *seen,
                "--dev", "/dev", "--proc", "/proc", *sandbox.namespaces(), "--chdir", cwd, "--"]

    def _host(self, file: str) -> Path:
        """Where a sandbox path lives on the host: under /testbed or /tmp only."""
        path = PurePosixPath(TESTBED) / file
        for inside, outside in ((PurePosixPath(TESTBED), self.testbed), (PurePosixPath("/tmp"), self.tmp)):
            if path == inside or inside in path.parents:
                host = outside / path.relative_to(inside)
                if host.resolve().is_relative_to(outside.resolve()):
                    return host
        raise PermissionError(f"{file}: the codewalk-local sandbox holds only {TESTBED} and /tmp")

    async def write_file(self, file: str, contents: str | bytes) -> None:
        host = self._host(file)
        host.parent.mkdir(parents=True, exist_ok=True)
        host.write_bytes(contents.encode() if isinstance(contents, str) else contents)

    @overload
    async def read_file(self, file: str, text: Literal[True] = True) -> str: ...

    @overload
    async def read_file(self, file: str, text: Literal[False]) -> bytes: ...

    async def read_file(self, file: str, text: bool = True) -> str | bytes:
        data = self._host(file).read_bytes()
        return data.decode() if text else data

    async def export(self, into: Path) -> None:
        # the agent's files, folders and links, no .git at any level, nothing deeper than sandbox.DEPTH
        await anyio.to_thread.run_sync(sandbox.copy_tree, self.testbed, into)


# -- docker -------------------------------------------------------------------------------------------------
# Interpreters first on PATH in a task's image: codewalk's built environment, else a SWE-bench style conda one.
TASK_PATH = ":".join([*dict.fromkeys(str(Path(p).parent) for p in containers.PYTHONS[:3]),
                      "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"])


def task_image(spec: dict[str, Any]) -> str:
    """The image a task's container starts from: CODEWALK_AGENT_IMAGE if set, else the image the repair
    domain's docker runtime runs the task's tests in (the row's own, or the one built once per environment
    from its install_config on CODEWALK_DOCKER_BASE), so the agent works where V_G would run."""
    if os.environ.get("CODEWALK_AGENT_IMAGE"):
        return os.environ["CODEWALK_AGENT_IMAGE"]
    mirror = RepairDomain().mirrors.ensure(spec["repo"], spec["clone_from"])
    return containers.image_for(spec, EnvSpec.from_config(spec.get("install_config")), mirror).tag


def _add(tar: tarfile.TarFile, name: str, data: bytes, mode: int = 0o644) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), mode
    tar.addfile(info, io.BytesIO(data))


def _docker() -> Any:
    try:
        return DockerRuntime().client()  # the one client of this process, as walks and grades use
    except RuntimeUnavailable as e:
        raise InfraError(str(e)) from None


@sandboxenv(name="codewalk-docker")
class DockerTestbed(Testbed):
    """A container of the task's image (no network), x_G copied to /testbed."""

    def __init__(self, container: Any):
        super().__init__()
        self.container = container

    @classmethod
    async def sample_init(cls, task_name: str, config: Any, metadata: dict[str, Any]) -> dict[str, SandboxEnvironment]:
        container = await anyio.to_thread.run_sync(_start, metadata["testbed"], str(metadata.get("__sample_id__")))
        return {"default": cls(container)}

    @classmethod
    async def sample_cleanup(cls, task_name: str, config: Any, environments: dict[str, SandboxEnvironment],
                             interrupted: bool) -> None:
        for environment in environments.values():
            container = environment.as_type(DockerTestbed).container
            await anyio.to_thread.run_sync(functools.partial(container.remove, force=True))

    async def exec(self, cmd: list[str], input: str | bytes | None = None, cwd: str | None = None,
                   env: dict[str, str] | None = None, user: str | None = None, timeout: int | None = None,
                   timeout_retry: bool = True, concurrency: bool = True) -> ExecResult[str]:
        limit = timeout or DEFAULT_TIMEOUT
        if input is not None:  # the Docker API's exec has no stdin without a socket: a file in the container
            name = f"/tmp/.codewalk-stdin-{secrets.token_hex(8)}"
            await self.write_file(name, input)
            cmd = ["/bin/sh", "-c", f'exec "$@" < {name}', "sh", *cmd]
        # coreutils' timeout ends the command (SIGKILL 5 s after SIGTERM) and exits 124; the image's PATH finds cmd[0]
        wrapped = ["/usr/bin/timeout", "-k", "5", str(limit), *cmd]
        where = str(PurePosixPath(TESTBED) / (cwd or "."))
        result = await anyio.to_thread.run_sync(
            lambda: self.container.exec_run(wrapped, workdir=where, environment=env or {}, user=user or "",
                                            demux=True), abandon_on_cancel=True)
        out, err = result.output if result.output else (None, None)
        code = result.exit_code
        if code == 124:
            raise TimeoutError(f"the command timed out after {limit}s")
        return ExecResult(code == 0, code, (out or b"").decode(errors="replace"), (err or b"").decode(errors="replace"))

    async def write_file(self, file: str, contents: str | bytes) -> None:
        path = PurePosixPath(TESTBED) / file
        data = contents.encode() if isinstance(contents, str) else contents
        archive = io.BytesIO()
        with tarfile.open(fileobj=archive, mode="w") as tar:
            _add(tar, path.name, data)
        archive.seek(0)
        await self.exec(["mkdir", "-p", str(path.parent)], cwd="/")
        await anyio.to_thread.run_sync(lambda: self.container.put_archive(str(path.parent), archive.getvalue()))

    @overload
    async def read_file(self, file: str, text: Literal[True] = True) -> str: ...

    @overload
    async def read_file(self, file: str, text: Literal[False]) -> bytes: ...

    async def read_file(self, file: str, text: bool = True) -> str | bytes:
        import docker.errors

        path = PurePosixPath(TESTBED) / file
        try:
            stream, _ = await anyio.to_thread.run_sync(lambda: self.container.get_archive(str(path)))
        except docker.errors.NotFound:
            raise FileNotFoundError(str(path)) from None
        with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as tar:
            member = tar.next()
            handle = tar.extractfile(member) if member else None
            if handle is None:
                raise IsADirectoryError(str(path))
            data = handle.read()
        return data.decode() if text else data

    async def export(self, into: Path) -> None:
        def copy() -> None:
            stream, _ = self.container.get_archive(TESTBED)
            with sandbox.workdir() as scratch:  # removed without recursing, however deep
                with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as tar:
                    tar.extractall(scratch, filter=_safe)  # nothing lands outside scratch
                sandbox.copy_tree(scratch / "testbed", into)  # as the local testbed's export

        await anyio.to_thread.run_sync(copy)


def _safe(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    """tarfile's `data` filter, except that a member it refuses (a device, a FIFO, a link out of the
    tree) is left out rather than failing the copy: the agent may leave anything in /testbed."""
    if not (member.isreg() or member.isdir() or member.issym() or member.islnk()):
        return None
    parts = PurePosixPath(member.name).parts
    if ".git" in parts or len(parts) > sandbox.DEPTH + 2 or len(member.name) > 2048:
        return None  # copy_tree leaves them out: not even extracted (a path past PATH_MAX would fail extractall)
    try:
        return tarfile.data_filter(member, dest)
    except tarfile.FilterError:
        return None


def _start(spec: dict[str, Any], sample: str) -> Any:
    image = task_image(spec)
    client = _docker()
    with tempfile.TemporaryDirectory(prefix="codewalk-testbed-") as scratch:
        tree = Path(scratch) / "testbed"
        build_testbed(spec, tree, with_env=False)
        archive = io.BytesIO()
        with tarfile.open(fileobj=archive, mode="w") as tar:
            tar.add(tree, arcname="testbed")
        container = client.containers.create(image, ["sleep", "infinity"], network_disabled=True, working_dir="/",
                                              environment={"PATH": TASK_PATH},
                                              **containers.hardened(4096, {"codewalk.sample": sample}))
        try:
            container.start()
            container.exec_run(["rm", "-rf", TESTBED])  # an image's own /testbed (a row's, an install's) goes
            container.put_archive("/", archive.getvalue())
        except BaseException:
            container.remove(force=True)
            raise
    log.info("sample %s: container %s of %s", sample, container.short_id, image)
    return container
