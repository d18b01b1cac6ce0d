package soak_test

import (
	"flag"
	"os"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal/ddblocaltest"
)

// large runs the scenarios at the sizes `make soak` runs them at; without it (`make test`) each
// runs at the smallest size that still exercises and checks what it names.
var large = flag.Bool("large", false, "run the soak scenarios at their large sizes (make soak)")

// sized is small, or large with -large.
func sized(small, big int) int {
	if *large {
		return big
	}
	return small
}

// One DynamoDB Local serves every test of the package.
var server ddblocaltest.Server

func TestMain(m *testing.M) { os.Exit(ddblocaltest.Main(m, &server)) }

// endpoint is the test server's endpoint; it skips the test when DynamoDB Local is not installed.
func endpoint(t *testing.T) string {
	t.Helper()
	server.SkipIfMissing(t)
	return server.Endpoint
}
