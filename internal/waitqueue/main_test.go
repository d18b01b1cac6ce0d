package waitqueue_test

import (
	"os"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal/ddblocaltest"
)

// The tests share one DynamoDB Local: the queue's conditional writes run against a real DynamoDB API.
var server ddblocaltest.Server

func TestMain(m *testing.M) { os.Exit(ddblocaltest.Main(m, &server)) }
