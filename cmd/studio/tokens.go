package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"studio/internal/app"
	"studio/internal/ledger"
)

const tokensUsage = `usage: studio tokens grant --email ADDRESS --tokens N [--expiry-days D] [--reason TEXT]

Grants tokens to the personal house of a user (the house they founded at
sign-up), writing the same ledger rows as POST /api/toolkit/admin/grant-tokens.
It opens only the database: run it where the service keeps its data (the same
STUDIO_DATA_DIR, or DATABASE_URL). It prints the grant as the route answers it.
`

// tokens runs "studio tokens grant": the way to tokens on a local install.
func tokens(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "grant" {
		fmt.Fprint(stdout, tokensUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return flag.ErrHelp
		}
		return errors.New(`tokens: the subcommand is "grant"`)
	}
	fs := flag.NewFlagSet("tokens grant", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() {
		fmt.Fprint(stdout, tokensUsage, "\nFlags:\n")
		fs.PrintDefaults()
	}
	email := fs.String("email", "", "the e-mail address of the user")
	user := fs.String("user", "", "the id of the user (instead of --email)")
	n := fs.Int64("tokens", 0, "whole tokens to grant, 1 to 100000")
	expiry := fs.Int64("expiry-days", 0, "days until the grant expires, 1 to 3650 (0: it never expires)")
	reason := fs.String("reason", "studio tokens grant", "why the tokens were granted, kept with the grant")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("tokens grant: unexpected argument %q", fs.Arg(0))
	}
	in := ledger.GrantRequest{UserID: *user, Email: *email, Tokens: ledger.CountOf(*n), Reason: *reason}
	if *expiry != 0 {
		in.ExpiryDays = expiry
	}
	if err := in.Validate(); err != nil {
		return err
	}
	cfg, err := app.Load(getenv)
	if err != nil {
		return err
	}
	g, err := app.GrantTokens(ctx, cfg, in)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(g)
}
