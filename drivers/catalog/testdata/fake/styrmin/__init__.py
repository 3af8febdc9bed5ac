"""A stand-in for the styrmin SDK that records what an action asks for.

Used by the catalog tests only: each primitive appends a call to `calls`
instead of talking to a Styrmin server, and `log` records its lines there too.
"""

import logging

calls = []


class _Recorder(logging.Handler):
    def emit(self, record):
        calls.append({"log": record.levelname + " " + record.getMessage()})


log = logging.getLogger("styrmin.action")
log.setLevel(logging.DEBUG)
log.addHandler(_Recorder())
log.propagate = False


def execute_commands(commands, image, env=None, timeout=None):
    calls.append({"execute_commands": {"commands": list(commands), "image": image, "env": env or {}, "timeout": timeout}})


def stop_components(names=None):
    calls.append({"stop_components": names})


def start_components(names=None):
    calls.append({"start_components": names})


def upgrade_deployment_version(version):
    calls.append({"upgrade_deployment_version": version})
