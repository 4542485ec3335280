"""An offline check that the inspect route works end to end: `python -m codewalk.evals.smoke TASK [-T K=V]`.

It runs `codewalk/TASK` with inspect_ai's mock model (`mockllm/model`) replaying each task's reference:
the one-call tasks and `proofs_agent` (whose first candidate it is) answer with it; `repair_agent` applies it
with `git apply` through its bash tool, then submits. Every reference was admitted by V_G, so every sample must be scored 1; the command exits 1 when the
eval fails, when a sample is unscored, or when a reference is not solved (and 0 only then).

The mock model is given each output's token usage: without it inspect_ai counts tokens with tiktoken's
o200k_base encoding, which tiktoken downloads on first use (openaipublic.blob.core.windows.net); the tasks
do the same for `inspect eval ... --model mockllm/model` (tasks.offline_mock). TASK is named as inspect eval
names it (`codewalk/demo`) or short (`demo`).
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

import yaml
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, ChatMessageTool, ModelOutput, ModelUsage, get_model

from codewalk.errors import CodewalkError

from . import tasks as one_call

AGENTS = {"repair_agent": "repair", "proofs_agent": "proofs"}  # the agent tasks and the domain of their tasks


def replay(task: str, store: str | None, export: str | None, level: int) -> Any:
    """The mock model's outputs: each sample's reference, as that task takes an answer."""
    domain = AGENTS.get(task, task)
    references = {t.id: t.reference for t in one_call._tasks(domain, store, export, level)}

    def output(messages: list[ChatMessage], *_: Any) -> ModelOutput:
        reference = references[_sample_id()]
        if task != "repair_agent":
            out = ModelOutput.from_content("mockllm", reference)
        elif not any(isinstance(m, ChatMessageTool) for m in messages):
            out = ModelOutput.for_tool_call("mockllm", "bash", {
                "command": f"cd /testbed && git apply <<'CODEWALK_EOF'\n{reference}CODEWALK_EOF"})
        else:
            out = ModelOutput.for_tool_call("mockllm", "submit", {})
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
        return out

    return output


def _sample_id() -> str:
    from inspect_ai.log._samples import sample_active  # as tasks._eval_id: no public accessor in 0.3

    active = sample_active()
    if active is None:
        raise RuntimeError("the mock model was called outside a sample")
    return str(active.sample.id)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codewalk.evals.smoke", description=__doc__.split("\n\n")[0])
    parser.add_argument("task", help="demo, repair, clones, complexity, proofs, repair_agent or proofs_agent, with "
                                     "or without codewalk/ in front (as inspect eval names them)")
    parser.add_argument("-T", dest="args", action="append", default=[], metavar="KEY=VALUE",
                        help="a task argument, as inspect eval takes it (store=..., level=..., runtime=...)")
    parser.add_argument("--log-dir", default="./logs", help="where inspect writes the eval log")
    parsed = parser.parse_args(argv)
    parsed.task = parsed.task.removeprefix("codewalk/")  # as inspect eval names it, or short
    # values as inspect eval reads them (YAML: level=1 is a number, store=... a string)
    task_args: dict[str, Any] = {k: yaml.safe_load(v) for k, v in (a.split("=", 1) for a in parsed.args)}
    try:
        model = get_model("mockllm/model", custom_outputs=replay(
            parsed.task, task_args.get("store"), task_args.get("export"), int(task_args.get("level", 0))))
        [log] = inspect_eval(f"codewalk/{parsed.task}", model=model, task_args=task_args, log_dir=parsed.log_dir,
                             display="none")
    except (CodewalkError, ValueError) as e:
        print(f"smoke: {e}", file=sys.stderr)
        return 1
    samples = log.samples or []
    values = [next(iter(s.scores.values())).value if s.scores else None for s in samples]
    scored = [v for v in values if isinstance(v, int | float) and not math.isnan(v)]  # NaN: unscored
    print(f"{parsed.task}: eval {log.eval.eval_id} {log.status}; {len(samples)} samples, {len(scored)} scored, "
          f"{sum(v == 1 for v in scored)} solved by the reference; log: {log.location}")
    if log.status != "success" or not samples or len(scored) < len(samples) or any(v != 1 for v in scored):
        why = log.error.message if log.error else "a sample is unscored or a reference is not solved"
        print(f"smoke: FAILED: {why}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
