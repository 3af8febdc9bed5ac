"""The entrypoint of an action run as a pod (the action-runner image, docs/actions.md).

The pod holds nothing but its action token and the run's non-secret variables:
this module fetches the run's bundle and prompts from the action API
(``GET run``), writes the bundle into a private folder and runs
``python3 -m styrmin.run`` on it as the process runtime does, with the prompts
on its standard input. Its output passes through unchanged (the pod's log is
the runner's protocol); its exit status is the runner's. SIGTERM is passed on
to the runner, which reports the action as stopped.
"""

import base64
import json
import os
import posixpath
import signal
import subprocess
import sys
import tempfile

from . import _api
from .errors import StyrminError

# The exit status when the run could not be fetched or its bundle written (the
# runner's own "could not start the function").
EXIT_NOT_STARTED = 2


def fetch_run():
    """Return (files by slash path as bytes, prompts) of this run from the action API."""
    answer = _api.call("GET", "run")
    files = {name: base64.b64decode(data) for name, data in (answer.get("files") or {}).items()}
    return files, answer.get("prompts") or {}


def write_bundle(root, files):
    """Write the bundle's files under root, refusing a path that leaves it."""
    for name, data in files.items():
        clean = posixpath.normpath(name)
        if clean.startswith("../") or clean == ".." or posixpath.isabs(clean):
            raise StyrminError(f"bundle file {name!r} is outside the bundle")
        path = os.path.join(root, *clean.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)


def _package_root():
    """Return the folder (or zip archive) that holds the styrmin package."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    """Fetch the run, run the action on it; return the exit status."""
    try:
        files, prompts = fetch_run()
        bundle = tempfile.mkdtemp(prefix="bundle-")
        write_bundle(bundle, files)
    except (StyrminError, OSError, ValueError) as err:
        print(json.dumps({"t": "log", "level": "ERROR", "msg": f"the action did not start: {err}", "logger": "styrmin.run"}), flush=True)
        return EXIT_NOT_STARTED
    env = dict(os.environ, PYTHONPATH=bundle + os.pathsep + _package_root(), PYTHONDONTWRITEBYTECODE="1", PYTHONUNBUFFERED="1")
    runner = subprocess.Popen([sys.executable, "-m", "styrmin.run"], cwd=bundle, env=env, stdin=subprocess.PIPE)
    signal.signal(signal.SIGTERM, lambda signum, frame: runner.send_signal(signal.SIGTERM))
    try:
        runner.stdin.write(json.dumps(prompts).encode("utf-8"))
        runner.stdin.close()
    except BrokenPipeError:
        pass
    code = runner.wait()
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main())
