// Command pause is the sandbox ("pause") container of the local cluster's real
// node: it waits for SIGTERM or SIGINT and exits. localkube builds its image
// from this static binary, since no registry is reached.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
}
