"""The repair environment's probes on the interpreters SWE-bench rows ask for, not only the one running
codewalk: the pytest-plugin probe once called `entry_points(group=...)`, which Python 3.9 lacks, and every
group whose environment was 3.9 ended as an error.

Each old interpreter comes from this machine (pyenv, or python3.X on PATH). Off CI a missing one skips
with the reason; under CI (CI=true) it fails, so CI cannot go green without having run the probe on it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codewalk.domains.repair.env import find_python, installed_plugins
from codewalk.runtime import sandbox

PLUGIN_DIST = {"METADATA": "Metadata-Version: 2.1\nName: zplug\nVersion: 1.0\n",
               "entry_points.txt": "[pytest11]\nzplug = zplug.plugin:hooks\n",
               "top_level.txt": "zplug\n", "RECORD": ""}


def _interpreter(version: str) -> str:
    exe, used, note = find_python(version)
    if note:
        if sandbox.under_ci():
            pytest.fail(f"CI must provide python {version}: {note}")
        pytest.skip(note)
    assert used.startswith(version + "."), used
    return exe


@pytest.mark.parametrize("version", ["3.7", "3.8", "3.9"])
def test_plugin_probe_lists_an_installed_pytest11_plugin_on_older_pythons(version, tmp_path):
    """A real virtualenv of that interpreter with a distribution declaring a pytest11 entry point."""
    exe = _interpreter(version)
    venv = tmp_path / "venv"
    # 3.7 has no importlib.metadata: the probe reads pkg_resources, which comes with setuptools (ensurepip)
    extra = [] if version == "3.7" else ["--without-pip"]
    subprocess.run([exe, "-m", "venv", *extra, str(venv)], check=True, capture_output=True, timeout=300)
    site = next((venv / "lib").glob("python*/site-packages"))
    dist = site / "zplug-1.0.dist-info"
    dist.mkdir()
    for name, text in PLUGIN_DIST.items():
        (dist / name).write_text(text)
    assert installed_plugins(str(venv)) == ("zplug.plugin",)


def test_plugin_probe_lists_nothing_where_no_plugin_is_installed(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    assert installed_plugins(str(Path(venv))) == ()
