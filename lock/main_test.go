package lock_test

import (
	"os"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal/ddblocaltest"
)

// The tests share one DynamoDB Local: the lock's transactions and conditions run against AWS's
// own implementation of the DynamoDB API.
var server ddblocaltest.Server

func TestMain(m *testing.M) { os.Exit(ddblocaltest.Main(m, &server)) }
