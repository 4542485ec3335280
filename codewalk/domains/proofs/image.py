"""The name of the proofs image (codewalk.evals.proofs_image builds and runs it): a hash of its base, its
packages and this codewalk's Python source, so an image is built once per codewalk version. Here, below the
evals package, so that `cw release` can name the image in a manifest without inspect_ai."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import codewalk
import codewalk.loaders
from codewalk.domains.repair.containers import BASE

DEFAULT_BASE = "debian:bookworm-slim"
PACKAGES = ("frama-c-base", "why3", "z3", "cvc5", "python3")
SOURCE = "/opt/cw"  # codewalk's source in the image (on PYTHONPATH)


def base_image() -> str:
    return (os.environ.get(BASE) or DEFAULT_BASE).replace("{python}", "3")  # a repair base may name a version


def source() -> dict[str, bytes]:
    """codewalk's Python source, as the image holds it under SOURCE (codewalk.loaders inside codewalk/, as
    the wheel ships it, wherever an editable install keeps it)."""
    files: dict[str, bytes] = {}
    for package, prefix in ((Path(codewalk.__file__).parent, "codewalk"),
                            (Path(codewalk.loaders.__file__).parent, "codewalk/loaders")):
        for path in sorted(package.rglob("*.py")):
            relative = path.relative_to(package)
            if "__pycache__" not in relative.parts:
                files[f"src/{prefix}/{relative.as_posix()}"] = path.read_bytes()
    return files


def image_tag(files: dict[str, bytes] | None = None) -> str:
    """codewalk-proofs:<hash of the base, the packages and the source>."""
    files = source() if files is None else files
    digest = hashlib.sha256(json.dumps([base_image(), PACKAGES, {k: hashlib.sha256(v).hexdigest()
                                                                 for k, v in files.items()}],
                                       sort_keys=True).encode()).hexdigest()[:16]
    return f"codewalk-proofs:{digest}"
