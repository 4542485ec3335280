"""The docker runtime of `codewalk/proofs_agent`: its verify step in a fresh container per candidate.

The image is built by codewalk on CODEWALK_DOCKER_BASE (default `debian:bookworm-slim`), as the repair images
are (codewalk.domains.repair.containers: labelled, built on CODEWALK_BUILD_NETWORK, a failed build an
InfraError with its log's end): Debian's Frama-C, Why3, Z3 and cvc5 (`apt-get install frama-c-base why3 z3
cvc5`, the packages the ACSL backend names), and this codewalk's own Python source, so the container runs the
very V_G the host runs (ProofsDomain.grade: the guard, the task's predicates and driver restored, WP). The tag
is a hash of the base, the packages and that source: an image is built once per codewalk version (4:44 the
first time on this 2-core machine, mostly apt; after a change to codewalk only its source layer is rebuilt, the
apt layer coming from the daemon's build cache). The task builds it before any sample starts.

Each verify call starts a new container of it with no network, codewalk's limits (containers.hardened) and
the task and candidate as a file; the container prints the verdict as JSON and is removed. Isolation inside it
is the container's own (no bubblewrap there). The verdict only feeds the model's next round: the final
candidate is graded again on the host (proofs_agent.proofs_verifier), never from a container's word.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from codewalk import paths, runtime
from codewalk.domains.proofs.image import PACKAGES, SOURCE, base_image, image_tag, source
from codewalk.domains.repair.containers import build_context, build_image, hardened
from codewalk.records import Composite
from codewalk.runtime.locks import locked

TIMEOUT = 1200.0  # seconds for one verify call: the domain's own frama-c limit (900 s) and the start
MEMORY_MB = 8192  # as the domain gives one frama-c run
# The candidate's text is untrusted: V_G runs as nobody with no capabilities (root in a container is still
# root towards the kernel), reading the input file, writing only under /tmp.
USER = "65534:65534"
INPUT = "verify/input.json"  # in the container, under its root: the task and the candidate
# What runs in the container: the domain's V_G on the input file named by its argument, its verdict as
# one JSON line.
SCRIPT = """
import json
import sys
from codewalk.runtime import sandbox
sandbox.allow_unisolated()  # the container is the isolation: no bubblewrap inside it
from codewalk.domains.proofs import ProofsDomain
from codewalk.errors import InfraError
from codewalk.records import Composite
data = json.load(open(sys.argv[1]))
c = data["composite"]
try:
    check = ProofsDomain().grade(Composite(c["prompt"], c["reference"], c["verifier"]), data["candidate"])
    out = {"status": "passed" if check.ok else "failed", "reason": str(check.reason or ""),
           "detail": check.detail, "evidence": check.evidence}
except InfraError as e:
    out = {"status": "error", "reason": "", "detail": f"no verdict: {e}", "evidence": {}}
print("CODEWALK-VERDICT " + json.dumps(out, default=str))
"""


def grade_in_container(composite: Composite, candidate: str) -> dict[str, Any]:
    """The domain's V_G on a candidate, in a new container of the proofs image (removed afterwards): its
    verdict as {status, reason, detail, evidence} (proofs_agent.Verdict's fields)."""
    from docker.errors import DockerException

    image = ensure_image()
    client = runtime.client()
    name = runtime.container_name("proofs")
    try:
        container = client.containers.create(
            image, ["python3", "-c", SCRIPT, "/" + INPUT], name=name, network_disabled=True, working_dir="/verify",
            environment={"PYTHONPATH": SOURCE, "HOME": "/tmp", "CODEWALK_HOME": "/tmp/cw-home"},
            user=USER, cap_drop=["ALL"], **hardened(MEMORY_MB, kind="proofs"))
        container.put_archive("/", build_context({INPUT: json.dumps(
            {"composite": {"prompt": composite.prompt, "reference": composite.reference,
                           "verifier": composite.verifier}, "candidate": candidate}).encode()}))
        container.start()
        try:
            done = container.wait(timeout=TIMEOUT)
        except Exception:  # the daemon's wait timed out (requests' ReadTimeout): no verdict
            return _no_verdict(f"no verdict: the verify container ran over {TIMEOUT:g}s")
        output = container.logs(stdout=True, stderr=True).decode("utf-8", "replace")
    except DockerException as e:
        return _no_verdict(f"no verdict: docker: {str(e).strip()[-300:]}")
    finally:
        runtime.forget(name)  # removed before the verdict is read: no container outlives its call
    line = next((x for x in reversed(output.splitlines()) if x.startswith("CODEWALK-VERDICT ")), None)
    if line is None:
        return _no_verdict(f"no verdict: the verify container exited with {done.get('StatusCode')}: "
                           f"{output.strip()[-500:]}")
    found: dict[str, Any] = json.loads(line.split(" ", 1)[1])
    return {k: found[k] for k in ("status", "reason", "detail", "evidence")}


def _no_verdict(detail: str) -> dict[str, Any]:
    return {"status": "error", "reason": "", "detail": detail, "evidence": {}}


@cache
def ensure_image() -> str:
    """The proofs image's tag, built now (once, under a lock shared by processes) when the daemon lacks it."""
    from docker.errors import ImageNotFound

    files = source()
    base = base_image()
    tag = image_tag(files)  # codewalk.domains.proofs.image: `cw release` names it without inspect_ai
    client = runtime.client()
    with locked(Path(paths.cache("proofs")) / "image.lock"):
        try:
            client.images.get(tag)
            return tag
        except ImageNotFound:
            pass
        _build(tag, base, files)
    return tag


def _build(tag: str, base: str, source: dict[str, bytes]) -> None:
    install = ("apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "
               f"{' '.join(PACKAGES)} && rm -rf /var/lib/apt/lists/*")
    dockerfile = "\n".join([f"FROM {base}", "USER root", f"RUN {json.dumps(['/bin/sh', '-c', install])}",
                            f"COPY src {SOURCE}", f"ENV PYTHONPATH={SOURCE}", ""])
    context = {"Dockerfile": dockerfile.encode(), **source}
    labels = runtime.labels("environment", **{"codewalk.base": base, "codewalk.image": "proofs"})
    build_image(build_context(context), tag, labels, f"the proofs image {tag} on {base}")
