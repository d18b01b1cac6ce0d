package soak_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/dynalite"
)

// One dynalite serves every test of the package.
var (
	serverEndpoint string
	serverMissing  error
)

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) (code int) {
	srv, err := dynalite.Start(context.Background(), dynalite.Options{})
	if errors.Is(err, dynalite.ErrNotInstalled) {
		serverMissing = err
		return m.Run()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "start dynalite:", err)
		return 1
	}
	defer func() {
		if err := srv.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "close dynalite:", err)
			code = 1
		}
	}()
	serverEndpoint = srv.Endpoint()
	return m.Run()
}

// endpoint is the test server's endpoint; it skips the test when dynalite is not installed.
func endpoint(t *testing.T) string {
	t.Helper()
	if serverMissing != nil {
		t.Skip(serverMissing)
	}
	return serverEndpoint
}
