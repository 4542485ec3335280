"""The docker runtime of the repair domain: an image per environment, a fresh container per test run.

Images. A row that names its image (SWE-rebench's `image_name` or `docker_image`) runs in that image, pulled
when it is not here (refused with `--no-pull`). Otherwise codewalk builds one from the row's install_config on
the base image CODEWALK_DOCKER_BASE (default `python:{python}-slim`, `{python}` the config's version): a
virtualenv at /opt/cw-env with pytest, the config's pip_packages and requirements (read at the row's
environment_setup_commit), its pre_install commands, and its install command run in /testbed, a copy of the
repository at that commit (so an editable install finds the tree each run puts there). The tag is a hash of everything that defines
the environment, so an image is built once and reused by every commit and group of that environment; it is
labelled (codewalk.runtime.labels). Builds run on the daemon's default network (CODEWALK_BUILD_NETWORK=host
for the host's, where the daemon has no bridge), with the host's CA bundle and pip settings (an image's own
CA bundle may not trust the path this machine reaches PyPI by). A build or pull that fails is an InfraError
with the end of its log: the group is an error, never "unsolved".

Runs. Each test run gets a new container of the image: no network, memory, pids and CPU limits, no new
privileges, removed when the run ends (Ctrl-C too: codewalk.runtime tracks it). Containers are started ahead of
time, one per image and memory limit in each process (`_Spares`), and removed in the background
(runtime.forget_later): a group's tests do not wait for the daemon to start or remove one. A container started
ahead was never used; it is as fresh as one started on demand. The tree (x_G as a one-commit
repository, the edit under test uncommitted: Worktree.snapshot) goes in as a tar, unpacked to /testbed
owned by the test user (uid 1000); the harness (channel.py) goes to /cw-harness, owned by root, and runs as
root; it starts the tests as uid 1000, so they cannot write the harness, its configuration or its output.
A container's own process is codewalk's agent (harness/agent.py, root): a run is a request on its stdin
(the reset, the tar, then the harness forked from it), the harness's output comes back on its stdout. No
`docker exec` a run (a runc start, about 55 ms) and no interpreter start. An image needs sh, tar and a
Python (3.6 or later). A wall-clock timeout kills the container.
"""

from __future__ import annotations

import io
import json
import os
import re
import secrets
import struct
import tarfile
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from codewalk import paths, runtime
from codewalk.errors import InfraError
from codewalk.runtime import meter
from codewalk.runtime.locks import locked

from . import channel
from .git import digest, git, network_env
from .runs import EnvSpec, Image

BASE = "CODEWALK_DOCKER_BASE"
DEFAULT_BASE = "python:{python}-slim"
TREE, HARNESS, HOME, VENV = "/testbed", "/cw-harness", "/tmp/cw-home", "/opt/cw-env"
USER = 1000
# Where an image's test interpreter may be: codewalk's own environment, SWE-bench's and SWE-rebench's conda one.
PYTHONS = (f"{VENV}/bin/python", "/opt/miniconda3/envs/testbed/bin/python", "/opt/conda/envs/testbed/bin/python",
           "/usr/local/bin/python3", "/usr/bin/python3")
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
# The network image builds run on: the daemon's default unless this names one ("host" where the daemon has
# no bridge, as CI's does: .ci/docker.sh exports CODEWALK_BUILD_NETWORK=host then). "default" is the default.
BUILD_NETWORK = "CODEWALK_BUILD_NETWORK"
# Between two runs in one container (root): every process of the test user killed, then what runs leave
# behind removed. No procps in a minimal image: the owners are read from /proc.
RESET = ("for p in /proc/[0-9]*; do [ \"$(stat -c %u $p 2>/dev/null)\" = {uid} ] && kill -9 ${{p#/proc/}} 2>/dev/null; "
         f"done; rm -rf {TREE} {HARNESS} /tmp/* /tmp/.[!.]* /dev/shm/*; true")


def image_for(v: Mapping[str, Any], spec: EnvSpec, mirror: Path, no_pull: bool = False) -> Image:
    """The image the task's tests run in: the row's, or one built from its install_config."""
    images = _here().images
    named = v.get("image_name") or ""
    if named:
        if named not in images:
            _ensure_pulled(named, no_pull)
            images[named] = Image(named, spec.python, "row")  # its own /testbed goes before each run
        return images[named]
    setup = v.get("environment_setup_commit") or v["base_commit"]
    key = _key(v["repo"], spec, mirror, setup)
    meter.reuse("repair: image", key in images)
    if key not in images:
        tag = image_tag(v["repo"], key)
        with locked(paths.cache("repair") / "images" / f"{key}.lock"):
            if not _present(tag):
                _build(tag, base_image(spec), spec, mirror, setup, v["repo"], no_pull)
        images[key] = Image(tag, spec.python, "built", _notes(spec, base_image(spec)), tree=bool(spec.install))
    return images[key]


def _key(repo: str, spec: EnvSpec, mirror: Path, setup: str) -> str:
    """What defines a built environment: repository, install_config, base image, the requirements files it
    reads, and the setup commit when the install command runs in a copy of the repository."""
    files = _context_files(spec, mirror, setup)
    return digest(repo, json.dumps(spec.identity(), sort_keys=True), base_image(spec),
                  *(f"{name}\0{digest(text)}" for name, text in sorted(files.items())),
                  setup if spec.install else "")


def base_image(spec: EnvSpec) -> str:
    return (os.environ.get(BASE) or DEFAULT_BASE).replace("{python}", spec.python or "3")


def image_tag(repo: str, key: str) -> str:
    slug = re.sub(r"[^a-z0-9_.-]+", "-", repo.lower().replace("/", "__")).strip("-.") or "repo"
    return f"codewalk-env/{slug}:{key}"


def built_image_name(v: Mapping[str, Any], mirror: Path) -> str:
    """The image name a task's row gets when the row named none: the tag codewalk builds for it."""
    spec = EnvSpec.from_config(v.get("install_config"))
    return image_tag(v["repo"], _key(v["repo"], spec, mirror, v.get("environment_setup_commit") or v["base_commit"]))


def _notes(spec: EnvSpec, base: str) -> tuple[str, ...]:
    notes = []
    if spec.packages == "environment.yml":
        notes.append("conda environment files are not supported: environment.yml was not installed")
    if spec.python and "{python}" not in (os.environ.get(BASE) or DEFAULT_BASE):
        notes.append(f"the base image {base} is fixed: python {spec.python} is used if it has it, else its python3")
    return tuple(notes)


def _present(tag: str) -> bool:
    from docker.errors import ImageNotFound

    try:
        runtime.client().images.get(tag)
        return True
    except ImageNotFound:
        return False


def _ensure_pulled(tag: str, no_pull: bool) -> None:
    from docker.errors import DockerException

    if _present(tag):
        return
    if no_pull:
        raise InfraError(f"the image {tag} is not here and --no-pull forbids pulling it")
    try:
        runtime.client().images.pull(tag)
    except DockerException as e:
        raise InfraError(f"cannot pull the image {tag}: {str(e).strip()[-500:]}") from None


def _context_files(spec: EnvSpec, mirror: Path, commit: str) -> dict[str, str]:
    """The repository files the environment is built from: its requirements files at the setup commit."""
    if spec.packages != "requirements.txt":
        return {}
    files = {}
    for path in spec.reqs_path or ("requirements.txt",):
        done = git(["cat-file", "blob", f"{commit}:{path}"], mirror, check=False)
        if done.returncode == 0:
            files[path] = done.stdout
    return files


def _build(tag: str, base: str, spec: EnvSpec, mirror: Path, setup: str, repo: str, no_pull: bool) -> None:
    """Build the environment image on the base (pulled if absent, unless no_pull); InfraError with the
    build log's end when it fails."""
    from docker.errors import BuildError, DockerException

    files = _context_files(spec, mirror, setup)
    if not _present(base):
        _ensure_pulled(base, no_pull)
    lines = [f"FROM {base}", "USER root"]
    context: dict[str, bytes] = {}
    ca = os.environ.get("SSL_CERT_FILE") or os.environ.get("PIP_CERT") or CA_BUNDLE
    if Path(ca).is_file():  # the host's trust store: pip in the image reaches PyPI the way the host does
        context["cw-ca.crt"] = Path(ca).read_bytes()
        lines += ["COPY cw-ca.crt /usr/local/share/cw-ca.crt",
                  "ENV PIP_CERT=/usr/local/share/cw-ca.crt SSL_CERT_FILE=/usr/local/share/cw-ca.crt "
                  "REQUESTS_CA_BUNDLE=/usr/local/share/cw-ca.crt"]
    settings = {k: v for k, v in network_env().items()
                if k not in ("PIP_CERT", "SSL_CERT_FILE", "SSL_CERT_DIR", "GIT_SSL_CAINFO", "PIP_CONFIG_FILE")
                and not (k.startswith("PIP_") and v.startswith("/"))}  # host paths (find-links) mean nothing there
    lines += [f"ARG {k}" for k in sorted(settings)]
    lines += ["ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_ROOT_USER_ACTION=ignore"]
    lines += [f"RUN {json.dumps(['/bin/sh', '-c', step])}" for step in spec.pre_install]
    python = f"python{spec.python}" if spec.python else "python3"
    lines.append(f"RUN {json.dumps(['/bin/sh', '-c', f'$(command -v {python} || command -v python3) -m venv {VENV}'])}")
    wanted = ["pytest", *spec.pip_packages]
    for name, text in files.items():
        context[f"reqs/{name}"] = text.encode()
        wanted += ["-r", f"/cw-build/reqs/{name}"]
    if files:
        lines.append("COPY reqs /cw-build/reqs")
    if spec.packages not in ("", "requirements.txt", "environment.yml"):
        wanted += spec.packages.split()
    lines.append(f"RUN {json.dumps([f'{VENV}/bin/python', '-m', 'pip', 'install', '--quiet', *wanted])}")
    tree = None
    if spec.install:  # run where every test run's tree will be, in a copy of the repository at the setup commit
        tree = Path(paths.cache("repair")) / "images" / f"{tag.rsplit(':', 1)[1]}.tar"
        git(["archive", "--format=tar", "--prefix=testbed/", "-o", str(tree), setup], mirror)
        lines += [f"COPY testbed {TREE}", f"WORKDIR {TREE}",
                  f"RUN {json.dumps(['/bin/sh', '-c', f'. {VENV}/bin/activate && {spec.install}'])}"]
    context["Dockerfile"] = ("\n".join(lines) + "\n").encode()
    labels = runtime.labels("environment", **{"codewalk.repo": repo, "codewalk.base": base,
                                              "codewalk.install_config": json.dumps(spec.identity(), sort_keys=True)})
    log: list[str] = []
    try:
        stream = runtime.client().api.build(fileobj=_tar(context, tree), custom_context=True, tag=tag, labels=labels,
                                            network_mode=build_network(), rm=True, forcerm=True, buildargs=settings,
                                            decode=True)
        for chunk in stream:
            log.append(chunk.get("stream") or chunk.get("status") or "")
            if "error" in chunk:
                raise BuildError(chunk["error"], log)
    except (BuildError, DockerException) as e:
        tail = "".join(log).strip()[-1500:]
        network = build_network() or f"the daemon's default ({BUILD_NETWORK}=host for the host's)"
        raise InfraError(f"could not build the environment image {tag} on {base} (network: {network}): "
                         f"{str(e).strip()[-300:]}; build log ends: {tail}") from None
    finally:
        if tree:
            tree.unlink(missing_ok=True)


def build_network() -> str | None:
    """CODEWALK_BUILD_NETWORK, None (the daemon's default network) when unset or "default"."""
    value = os.environ.get(BUILD_NETWORK, "").strip()
    return None if value in ("", "default") else value


def _tar(files: dict[str, bytes], tree: Path | None = None) -> io.BytesIO:
    """A build context: the files, and the members of a tree archive (git archive) as they are."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as tar:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(content), 0o644
            tar.addfile(info, io.BytesIO(content))
        if tree:
            with tarfile.open(tree) as source:
                for member in source:
                    tar.addfile(member, source.extractfile(member) if member.isfile() else None)
    data.seek(0)
    return data


def run_in_container(image: Image, work: Path, harness: Path, token: str, command: str, timeout: float,
                     memory_mb: int, session: Session | None = None,
                     guard: Mapping[str, list[str]] | None = None) -> channel.Report:
    """The harness in a container of image: the tree at /testbed, the harness at /cw-harness. The container
    is a fresh one, or the session's (a group's checks share one; it is reset before each further run)."""
    if session is None:
        with Session() as own:
            return own.run(image, work, harness, token, command, timeout, memory_mb, guard)
    return session.run(image, work, harness, token, command, timeout, memory_mb, guard)


class Session:
    """One container for the test runs of one group's checks (1) and (2), removed when the block ends (Ctrl-C
    too). Before a further run the container is reset: every process of the test user killed, its tree,
    the harness and the test user's home removed. A grade never shares one (Session per grade)."""

    def __init__(self) -> None:
        self.container: Any = None
        self.agent: _Agent | None = None
        self.name = ""
        self.image: Image | None = None
        self.runs = 0

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.name:  # created, or being created when Ctrl-C came
            mark = time.monotonic()
            if self.agent:
                self.agent.close()
            runtime.forget_later(self.name)
            meter.overhead("docker: teardown", time.monotonic() - mark)
            self.container, self.agent, self.name = None, None, ""

    def run(self, image: Image, work: Path, harness: Path, token: str, command: str, timeout: float,
            memory_mb: int, guard: Mapping[str, list[str]] | None = None) -> channel.Report:
        from docker.errors import DockerException

        paths_ = [HARNESS, TREE] + ([f"{TREE}/src"] if (work / "src").is_dir() else [])
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "PYTHONPATH": ":".join(paths_), "HOME": HOME,
               "TMPDIR": HOME, "USER": "cwtest", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
               "PYTHONNOUSERSITE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        argv = ["bash", "-c", command.replace("{harness}", HARNESS)]
        guard = guard or {}
        config = channel.config(token, argv, TREE, env, timeout, uid=image.user, memory_mb=memory_mb,
                                changed=guard.get("changed", ()), protected=guard.get("protected", ())).encode()
        mark = time.monotonic()
        try:
            if self.container is None:
                self.name, self.container, self.agent = _here().spares.take(image, memory_mb)
                self.image = image
                meter.overhead("docker: start", time.monotonic() - mark)
                reset = ""
            else:
                if self.image != image:
                    raise ValueError(f"a session of {self.image} asked to run {image.tag}")
                reset = RESET.format(uid=image.user)
            asked, mark = time.time(), time.monotonic()
            assert self.agent is not None
            code, out = self.agent.run(self.container, reset, _archive(work, harness, config, image.user),
                                       timeout + 60)
            ended = time.monotonic()
        except DockerException as e:
            raise InfraError(f"the container of {image.tag} failed: {str(e).strip()[-300:]}") from None
        self.runs += 1
        if code is None:
            raise InfraError(f"the tests timed out after {timeout:g}s (the container was killed)")
        report = channel.read(out, token, code)
        # Until the harness started: the archive made and sent, the reset, the unpacking (the container's
        # cost); from then on the tests' run, as on the host.
        copy = min(max(report.began - asked, 0.0), ended - mark) if report.began else 0.0
        meter.overhead("docker: copy", copy)
        meter.process("pytest (in a container)", mark + copy, ended)
        return report


def hardened(memory_mb: int, labels: Mapping[str, str] | None = None, kind: str = "agent") -> dict[str, Any]:
    """What every container codewalk starts gets (a test run's, the repair agent's), as containers.create's
    keyword arguments: no new privileges, a memory limit with no swap beyond it, a process limit, at most two
    CPUs, and the labels that name its owner (runtime.container_labels), with `labels` added."""
    return {"mem_limit": f"{memory_mb}m", "memswap_limit": f"{memory_mb}m", "pids_limit": 512,
            "nano_cpus": int(min(2, os.cpu_count() or 1) * 1e9), "security_opt": ["no-new-privileges"],
            "labels": runtime.container_labels(kind, **(labels or {}))}


# The container's own process: the first Python of PYTHONS runs the agent (harness/agent.py, given as $1).
BOOT = " ".join(f'[ -x {p} ] && exec {p} -I -c "$1";' for p in PYTHONS) + " echo 'no python in the image' >&2; exit 127"


def _started(image: Image, memory_mb: int) -> tuple[str, Any, _Agent]:
    """A new container of image, its agent running and attached, ready for a run: an image's own checkout
    removed."""
    from docker.errors import DockerException

    name = runtime.container_name("run")
    try:
        api = runtime.client().api
        # detach=False with stdin_open is the API's StdinOnce: when this process's attach stream closes (its end,
        # kill -9 too) the agent reads the end of its input and exits, and the container stops
        container = runtime.client().containers.create(
            image.tag, name=name, entrypoint=["/bin/sh", "-c", BOOT, "codewalk-agent",
                                              (channel.HARNESS / "agent.py").read_text(encoding="utf-8")],
            command=[], stdin_open=True, detach=False, network_mode="none", user="root", working_dir="/",
            **hardened(memory_mb, kind="run"), init=True)  # init: orphans are reaped
        agent = _Agent(api.attach_socket(container.id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}))
        container.start()
        if image.tree:  # the image's own checkout (and its history) goes: the run's tree replaces it
            _exec(container, ["rm", "-rf", TREE], 120)
    except DockerException as e:
        raise InfraError(f"cannot create a container of {image.tag}: {str(e).strip()[-300:]}") from None
    return name, container, agent


class _Agent:
    """The host's end of a container's agent (harness/agent.py): requests written to its stdin, its output
    read from the attach stream (docker's frames: 8 bytes, the stream and the size, then the data)."""

    def __init__(self, attached: Any) -> None:
        self.attached = attached
        self.sock = getattr(attached, "_sock", attached)  # the raw socket under the SDK's reader

    def run(self, container: Any, reset: str, files: bytes, timeout: float) -> tuple[int | None, str]:
        """One run: (the harness's exit code, what it printed); (None, "") when it outlived timeout (the
        container is killed)."""
        end = secrets.token_hex(8)
        header = json.dumps({"reset": reset, "tar": len(files), "end": end, "harness": f"{HARNESS}/{channel.RUNNER}",
                             "config": f"{HARNESS}/config.json"}).encode()
        deadline = time.monotonic() + timeout
        self.sock.settimeout(timeout)
        self.sock.sendall(struct.pack(">Q", len(header)) + header + files)
        mark = re.compile(rb"\n" + end.encode() + rb" (\d+)\n")
        out = b""
        try:
            while not (found := mark.search(out)):
                size = struct.unpack(">BxxxL", self._exactly(8, deadline))[1]
                out += self._exactly(size, deadline)
        except TimeoutError:
            container.kill()
            return None, ""
        except EOFError:  # the agent is gone (no Python in the image, killed): what the container said
            logs = container.logs(stdout=True, stderr=True, tail=20)
            return 127, (out + b"\n" + logs).decode("utf-8", "replace")
        return int(found.group(1)), out[:found.start()].decode("utf-8", "replace")

    def _exactly(self, n: int, deadline: float) -> bytes:
        data = b""
        while len(data) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            self.sock.settimeout(left)
            chunk = self.sock.recv(n - len(data))  # TimeoutError past the deadline
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def close(self) -> None:
        try:
            self.attached.close()
        except OSError:
            pass


class _Spares:
    """Containers started ahead of time, one per image and memory limit: a session takes the one ready (its
    start overlapped the last group's tests) and the next starts behind it. runtime.release drops them."""

    def __init__(self) -> None:
        self.ready: dict[tuple[str, int], Future] = {}
        self.lock = threading.Lock()
        self.starter: ThreadPoolExecutor | None = None
        self.hooked = False

    def take(self, image: Image, memory_mb: int) -> tuple[str, Any, _Agent]:
        key = (image.tag, memory_mb)
        with self.lock:
            ahead = self.ready.pop(key, None)
        self.prime(image, memory_mb)
        meter.reuse("repair: container started ahead", ahead is not None)
        return ahead.result() if ahead else _started(image, memory_mb)

    def prime(self, image: Image, memory_mb: int) -> None:
        """Start one of image (unless one is ready or starting): the first session of a process, told the
        image while its tree is still being prepared, waits less."""
        key = (image.tag, memory_mb)
        with self.lock:
            if key in self.ready:
                return
            if not self.hooked:  # the first since the last release: drop what is left at the next one
                runtime.on_release(self.drop)
                self.hooked = True
            if self.starter is None:
                self.starter = ThreadPoolExecutor(1, thread_name_prefix="codewalk-spare")
            self.ready[key] = self.starter.submit(_started, image, memory_mb)

    def drop(self) -> None:
        with self.lock:
            ready, self.ready, self.hooked = list(self.ready.values()), {}, False
        for future in ready:
            try:
                name, _, agent = future.result()
            except InfraError:  # never started; its name, if it got one, is removed by the release
                continue
            agent.close()
            runtime.forget(name)


class _Here:
    """What this module keeps in one process, owned by the docker runtime's state for the process
    (DockerRuntime.kept): a forked worker starts with none of its parent's images, threads or containers."""

    def __init__(self) -> None:
        self.images: dict[str, Image] = {}  # environment key (or a row's image name) -> image known to be present
        self.spares = _Spares()


def _here() -> _Here:
    return runtime.DockerRuntime().kept(_Here)


def forget_images() -> None:
    """Forget which images this process knows to be present (a test removed one, as a new process would)."""
    _here().images.clear()


def prime(image: Image, memory_mb: int) -> None:
    _here().spares.prime(image, memory_mb)


def _exec(container: Any, cmd: list[str], timeout: float) -> tuple[int | None, str]:
    """Run cmd in the container as root; (None, output) when it outlived timeout (the container is killed)."""
    result: dict[str, Any] = {}

    def target() -> None:
        try:
            result["done"] = container.exec_run(cmd, user="root", demux=False)
        except Exception as e:  # noqa: BLE001 - re-raised in the caller's thread
            result["error"] = e

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        container.kill()
        worker.join(30)
        return None, ""
    if "error" in result:
        raise result["error"]
    code, output = result["done"]
    return code, (output or b"").decode("utf-8", "replace")


def _archive(work: Path, harness: Path, config: bytes, user: int) -> bytes:
    """A tar of the tree (owned by the test user), the harness and its configuration (root's, 0600), and
    the test user's home."""
    data = io.BytesIO()

    def owned(uid: int) -> Any:
        def set_owner(info: tarfile.TarInfo) -> tarfile.TarInfo:
            info.uid = info.gid = uid
            info.uname = info.gname = ""
            if uid == 0:
                info.mode = 0o755 if info.isdir() else 0o644
            return info
        return set_owner

    with tarfile.open(fileobj=data, mode="w") as tar:
        tar.add(work, arcname=TREE.lstrip("/"), filter=owned(user))
        tar.add(harness, arcname=HARNESS.lstrip("/"), filter=owned(0))
        info = tarfile.TarInfo(f"{HARNESS.lstrip('/')}/config.json")
        info.size, info.mode = len(config), 0o600
        tar.addfile(info, io.BytesIO(config))
        for part in ("tmp", HOME.lstrip("/")):
            info = tarfile.TarInfo(part)
            info.type, info.mode = tarfile.DIRTYPE, 0o1777 if part == "tmp" else 0o700
            info.uid = info.gid = 0 if part == "tmp" else user
            tar.addfile(info)
    return data.getvalue()
