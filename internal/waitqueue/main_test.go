package waitqueue_test

import (
	"os"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/dynalite/dynalitetest"
)

// The tests share one dynalite: the queue's conditional writes run against a real DynamoDB API.
var server dynalitetest.Server

func TestMain(m *testing.M) { os.Exit(dynalitetest.Main(m, &server)) }
