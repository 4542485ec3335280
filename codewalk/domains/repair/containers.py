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

Runs (`Session.run`, one group's checks sharing a container): create, put the tree in, run, read the outcome,
remove. Create: a new container of the image (`start`): no network, memory, pids and CPU limits, no new
privileges (`hardened`), labelled with its owner process (codewalk.runtime tracks it: Ctrl-C and a killed
owner's next run remove it). Put the tree in: a tar of x_G as a one-commit repository, the edit under test
uncommitted (Worktree.snapshot), unpacked to /testbed owned by the test user (uid 1000), and the harness
(channel.py) at /cw-harness, owned by root. Run: the harness, as root, starts the tests as uid 1000, so they
cannot write the harness, its configuration or its output; a wall-clock timeout kills the container. Read
the outcome: the harness's signed report (channel.read). Remove: in the background (runtime.forget_later),
off the next run's path. A further run of the session first resets the container (RESET).

Two things make this cheap, kept in warm.py because bench/admission.py shows they pay for themselves:
containers are started ahead (`warm.Spares`, one per image and memory limit in each process), and a
container's own process is codewalk's agent (harness/agent.py), so putting the tree in and running the
harness is one request on its stdin (`warm.Agent`), with no `docker exec` (a runc start, about 55 ms) and no
interpreter start. An image needs sh, tar and a Python (3.6 or later).
"""

from __future__ import annotations

import io
import json
import os
import re
import tarfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from codewalk import paths, runtime
from codewalk.errors import InfraError
from codewalk.runtime import meter
from codewalk.runtime.locks import locked

from . import channel
from .git import digest, git, network_env
from .guard import walk
from .runs import EnvSpec, Image
from .warm import Agent, Spares, Started

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
    try:
        build_image(build_context(context, tree), tag, labels, f"the environment image {tag} on {base}", buildargs=settings)
    finally:
        if tree:
            tree.unlink(missing_ok=True)


def build_image(context: io.BytesIO, tag: str, labels: dict[str, str], what: str,
                buildargs: dict[str, str] | None = None) -> None:
    """Build `tag` from a tar build context on the build network; a failure is an InfraError naming `what`,
    the network and the end of the build log."""
    from docker.errors import BuildError, DockerException

    log: list[str] = []
    try:
        stream = runtime.client().api.build(fileobj=context, custom_context=True, tag=tag, labels=labels,
                                            network_mode=build_network(), rm=True, forcerm=True, buildargs=buildargs,
                                            decode=True)
        for chunk in stream:
            log.append(chunk.get("stream") or chunk.get("status") or "")
            if "error" in chunk:
                raise BuildError(chunk["error"], log)
    except (BuildError, DockerException) as e:
        tail = "".join(log).strip()[-1500:]
        network = build_network() or f"the daemon's default ({BUILD_NETWORK}=host for the host's)"
        raise InfraError(f"could not build {what} (network: {network}): {str(e).strip()[-300:]}; "
                         f"build log ends: {tail}") from None


def build_network() -> str | None:
    """CODEWALK_BUILD_NETWORK, None (the daemon's default network) when unset or "default"."""
    value = os.environ.get(BUILD_NETWORK, "").strip()
    return None if value in ("", "default") else value


def build_context(files: dict[str, bytes], tree: Path | None = None) -> io.BytesIO:
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


# -- runs: create, put the tree in, run, read the outcome, remove -----------------------------------------------
def hardened(memory_mb: int, labels: Mapping[str, str] | None = None, kind: str = "agent") -> dict[str, Any]:
    """What every container codewalk starts gets (a test run's, the repair agent's), as containers.create's
    keyword arguments: no new privileges, a memory limit with no swap beyond it, a process limit, at most two
    CPUs, and the labels that name its owner (runtime.container_labels), with `labels` added."""
    return {"mem_limit": f"{memory_mb}m", "memswap_limit": f"{memory_mb}m", "pids_limit": 512,
            "nano_cpus": int(min(2, os.cpu_count() or 1) * 1e9), "security_opt": ["no-new-privileges"],
            "labels": runtime.container_labels(kind, **(labels or {}))}


# The container's own process: the first Python of PYTHONS runs the agent (harness/agent.py, given as $1).
BOOT = " ".join(f'[ -x {p} ] && exec {p} -I -c "$1";' for p in PYTHONS) + " echo 'no python in the image' >&2; exit 127"


def start(image: Image, memory_mb: int) -> Started:
    """A new container of image (hardened, no network), its agent running and attached, ready for a run: an
    image's own checkout removed."""
    from docker.errors import DockerException

    name = runtime.container_name("run")
    try:
        client = runtime.client()
        # detach=False with stdin_open is the API's StdinOnce: when this process's attach stream closes (its end,
        # kill -9 too) the agent reads the end of its input and exits, and the container stops
        container = client.containers.create(
            image.tag, name=name, entrypoint=["/bin/sh", "-c", BOOT, "codewalk-agent",
                                              (channel.HARNESS / "agent.py").read_text(encoding="utf-8")],
            command=[], stdin_open=True, detach=False, network_mode="none", user="root", working_dir="/",
            **hardened(memory_mb, kind="run"), init=True)  # init: orphans are reaped
        agent = Agent(client.api.attach_socket(container.id, params={"stdin": 1, "stdout": 1, "stderr": 1,
                                                                     "stream": 1}))
        container.start()
        if image.tree:  # the image's own checkout (and its history) goes: the run's tree replaces it
            _exec(container, ["rm", "-rf", TREE], 120)
    except DockerException as e:
        raise InfraError(f"cannot create a container of {image.tag}: {str(e).strip()[-300:]}") from None
    return Started(name, container, agent)


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
        self.started: Started | None = None
        self.image: Image | None = None
        self.runs = 0

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        """Remove: the container goes in the background (runtime.forget_later), off the next run's path."""
        if self.started:
            mark = time.monotonic()
            self.started.agent.close()
            runtime.forget_later(self.started.name)
            meter.overhead("docker: teardown", time.monotonic() - mark)
            self.started = None

    def run(self, image: Image, work: Path, harness: Path, token: str, command: str, timeout: float,
            memory_mb: int, guard: Mapping[str, list[str]] | None = None) -> channel.Report:
        """One run: create (the session's first: a container started ahead), put the tree in and run (one
        request to the container's agent: reset, unpack, the harness), read the outcome (channel.read)."""
        from docker.errors import DockerException

        config = _config(image, work, token, command, timeout, memory_mb, guard or {})
        mark = time.monotonic()
        try:
            reset = ""
            if self.started is None:  # create
                self.started, self.image = _here().spares.take(image, memory_mb), image
                meter.overhead("docker: start", time.monotonic() - mark)
            elif self.image != image:
                raise ValueError(f"a session of {self.image} asked to run {image.tag}")
            else:
                reset = RESET.format(uid=image.user)
            asked, mark = time.time(), time.monotonic()
            code, out = self.started.agent.run(self.started.container, reset,  # put the tree in, run
                                               _archive(work, harness, config, image.user), timeout + 60,
                                               f"{HARNESS}/{channel.RUNNER}", f"{HARNESS}/config.json")
            ended = time.monotonic()
        except DockerException as e:
            raise InfraError(f"the container of {image.tag} failed: {str(e).strip()[-300:]}") from None
        self.runs += 1
        if code is None:
            raise InfraError(f"the tests timed out after {timeout:g}s (the container was killed)")
        report = channel.read(out, token, code)  # read the outcome
        # Until the harness started: the archive made and sent, the reset, the unpacking (the container's
        # cost); from then on the tests' run, as on the host.
        copy = min(max(report.began - asked, 0.0), ended - mark) if report.began else 0.0
        meter.overhead("docker: copy", copy)
        meter.process("pytest (in a container)", mark + copy, ended)
        return report


def _config(image: Image, work: Path, token: str, command: str, timeout: float, memory_mb: int,
            guard: Mapping[str, Sequence[str]]) -> bytes:
    """The harness's configuration for a run in a container: the command, the tests' environment, the
    test user, the limits and the guard's files (channel.config)."""
    paths_ = [HARNESS, TREE] + ([f"{TREE}/src"] if (work / "src").is_dir() else [])
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "PYTHONPATH": ":".join(paths_), "HOME": HOME,
           "TMPDIR": HOME, "USER": "cwtest", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONNOUSERSITE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    argv = ["bash", "-c", command.replace("{harness}", HARNESS)]
    return channel.config(token, argv, TREE, env, timeout, uid=image.user, memory_mb=memory_mb,
                          changed=guard.get("changed", ()), protected=guard.get("protected", ()),
                          data=guard.get("data", ()), tree=guard.get("tree", ())).encode()


# -- what this module keeps in a process -------------------------------------------------------------------------
class _Here:
    """What this module keeps in one process, owned by the docker runtime's state for the process
    (DockerRuntime.kept): a forked worker starts with none of its parent's images, threads or containers."""

    def __init__(self) -> None:
        self.images: dict[str, Image] = {}  # environment key (or a row's image name) -> image known to be present
        self.spares = Spares(start)


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
        # entry by entry, top-down (tarfile.add recurses once per folder level: a chain of 1,500 folders in a diff
        # raised RecursionError in the grader; round 12b), links stored as links
        for top, dirs, files in walk(work):
            inside = Path(top).relative_to(work)
            arc = TREE.lstrip("/") + ("" if inside == Path(".") else "/" + inside.as_posix())
            tar.add(top, arcname=arc, recursive=False, filter=owned(user))
            for name in [*files, *(d for d in dirs if os.path.islink(os.path.join(top, d)))]:
                tar.add(os.path.join(top, name), arcname=arc + "/" + name, recursive=False, filter=owned(user))
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
