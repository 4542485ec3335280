"""codewalk's agent in a repair container: the container's own process, serving test runs over its stdin.

A `docker exec` costs a runc start (about 55 ms on an idle machine) and the harness a Python start; this
process, started with the container (as root, `python -I`), takes each run as a request on its stdin (the
host's attach stream): an 8-byte length, a JSON header, then a tar of the run's files. It runs the reset
the header gives (a group's further run), unpacks the tar at /, then forks and runs the harness (run.py,
already imported modules and all) in the child, with the child's stdout and stderr on its own stdout,
which the host reads. When the child ends it prints the header's end mark and the exit code on a line of
its own. Nothing under test can write to this process's stdin or stdout: they belong to root and are
never handed to the tests (the harness starts them with their own). When its input ends (the host closed it,
or died: the container is created with stdin_once) the agent exits, during a run too, and the container stops.
Standard library only, Python 3.6+.
"""

import binascii  # noqa: F401 - the harness's imports, loaded once here: a run's child starts with them
import hashlib  # noqa: F401
import hmac  # noqa: F401
import json
import os
import runpy
import select
import signal  # noqa: F401
import struct
import subprocess
import sys
import tempfile  # noqa: F401
import threading
import time  # noqa: F401


def read_exactly(stream, n):
    data = b""
    while len(data) < n:
        chunk = stream.read(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def serve():
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        size = read_exactly(stdin, 8)
        if size is None:  # the host closed it: the container is done
            return
        header = json.loads(read_exactly(stdin, struct.unpack(">Q", size)[0]).decode())
        files = read_exactly(stdin, header["tar"])
        if header["reset"]:
            subprocess.call(["/bin/sh", "-c", header["reset"]])
        unpack = subprocess.Popen(["tar", "-x", "-C", "/"], stdin=subprocess.PIPE)
        unpack.communicate(files)
        code = 126 if unpack.returncode else run(header["harness"], header["config"])
        stdout.write("\n{} {}\n".format(header["end"], code).encode())
        stdout.flush()


def run(script, config):
    """The harness in a forked child: no interpreter to start, its modules already imported."""
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)  # the requests are not the child's
            os.dup2(1, 2)
            sys.argv = [script, config]
            runpy.run_path(script, run_name="__main__")
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    stop_r, stop_w = os.pipe()
    watcher = threading.Thread(target=watch, args=(stop_r,), daemon=True)
    watcher.start()
    _, status = os.waitpid(pid, 0)
    os.write(stop_w, b"x")
    watcher.join()
    os.close(stop_r)
    os.close(stop_w)
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def watch(stop):
    """While a run goes on the host sends nothing: its input ending means the host is gone (killed, say), and
    nothing waits for the run, so the agent ends, and the container (its init) with every process in it."""
    stdin = sys.stdin.buffer
    readable, _, _ = select.select([stdin, stop], [], [])
    if stdin in readable and not stdin.peek(1):
        os._exit(0)


serve()
