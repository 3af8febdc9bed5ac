package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// The environment variables that override the stored login, for pipelines.
const (
	EnvURL   = "STYRMIN_URL"
	EnvToken = "STYRMIN_TOKEN"
)

// configFile is the login's file in the client's config folder.
const configFile = "config.json"

// Login is where the client sends its requests and the token it sends.
type Login struct {
	URL   string `json:"url"`
	Token string `json:"token"`
}

// configPath is the login's file under dir, or under the user's config
// folder (os.UserConfigDir()/styrmin) when dir is empty.
func configPath(dir string) (string, error) {
	if dir == "" {
		base, err := os.UserConfigDir()
		if err != nil {
			return "", fail(ExitFailed, "cli: find the config folder: %v", err)
		}
		dir = filepath.Join(base, "styrmin")
	}
	return filepath.Join(dir, configFile), nil
}

// saveLogin writes l to path, readable by the user alone (0600: it holds
// a token), in a folder only the user may enter.
func saveLogin(path string, l Login) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("cli: save login: %w", err)
	}
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return fmt.Errorf("cli: save login: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("cli: save login: %w", err)
	}
	// WriteFile keeps the mode of a file that exists: set it whatever it was.
	if err := os.Chmod(tmp, 0o600); err != nil {
		return fmt.Errorf("cli: save login: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("cli: save login: %w", err)
	}
	return nil
}

// loadLogin reads the login at path; a missing file is an empty login.
func loadLogin(path string) (Login, error) {
	var l Login
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, fmt.Errorf("cli: read login: %w", err)
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return l, fail(ExitFailed, "The login in %s is not valid JSON (%v); run styrmin login again.", path, err)
	}
	return l, nil
}

// resolveLogin is the stored login with STYRMIN_URL and STYRMIN_TOKEN in
// place of its parts when they are set; without a URL or a token it says
// how to log in.
func resolveLogin(path string, getenv func(string) string) (Login, error) {
	l, err := loadLogin(path)
	if err != nil {
		return l, err
	}
	if v := getenv(EnvURL); v != "" {
		l.URL = v
	}
	if v := getenv(EnvToken); v != "" {
		l.Token = v
	}
	if l.URL == "" || l.Token == "" {
		return l, usage("Not logged in: run styrmin login URL, or set %s and %s.", EnvURL, EnvToken)
	}
	l.URL, err = serverURL(l.URL)
	return l, err
}

// serverURL checks a server's address (http or https with a host) and
// drops a trailing slash.
func serverURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", usage("%q is not a server address: give one such as https://styrmin.example.com.", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}
