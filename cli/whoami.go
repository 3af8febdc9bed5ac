package cli

import (
	"context"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/api/client"
)

func (c *CLI) whoamiCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "whoami",
		Short: "Show who the login's token acts as: the user, their role, and the teams it acts in with the role in each",
		Long: "Show the user the stored login's token (or STYRMIN_TOKEN) belongs to, their own role, and the\n" +
			"teams the token acts in with the user's role in each. A token narrowed to one team acts there\n" +
			"only, with no role of its own elsewhere.",
		Args: cobra.NoArgs,
	}
	return answerCmd(c, cmd, func(ctx context.Context, api *client.ClientWithResponses, _ []string) (*client.Me, string, error) {
		r, err := api.GetMeWithResponse(ctx)
		if err != nil {
			return nil, "", err
		}
		return r.JSON200, r.Status(), nil
	}, meTable)
}

// meTable writes who a token acts as, then the teams it acts in a row each.
func meTable(t *tabwriter.Writer, me *client.Me, _ []string) {
	row(t, "User:", me.Username+" ("+string(me.Source)+")")
	row(t, "Role:", me.Role)
	if me.Team != nil {
		row(t, "Token:", "narrowed to team "+*me.Team+": it acts there only")
	} else {
		row(t, "Token:", "acts in all your teams")
	}
	row(t)
	if len(me.Teams) == 0 {
		row(t, "The token acts in no team.")
		return
	}
	row(t, "TEAM", "ROLE IN TEAM")
	for _, m := range me.Teams {
		row(t, m.Team, m.Role)
	}
}
