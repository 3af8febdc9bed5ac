# A driver action that tries to reach what belongs to the server that runs it
# (see sandbox_test.go), and returns what it reached.
import glob
import os
import socket
import struct
import subprocess
import sys

import styrmin


def read(path):
    with open(path, "rb") as f:
        return f.read()


def environments(secret):
    """Every process environment it can read but its own, and those holding secret."""
    readable, leaked, seen = [], [], 0
    for path in glob.glob("/proc/[0-9]*/environ"):
        pid = int(path.split("/")[2])
        seen += 1
        try:
            data = read(path)
        except OSError:
            continue
        if secret.encode() in data:
            leaked.append(pid)
        if pid != os.getpid():
            readable.append(pid)
    return readable, leaked, seen


def files(paths):
    reached = []
    for path in paths:
        try:
            read(path)
            reached.append(path)
        except OSError:
            pass
    return reached


def startup(user, database):
    """A PostgreSQL StartupMessage (protocol 3.0)."""
    body = struct.pack("!i", 196608) + b"".join(k.encode() + b"\0" + v.encode() + b"\0" for k, v in (("user", user), ("database", database))) + b"\0"
    return struct.pack("!i", len(body) + 4) + body


def logs_in(family, address, user, database):
    """Whether PostgreSQL at address lets this process in without a password."""
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.settimeout(10)
            s.connect(address)
            s.sendall(startup(user, database))
            answer = s.recv(9)
    except OSError:
        return False
    return len(answer) == 9 and answer[:1] == b"R" and struct.unpack("!i", answer[5:9])[0] == 0


def database(socket_path, port, user, name):
    reached = []
    if logs_in(socket.AF_UNIX, socket_path, user, name):
        reached.append(socket_path)
    if logs_in(socket.AF_INET, ("127.0.0.1", port), user, name):
        reached.append("127.0.0.1:%d" % port)
    return reached


def writes(folders):
    """The folders it could add a file to, and the modules it could change."""
    reached, tried = [], 0
    for folder in folders:
        tried += 1
        try:
            with open(os.path.join(folder, "planted.py"), "w") as f:
                f.write("planted = True\n")
            reached.append(folder)
        except OSError:
            pass
        for module in glob.glob(os.path.join(folder, "*.py")):
            tried += 1
            try:
                with open(module, "a") as f:
                    f.write("\n# planted\n")
                reached.append(module)
            except OSError:
                pass
    return reached, tried


def daemon(marker):
    """Starts a process in its own session that outlives the action."""
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)", marker],
        start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return child.pid


def attack(secret, server_pid, key_file, kubeconfig, db_socket, db_port, db_user, db_name, host_sdk, marker):
    readable, leaked, seen = environments(secret)
    sdk = os.path.dirname(styrmin.__file__)
    written, tried = writes([sdk, os.path.dirname(sdk), os.getcwd(), host_sdk, os.path.join(host_sdk, "styrmin")])
    return {
        "processes_seen": seen,
        "own_environment_read": bool(files(["/proc/self/environ"])),
        "environments_read": readable,
        "secret_seen_in": leaked,
        "server_environment": files(["/proc/%d/environ" % server_pid, "/proc/%d/mem" % server_pid]),
        "files": files([key_file, kubeconfig, os.path.expanduser("~root/.kube/config")]),
        "database": database(db_socket, db_port, db_user, db_name),
        "writes_tried": tried,
        "writes": written,
        "daemon": daemon(marker),
    }
