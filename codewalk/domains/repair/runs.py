"""Typed records of repair's environments and test runs: what a row asks for (EnvSpec), where its tests
run (Env, a virtualenv; Image, a docker image) and what a run found (TestRun). Below env.py and
containers.py, which both use them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeGuard


@dataclass(frozen=True)
class EnvSpec:
    """The environment part of a row's install_config (SWE-rebench keys)."""

    python: str = ""  # "3.9"; empty: this interpreter
    packages: str = ""  # "requirements.txt", "environment.yml", or package names
    pip_packages: tuple[str, ...] = ()
    reqs_path: tuple[str, ...] = ()
    pre_install: tuple[str, ...] = ()
    install: str = ""  # run once in a checkout when the environment is built, e.g. "pip install -e ."
    test_cmd: str = ""  # not part of the environment's identity

    @classmethod
    def from_config(cls, config: dict[str, Any] | None) -> EnvSpec:
        config = config or {}

        def words(key: str) -> tuple[str, ...]:
            value = config.get(key) or ()
            return tuple(value.split()) if isinstance(value, str) else tuple(str(v) for v in value)

        def lines(key: str) -> tuple[str, ...]:
            value = config.get(key) or ()
            return (value,) if isinstance(value, str) else tuple(str(v) for v in value)

        return cls(python=str(config.get("python") or ""), packages=str(config.get("packages") or ""),
                   pip_packages=words("pip_packages"), reqs_path=lines("reqs_path"),
                   pre_install=lines("pre_install"), install=str(config.get("install") or ""),
                   test_cmd=str(config.get("test_cmd") or ""))

    def identity(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("test_cmd")
        return data


@dataclass(frozen=True)
class Env:
    contained: ClassVar[bool] = False  # the local runtime's: a virtualenv on the host
    path: Path
    python_asked: str
    python_used: str  # full version of the interpreter the environment was built with
    notes: tuple[str, ...]  # what could not be done as the spec asked

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    def summary(self) -> dict[str, Any]:
        return {"venv": str(self.path), "python_asked": self.python_asked, "python_used": self.python_used,
                "notes": list(self.notes)}


@dataclass(frozen=True)
class Image:
    """An environment in the docker runtime: the image a test run's container starts from."""

    contained: ClassVar[bool] = True  # each run in a fresh container of it

    tag: str
    python_asked: str
    source: str  # "row" (the row's image_name / docker_image) or "built" (from install_config on a base image)
    notes: tuple[str, ...] = ()
    user: int = 1000  # the uid the tests run as; the harness runs as root
    tree: bool = True  # the image holds a /testbed of its own (a row's image; a build that ran `install`)

    def summary(self) -> dict[str, Any]:
        return {"image": self.tag, "source": self.source, "python_asked": self.python_asked,
                "notes": list(self.notes)}


def in_container(env: Env | Image) -> TypeGuard[Image]:
    """True for the docker runtime's environment (an image), False for the local one's (a virtualenv)."""
    return env.contained


@dataclass(frozen=True)
class TestRun:
    status: dict[str, str]  # node id -> passed / failed / error / skipped / missing / renamed copy ...
    returncode: int | None  # None: nothing ran (no test file of the run exists)
    seconds: float
    unsigned: int = 0  # lines on the outcome channel whose signature does not verify (channel.py)
    python: str = ""  # the interpreter the tests ran on
    # every case the run reported, (classname, name) -> outcome, as JUnit names it: what a run of whole
    # files found (mining; junit.node_key maps a node id to its key)
    cases: dict[tuple[str, str], str] = field(default_factory=dict)
    audited: bool = False  # the run-time guard's audit hook watched the run (Python 3.8+)
    proc_guard: str = ""  # what kept the tests from /proc: "landlock ABI n" (the kernel), or "audit hook: why"
    files_guard: str = ""  # what kept the test files from every process of the run (channel.Report.files_guard)
    memory_guard: str = ""  # what kept the runner's memory from the processes it starts (channel.memory_guard)
    signal_guard: str = ""  # what kept the harness from the run's signals (channel.Report.signal_guard)
    data_kept: int = 0  # test data kept by the kernel and the digests besides the test files (channel.Report)
    tree_kept: int = 0  # the tree's other files as it landed, kept likewise (round 14b; channel.Report)

    def failing(self, tests: list[str]) -> list[str]:
        return [t for t in tests if self.status.get(t) != "passed"]
