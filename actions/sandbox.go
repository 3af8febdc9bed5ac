package actions

import (
	_ "embed"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// sandboxInit is the sandbox's process 1 (sandbox.py): it sets up the mounts
// of the run's namespaces, then runs the action as the sandbox's user.
//
//go:embed sandbox.py
var sandboxInit string

// sandboxCaps are the capabilities that build a sandbox: CAP_SETGID,
// CAP_SETUID and CAP_SYS_ADMIN (namespaces, mounts).
const sandboxCaps = 1<<6 | 1<<7 | 1<<21

// Sandboxed reports whether actions run in a sandbox (see docs/actions.md):
// only a server running as root with the capabilities to build one (a
// container's root may lack CAP_SYS_ADMIN) does so.
func Sandboxed() bool {
	if os.Geteuid() != 0 {
		return false
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(status)) {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			return err == nil && caps&sandboxCaps == sandboxCaps
		}
	}
	return false
}

// MissingProtections says what an action run by a server that cannot build a
// sandbox can do that a sandboxed one cannot, for the server's log.
const MissingProtections = "the server is not root with CAP_SYS_ADMIN, CAP_SETUID and CAP_SETGID, so driver actions run as its own user, " +
	"without PID and mount namespaces: they can read every file the server's user can read and see its other processes, " +
	"and what they leave running is killed with their process group only (the server's environment stays " +
	"unreadable: it is not dumpable)"

// The limits of a sandboxed action (docs/actions.md, "The sandbox"). Each
// run has a user of its own (runUser), so the process limit is the run's.
const (
	// LimitTmp bounds the action's private /tmp and its HOME, each.
	LimitTmp = 64 << 20
	// LimitProcesses bounds the processes (and threads) of the run's user.
	LimitProcesses = 256
	// LimitAddressSpace bounds each process's virtual memory.
	LimitAddressSpace = 1 << 30
	// LimitOpenFiles bounds each process's open files.
	LimitOpenFiles = 1024
)

// sandboxLimits is the LIMITS argument of sandbox.py.
var sandboxLimits = fmt.Sprintf("tmp=%d,nproc=%d,as=%d,nofile=%d", LimitTmp, LimitProcesses, LimitAddressSpace, LimitOpenFiles)

// The users of sandboxed runs are uids (and gids) of no account, from a
// range of 2^24 above 2^30, far from the accounts of a machine (and from the
// 100000-based ranges container runtimes map), as systemd's DynamicUser
// gives each service a user of its own.
const (
	RunUsersFrom  = 1 << 30
	RunUsersCount = 1 << 24
)

// runUser is the user one sandboxed run acts as: a uid of RunUsers* picked at
// random, so that a run shares its process limit with no other (a fork bomb
// of one driver starves no other action) and can signal no other run's
// processes; a clash of two runs at once is one chance in 16 million.
func runUser() (uid, gid int) {
	uid = RunUsersFrom + rand.IntN(RunUsersCount)
	return uid, uid
}

// runDir is the layout of one run's private folder.
type runDir struct {
	root, bundle, sdk, home string
}

// newRunDir creates the run's folder holding the bundle's files and, when
// sandboxed, a copy of the SDK. Its files belong to the server's user; a
// sandboxed action may only read them (the folder lets others pass through,
// not list it).
func newRunDir(spec Spec, sandboxed bool) (runDir, error) {
	root, err := os.MkdirTemp("", "styrmin-action-")
	if err != nil {
		return runDir{}, fmt.Errorf("actions: %w", err)
	}
	d := runDir{root: root, bundle: filepath.Join(root, "bundle"), sdk: spec.SDK, home: root}
	if err := os.Mkdir(d.bundle, 0o755); err != nil {
		os.RemoveAll(root)
		return runDir{}, fmt.Errorf("actions: %w", err)
	}
	if err := writeFiles(d.bundle, spec.Files); err != nil {
		os.RemoveAll(root)
		return runDir{}, err
	}
	if !sandboxed {
		return d, nil
	}
	d.sdk, d.home = filepath.Join(root, "sdk"), filepath.Join(root, "home")
	err = os.CopyFS(d.sdk, os.DirFS(spec.SDK))
	if err == nil {
		err = os.Mkdir(d.home, 0o700)
	}
	if err == nil {
		err = os.Chmod(root, 0o711)
	}
	if err != nil {
		os.RemoveAll(root)
		return runDir{}, fmt.Errorf("actions: sandbox: %w", err)
	}
	return d, nil
}

// newCommand is the process running the action with args: in its sandbox
// when sandboxed (sandbox.py as the init of new PID and mount namespaces),
// else directly; in its own process group, killed when the server's thread
// that started it dies.
func newCommand(spec Spec, d runDir, sandboxed bool, args ...string) *exec.Cmd {
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if !sandboxed {
		cmd := exec.Command(spec.Python, args...)
		cmd.Dir, cmd.SysProcAttr = d.bundle, attr
		return cmd
	}
	uid, gid := runUser()
	argv := append([]string{"-I", "-c", sandboxInit, d.root, strconv.Itoa(uid), strconv.Itoa(gid), sandboxLimits, spec.Python}, args...)
	cmd := exec.Command(spec.Python, argv...)
	cmd.Dir = "/"
	attr.Cloneflags = syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
	cmd.SysProcAttr = attr
	return cmd
}
