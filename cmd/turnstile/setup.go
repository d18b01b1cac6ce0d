package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
)

// setupCommand installs what `turnstile simulate` needs beyond Go: AWS's DynamoDB Local, pinned,
// into the user's cache directory (or --dir), where the emulator finds it from any module.
func setupCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("turnstile setup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	defaultDir, err := ddblocal.UserInstallDir()
	if err != nil {
		return err
	}
	dir := fs.String("dir", defaultDir, "where to install DynamoDB Local")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("setup takes no arguments, got %q", fs.Args())
	}
	return ddblocal.Install(ctx, *dir, stdout)
}
