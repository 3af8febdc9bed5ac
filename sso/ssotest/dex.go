package ssotest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
)

// DexUser is a user of Dex's password database: username, password and groups.
type DexUser struct {
	Username, Password string
	Groups             []string
}

// Dex is a running Dex for a test.
type Dex struct {
	// Issuer is its issuer URL.
	Issuer string
}

// dexStart bounds the wait for Dex's discovery document.
const dexStart = time.Minute

// StartDex starts Dex (built by scripts/ensure-dex, which it runs when the
// binary is missing or stale) on a free loopback port with memory storage,
// one client (ClientID, ClientSecret) that may redirect to redirectURL and
// the users in its password database, with their groups; it returns once
// Dex serves its discovery document, and stops Dex when the test ends.
func StartDex(t testing.TB, redirectURL string, users ...DexUser) *Dex {
	t.Helper()
	bin := ensureDex(t)
	dir := t.TempDir()
	// A port found free may be taken before Dex binds it: try another.
	var lastErr error
	for range 3 {
		port := freePort(t)
		issuer := fmt.Sprintf("http://127.0.0.1:%d/dex", port)
		config := filepath.Join(dir, "config.json")
		require.NoError(t, os.WriteFile(config, dexConfig(t, issuer, port, redirectURL, users), 0o600))
		var log bytes.Buffer
		cmd := exec.Command(bin, "serve", config)
		cmd.Stdout, cmd.Stderr = &log, &log
		require.NoError(t, cmd.Start())
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		if lastErr = waitForDiscovery(issuer, exited); lastErr == nil {
			t.Cleanup(func() {
				_ = cmd.Process.Kill() //nolint:errcheck // it may have exited
				<-exited
				if t.Failed() {
					t.Logf("ssotest: Dex's log:\n%s", log.String())
				}
			})
			return &Dex{Issuer: issuer}
		}
		_ = cmd.Process.Kill() //nolint:errcheck // it may have exited
		<-exited
		t.Logf("ssotest: Dex did not start on port %d: %v\n%s", port, lastErr, log.String())
	}
	t.Fatalf("ssotest: Dex did not start: %v", lastErr)
	return nil
}

// waitForDiscovery polls the issuer's discovery document until it answers
// 200, Dex exits or dexStart passes.
func waitForDiscovery(issuer string, exited <-chan error) error {
	deadline := time.Now().Add(dexStart)
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		res, err := client.Get(issuer + "/.well-known/openid-configuration")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-exited:
			return fmt.Errorf("dex exited: %v", err)
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no discovery document at %s within %s", issuer, dexStart)
		}
	}
}

// dexConfig is Dex's configuration (JSON, which its YAML reader takes).
func dexConfig(t testing.TB, issuer string, port int, redirectURL string, users []DexUser) []byte {
	t.Helper()
	passwords := make([]map[string]any, 0, len(users))
	for i, u := range users {
		hash, err := bcrypt.GenerateFromPassword([]byte(u.Password), bcrypt.DefaultCost) // Dex refuses cheaper hashes
		require.NoError(t, err)
		passwords = append(passwords, map[string]any{
			"email": u.Username + "@example.com", "username": u.Username, "preferredUsername": u.Username,
			"userID": fmt.Sprintf("user-%d", i+1), "hash": string(hash), "groups": u.Groups,
		})
	}
	config, err := json.Marshal(map[string]any{
		"issuer":           issuer,
		"storage":          map[string]any{"type": "memory"},
		"web":              map[string]any{"http": fmt.Sprintf("127.0.0.1:%d", port)},
		"oauth2":           map[string]any{"skipApprovalScreen": true},
		"logger":           map[string]any{"level": "warn"},
		"enablePasswordDB": true,
		"staticPasswords":  passwords,
		"staticClients": []map[string]any{{
			"id": ClientID, "secret": ClientSecret, "name": "Styrmin", "redirectURIs": []string{redirectURL},
		}},
	})
	require.NoError(t, err)
	return config
}

// freePort is a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// ensureDex runs scripts/ensure-dex and returns the binary it keeps.
func ensureDex(t testing.TB) string {
	t.Helper()
	root, err := repoRoot()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(root, "scripts", "ensure-dex"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "scripts/ensure-dex: %s", out)
	return filepath.Join(root, ".dev", "bin", "dex")
}

// repoRoot is the checkout the test runs in: the nearest folder up that has scripts/ensure-dex.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "scripts", "ensure-dex")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("ssotest: no scripts/ensure-dex above the working directory")
		}
		dir = parent
	}
}
