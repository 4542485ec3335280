"""Places on the host that graded code must not see, shared by every domain's sandbox tests: a hostile
candidate that behaves as the reference only when one of them exists must be graded as if it saw none."""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from codewalk import paths

REPO = Path(__file__).resolve().parents[1]
DOMAINS = ("demo", "repair", "clones", "complexity", "proofs")


@contextmanager
def host_places(tmp_path: Path, store: Path | None = None) -> Iterator[dict[str, Path]]:
    """{what: path} for places that exist on the host while the probe runs: the store in use, an
    exported task file, a verdict file beside the store, each domain's admission cache, a `$HOME`
    dotfile, a file in /tmp outside the run, the checkout, the datasets, `~/.m2` and /etc/shadow."""
    if store is None:
        store = tmp_path / "graph.lbug"
        store.write_text("")
    exported = tmp_path / "tasks.jsonl"
    exported.write_text('{"task_id": "t1"}\n')
    verdicts = tmp_path / "clones-verdicts.jsonl"
    verdicts.write_text('{"pair": "1"}\n')
    dotfile = Path.home() / f".codewalk-probe-{os.getpid()}"
    dotfile.write_text("secret")
    caches = {}
    for domain in DOMAINS:
        paths.cache(domain).mkdir(parents=True, exist_ok=True)
        caches[f"the {domain} cache"] = paths.cache(domain) / f".codewalk-probe-{os.getpid()}"
        caches[f"the {domain} cache"].write_text("cached")
    with tempfile.NamedTemporaryFile(dir="/tmp", prefix="codewalk-probe-") as outside:
        places = {"the store in use": store, "an exported task file": exported, "a verdict file": verdicts,
                  **caches, "a dotfile in $HOME": dotfile, "/tmp outside the run": Path(outside.name),
                  "the project checkout": REPO / "pyproject.toml", "the datasets": paths.shared(),
                  "the Maven repository": Path.home() / ".m2", "/etc/shadow": Path("/etc/shadow")}
        try:
            yield {what: path for what, path in places.items() if path.exists()}
        finally:
            dotfile.unlink()
            for path in caches.values():
                path.unlink(missing_ok=True)


@contextmanager
def loopback_port() -> Iterator[int]:
    """A port listening on the host's loopback, as the Neo4j Bolt port does: a refused connection is
    then the sandbox's doing, not for want of a server."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]
