"""What each step of a test run in a container costs on this daemon, with and without what warm.py adds.

    python bench/docker_steps.py [--tree DIR] [--runs 15]

Plain: create and start a container (its process `sleep`), then per run put_archive of the tree and a
`docker exec` of the harness's interpreter. Warm (codewalk.domains.repair.warm): the container's process is
codewalk's agent, and a run is one request on its stdin (unpack, then the harness forked from the agent).
The run's script is empty, so the figures are the path's own cost. Needs DOCKER_HOST and CODEWALK_DOCKER_BASE.
Prints the median, min and max seconds of each step.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import tarfile
import time
from collections.abc import Callable
from pathlib import Path

from codewalk import runtime
from codewalk.domains.repair import containers
from codewalk.domains.repair.runs import Image


def _tar(tree: Path) -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as tar:
        tar.add(tree, arcname="testbed", filter=lambda i: None if ".git" in Path(i.name).parts else i)
        script = b"pass\n"
        info = tarfile.TarInfo("cw-bench/run.py")
        info.size = len(script)
        tar.addfile(info, io.BytesIO(script))
    return data.getvalue()


def _timed(step: Callable[[], object], runs: int) -> str:
    seconds = []
    for _ in range(runs):
        mark = time.monotonic()
        step()
        seconds.append(time.monotonic() - mark)
    return f"{statistics.median(seconds):.3f} s (min {min(seconds):.3f}, max {max(seconds):.3f}, {runs} runs)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1] / "codewalk" / "domains" / "repair")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    client, base = runtime.client(), os.environ[containers.BASE]
    archive = _tar(args.tree)
    image = Image(base, "", "built")
    made: list[str] = []

    def plain_start() -> None:
        name = runtime.container_name("bench")
        made.append(name)
        client.containers.create(base, ["sleep", "infinity"], name=name, network_mode="none", init=True,
                                 **containers.hardened(4096, kind="bench")).start()

    def warm_start() -> None:
        made.append(containers.start(image, 4096).name)

    print(f"tree: {args.tree} ({len(archive) // 1024} KiB as a tar); daemon: {os.environ.get('DOCKER_HOST')}")
    print("start, plain (create + start):     ", _timed(plain_start, max(3, args.runs // 3)))
    print("start, with the agent:             ", _timed(warm_start, max(3, args.runs // 3)))
    plain = client.containers.get(made[0])
    python = "python3"
    print("run, plain (put_archive + exec):   ", _timed(lambda: (plain.put_archive("/", archive),
                                                                  plain.exec_run([python, "-I", "/cw-bench/run.py"])),
                                                         args.runs))
    warm = containers.start(image, 4096)
    made.append(warm.name)
    print("run, warm (one request to the agent):",
          _timed(lambda: warm.agent.run(warm.container, "", archive, 60, "/cw-bench/run.py", ""), args.runs))
    warm.agent.close()
    runtime.release()


if __name__ == "__main__":
    main()
