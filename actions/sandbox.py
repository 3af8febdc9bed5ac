# The init of an action's sandbox (see sandbox.go). It starts as root, as
# process 1 of a new PID namespace in a new mount namespace, and:
#   - makes every mount private, so that nothing below reaches the host;
#   - mounts a /proc of the new PID namespace: the action sees its own processes only;
#   - binds the run's bundle and its copy of the SDK read-only onto themselves;
#   - mounts an empty tmpfs, owned by the action's uid, as its HOME;
#   - when the interpreter lies under a folder that others may not enter
#     (pyenv's /root/.pyenv), covers that folder with a tmpfs that holds the
#     interpreter's folder only, read-only;
#   - covers /tmp with a private, size-limited tmpfs (the run's folder, when
#     it is under /tmp, is bound into it again);
# then runs the action as UID:GID with no supplementary groups,
# no_new_privs and the resource limits LIMITS, reaps every process of the
# namespace, and exits with the action's status once the action has ended:
# the kernel then kills whatever the action left running in the namespace.
#
# argv: RUN_DIR UID GID LIMITS PYTHON ARG... ; the environment is the
# action's. LIMITS is "tmp=BYTES,nproc=N,as=BYTES,nofile=N" (sandbox.go).
import ctypes
import os
import resource
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 32, 4096, 8192, 16384, 1 << 18
PR_SET_NO_NEW_PRIVS = 38

libc = ctypes.CDLL(None, use_errno=True)


def mount(source, target, fstype, flags, data=None):
    enc = lambda s: None if s is None else s.encode()
    if libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, "mount %s on %s: %s" % (source or fstype, target, os.strerror(err)))


def bind_read_only(source, target):
    mount(source, target, None, MS_BIND | MS_REC)
    mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def closed_ancestor(path):
    """The outermost folder above path that others may not enter, or None."""
    parts = path.strip("/").split("/")
    for i in range(1, len(parts)):
        folder = "/" + "/".join(parts[:i])
        if os.stat(folder).st_mode & 0o001 == 0:
            return folder
    return None


def uncover_interpreter(run_dir, python):
    prefix = os.path.realpath(sys.base_prefix)
    if not os.path.realpath(python).startswith(prefix + "/"):
        return  # an interpreter outside this one's prefix: used as it is
    closed = closed_ancestor(prefix)
    if closed is None:
        return
    stage = os.path.join(run_dir, "python")
    os.mkdir(stage, 0o700)
    mount(prefix, stage, None, MS_BIND | MS_REC)
    mount("tmpfs", closed, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
    os.makedirs(prefix, 0o755)
    mount(stage, prefix, None, MS_MOVE)
    mount(None, prefix, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def private_tmp(run_dir, size):
    """Covers /tmp with an empty tmpfs of size bytes that everyone may use,
    binding the run's folder (with its mounts) into it again when it was under /tmp."""
    inside = os.path.realpath(run_dir).startswith("/tmp/")
    folder = os.open(run_dir, os.O_PATH | os.O_DIRECTORY) if inside else None
    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=%d" % size)
    if folder is not None:
        os.makedirs(run_dir, 0o711)
        mount("/proc/self/fd/%d" % folder, run_dir, None, MS_BIND | MS_REC)
        os.close(folder)


def setup(run_dir, uid, gid, limits, python):
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for name in ("bundle", "sdk"):
        path = os.path.join(run_dir, name)
        bind_read_only(path, path)
    home = os.path.join(run_dir, "home")
    mount("tmpfs", home, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700,uid=%d,gid=%d,size=%d" % (uid, gid, limits["tmp"]))
    uncover_interpreter(run_dir, python)
    private_tmp(run_dir, limits["tmp"])


def parse_limits(text):
    return {k: int(v) for k, v in (item.split("=", 1) for item in text.split(","))}


def limit_resources(limits):
    """The action's limits: processes of its user, address space, open
    files, and no core dumps; set as hard limits, so it cannot raise them."""
    for which, value in ((resource.RLIMIT_NPROC, limits["nproc"]), (resource.RLIMIT_AS, limits["as"]),
                         (resource.RLIMIT_NOFILE, limits["nofile"]), (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(which, (value, value))


def run_action(uid, gid, limits, argv, bundle):
    os.setgroups([])
    os.setgid(gid)
    limit_resources(limits)
    os.setuid(uid)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    os.chdir(bundle)
    os.execv(argv[0], argv)


def main():
    run_dir, uid, gid, limits = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), parse_limits(sys.argv[4])
    argv = sys.argv[5:]
    try:
        setup(run_dir, uid, gid, limits, argv[0])
    except OSError as e:
        print("the action's sandbox could not be set up: %s" % e, file=sys.stderr)
        sys.exit(125)
    action = os.fork()
    if action == 0:
        try:
            run_action(uid, gid, limits, argv, os.path.join(run_dir, "bundle"))
        except (OSError, ValueError) as e:
            print("the action could not be started in its sandbox: %s" % e, file=sys.stderr)
        os._exit(126)
    os.close(0)
    os.close(1)
    while True:
        pid, status = os.wait()
        if pid == action:
            # A process is killed by the signal it died of; this init cannot
            # be (its namespace ignores it), so it says so as a shell would.
            sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


main()
