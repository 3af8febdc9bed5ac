package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/styrmin/styrmin/api/client"
)

// maxSecret bounds a token or password read from the input.
const maxSecret = 4096

// EnvPassword gives login --username its password without a prompt, for
// scripts that hold it.
const EnvPassword = "STYRMIN_PASSWORD"

// maxTokenName is the longest token name the server takes (api/openapi.yaml's NewAPIToken).
const maxTokenName = 100

func (c *CLI) loginCmd() *cobra.Command {
	var username string
	cmd := &cobra.Command{
		Use:   "login URL",
		Short: "Store a server's address and an API token for the other commands",
		Long: "With --username, sign in with your password (asked on the terminal without echo, read from\n" +
			"the input when it is no terminal, or taken from " + EnvPassword + "): the server makes you an API\n" +
			"token named after this client and host, lasting 30 days, throttled as its sign-in page is.\n" +
			"Without it, give a personal API token (create one on the server's API tokens page, or with\n" +
			"styrmin token create there): echo \"$TOKEN\" | styrmin login URL. The token is checked with the\n" +
			"server, then the URL and the token are stored in your config folder, readable by you alone.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			url, err := serverURL(args[0])
			if err != nil {
				return err
			}
			var token string
			if username != "" {
				token, err = c.passwordGrant(cmd.Context(), cmd.InOrStdin(), cmd.ErrOrStderr(), url, username)
			} else {
				token, err = readSecret(cmd.InOrStdin(), cmd.ErrOrStderr(), fmt.Sprintf("API token for %s (from its API tokens page)", url))
				token = strings.TrimSpace(token)
			}
			if err != nil {
				return err
			}
			return c.storeLogin(cmd, Login{URL: url, Token: token})
		},
	}
	cmd.Flags().StringVarP(&username, "username", "u", "", "sign in as this user with a password; the server makes the token")
	return cmd
}

// storeLogin checks l's token with the server and stores l.
func (c *CLI) storeLogin(cmd *cobra.Command, l Login) error {
	api, err := newClient(l, c.httpClient())
	if err != nil {
		return err
	}
	me, err := api.GetMeWithResponse(cmd.Context())
	if err != nil {
		return err
	}
	if me.JSON200 == nil {
		return fail(ExitUnavailable, "%s answered %s, not the token's user: is it a Styrmin server?", l.URL, me.Status())
	}
	path, err := configPath(c.ConfigDir)
	if err != nil {
		return err
	}
	if err := saveLogin(path, l); err != nil {
		return err
	}
	role := string(me.JSON200.Role)
	if me.JSON200.Team != nil {
		role += ", acting in team " + *me.JSON200.Team + " only"
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Logged in to %s as %s (%s); stored in %s.\n", l.URL, me.JSON200.Username, role, path)
	return nil
}

// passwordGrant asks the server at url for a token of username with the
// password of STYRMIN_PASSWORD, else read from in.
func (c *CLI) passwordGrant(ctx context.Context, in io.Reader, prompt io.Writer, url, username string) (string, error) {
	password := c.getenv(EnvPassword)
	if password == "" {
		var err error
		if password, err = readSecret(in, prompt, fmt.Sprintf("Password of %s at %s", username, url)); err != nil {
			return "", err
		}
	}
	api, err := newClient(Login{URL: url}, c.httpClient())
	if err != nil {
		return "", err
	}
	resp, err := api.PasswordGrantWithResponse(ctx, client.PasswordGrant{Username: username, Password: password, Name: tokenName()})
	if err != nil {
		return "", err
	}
	if resp.JSON201 == nil {
		return "", fail(ExitUnavailable, "%s answered %s, not a token: is it a Styrmin server?", url, resp.Status())
	}
	return resp.JSON201.Token, nil
}

// tokenName names a token the password grant makes after this client and
// the host it runs on, so that the user's token list says where it lives.
func tokenName() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "an unnamed host"
	}
	name := "styrmin login on " + host
	if len(name) > maxTokenName {
		name = name[:maxTokenName]
	}
	return strings.ToValidUTF8(name, "")
}

// readSecret asks for what on a terminal without echoing it, or reads the
// first line of any other input.
func readSecret(in io.Reader, prompt io.Writer, what string) (string, error) {
	var secret string
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(prompt, "%s: ", what)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return "", fmt.Errorf("cli: read the %s: %w", strings.ToLower(what), err)
		}
		secret = string(b)
	} else {
		line, err := bufio.NewReader(io.LimitReader(in, maxSecret)).ReadString('\n')
		if err != nil && err != io.EOF {
			return "", fmt.Errorf("cli: read the %s: %w", strings.ToLower(what), err)
		}
		secret = line
	}
	secret = strings.TrimRight(secret, "\r\n")
	if strings.TrimSpace(secret) == "" {
		return "", usage("Nothing given for the %s: type it, or pipe it in.", strings.ToLower(what))
	}
	return secret, nil
}
