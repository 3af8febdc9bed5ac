package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// maxToken bounds a token read from the input.
const maxToken = 4096

func (c *CLI) loginCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "login URL",
		Short: "Store a server's address and your API token for the other commands",
		Long: "Ask for a personal API token (create one on the server's API tokens page, or with\n" +
			"styrmin token create there), check it with the server and store the URL and the token in\n" +
			"your config folder, readable by you alone. The REST API takes API tokens only: there is no\n" +
			"sign-in with a username and password here. The token is read from the input when it is no\n" +
			"terminal: echo \"$TOKEN\" | styrmin login URL.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			url, err := serverURL(args[0])
			if err != nil {
				return err
			}
			token, err := readToken(cmd.InOrStdin(), cmd.ErrOrStderr(), url)
			if err != nil {
				return err
			}
			l := Login{URL: url, Token: token}
			api, err := newClient(l, c.httpClient())
			if err != nil {
				return err
			}
			me, err := api.GetMeWithResponse(cmd.Context())
			if err != nil {
				return err
			}
			if me.JSON200 == nil {
				return fail(ExitUnavailable, "%s answered %s, not the token's user: is it a Styrmin server?", url, me.Status())
			}
			path, err := configPath(c.ConfigDir)
			if err != nil {
				return err
			}
			if err := saveLogin(path, l); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Logged in to %s as %s (%s); stored in %s.\n", url, me.JSON200.Username, me.JSON200.Role, path)
			return nil
		},
	}
}

// readToken asks for the token on a terminal without echoing it, or reads
// its first line from any other input.
func readToken(in io.Reader, prompt io.Writer, url string) (string, error) {
	var token string
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(prompt, "API token for %s (from its API tokens page): ", url)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return "", fmt.Errorf("cli: read the token: %w", err)
		}
		token = string(b)
	} else {
		line, err := bufio.NewReader(io.LimitReader(in, maxToken)).ReadString('\n')
		if err != nil && err != io.EOF {
			return "", fmt.Errorf("cli: read the token: %w", err)
		}
		token = line
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return "", usage("No API token given: type or pipe one (create it on the server's API tokens page).")
	}
	return token, nil
}
