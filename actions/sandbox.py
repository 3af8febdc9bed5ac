# The init of an action's sandbox (see sandbox.go). It starts as root, as
# process 1 of a new PID namespace in a new mount namespace, and:
#   - makes every mount private, so that nothing below reaches the host;
#   - mounts a /proc of the new PID namespace: the action sees its own processes only;
#   - binds the run's bundle and its copy of the SDK read-only onto themselves;
#   - mounts an empty tmpfs, owned by the action's uid, as its HOME;
#   - when the interpreter lies under a folder that others may not enter
#     (pyenv's /root/.pyenv), covers that folder with a tmpfs that holds the
#     interpreter's folder only, read-only;
# then runs the action as UID:GID with no supplementary groups and
# no_new_privs, reaps every process of the namespace, and exits with the
# action's status once the action has ended: the kernel then kills whatever
# the action left running in the namespace.
#
# argv: RUN_DIR UID GID PYTHON ARG... ; the environment is the action's.
import ctypes
import os
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


def setup(run_dir, uid, gid, python):
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for name in ("bundle", "sdk"):
        path = os.path.join(run_dir, name)
        bind_read_only(path, path)
    home = os.path.join(run_dir, "home")
    mount("tmpfs", home, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700,uid=%d,gid=%d,size=64m" % (uid, gid))
    uncover_interpreter(run_dir, python)


def run_action(uid, gid, argv, bundle):
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    os.chdir(bundle)
    os.execv(argv[0], argv)


def main():
    run_dir, uid, gid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    argv = sys.argv[4:]
    try:
        setup(run_dir, uid, gid, argv[0])
    except OSError as e:
        print("the action's sandbox could not be set up: %s" % e, file=sys.stderr)
        sys.exit(125)
    action = os.fork()
    if action == 0:
        try:
            run_action(uid, gid, argv, os.path.join(run_dir, "bundle"))
        except OSError as e:
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
