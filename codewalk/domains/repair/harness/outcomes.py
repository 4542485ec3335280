"""codewalk's pytest plugin: each test's outcome, sent to the harness through a channel it opened.

Loaded with `-p` under a name chosen per run, so pytest imports it before any conftest or module under
test. At import it takes the two file descriptors the harness passed (their numbers are in the
environment, removed at once): it reads the run's nonce from one and closes it, and writes one line per
report to the other, each starting with the nonce. The harness keeps only lines that carry the nonce and
cross-checks the last one (the session's exit status) with the runner's own exit code. Code under test
that writes to the descriptor cannot sign its lines without reading this module's memory. Runs on any
Python the tested repository uses (3.6 and later): standard library only.
"""

import json
import os
import sys


def _channel():
    out = int(os.environ.pop("CODEWALK_OUTCOMES_FD"))
    nonce_fd = int(os.environ.pop("CODEWALK_NONCE_FD"))
    nonce = os.read(nonce_fd, 256).decode()
    os.close(nonce_fd)

    def send(record):
        data = (nonce + " " + json.dumps(record) + "\n").encode()
        while data:
            data = data[os.write(out, data):]

    return send


_send = _channel()
del _channel


def pytest_configure(config):
    sys.modules.pop(__name__, None)  # imported again by name, it finds no channel


def pytest_collectreport(report):
    if report.failed:
        _send({"collect": report.nodeid, "outcome": "failed"})


def pytest_runtest_logreport(report):
    record = {"node": report.nodeid, "when": report.when, "outcome": report.outcome}
    if hasattr(report, "wasxfail"):
        record["xfail"] = True
    _send(record)


def pytest_sessionfinish(session, exitstatus):
    _send({"end": int(exitstatus)})
