"""Running CodeComplex programs and extracted functions in the sandbox.

`run_program` runs an original stdin/stdout program, one interpreter per input, as it would be judged.
`run_calls` and `run_driver` run many inputs in one interpreter (start-up would otherwise dominate):
each run executes the module afresh in a new namespace, so no state leaks between runs. They record
the result's type and size and how long the run took; runs go in ascending size, and the first one
that overruns its time limit ends the batch (larger ones would only take longer).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

from codewalk.errors import InfraError
from codewalk.runtime import sandbox

from . import cost

# Isolated (-I) and without the site module (-S): site processing costs more than a typical program
# run, and the programs need only the standard library. exit() and quit() come from site, so the
# bootstrap provides them, as sys.exit, before running the program as __main__.
PYTHON = [sys.executable, "-I", "-S"]
BOOT = ("import builtins, sys; builtins.exit = builtins.quit = sys.exit; "
        "exec(compile(open(sys.argv[1]).read(), sys.argv[1], 'exec'), {'__name__': '__main__'})")

# Runs inside the sandbox. The runs execute in a worker thread with a large stack (deep recursion is
# common in these programs); the main thread watches the clock and, when a run overruns its limit,
# reports what finished and exits, abandoning the stuck thread. The program's own prints go to stderr.
HARNESS = r'''
import builtins, faulthandler, io, json, math, os, sys, threading, time
builtins.exit = builtins.quit = sys.exit
sys.set_int_max_str_digits(0)
channel = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr
job = json.load(sys.stdin)
sys.stdin = io.StringIO("")

def typeof(v):
    t = type(v)
    if t in (bool, int, str, float):
        return t.__name__
    if t is list:
        inner = {typeof(e) for e in v}
        return "list" if not inner else f"list[{inner.pop()}]" if len(inner) == 1 else "list[mixed]"
    return t.__name__

def size(v):
    if isinstance(v, (int, float)):
        v = abs(v)
        return float(v) if v < 1e300 else 1e300
    try:
        return float(len(v))
    except TypeError:
        return None

def show(r, form):
    buffer = io.StringIO()
    if form == "value":
        print(r, file=buffer)
    elif form == "spread":
        print(*r, file=buffer)
    else:
        buffer.write(r)
    return buffer.getvalue()

results = {}
state = {"index": None, "start": 0.0}

# Counting (job["cap"] set): line events of the program's own code, plus the charges the cost model
# (cost.py) inserted for C work; only while the entry (or the driver) runs, not while the module loads.
CAP = job.get("cap")
tally = {"count": 0, "on": False}

class Overrun(BaseException):
    pass

def charge(k):
    if tally["on"]:
        tally["count"] += k
        if tally["count"] > CAP:
            raise Overrun

def local_trace(frame, event, arg):
    if event == "line" and tally["on"]:
        tally["count"] += 1
        if tally["count"] > CAP:
            raise Overrun
    return local_trace

def trace(frame, event, arg):
    return local_trace if frame.f_code.co_filename == "program.py" else None

def walked(m, kind):
    if kind == "m":
        return m
    return int(m * max(1.0, math.log2(m or 1))) if kind == "mlogm" else int(math.log2(m + 1))

def cw_arg(value, kind):
    if not hasattr(value, "__len__"):
        value = list(value)
    charge(walked(len(value), kind))
    return value

def cw_self(value, kind):
    if isinstance(value, (list, tuple, str, bytes, bytearray, dict, set, frozenset)) or \
            type(value).__name__ == "deque":
        charge(walked(len(value), kind))
    return value

def cw_in(value):
    if isinstance(value, (list, tuple, str)) or type(value).__name__ == "deque":
        charge(len(value))
    return value

def cw_op(value):
    if isinstance(value, (list, tuple, str)):
        charge(len(value))
    return value

CHARGES = {"_cw_arg": cw_arg, "_cw_self": cw_self, "_cw_in": cw_in, "_cw_op": cw_op}

def counted(call):
    """call() with counting on; the count, or None when it passed the cap."""
    tally["count"], tally["on"] = 0, True
    sys.settrace(trace)
    try:
        value = call()
    except Overrun:
        value = None
    finally:
        sys.settrace(None)
        tally["on"] = False
    return value, (tally["count"] if tally["count"] <= CAP else None)
try:
    code = compile(job["source"], "program.py", "exec")
    driver = compile(job["driver"], "driver.py", "exec") if job["mode"] == "drive" else None
except SyntaxError as e:
    channel.write(json.dumps({"error": f"SyntaxError: {e}"}) + "\n")
    channel.close()
    os._exit(0)

def report(result):
    """One line per finished run, at once: if the process is killed later, what finished is kept."""
    channel.write(json.dumps(result) + "\n")
    channel.flush()

def one(run):
    space = {"__name__": "program", **(CHARGES if CAP else {})}
    exec(code, space)
    if driver is None:
        started = time.perf_counter()
        if CAP:
            r, count = counted(lambda: space[job["entry"]](*run["args"]))
            if count is None:
                return {"over": True}
        else:
            r = space[job["entry"]](*run["args"])
        seconds = time.perf_counter() - started
        out = {"seconds": seconds, "type": typeof(r), "size": size(r)}
        if CAP:
            out["count"] = count
        if job["text"]:
            out["text"] = show(r, job["form"])
        return out
    sizes = {}
    for stage, (name, arg) in enumerate(job["stages"]):
        def wrapped(*args, _f=space[name], _k=stage, _arg=arg):
            sizes[f"in{_k}"] = size(args[_arg])
            r = _f(*args)
            sizes[f"out{_k}"] = size(r)
            return r
        space[name] = wrapped
    sys.stdin = io.StringIO(run["stdin"])
    sys.stdout = buffer = io.StringIO()
    started = time.perf_counter()
    count = None
    try:
        if CAP:
            _, count = counted(lambda: exec(driver, space))
        else:
            exec(driver, space)
    finally:
        sys.stdout, sys.stdin = sys.stderr, io.StringIO("")
    if CAP and count is None:
        return {"over": True}
    n = len(job["stages"])
    out = {"seconds": time.perf_counter() - started,
           "inputs": [sizes.get(f"in{k}") for k in range(n)],
           "outputs": [sizes.get(f"out{k}") for k in range(n)]}
    if job["text"]:
        out["text"] = buffer.getvalue()
    if CAP:
        out["count"] = count
    return out

def work():
    spent = 0.0
    for k, run in enumerate(job["runs"]):
        if spent > job["budget"]:
            break
        state["index"], state["start"] = k, time.monotonic()
        # A C operation that holds the interpreter (arithmetic on numbers of billions of bits) keeps the
        # watching thread below from running; this watchdog needs no interpreter and ends the process.
        faulthandler.dump_traceback_later(job["limit"] + 1, exit=True)
        try:
            results[k] = one(run)
        except MemoryError:
            results[k] = {"error": "MemoryError"}
        except BaseException as e:
            results[k] = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
        faulthandler.cancel_dump_traceback_later()
        spent += time.monotonic() - state["start"]
        state["index"] = None
        report(results[k])
        if "error" in results[k] or "over" in results[k]:
            break

threading.stack_size(256 * 1024 * 1024)
worker = threading.Thread(target=work, daemon=True)
worker.start()
while worker.is_alive():
    worker.join(0.005)
    k = state["index"]
    if k is not None and time.monotonic() - state["start"] > job["limit"]:
        if k not in results:
            report({"timeout": True})
        break
channel.close()
os._exit(0)
'''


@dataclass(frozen=True)
class ProgramRun:
    ok: bool  # exited 0 within the time limit
    stdout: str
    detail: str  # why not ok


def run_program(src: str, stdin: str, timeout: float) -> ProgramRun:
    """One run of an original program on one input, in its own interpreter."""
    with sandbox.workdir() as cwd:
        (cwd / "program.py").write_text(src)
        done = sandbox.run([*PYTHON, "-c", BOOT, "program.py"], cwd=cwd, timeout=timeout, stdin=stdin,
                           memory_mb=2048, sees=sandbox.python_runtime())
    if done.timed_out:
        return ProgramRun(False, "", "timeout")
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        return ProgramRun(False, done.stdout, last[0][:200])
    return ProgramRun(True, done.stdout, "")


def run_calls(source: str, entry: str, args: list[list[Any]], *, form: str, text: bool, limit: float,
              budget: float, cap: int | None = None) -> list[dict[str, Any]]:
    """Call `entry` once per argument list, each time on a fresh copy of the module. With `cap`, each
    run also records its cost ("count", see cost.py), and the first run whose cost passes the cap ends
    the batch ({"over": True})."""
    job = {"mode": "call", "source": cost.instrument(source) if cap else source, "entry": entry, "form": form,
           "text": text, "runs": [{"args": a} for a in args], "limit": limit, "budget": budget, "cap": cap}
    return _harness(job, timeout=budget + limit + 10)


def run_driver(source: str, driver: str, stages: list[tuple[str, int]], stdins: list[str], *, limit: float,
               budget: float, cap: int | None = None, text: bool = False) -> list[dict[str, Any]]:
    """Run a composite's driver once per stdin, recording the size of each stage's chained input and
    output (stage 1's input: its size parameter), and with `cap` the cost of the stages' code, as
    run_calls does (the driver's own lines, reading the input and printing, are not counted). With
    `text`, each run's printed output too (a measurement does not need it: 160 MB over 1,000 groups)."""
    job = {"mode": "drive", "source": cost.instrument(source) if cap else source, "driver": driver,
           "stages": stages, "runs": [{"stdin": s} for s in stdins], "limit": limit, "budget": budget,
           "cap": cap, "text": text}
    return _harness(job, timeout=budget + limit + 10)


# Counted runs must give the same count every time: a fixed hash seed fixes the order of sets of
# strings. -I would ignore the variable; the sandbox passes no other PYTHON* variable, so -E is not needed.
HARNESS_PYTHON = [sys.executable, "-P", "-s", "-S"]


def _harness(job: dict[str, Any], timeout: float) -> list[dict[str, Any]]:
    with sandbox.workdir() as cwd:
        done = sandbox.run([*HARNESS_PYTHON, "-c", HARNESS], cwd=cwd, timeout=timeout, stdin=json.dumps(job),
                           memory_mb=4096, sees=sandbox.python_runtime(), env={"PYTHONHASHSEED": "0"})
    results = []
    try:
        for line in done.stdout.splitlines():
            results.append(json.loads(line))
    except ValueError:
        raise InfraError(f"the run harness printed malformed results (exit {done.returncode}): "
                         f"{done.stderr[-300:]}") from None
    if done.timed_out or done.returncode != 0:
        # killed by the timeout or the watchdog: the runs reported so far stand, the next one overran
        if len(results) < len(job["runs"]) and not (results and set(results[-1]) & {"error", "over", "timeout"}):
            if not results and done.returncode not in (0, 1) and not done.timed_out:
                raise InfraError(f"the run harness died (exit {done.returncode}): {done.stderr[-300:]}")
            results.append({"timeout": True})
    if not all(isinstance(r, dict) for r in results):
        raise InfraError("the run harness returned malformed results")
    return results


def same_output(a: str, b: str) -> bool:
    """Outputs agree up to trailing whitespace on each line and trailing blank lines, as judges compare."""
    def norm(text: str) -> list[str]:
        lines = [line.rstrip() for line in text.splitlines()]
        while lines and not lines[-1]:
            lines.pop()
        return lines

    return norm(a) == norm(b)
