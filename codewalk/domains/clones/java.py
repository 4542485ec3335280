"""Java for the clone domain: one JVM per batch, each unit compiled once, results per input as JSON lines.

The harness (`harness/*.java`, shipped as package data) is copied into the cache and compiled there with
`javac`, keyed by the hash of its sources. JUnit 4 and the EvoSuite runtime (coordinates in JARS) are
copied into the cache once, from the local Maven repository or else fetched from Maven Central with
`mvn dependency:copy` (the one step that runs unisolated: it needs the network and ~/.m2, and runs no
code of the dataset). Every javac and JVM run goes through `Java.isolated`: `codewalk.runtime.sandbox.run`
(own process group, limits, a process-level timeout) with no network and, of the host, only the system
directories, the JDK, the clone cache and its work directory. Inside the harness JVM each call has its
own deadline in a worker thread. A JVM that dies or is stopped part-way leaves the results it
printed; the batch resumes in a fresh JVM after the item it was running, which is marked abandoned.

Units are compiled in batches (one javac task per few hundred units, a file that fails left out), keyed
by the hash of the batch's sources; the harness stamps each batch with the errors per file once it has
compiled it, so nothing compiles twice. The cache is `cache_root()`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import zipfile
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codewalk import paths
from codewalk.errors import InfraError
from codewalk.runtime import meter, sandbox
from codewalk.runtime.locks import locked

HARNESS_SOURCES = Path(__file__).resolve().parent / "harness"
MAIN = "codewalk.clones.Harness"
ARCHIVE = "harness.jsa"
# file name -> Maven coordinates. EvoSuite 1.0.6 is the newest runtime on Maven Central (1.2.0 is not there).
JARS = {
    "junit-4.13.2.jar": "junit:junit:4.13.2",
    "hamcrest-core-1.3.jar": "org.hamcrest:hamcrest-core:1.3",
    "evosuite-standalone-runtime-1.0.6.jar": "org.evosuite:evosuite-standalone-runtime:1.0.6",
}
LOGS = ["-Xlog:disable", "-Xlog:all=warning:stderr"]  # the JVM's own warnings must not mix with our JSON lines
SMALL = ["-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1",
         "-XX:ReservedCodeCacheSize=64m", "-XX:CompressedClassSpaceSize=128m"]  # fits the address-space limit
JVM = [*LOGS, *SMALL, "-Djava.security.manager=allow"]
# What the EvoSuite 1.0.6 runtime (written for Java 8) reaches into on Java 17.
EVOSUITE_JVM = ["--add-exports=java.base/sun.net.util=ALL-UNNAMED",
                *(f"--add-opens={m}=ALL-UNNAMED" for m in (
                    "java.desktop/java.awt", "java.base/java.lang", "java.base/java.util", "java.base/java.io",
                    "java.base/java.net", "java.base/java.lang.reflect", "java.base/java.text",
                    "java.base/java.util.regex", "java.base/java.security"))]
MEMORY_MB = 3072  # address space: the JVM reserves far more than its heap
MAX_RESTARTS = 50
CHUNK = 300  # units per javac task
JVMS = max(1, min(2, os.cpu_count() or 1))  # JVMs side by side for a large batch


def cache_root() -> Path:
    """$CODEWALK_CACHE, else $CODEWALK_HOME/cache, else ~/.codewalk/cache; the clone domain's part of it."""
    return paths.cache("clones")


def digest(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


@dataclass(frozen=True)
class CallUnit:
    """Sources to compile, and targets (class, method) all called on every input."""

    sources: dict[str, str]  # relative path -> Java text
    targets: tuple[tuple[str, str], ...]
    params: tuple[str, ...]  # Java type names, one per argument
    inputs: list[list[Any]]  # JSON-ready arguments
    stop_after: int = 1_000_000  # stop after this many inputs on which the targets differ
    budget_ms: int | None = None  # no new input starts once the unit has run this long (None: no limit)
    long_ms: int | None = None  # the long re-run of a one-sided timeout (None: 20 deadlines)


@dataclass(frozen=True)
class SuiteUnit:
    """A JUnit 4 test class with its sources, all in the unit's own package (so units never collide)."""

    package: str
    sources: dict[str, str]  # file name inside the package folder -> Java text
    test_class: str  # simple name inside the package


@dataclass
class CallResult:
    errors: str | None = None  # javac's messages when the unit does not compile
    outcomes: dict[int, dict[str, Any]] = field(default_factory=dict)  # input -> {out, again?, long?, final?, v} or {abandoned}
    end: str | None = None  # why the unit ended: all / witnesses / exhausted / slow / budget (None: lost, or resumed)


@dataclass
class SuiteResult:
    errors: str | None = None
    tests: dict[str, str] | None = None  # test name -> pass / fail:EXCEPTION; None = timed out or abandoned
    abandoned: bool = False


class Java:
    """The toolchain: java/javac on PATH, the jars, the compiled harness; runs batches."""

    def __init__(self, cache: Path | None = None):
        self.cache = cache or cache_root()
        self.java = _tool("java")
        self.javac = _tool("javac")
        self.jdk = Path(self.java).resolve().parents[1]  # /usr/lib/jvm/java-17-...: bin/java's parent's parent
        self._harness: Path | None = None
        self._share: list[str] = []  # the JVM option that maps the class-data archive, when there is one

    # -- set-up, cached ------------------------------------------------------------------------------
    def jars(self) -> list[Path]:
        """The jars in the cache: copied from the local Maven repository when there, else fetched by Maven."""
        folder = self.cache / "jars"
        folder.mkdir(parents=True, exist_ok=True)
        missing = []
        for name, coords in JARS.items():
            group, artifact, version = coords.split(":")
            local = Path.home() / ".m2" / "repository" / group.replace(".", "/") / artifact / version / name
            if not (folder / name).exists() and local.exists():
                part = folder / f"{name}.{os.getpid()}.part"  # a worker of its own: parallel copies never clash
                shutil.copyfile(local, part)
                os.replace(part, folder / name)
            if not (folder / name).exists():
                missing.append((name, coords))
        if missing:
            mvn = _tool("mvn")
            for name, coords in missing:
                with sandbox.workdir() as work:
                    done = sandbox.run([mvn, "-B", "-q", "dependency:copy", f"-Dartifact={coords}",
                                        f"-DoutputDirectory={folder}"], cwd=work, timeout=600, memory_mb=MEMORY_MB,
                                       max_procs=None, isolate=False,  # our own fetch: needs the network
                                       env={"HOME": str(Path.home()), "MAVEN_OPTS": " ".join(SMALL)})
                if done.returncode != 0 or not (folder / name).exists():
                    raise InfraError(f"cannot fetch {coords} with Maven: {(done.stdout + done.stderr)[-800:]}")
        return [folder / name for name in JARS]

    def harness(self) -> Path:
        if self._harness:
            return self._harness
        sources = sorted(HARNESS_SOURCES.glob("*.java"))
        if not sources:
            raise InfraError(f"the clone harness sources are missing from {HARNESS_SOURCES}")
        folder = self.cache / "harness" / digest(*(p.read_text() for p in sources))
        meter.reuse("clones: compiled harness", (folder / "harness.jar").exists())
        if not (folder / "harness.jar").exists():
            with locked(folder.with_suffix(".lock")):  # one worker builds it, the others wait and use it
                self._build_harness(folder, sources)
        self._harness = folder / "harness.jar"
        if (folder / ARCHIVE).exists():
            self._share = [f"-XX:SharedArchiveFile={folder / ARCHIVE}"]
        return self._harness

    def _build_harness(self, folder: Path, sources: list[Path]) -> None:
        if (folder / "harness.jar").exists():  # built while this worker waited for the lock
            return
        jars = self.jars()
        classes, src = folder / "classes", folder / "src"
        for old in (classes, src):
            shutil.rmtree(old, ignore_errors=True)
            old.mkdir(parents=True)
        for path in sources:  # javac reads a copy: the build sees the cache, not the installed package
            shutil.copyfile(path, src / path.name)
        done = self.isolated([self.javac, *(f"-J{o}" for o in LOGS + SMALL), "-nowarn", "-d", str(classes), "-cp",
                              os.pathsep.join(map(str, jars)), *(str(src / p.name) for p in sources)],
                             cwd=folder, timeout=300, sees=[self.cache / "jars"])
        if done.returncode != 0:
            raise InfraError(f"javac could not build the clone harness: {(done.stdout + done.stderr)[-1500:]}")
        with zipfile.ZipFile(folder / "harness.jar.part", "w") as jar:  # class-data sharing wants jars
            for path in sorted(classes.rglob("*.class")):
                jar.write(path, path.relative_to(classes).as_posix())
        os.replace(folder / "harness.jar.part", folder / "harness.jar")
        self._archive(folder)

    def _archive(self, folder: Path) -> None:
        """A class-data archive of the harness and javac, made by one small run: it halves a JVM's start
        (most of a single group's check). Only speed depends on it, so a failure just leaves it out."""
        with sandbox.workdir() as work:
            (work / "src").mkdir()
            (work / "src" / "Warm.java").write_text("class Warm {\n    static int f(int x) { return x + 1; }\n}\n")
            job = {"deadline_ms": 1000, "max_chars": 100, "release": "17", "classpath": "", "exit": True,
                   "units": [{"id": 0, "src": str(work / "src"), "classes": str(work / "classes"),
                              "stamp": str(work / "stamp.json"), "files": ["Warm.java"], "params": ["int"],
                              "targets": [{"class": "Warm", "method": "f"}], "inputs": [[1]], "first": 0,
                              "stop_after": 1}]}
            (work / "job.json").write_text(json.dumps(job))
            self.isolated([self.java, *JVM, f"-XX:ArchiveClassesAtExit={work / ARCHIVE}", "-cp",
                           str(folder / "harness.jar"), MAIN, "calls", str(work / "job.json")],
                          cwd=work, timeout=120, sees=[folder])
            if (work / ARCHIVE).exists():
                shutil.copyfile(work / ARCHIVE, folder / f"{ARCHIVE}.part")
                os.replace(folder / f"{ARCHIVE}.part", folder / ARCHIVE)

    def isolated(self, cmd: list[str], cwd: Path, timeout: float, *, sees: Sequence[Path] = (),
                 writable: Sequence[Path] = (), max_file_mb: int = 64) -> sandbox.Completed:
        """A javac or JVM run with no network that sees, of the host, the system directories, the JDK, `sees`
        (read-only), `writable` and its work directory `cwd` (read-write): not the home folder, the store,
        the checkout, the datasets or the rest of /tmp."""
        return sandbox.run(cmd, cwd=cwd, timeout=timeout, memory_mb=MEMORY_MB, max_procs=None, max_file_mb=max_file_mb,
                           writable=writable, sees=[self.jdk, *sees])

    # -- batches -------------------------------------------------------------------------------------
    def calls(self, units: Sequence[CallUnit], deadline_ms: int = 100, max_chars: int = 4000,
              timeout: float = 900) -> list[CallResult]:
        """Compile and run every unit in one JVM (more only if one dies); one result per unit."""
        specs = []
        for chunk in _chunks([u.sources for u in units]):
            home = self.cache / "units" / chunk.key
            meter.reuse("clones: compiled snippets", (home / "stamp.json").exists())  # compiled by content
            _write_sources(home / "src", chunk.sources)
            for n in chunk.members:
                unit = units[n]
                specs.append({"id": n, "src": str(home / "src"), "classes": str(home / "classes"),
                              "stamp": str(home / "stamp.json"), "files": sorted(unit.sources),
                              "params": list(unit.params), "targets": [{"class": c, "method": m} for c, m in unit.targets],
                              "inputs": unit.inputs, "first": 0, "stop_after": unit.stop_after,
                              **({"budget_ms": unit.budget_ms} if unit.budget_ms is not None else {}),
                              **({"long_ms": unit.long_ms} if unit.long_ms is not None else {})})
        results = [CallResult() for _ in units]
        for line in self._parallel("calls", specs, [str(self.harness())], deadline_ms, max_chars, "17", timeout):
            result = results[line["u"]]
            if "compiled" in line:
                result.errors = None if line["compiled"] else line["errors"]
            elif "end" in line:
                result.end = line["end"]
            else:
                result.outcomes[line["i"]] = line
        return results

    def suites(self, units: Sequence[SuiteUnit], deadline_ms: int = 60_000, timeout: float = 1800) -> list[SuiteResult]:
        """Compile the suites in large javac batches into one class folder (packages keep them apart), run all."""
        classes = self.cache / "suites" / "classes"
        classes.mkdir(parents=True, exist_ok=True)  # on the class path before the JVM starts
        specs = []
        for chunk in _chunks([{f"{u.package}/{name}": text for name, text in u.sources.items()} for u in units]):
            home = self.cache / "suites" / chunk.key
            _write_sources(home / "src", chunk.sources)
            for n in chunk.members:
                unit = units[n]
                specs.append({"id": n, "src": str(home / "src"), "classes": str(classes),
                              "stamp": str(home / "stamp.json"), "files": [f"{unit.package}/{f}" for f in sorted(unit.sources)],
                              "test_class": f"{unit.package}.{unit.test_class}"})
        classpath = [str(self.harness()), *map(str, self.jars()), str(classes)]
        results = [SuiteResult() for _ in units]
        # The EvoSuite runtime's class loader reads Java 8 class files only (its ASM predates Java 17).
        for line in self._parallel("suites", specs, classpath, deadline_ms, 0, "8", timeout):
            result = results[line["u"]]
            if "compiled" in line:
                result.errors = None if line["compiled"] else line["errors"]
            elif "tests" in line:
                result.tests = line["tests"]
            else:
                result.abandoned = True
        return results

    def _parallel(self, mode: str, specs: list[dict], *args: Any) -> list[dict]:
        """Batches of several compile chunks run in up to JVMS processes side by side, a whole chunk each
        (a chunk compiles in one JVM). Waiting out a hanging call costs wall time, not work."""
        if not specs:
            return []
        groups: dict[str, list[dict]] = defaultdict(list)
        for spec in specs:
            groups[spec["stamp"]].append(spec)
        lanes: list[list[dict]] = [[] for _ in range(min(JVMS, len(groups)))]
        for group in sorted(groups.values(), key=len, reverse=True):  # largest first, to the lightest lane
            min(lanes, key=lambda lane: sum(len(s.get("inputs", [0])) for s in lane)).extend(group)
        if len(lanes) == 1:
            return self._run(mode, lanes[0], *args)
        with ThreadPoolExecutor(len(lanes)) as pool:
            return [line for lines in pool.map(lambda lane: self._run(mode, lane, *args), lanes) for line in lines]

    def _run(self, mode: str, specs: list[dict], classpath: list[str], deadline_ms: int, max_chars: int,
             release: str, timeout: float) -> list[dict]:
        """All result lines of a batch; resumes in a fresh JVM after an item that stopped one."""
        lines: list[dict] = []
        pending = specs
        restarts = 0
        jvm = [self.java, *JVM, *self._share, *(EVOSUITE_JVM if mode == "suites" else []), "-cp",
               os.pathsep.join(classpath), MAIN]
        while pending:
            with sandbox.workdir() as work:
                job = {"deadline_ms": deadline_ms, "max_chars": max_chars, "release": release,
                       "classpath": os.pathsep.join(classpath[1:]), "units": pending}
                (work / "job.json").write_text(json.dumps(job))
                # It runs the pairs' code. The harness compiles each unit into the cache in-process, so the
                # cache is the one writable place besides `work`.
                done = self.isolated([*jvm, mode, str(work / "job.json")], cwd=work, timeout=timeout,
                                     writable=[self.cache], max_file_mb=256)
            got = _parse_lines(done.stdout)
            lines += got
            if done.returncode == 0 and not done.timed_out:
                return lines
            # Resume after a stopped call (3), a process timeout or a JVM killed by a signal; not after the
            # harness's own failure (1), which would fail again.
            stopped = done.returncode == 3 or done.timed_out or done.returncode < 0
            if not (stopped and got) or restarts >= MAX_RESTARTS:
                why = "timed out" if done.timed_out else f"exited with {done.returncode}"
                raise InfraError(f"the clone harness {why}: {(done.stdout + done.stderr)[-1500:]}")
            restarts += 1
            pending, lost = _resume(pending, got, abandoned=done.returncode == 3 and not done.timed_out)
            lines += lost
        return lines


def _resume(pending: list[dict], got: list[dict], abandoned: bool) -> tuple[list[dict], list[dict]]:
    """The specs still to run after the printed lines, and a line for the item that was running.

    Items in order: each unit's compilation, then its inputs (calls) or its suite run (suites). Exit code 3
    means the harness printed the abandoned item itself; otherwise (killed, crashed) the item after the
    last printed line was running and is reported lost.
    """
    items: list[tuple[int, int | None]] = []  # (unit position, input number); None = compile, -1 = the suite
    for k, spec in enumerate(pending):
        items.append((k, None))
        items += [(k, spec["first"] + j) for j in range(len(spec["inputs"]))] if "inputs" in spec else [(k, -1)]
    last = got[-1]
    unit = next(k for k, spec in enumerate(pending) if spec["id"] == last["u"])
    if last.get("compiled") is False or "end" in last:
        at = _after_unit(items, unit)
    else:
        at = items.index((unit, last.get("i", None if "compiled" in last else -1))) + 1
    lost: list[dict] = []
    if not abandoned and at < len(items):
        k, i = items[at]
        uid = pending[k]["id"]
        if i is None:
            lost.append({"u": uid, "compiled": False, "errors": "the JVM stopped while compiling this unit"})
            at = _after_unit(items, k)
        else:
            lost.append({"u": uid, "abandoned": True} if i == -1 else {"u": uid, "i": i, "abandoned": True})
            at += 1
    rest = []
    for k, spec in enumerate(pending):
        left = [i for u, i in items[at:] if u == k]
        if left and left[0] is not None and "inputs" in spec:  # part-way through: keep the inputs not run yet
            spec = {**spec, "inputs": spec["inputs"][left[0] - spec["first"]:], "first": left[0]}
        if left:
            rest.append(spec)
    return rest, lost


def _after_unit(items: list[tuple[int, int | None]], unit: int) -> int:
    return max(n for n, (u, _) in enumerate(items) if u == unit) + 1


@dataclass
class _Chunk:
    """Units whose sources compile together in one javac task (no two files at the same path)."""

    sources: dict[str, str] = field(default_factory=dict)
    members: list[int] = field(default_factory=list)

    @property
    def key(self) -> str:
        return digest(*(f"{path}\n{text}" for path, text in sorted(self.sources.items())))


def _chunks(sources: list[dict[str, str]], size: int = CHUNK) -> list[_Chunk]:
    """Group units into compile batches; units whose files collide (every composite has SnippetA.java) go
    to different batches."""
    chunks: list[_Chunk] = []
    for n, files in enumerate(sources):
        home = next((c for c in chunks if len(c.members) < size and
                     all(c.sources.get(path, text) == text for path, text in files.items())), None)
        if home is None:
            home = _Chunk()
            chunks.append(home)
        home.sources.update(files)
        home.members.append(n)
    return chunks


def _parse_lines(stdout: str) -> list[dict]:
    lines = []
    for text in stdout.splitlines():
        try:
            lines.append(json.loads(text))
        except ValueError:  # not ours, or a line cut short when the JVM was killed
            pass
    return lines


def _write_sources(folder: Path, sources: dict[str, str]) -> None:
    if folder.exists():
        return
    tmp = folder.with_name(folder.name + f".tmp{os.getpid()}")
    for name, text in sources.items():
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_text(text)
    try:
        tmp.rename(folder)
    except OSError:  # another process wrote the same content first
        shutil.rmtree(tmp, ignore_errors=True)


def _tool(name: str) -> str:
    path = shutil.which(name)
    if not path:
        raise InfraError(f"{name} is not on PATH (the clone domain needs a JDK 17 and Maven)")
    return path
