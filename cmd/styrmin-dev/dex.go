package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Dex for `make run OIDC=dex`: tools/dex/dev-config.yaml's issuer, client
// and groups.
const (
	dexIssuer     = "http://127.0.0.1:5556/dex"
	dexClientID   = "styrmin"
	dexSecret     = "styrmin-dev-secret"
	dexRoleGroups = "admin=styrmin-admins,operator=styrmin-operators,readonly=styrmin-readers"
)

// startDex builds Dex (scripts/ensure-dex), starts it with the development
// configuration and waits for its discovery document; it returns the
// server's settings that sign in through it and a func that stops it.
func startDex(ctx context.Context, root string) ([]string, func(), error) {
	ensure := exec.CommandContext(ctx, filepath.Join(root, "scripts", "ensure-dex"))
	ensure.Stdout, ensure.Stderr = os.Stderr, os.Stderr
	if err := ensure.Run(); err != nil {
		return nil, nil, fmt.Errorf("build Dex: %w", err)
	}
	cmd := exec.Command(filepath.Join(root, ".dev", "bin", "dex"), "serve", filepath.Join(root, "tools", "dex", "dev-config.yaml"))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start Dex: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt) //nolint:errcheck // it may have exited
		<-exited
	}
	deadline := time.Now().Add(time.Minute)
	for {
		res, err := http.Get(dexIssuer + "/.well-known/openid-configuration")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-exited:
			return nil, nil, fmt.Errorf("dex exited (is port 5556 taken?): %v", err)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stop()
			return nil, nil, fmt.Errorf("dex did not serve %s within a minute", dexIssuer)
		}
	}
	fmt.Fprintln(os.Stderr, "styrmin-dev: Dex runs at", dexIssuer, "- sign in with ada@, olga@, rita@ or nils@example.com, password styrmin-dev-password (tools/dex/dev-config.yaml)")
	return []string{
		"STYRMIN_OIDC_ISSUER=" + dexIssuer, "STYRMIN_OIDC_CLIENT_ID=" + dexClientID, "STYRMIN_OIDC_CLIENT_SECRET=" + dexSecret,
		"STYRMIN_OIDC_NAME=Dex (local)", "STYRMIN_OIDC_SCOPES=openid,profile,email,groups", "STYRMIN_OIDC_ROLE_GROUPS=" + dexRoleGroups,
	}, stop, nil
}
