package faultproxy_test

import (
	"os"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal/ddblocaltest"
)

// One DynamoDB Local serves every test of the package; each test works in a table of its own.
var server ddblocaltest.Server

func TestMain(m *testing.M) { os.Exit(ddblocaltest.Main(m, &server)) }

// createTable creates an active table keyed by the string attribute "pk", deleted after the test.
func createTable(tb testing.TB) string { return server.CreateTable(tb, false) }
