"""Per-pair verdicts of `cw load clones`, kept so a label can be audited without re-running anything.

Every pair loaded gets one JSON line (Verification.record): pair_id, label, status (confirmed /
rejected), reason, the witness input with both methods' outcomes (for a rejected eq pair or a confirmed
neq pair), inputs tried, seed, and the evidence of both methods. The file is
`clones-verdicts.jsonl` in the folder `cw load` gives the domain (paths.beside_store: beside the embedded
store, else CODEWALK_HOME); `--opt verdicts=PATH` chooses another. Loading again updates the lines of
the pairs loaded and keeps the others. `python bench/clones_report.py --show ID` prints one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

NAME = "clones-verdicts.jsonl"


def read(path: Path) -> dict[int, dict[str, Any]]:
    path = Path(path)
    if not path.exists():
        return {}
    records = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return {r["pair_id"]: r for r in records}


def save(records: Iterable[dict[str, Any]], path: Path) -> Path:
    """Merge the records into the file (by pair_id), written whole and replaced atomically."""
    path = Path(path)
    merged = read(path)
    merged |= {r["pair_id"]: r for r in records}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_text("".join(json.dumps(merged[k], sort_keys=True) + "\n" for k in sorted(merged)), encoding="utf-8")
    os.replace(tmp, path)
    return path
