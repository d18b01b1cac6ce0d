package soak_test

import (
	"os"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/dynalite/dynalitetest"
)

// One dynalite serves every test of the package.
var server dynalitetest.Server

func TestMain(m *testing.M) { os.Exit(dynalitetest.Main(m, &server)) }

// endpoint is the test server's endpoint; it skips the test when dynalite is not installed.
func endpoint(t *testing.T) string {
	t.Helper()
	server.SkipIfMissing(t)
	return server.Endpoint
}
