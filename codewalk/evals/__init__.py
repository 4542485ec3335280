"""inspect_ai tasks for codewalk's domains (the optional extra `pip install 'codewalk[inspect]'`).

inspect_ai finds them through the `inspect_ai` entry point, which names this package: importing it
registers every task and codewalk's sandbox providers.

- `codewalk/<domain>` (codewalk.evals.tasks): one model call per task, for every domain; the prompt holds
  the whole problem, the answer is graded by the domain's V_G.
- `codewalk/repair_agent` (codewalk.evals.agent): repair as the paper evaluates it (Sec. 4.1, App. B.1):
  an agent with one bash tool in a sandbox holding x_G at /testbed, scored by V_G outside it.
- `codewalk/proofs_agent` (codewalk.evals.proofs_agent): proof completion as the paper evaluates it (Sec.
  4.1, App. B.2): generation, refinement and repair rounds fed by the verifier's messages, scored by V_G.
- sandbox providers `codewalk-local` and `codewalk-docker` (codewalk.evals.testbed).
"""

from . import agent, proofs_agent, tasks, testbed  # noqa: F401  (registers the tasks and the sandbox providers)
