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


def fork_bomb_holding():
    """Starts processes until it cannot start one more, then holds them all until it is stopped."""
    started = 0
    try:
        while True:
            if os.fork() == 0:
                time.sleep(600)
                os._exit(0)
            started += 1
    except BlockingIOError:
        print("holding", started, flush=True)
    time.sleep(600)


def start_processes(count):
    """Starts count processes, waits for each, and returns how many ended well."""
    pids = []
    for _ in range(count):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        pids.append(pid)
    return sum(1 for pid in pids if os.waitpid(pid, 0)[1] == 0)


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
