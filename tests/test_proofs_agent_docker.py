"""`codewalk/proofs_agent -T runtime=docker`: the verify step in a fresh container of the proofs image (Debian's
Frama-C, Why3, Z3 and cvc5, and this codewalk's source, built on CODEWALK_DOCKER_BASE once per codewalk
version: about 4 minutes the first time, apt through CODEWALK_BUILD_NETWORK). The final grade runs on the host."""

from __future__ import annotations

import json

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from codewalk.evals import proofs_image
from codewalk.evals.proofs_agent import Verdict
from codewalk.records import Composite
from tests import docker_runtime
from tests.test_proofs_agent import (  # noqa: F401  (fixtures; the frama-c mark: the goal set, the final grade)
    _env,
    _task,
    _without_invariant,
    cache,
    proofs_store,
)
from tests.test_proofs_agent import pytestmark as needs_frama_c

pytestmark = [needs_frama_c, pytest.mark.usefixtures("daemon")]


def test_the_verify_step_in_a_container_gives_the_hosts_verdicts(proofs_store):  # noqa: F811
    t = _task(proofs_store)
    composite = Composite(t.prompt, t.reference, t.verifier)
    passed = Verdict(**proofs_image.grade_in_container(composite, t.reference))
    assert (passed.status, passed.evidence["wp"]["cached"]) == ("passed", False), passed  # frama-c ran in there
    failed = Verdict(**proofs_image.grade_in_container(composite, _without_invariant(t)))
    assert failed.status == "failed" and failed.evidence["wp"]["unproved"] == ["f1_fill_ensures_constant"], failed
    cheat = t.reference.replace("  for (", "  //@ admit \\false;\n  for (", 1)
    refused = Verdict(**proofs_image.grade_in_container(composite, cheat))
    assert (refused.status, refused.reason) == ("failed", "bypass"), refused
    assert not docker_runtime.ours()  # every verify container removed


def test_the_agent_under_runtime_docker_verifies_in_containers_and_grades_on_the_host(proofs_store, tmp_path):  # noqa: F811
    t = _task(proofs_store)
    answers = iter([_without_invariant(t), t.reference])

    def output(*_) -> ModelOutput:
        out = ModelOutput.from_content("mockllm", next(answers))
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    model = get_model("mockllm/model", custom_outputs=output)
    [log] = inspect_eval("codewalk/proofs_agent", model=model, log_dir=str(tmp_path / "logs"), display="none",
                         task_args={"store": str(proofs_store), "require_isolation": False, "runtime": "docker"})
    assert log.status == "success", log.error
    assert log.samples is not None
    score = log.samples[0].scores["proofs_verifier"]
    metadata = score.metadata or {}
    assert (score.value, metadata["verifier_calls"], metadata["ended"]) == (1.0, 2, "verified"), json.dumps(metadata)
    assert "f1_fill_ensures_constant" in metadata["trajectory"][0]["message"]
    assert not docker_runtime.ours()


def test_the_verify_container_runs_as_nobody_without_capabilities(proofs_store, monkeypatch):  # noqa: F811
    """What the daemon was told, read back from it as the container starts (root in a container is root
    towards the kernel: the candidate's text is read by an unprivileged user with no capabilities)."""
    from docker.models.containers import Container

    seen: list[dict] = []
    real_start = Container.start

    def start(self, **kwargs):
        self.reload()
        seen.append({"user": self.attrs["Config"]["User"], "cap_drop": self.attrs["HostConfig"]["CapDrop"]})
        return real_start(self, **kwargs)

    monkeypatch.setattr(Container, "start", start)
    t = _task(proofs_store)
    verdict = Verdict(**proofs_image.grade_in_container(Composite(t.prompt, t.reference, t.verifier), t.reference))
    assert verdict.status == "passed", verdict  # V_G still runs there as nobody
    assert seen == [{"user": "65534:65534", "cap_drop": ["ALL"]}]
