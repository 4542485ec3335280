"""Start, stop and inspect the local Neo4j server behind `cw db start|stop|status`.

Two ways to run Neo4j 5.26 Community on 127.0.0.1, with authentication on (unless asked otherwise):

* ``docker``: when a Docker engine answers (``docker.from_env().ping()``), ``docker compose`` runs
  ``docker/docker-compose.yml`` of the repository checkout.
* ``java-harness``: otherwise the small Java main in ``neo4j-launcher/`` (neo4j-harness 5.26 plus the
  Neo4j Browser jar) is built with Maven once and started as a detached ``java`` process.

Everything about a running server lives in ``home``: ``neo4j.pid``, ``neo4j.json`` (the state),
``neo4j.log`` (the launcher's stdout/stderr), ``neo4j-work/`` (the harness' working folder),
``neo4j.password`` (the password of the user ``neo4j``, readable by this user only: made once, then
set on the server at every start) and, with ``persist=True``, ``neo4j-data/`` (the store that survives
restarts). ``credentials`` gives codewalk's commands the password of the server they connect to; the
HTTP API answers only its own origin (CORS), so a web page of another site cannot query it.

Only the standard library is needed to run a server; the ``docker`` package is imported lazily and
optional. ``import_database`` is the offline import behind `cw db import` (codewalk.loading.db_import).
Its command line is `cw db start|stop|status|import` (start, stop and status are what ``.ci/neo4j.sh`` runs).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from codewalk.errors import ServerError

__all__ = [
    "ServerInfo",
    "build_launcher",
    "credentials",
    "docker_available",
    "find_launcher_dir",
    "import_database",
    "port_in_use",
    "start",
    "status",
    "stop",
]

HOST = "127.0.0.1"
PID_FILE = "neo4j.pid"
STATE_FILE = "neo4j.json"
LOG_FILE = "neo4j.log"
WORK_DIR = "neo4j-work"
DATA_DIR = "neo4j-data"
IMPORT_DIR = "neo4j-import"  # the importer's NEO4J_HOME (its conf/) and report
PASSWORD_FILE = "neo4j.password"
USER = "neo4j"
READY_MARK = "NEO4J_READY"
FAILED_MARK = "NEO4J_FAILED"
MAIN_CLASS = "codewalk.Neo4jLauncher"
BUILD_STAMP = "codewalk-build.stamp"  # in neo4j-launcher/target/, written after a successful build
STOP_GRACE_S = 30.0
LOG_TAIL_LINES = 30

# Environment knobs (all optional):
#   CODEWALK_NEO4J_BACKEND   auto | java | docker   (default auto: docker when an engine answers)
#   CODEWALK_NEO4J_LAUNCHER  path of the neo4j-launcher/ folder (default: <repo>/neo4j-launcher)
#   CODEWALK_NEO4J_HEAP      -Xmx of the java process (default 1g)
#   CODEWALK_NEO4J_JAVA_OPTS extra JVM options, split on whitespace
ENV_BACKEND = "CODEWALK_NEO4J_BACKEND"
ENV_LAUNCHER = "CODEWALK_NEO4J_LAUNCHER"
ENV_HEAP = "CODEWALK_NEO4J_HEAP"
ENV_JAVA_OPTS = "CODEWALK_NEO4J_JAVA_OPTS"

MVN_ARGS = [
    "-B",
    "-q",
    "-DskipTests",
    "package",
    "dependency:copy-dependencies",
    "-DincludeScope=runtime",
    "-DoutputDirectory=target/lib",
]
# Options the shipped neo4j.conf adds for the server JVM ("Open modules for neo4j to allow internal
# access"). Not -XX:+TrustFinalNonStaticFields: Neo4j says not to use it in embedded mode.
JVM_OPENS = [
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
]
_RETRYABLE_MVN = re.compile(
    r"\b429\b|Too Many Requests|Could not transfer|Connection reset|timed out|"
    r"Remote host terminated|Premature end of Content-Length",
    re.IGNORECASE,
)
_HEX32 = re.compile(r"^[0-9a-f]{32}$")


@dataclass(frozen=True)
class ServerInfo:
    """What is known about the local server. ``running`` is the state at the time of the call."""

    kind: str  # "java-harness" | "docker"
    bolt_uri: str
    http_uri: str
    browser_url: str
    persist: bool
    pid: int | None
    log_path: Path | None
    running: bool
    auth: bool = True  # the user neo4j with the password in password_file; False: no authentication
    password_file: Path | None = None


# --------------------------------------------------------------------------------------------- public
def browser_url(http_uri: str, bolt_uri: str, user: str | None = None) -> str:
    """Neo4j Browser's address for this server: its Bolt address with the user filled in and the password
    asked for (a password never goes in an address), or with no authentication (`cw db start --no-auth`)."""
    if user is None:
        return f"{http_uri}/browser/?dbms={bolt_uri}&preselectAuthMethod=NO_AUTH"
    scheme, _, rest = bolt_uri.partition("://")
    return f"{http_uri}/browser/?dbms={scheme}://{user}@{rest}&preselectAuthMethod=BASIC"


def credentials(home: Path) -> tuple[str, str] | None:
    """(user, password) of the server recorded in ``home``; None when it runs without authentication or
    none is recorded."""
    state = _read_state(Path(home).expanduser().resolve())
    if state is None or not state.get("auth"):
        return None
    return USER, _read_password(Path(state["password_file"]))


def local_credentials(uri: str) -> tuple[str, str] | None:
    """The credentials for ``uri`` when it is the address of the server `cw db start` runs (the one
    recorded in CODEWALK_NEO4J_HOME), so `cw --store bolt://127.0.0.1:7687 ...` needs no password
    typed; None for any other address."""
    from . import paths

    home = paths.neo4j_home().expanduser()
    try:
        state = _read_state(home.resolve())
    except ServerError:
        return None
    if state is None or _address(state["bolt_uri"]) != _address(uri):
        return None
    return credentials(home)


def _address(uri: str) -> tuple[str, int]:
    from urllib.parse import urlsplit

    parts = urlsplit(uri)
    host = (parts.hostname or "").lower()
    return ("127.0.0.1" if host in ("localhost", "::1") else host), parts.port or 7687


def _password(home: Path) -> Path:
    """The password file of ``home``: made (mode 0600, a random password) when absent; made 0600 when it is
    readable by others."""
    path = home / PASSWORD_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        if path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
        _read_password(path)
        return path
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_urlsafe(24) + "\n")
    return path


def _read_password(path: Path) -> str:
    try:
        password = (path.read_text().strip().splitlines() or [""])[0].strip()
    except OSError as e:
        raise ServerError(f"cannot read the Neo4j password file {path}: {e}") from e
    if len(password) < 8:
        raise ServerError(f"the Neo4j password in {path} is shorter than 8 characters: put a longer one on its "
                          "first line, or delete the file and `cw db start` makes one")
    return password


def start(
    home: Path,
    *,
    bolt_port: int = 7687,
    http_port: int = 7474,
    persist: bool = False,
    timeout: float = 180,
    auth: bool = True,
) -> ServerInfo:
    """Start Neo4j (Docker if an engine answers, else the Java harness) and wait until it is ready. With
    ``auth`` (the default) the user neo4j has the password of ``home``'s password file (made when absent).

    Raises ServerError when a server recorded in ``home`` is still running, when something already
    listens on the Bolt or HTTP port, when the build or the start fails (with the last log lines),
    or when it is not ready within ``timeout`` seconds (Maven build time not counted).
    """
    home = Path(home).expanduser().resolve()
    home.mkdir(parents=True, exist_ok=True)

    current = status(home)
    if current is not None:
        if current.running:
            raise ServerError(
                f"a Neo4j server started from {home} is already running ({current.kind}, "
                f"{current.bolt_uri}); run `cw db stop` first"
            )
        _forget(home, current)  # stale state of a server that died or was killed

    for name, port in (("Bolt", bolt_port), ("HTTP", http_port)):
        if port_in_use(port):
            raise ServerError(
                f"something already listens on {HOST}:{port} (the {name} port); stop it or choose "
                f"another port"
            )

    backend = os.environ.get(ENV_BACKEND, "auto").strip().lower() or "auto"
    if backend not in ("auto", "java", "docker"):
        raise ServerError(f"{ENV_BACKEND} must be auto, java or docker, not {backend!r}")
    compose = _compose_file()
    auto_docker = backend == "auto" and compose is not None and docker_available() and _compose_cmd()
    if backend == "docker" or auto_docker:
        if compose is None:
            raise ServerError(
                f"no docker/docker-compose.yml found near {Path(__file__).resolve().parent}; "
                "Docker mode needs the repository checkout"
            )
        return _start_docker(home, compose, bolt_port, http_port, persist, timeout, auth)
    return _start_java(home, bolt_port, http_port, persist, timeout, auth)


def stop(home: Path) -> bool:
    """Stop the server recorded in ``home``. True if a running server was stopped.

    Java: SIGTERM to the process group (the launcher's shutdown hook closes Neo4j cleanly), up to
    30 s, then SIGKILL. Docker: ``docker compose down`` (with ``-v`` unless persistent).
    The pid and state files are removed in every case.
    """
    home = Path(home).expanduser().resolve()
    state = _read_state(home)
    if state is None:
        pid = _read_pid(home)
        stopped = pid is not None and _is_our_java(pid) and _terminate(pid)
        _remove_files(home)
        return bool(stopped)

    if state.get("kind") == "docker":
        was_running = port_in_use(_port_of(state["bolt_uri"]))
        compose = Path(state.get("compose_file") or "")
        if compose.is_file():
            args = ["down", "-v"] if not state.get("persist") else ["down"]
            _compose(compose, state.get("project", "codewalk-neo4j"), args, env=_compose_env(state))
        _remove_files(home)
        return was_running

    pid = int(state.get("pid") or 0)
    stopped = bool(pid) and _is_our_java(pid) and _terminate(pid)
    _cleanup_work_dir(home)
    _remove_files(home)
    return stopped


def status(home: Path) -> ServerInfo | None:
    """The recorded server with ``running`` checked now (pid alive and Bolt answering); None if
    ``home`` records no server."""
    home = Path(home).expanduser().resolve()
    state = _read_state(home)
    if state is None:
        return None
    bolt_ok = port_in_use(_port_of(state["bolt_uri"]))
    if state.get("kind") == "docker":
        running = bolt_ok
    else:
        pid = int(state.get("pid") or 0)
        running = bool(pid) and _is_our_java(pid) and bolt_ok
    return _info(state, running)


def docker_available() -> bool:
    """True if the docker SDK is installed, an engine answers ping and the docker CLI is on PATH."""
    if shutil.which("docker") is None:
        return False
    try:
        import docker  # optional dependency
    except ImportError:
        return False
    try:
        client = docker.from_env(timeout=5)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # noqa: BLE001 - DockerException, refused connection, missing socket, ...
        return False


def find_launcher_dir() -> Path:
    """The ``neo4j-launcher/`` folder (with pom.xml) of the repository checkout."""
    tried: list[Path] = []
    env = os.environ.get(ENV_LAUNCHER)
    if env:
        tried.append(Path(env).expanduser())
    tried.append(Path(__file__).resolve().parent.parent / "neo4j-launcher")
    tried.append(Path.cwd() / "neo4j-launcher")
    for d in tried:
        if (d / "pom.xml").is_file():
            return d.resolve()
    where = ", ".join(str(d) for d in tried)
    raise ServerError(
        f"cannot find the Neo4j launcher (neo4j-launcher/pom.xml); looked in: {where}. "
        f"`cw db start` without Docker needs a checkout of the codewalk repository "
        f"(pip install -e .) or {ENV_LAUNCHER} pointing at its neo4j-launcher folder"
    )


def build_launcher(launcher_dir: Path | None = None, *, force: bool = False, attempts: int = 3) -> Path:
    """Build the launcher with Maven unless it is already built and up to date. Returns its dir.

    Retries when Maven Central answers HTTP 429 or a transfer fails.
    """
    d = Path(launcher_dir) if launcher_dir is not None else find_launcher_dir()
    if not force and _launcher_built(d):
        return d
    mvn = shutil.which("mvn")
    if mvn is None:
        raise ServerError("Maven (mvn) is not on PATH; it is needed once to build neo4j-launcher/")
    # copy-dependencies never deletes: after a version bump old jars would stay on the classpath.
    shutil.rmtree(d / "target" / "lib", ignore_errors=True)
    out = ""
    for attempt in range(1, attempts + 1):
        proc = subprocess.run(
            [mvn, *MVN_ARGS],
            check=False,
            cwd=d,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=1800,
        )
        out = proc.stdout or ""
        if proc.returncode == 0 and _launcher_built(d, check_fresh=False):
            (d / "target" / BUILD_STAMP).write_text(f"{time.time()}\n")
            return d
        if attempt < attempts and _RETRYABLE_MVN.search(out):
            time.sleep(15 * attempt)
            continue
        break
    tail = "\n".join(out.splitlines()[-LOG_TAIL_LINES:])
    raise ServerError(f"building the Neo4j launcher in {d} failed (mvn {' '.join(MVN_ARGS)}):\n{tail}")


def import_database(
    home: Path,
    nodes: list[tuple[str, Path]],
    relationships: list[tuple[str, Path]],
    *,
    array_delimiter: str = ";",
    multiline: bool = False,
    bolt_port: int | None = None,
    http_port: int | None = None,
    timeout: float = 180,
) -> ServerInfo:
    """Replace the database of the local server recorded in ``home`` by one that Neo4j's own importer
    (``neo4j-admin database import full``, from the launcher's classpath) builds from CSV files, then
    serve it: a running server is stopped first and started again on the same ports (or the ones
    given), its data kept (``persist``), as the importer can only write a persistent data folder.

    ``nodes`` and ``relationships`` are (label or type, file) pairs; each file has its header line
    (``id:ID``, ``:START_ID``, ``:END_ID``, ``name:type``). Any bad row fails the import
    (``--bad-tolerance=0``), and empty strings are no property (as the UNWIND upserts leave unset
    fields out). The caller creates constraints and indexes afterwards. Java harness only: a
    Docker server's data lives in a volume.
    """
    home = Path(home).expanduser().resolve()
    home.mkdir(parents=True, exist_ok=True)
    current = status(home)
    if current is not None and current.kind != "java-harness":
        raise ServerError(f"the server recorded in {home} runs in Docker; a bulk import needs the Java one "
                          f"({ENV_BACKEND}=java)")
    if current is not None:
        bolt_port = bolt_port or _port_of(current.bolt_uri)
        http_port = http_port or _port_of(current.http_uri)
        stop(home)
    launcher = build_launcher()
    conf = home / IMPORT_DIR / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    (conf / "neo4j.conf").write_text(f"server.directories.data={home / DATA_DIR}\n")
    report = home / IMPORT_DIR / "import.report"
    cmd = [
        _java(),
        f"-Xmx{os.environ.get(ENV_HEAP, '1g')}",
        *JVM_OPENS,
        "-cp", str(launcher / "target" / "lib" / "*"),
        "org.neo4j.cli.AdminTool", "database", "import", "full",
        *(f"--nodes={label}={path}" for label, path in nodes),
        *(f"--relationships={rel}={path}" for rel, path in relationships),
        "--overwrite-destination=true", "--bad-tolerance=0", "--ignore-empty-strings=true",
        f"--array-delimiter=U+{ord(array_delimiter):04X}", f"--multiline-fields={str(multiline).lower()}",
        f"--report-file={report}", "--max-off-heap-memory=2G", "neo4j",
    ]  # fmt: skip
    env = {**os.environ, "NEO4J_HOME": str(home / IMPORT_DIR), "NEO4J_CONF": str(conf)}
    done = subprocess.run(cmd, env=env, cwd=home / IMPORT_DIR, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=3600, check=False)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-LOG_TAIL_LINES:])
        raise ServerError(f"Neo4j's importer failed (exit code {done.returncode}) and the server is stopped "
                          f"(`cw db start --persist` serves what the importer left):\n{tail}\n(report: {report})")
    return start(home, bolt_port=bolt_port or 7687, http_port=http_port or 7474, persist=True, timeout=timeout,
                 auth=current.auth if current is not None else True)


def port_in_use(port: int, host: str = HOST) -> bool:
    """True if something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


# -------------------------------------------------------------------------------------------- java


def _start_java(home: Path, bolt_port: int, http_port: int, persist: bool, timeout: float,
                auth: bool) -> ServerInfo:
    launcher = build_launcher()
    java = _java()
    work = home / WORK_DIR
    work.mkdir(parents=True, exist_ok=True)
    _cleanup_work_dir(home)
    data = home / DATA_DIR
    cmd = [
        java,
        "-Xms512m",
        f"-Xmx{os.environ.get(ENV_HEAP, '1g')}",
        "-XX:+ExitOnOutOfMemoryError",
        "-XX:-OmitStackTraceInFastThrow",
        "-Dfile.encoding=UTF-8",
        *JVM_OPENS,
        *os.environ.get(ENV_JAVA_OPTS, "").split(),
        "-cp",
        os.pathsep.join([str(launcher / "target" / "classes"), str(launcher / "target" / "lib" / "*")]),
        MAIN_CLASS,
        "--host", HOST,
        "--bolt-port", str(bolt_port),
        "--http-port", str(http_port),
        "--work-dir", str(work),
    ]  # fmt: skip
    if persist:
        cmd += ["--persist", "--data-dir", str(data)]
    password = _password(home) if auth else None
    if password:
        cmd += ["--password-file", str(password)]  # the file, never the password: command lines are public

    log_path = home / LOG_FILE
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            cmd,
            cwd=home,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # own process group: stop() signals the whole group
            close_fds=True,
        )
    state = {
        "kind": "java-harness",
        "bolt_uri": f"bolt://{HOST}:{bolt_port}",
        "http_uri": f"http://{HOST}:{http_port}",
        "browser_url": browser_url(f"http://{HOST}:{http_port}", f"bolt://{HOST}:{bolt_port}", USER if auth else None),
        "persist": persist,
        "auth": auth,
        "password_file": str(password) if password else None,
        "pid": proc.pid,
        "log_path": str(log_path),
        "work_dir": str(work),
        "data_dir": str(data) if persist else None,
        "launcher_dir": str(launcher),
        "started_at": time.time(),
    }
    (home / PID_FILE).write_text(f"{proc.pid}\n")
    _write_state(home, state)

    deadline = time.monotonic() + timeout
    while True:
        text = _read_text(log_path)
        # The launcher prints READY_MARK once build() returned (and the password is set); without
        # authentication the open ports are a fallback.
        if (READY_MARK in text or (not auth and _ports_answer(bolt_port, http_port))) and proc.poll() is None:
            break
        if proc.poll() is not None or FAILED_MARK in text:
            _reap(proc)
            _cleanup_work_dir(home)
            _remove_files(home)
            raise ServerError(
                f"Neo4j exited during start (exit code {proc.returncode}); last lines of {log_path}:\n"
                + _tail(log_path)
            )
        if time.monotonic() > deadline:
            _terminate(proc.pid)
            _reap(proc)
            _cleanup_work_dir(home)
            _remove_files(home)
            raise ServerError(
                f"Neo4j was not ready within {timeout:.0f} s; last lines of {log_path}:\n" + _tail(log_path)
            )
        time.sleep(0.25)
    state["ready_s"] = round(time.time() - float(state["started_at"]), 2)  # type: ignore[arg-type]
    _write_state(home, state)
    return _info(state, True)


def _java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        return str(Path(java_home) / "bin" / "java")
    java = shutil.which("java")
    if java is None:
        raise ServerError("java is not on PATH (and JAVA_HOME is not set); Neo4j 5.26 needs Java 17 or 21")
    return java


def _launcher_built(d: Path, *, check_fresh: bool = True) -> bool:
    cls = d / "target" / "classes" / "codewalk" / "Neo4jLauncher.class"
    lib = d / "target" / "lib"
    if not cls.is_file() or not lib.is_dir() or not any(lib.glob("neo4j-harness-*.jar")):
        return False
    if not check_fresh:
        return True
    # Maven does not recompile unchanged sources, so the class file alone can look older than pom.xml.
    stamp = d / "target" / BUILD_STAMP
    built = max(cls.stat().st_mtime, stamp.stat().st_mtime if stamp.is_file() else 0.0)
    sources = [d / "pom.xml", *(d / "src").rglob("*.java")]
    return all(p.stat().st_mtime <= built for p in sources if p.is_file())


def _is_our_java(pid: int) -> bool:
    """pid is alive and (where /proc exists) runs the launcher, so a recycled pid is never signalled."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.parent.exists():
        try:
            raw = cmdline.read_bytes()
        except OSError:
            return False
        if not raw:  # zombie
            return False
        return MAIN_CLASS.encode() in raw
    return True


def _terminate(pid: int, grace: float = STOP_GRACE_S) -> bool:
    """SIGTERM the process group led by pid, wait up to grace seconds, then SIGKILL. True if it was alive."""
    try:
        pgid: int | None = os.getpgid(pid)
    except ProcessLookupError:
        return False
    if pgid != pid:  # not a group leader we created: signal only the process itself
        pgid = None

    def send(sig: int) -> None:
        try:
            if pgid is not None:
                os.killpg(pgid, sig)
            else:
                os.kill(pid, sig)
        except ProcessLookupError:
            pass

    send(signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.2)
    send(signal.SIGKILL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.1)
    return True


def _alive(pid: int) -> bool:
    try:
        # Reap it if it is our child (start() timed out); otherwise waitpid raises ChildProcessError.
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        try:
            return stat.read_text().split(") ", 1)[1][:1] != "Z"
        except (OSError, IndexError):
            return False
    return True


def _reap(proc: subprocess.Popen) -> None:
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def _cleanup_work_dir(home: Path) -> None:
    """Remove store folders the harness left behind after a SIGKILL (random 32-hex names)."""
    work = home / WORK_DIR
    if not work.is_dir():
        return
    for child in work.iterdir():
        if child.is_dir() and _HEX32.match(child.name):
            shutil.rmtree(child, ignore_errors=True)


def _ports_answer(bolt_port: int, http_port: int) -> bool:
    return port_in_use(bolt_port) and port_in_use(http_port)


# ------------------------------------------------------------------------------------------ docker


def _compose_file() -> Path | None:
    f = Path(__file__).resolve().parent.parent / "docker" / "docker-compose.yml"
    return f if f.is_file() else None


def _compose_cmd() -> list[str] | None:
    """`docker compose` if the v2 plugin is there, else a standalone `docker-compose`, else None."""
    if shutil.which("docker"):
        try:
            ok = subprocess.run(
                ["docker", "compose", "version"],
                check=False,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=30,
            )
            if ok.returncode == 0:
                return ["docker", "compose"]
        except (OSError, subprocess.TimeoutExpired):
            pass
    standalone = shutil.which("docker-compose")
    return [standalone] if standalone else None


def _compose_env(state: dict) -> dict[str, str]:
    env = dict(os.environ)
    env["CODEWALK_NEO4J_BOLT_PORT"] = str(_port_of(state["bolt_uri"]))
    env["CODEWALK_NEO4J_HTTP_PORT"] = str(_port_of(state["http_uri"]))
    # The image sets this password when its volume is new (NEO4J_AUTH); "none": no authentication. `down`
    # needs none: a password file deleted meanwhile does not keep the server from stopping.
    if state.get("auth") and Path(state["password_file"]).is_file():
        env["CODEWALK_NEO4J_AUTH"] = f"{USER}/{_read_password(Path(state['password_file']))}"
    elif not state.get("auth"):
        env["CODEWALK_NEO4J_AUTH"] = "none"
    return env


def _compose(compose: Path, project: str, args: list[str], *, env: dict[str, str], timeout: float = 600):
    base = _compose_cmd()
    if base is None:
        raise ServerError("neither `docker compose` (v2 plugin) nor `docker-compose` is installed")
    cmd = [*base, "-f", str(compose), "-p", project, *args]
    try:
        proc = subprocess.run(
            cmd,
            check=False,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as e:
        raise ServerError(f"`{' '.join(cmd)}` did not finish within {timeout:.0f} s") from e
    except OSError as e:
        raise ServerError(f"cannot run `{' '.join(cmd)}`: {e}") from e
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout or "").splitlines()[-LOG_TAIL_LINES:])
        raise ServerError(f"`{' '.join(cmd)}` failed (exit {proc.returncode}):\n{tail}")
    return proc


def _start_docker(
    home: Path, compose: Path, bolt_port: int, http_port: int, persist: bool, timeout: float, auth: bool
) -> ServerInfo:
    # Separate compose projects, so `down -v` of an ephemeral run never removes the persistent volume.
    project = "codewalk-neo4j" if persist else "codewalk-neo4j-tmp"
    state = {
        "kind": "docker",
        "bolt_uri": f"bolt://{HOST}:{bolt_port}",
        "http_uri": f"http://{HOST}:{http_port}",
        "browser_url": browser_url(f"http://{HOST}:{http_port}", f"bolt://{HOST}:{bolt_port}", USER if auth else None),
        "persist": persist,
        "auth": auth,
        "password_file": str(_password(home)) if auth else None,
        "pid": None,
        "log_path": None,
        "compose_file": str(compose),
        "project": project,
        "started_at": time.time(),
    }
    _write_state(home, state)
    try:
        _compose(
            compose,
            project,
            ["up", "-d", "--wait"],  # --wait needs Compose v2.1+; waits for the healthcheck
            env=_compose_env(state),
            timeout=timeout + 600,  # image pull time on top of the health wait
        )
    except ServerError:
        try:
            _compose(compose, project, ["down"] if persist else ["down", "-v"], env=_compose_env(state))
        except ServerError:
            pass
        _remove_files(home)
        raise
    state["ready_s"] = round(time.time() - float(state["started_at"]), 2)  # type: ignore[arg-type]
    _write_state(home, state)
    return _info(state, True)


# ------------------------------------------------------------------------------------------- state


def _info(state: dict, running: bool) -> ServerInfo:
    log = state.get("log_path")
    return ServerInfo(
        kind=state["kind"],
        bolt_uri=state["bolt_uri"],
        http_uri=state["http_uri"],
        browser_url=state["browser_url"],
        persist=bool(state.get("persist")),
        pid=state.get("pid"),
        log_path=Path(log) if log else None,
        running=running,
        auth=bool(state.get("auth")),
        password_file=Path(state["password_file"]) if state.get("password_file") else None,
    )


def _read_state(home: Path) -> dict | None:
    f = home / STATE_FILE
    try:
        state = json.loads(f.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise ServerError(f"cannot read {f}: {e}; delete it if no server is running") from e
    if not isinstance(state, dict) or not {"kind", "bolt_uri", "http_uri", "browser_url"} <= state.keys():
        raise ServerError(f"{f} is not a codewalk server state file; delete it if no server is running")
    return state


def _write_state(home: Path, state: dict) -> None:
    tmp = home / (STATE_FILE + ".tmp")
    tmp.write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")
    tmp.replace(home / STATE_FILE)


def _read_pid(home: Path) -> int | None:
    try:
        return int((home / PID_FILE).read_text().strip())
    except (OSError, ValueError):
        return None


def _remove_files(home: Path) -> None:
    for name in (PID_FILE, STATE_FILE, STATE_FILE + ".tmp"):
        try:
            (home / name).unlink()
        except FileNotFoundError:
            pass


def _forget(home: Path, info: ServerInfo) -> None:
    if info.kind != "docker":
        _cleanup_work_dir(home)
    _remove_files(home)


def _port_of(uri: str) -> int:
    return int(uri.rsplit(":", 1)[1].split("/", 1)[0])


def _read_text(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except FileNotFoundError:
        return ""


def _tail(path: Path, n: int = LOG_TAIL_LINES) -> str:
    return "\n".join(_read_text(path).splitlines()[-n:])
