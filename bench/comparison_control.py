"""What the repair grader's comparison control (harness/boot.py: _controlled, _other_than) costs one comparison:
an exact list class and an exact text class, put behind the control in this process, compared with a plain
value they equal and one they do not, the probes asked before the answer (coin 1) and after it (coin 0).

    python bench/comparison_control.py [--boot PATH ...] [--number 20000]

--boot: the boot.py files to compare (default: this tree's); give an older checkout's to see the change.
Prints microseconds per comparison (the best of 5 repeats; a shared machine is noisy).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import timeit
from pathlib import Path

BOOT = Path(__file__).resolve().parents[1] / "codewalk" / "domains" / "repair" / "harness" / "boot.py"


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def controlled_cases(boot, coin: int, apart=None) -> tuple[dict, list]:
    """Two comparisons of a list and a text subclass behind boot's control, and the four calls timed (equal and not
    equal to each), with the list the control writes its findings to."""
    bits = random.Random(0).getrandbits
    other_than = boot._other_than(lambda n: bits(8 * n).to_bytes(n, "little"))
    found: list = []

    class Words(list):
        def __eq__(self, other):
            return list(self) == list(other)

    class Text(str):
        def __eq__(self, other):
            return str(self) == str(other)

    for cls in (Words, Text):
        extra = () if apart is None else (apart,)
        cls.__eq__ = boot._controlled("__eq__", vars(cls)["__eq__"], cls.__name__, other_than, found, lambda: coin,
                                      *extra)
    words, text = Words(["alpha", "beta", "gamma"]), Text("alpha, beta, gamma")
    cases = {"list, equal": lambda: words == ["alpha", "beta", "gamma"],
             "list, not equal": lambda: words == ["alpha", "beta"],
             "text, equal": lambda: text == "alpha, beta, gamma",
             "text, not equal": lambda: text == "alpha"}
    return cases, found


def measure(boot, coin: int, number: int) -> dict[str, float]:
    cases, found = controlled_cases(boot, coin)
    out = {name: min(timeit.repeat(case, number=number, repeat=5)) / number * 1e6 for name, case in cases.items()}
    assert not found, found  # exact comparisons: the control finds nothing
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boot", type=Path, nargs="*", default=[BOOT])
    parser.add_argument("--number", type=int, default=20000)
    args = parser.parse_args()
    for i, path in enumerate(args.boot):
        boot = load(path, f"boot_{i}")
        for coin, when in ((0, "probes after an equal answer"), (1, "probes before the answer")):
            figures = measure(boot, coin, args.number)
            print(f"{path}  {when}:  " + ", ".join(f"{k} {v:.1f} us" for k, v in figures.items()))


if __name__ == "__main__":
    main()
