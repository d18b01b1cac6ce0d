package semcheck_test

import (
	"os"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal/ddblocaltest"
)

// The reliability tests share one DynamoDB Local; the other tests of the package need none.
var server ddblocaltest.Server

func TestMain(m *testing.M) { os.Exit(ddblocaltest.Main(m, &server)) }
