package soak_test

import (
	"os"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal/ddblocaltest"
)

// One DynamoDB Local serves every test of the package.
var server ddblocaltest.Server

func TestMain(m *testing.M) { os.Exit(ddblocaltest.Main(m, &server)) }

// endpoint is the test server's endpoint; it skips the test when DynamoDB Local is not installed.
func endpoint(t *testing.T) string {
	t.Helper()
	server.SkipIfMissing(t)
	return server.Endpoint
}
