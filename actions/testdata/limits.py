# Actions that attack the sandbox's resource limits (sandbox_test.go).
import os
import time


def fork_bomb(name):
    """Starts processes (named name) that never end until it cannot start one more."""
    started = 0
    while True:
        if os.fork() == 0:
            with open("/proc/self/comm", "w") as comm:
                comm.write(name)
            time.sleep(600)
            os._exit(0)
        started += 1
        print("started", started, flush=True)


def memory_hog():
    """Takes memory 64 MiB at a time."""
    hoard = []
    while True:
        hoard.append(bytearray(64 << 20))


def tmp_filler():
    """Writes into /tmp until it is full."""
    with open("/tmp/filler", "wb") as f:
        while True:
            f.write(b"x" * (1 << 20))
            f.flush()


def tmp_is_private(marker):
    """Reports what this action's /tmp holds."""
    return {"entries": sorted(os.listdir("/tmp")), "host_file": os.path.exists("/tmp/" + marker)}
