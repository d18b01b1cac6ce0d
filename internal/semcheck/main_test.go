package semcheck_test

import (
	"os"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/dynalite/dynalitetest"
)

// The reliability tests share one dynalite; the other tests of the package need none.
var server dynalitetest.Server

func TestMain(m *testing.M) { os.Exit(dynalitetest.Main(m, &server)) }
