package lambdafn_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator"
	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
)

// sleeper returns a handler that sleeps d on the clock, as the demo's work does.
func sleeper(clock emulator.Clock, d time.Duration) lambdafn.Handler {
	return func(ctx context.Context, _ []byte) ([]byte, error) {
		if err := clock.Sleep(ctx, d); err != nil {
			return nil, err
		}
		return []byte(`"done"`), nil
	}
}

// TestTimeoutsOnASkippingClock: on the emulator's skipping clock a function's timeout is a
// virtual deadline, so a handler that sleeps past it times out at exactly that virtual time,
// however long the machine takes, and one that sleeps less succeeds.
func TestTimeoutsOnASkippingClock(t *testing.T) {
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		sleep   time.Duration
		wantErr string // "" for success
		took    time.Duration
	}{
		{"within the timeout", 2 * time.Second, "", 2 * time.Second},
		{"past the timeout", time.Minute, lambdafn.ErrorUnknown, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := emulator.NewScaledClock(start, 0)
			reg := newRegistry(t, lambdafn.WithClock(clock))
			if err := reg.Register("work", sleeper(clock, tt.sleep), lambdafn.Timeout(3*time.Second)); err != nil {
				t.Fatal(err)
			}
			var err error
			done := make(chan struct{})
			clock.Go(func() { // the caller is a goroutine of the emulator: it holds a busy token
				defer close(done)
				_, err = lambdafn.NewIntegration(reg).Invoke(context.Background(), fnARN("work"), map[string]any{})
			})
			<-done
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Invoke: %v", err)
			case tt.wantErr != "" && (err == nil || asStatesError(t, err).Name != tt.wantErr):
				t.Fatalf("Invoke error = %v, want %s", err, tt.wantErr)
			}
			if got := clock.Now().Sub(start); got != tt.took {
				t.Errorf("the invoke took %v of virtual time, want %v", got, tt.took)
			}
			if tt.wantErr != "" && !strings.Contains(asStatesError(t, err).Cause, "Task timed out after 3.00 seconds") {
				t.Errorf("cause %q does not report the timeout", asStatesError(t, err).Cause)
			}
		})
	}
}
