package lambdafn_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
)

const (
	invokeResource = "arn:aws:states:::lambda:invoke"
	testAccount    = "000000000000"
	testRegion     = "us-east-1"
)

// fixedNow is the clock of test registries.
var fixedNow = time.Date(2026, 3, 14, 15, 9, 26, 535_000_000, time.UTC)

// newRegistry returns a registry with a fixed clock and seeded ids, closed when the test ends.
func newRegistry(t *testing.T, opts ...lambdafn.RegistryOption) *lambdafn.Registry {
	t.Helper()
	base := []lambdafn.RegistryOption{
		lambdafn.WithNow(func() time.Time { return fixedNow }),
		lambdafn.WithRandom(rand.New(rand.NewPCG(1, 2))),
	}
	reg, err := lambdafn.NewRegistry(append(base, opts...)...)
	if err != nil {
		t.Fatalf("NewRegistry: %v", err)
	}
	t.Cleanup(func() {
		// A safety net so that a broken test fails instead of hanging.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := reg.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return reg
}

// echo returns its payload.
func echo(_ context.Context, payload []byte) ([]byte, error) { return payload, nil }

// fnARN is the ARN of a function of the test registries.
func fnARN(name string) string {
	return "arn:aws:lambda:" + testRegion + ":" + testAccount + ":function:" + name
}

// asStatesError checks that err is an *asl.Error and returns it.
func asStatesError(t *testing.T, err error) *asl.Error {
	t.Helper()
	var se *asl.Error
	if !errors.As(err, &se) {
		t.Fatalf("error = %v (%T), want *asl.Error", err, err)
	}
	return se
}
