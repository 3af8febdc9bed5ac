package actions

import (
	"fmt"
	"os"
	"syscall"
)

// prSetDumpable is prctl's PR_SET_DUMPABLE.
const prSetDumpable = 4

// ShieldServer keeps the server's secrets from the processes it starts: it
// removes vars (the variables that held secrets, read already) from its
// environment, so that no child inherits them, and marks the process not
// dumpable. The environment the process was started with stays in its memory
// and in /proc/<pid>/environ, whatever Unsetenv does; not dumpable, that file
// and the process's memory can be read only by a process with CAP_SYS_PTRACE,
// not by another process of the same user (an action run without a sandbox).
func ShieldServer(vars ...string) error {
	for _, v := range vars {
		if err := os.Unsetenv(v); err != nil {
			return fmt.Errorf("actions: shield the server: %w", err)
		}
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); errno != 0 {
		return fmt.Errorf("actions: shield the server: prctl(PR_SET_DUMPABLE): %w", errno)
	}
	return nil
}
