package machines_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// rateCases are the machines with a Rate kept as golden files: both modes, both lock kinds and
// both wait strategies.
func rateCases() []struct {
	name string
	opts machines.SemaphoreOptions
} {
	lambda := machines.LambdaWork(machines.Placeholder(machines.SubstitutionWorkFunctionArn))
	return []struct {
		name string
		opts machines.SemaphoreOptions
	}{
		{"semaphore-rate-delay", machines.SemaphoreOptions{LockName: "MySemaphore", Limit: 10, Work: lambda,
			Rate: &machines.RateOptions{PerSecond: 2}}},
		{"semaphore-rate-reject-lock-name-path", machines.SemaphoreOptions{LockNamePath: "$.environment", Limit: 10, Work: lambda,
			Rate: &machines.RateOptions{PerSecond: 0.3, Burst: 3, Mode: machines.RateReject}}},
		{"semaphore-rate-callback", machines.SemaphoreOptions{LockName: "MySemaphore", Limit: 5, Work: lambda,
			WaitStrategy: machines.WaitCallback, Rate: &machines.RateOptions{PerSecond: 10, Burst: 5}}},
	}
}

// TestRateGolden renders every Rate case and compares it with testdata/<name>.asl.json
// (rewritten with -update); TestGoldenFilesRoundTrip parses them back.
func TestRateGolden(t *testing.T) {
	for _, tc := range rateCases() {
		t.Run(tc.name, func(t *testing.T) {
			got, err := func() ([]byte, error) {
				m, err := machines.Semaphore(tc.opts)
				if err != nil {
					return nil, err
				}
				return m.RenderIndent()
			}()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.name+".asl.json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the rendering (run go test -update after reviewing):\n got: %s\nwant: %s", path, got, want)
			}
		})
	}
}

// TestRateGateIsTheWayIntoTheWork checks that with a Rate every path into Run Work passes the
// gate, that the gate has no loop without a Wait, and that the states a machine without Rate
// sends to Run Work go to Take Rate Permit instead.
func TestRateGateIsTheWayIntoTheWork(t *testing.T) {
	gate := []string{machines.StateRestartRate, machines.StateWaitForRateSlot}
	for _, tc := range rateCases() {
		m, err := machines.Semaphore(tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		plain := tc.opts
		plain.Rate = nil
		without, err := machines.Semaphore(plain)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range m.States {
			if slices.Contains(asl.Successors(n.State), machines.StateRunWork) && !slices.Contains(gate, n.Name) {
				t.Errorf("%s: %q goes to Run Work around the gate", tc.name, n.Name)
			}
		}
		for _, n := range without.States {
			if !slices.Contains(asl.Successors(n.State), machines.StateRunWork) {
				continue
			}
			if !slices.Contains(asl.Successors(m.States.Get(n.Name)), machines.StateTakeRatePermit) {
				t.Errorf("%s: %q does not go to the gate", tc.name, n.Name)
			}
		}
		if cycle := cycleAvoidingWaits(m.Graph()); cycle != nil {
			t.Errorf("%s: a loop without a Wait state: %v", tc.name, cycle)
		}
		names := machines.StateNames()
		last := -1
		for _, n := range m.States {
			i := slices.Index(names, n.Name)
			if i < 0 {
				continue // a work state
			}
			if i < last {
				t.Errorf("%s: %q renders out of the StateNames order", tc.name, n.Name)
			}
			last = i
		}
	}
}

// TestRateKeepsRateItemsApart checks that the lock names a rate item's key could take are
// refused: a fixed one at build time, one from the input by the Check Lock Name state.
func TestRateKeepsRateItemsApart(t *testing.T) {
	work := machines.LambdaWork("arn:aws:lambda:us-east-1:123456789012:function:work")
	_, err := machines.Semaphore(machines.SemaphoreOptions{LockName: "rate#api", Limit: 1, Work: work, Rate: &machines.RateOptions{PerSecond: 1}})
	var oe *machines.OptionError
	if !errors.As(err, &oe) || oe.Field != "LockName" || !errors.Is(err, machines.ErrLockName) {
		t.Fatalf("LockName rate#api with a Rate: got %v, want an OptionError on LockName", err)
	}
	if _, err := machines.Semaphore(machines.SemaphoreOptions{LockName: "rate#api", Limit: 1, Work: work}); err != nil {
		t.Errorf("LockName rate#api without a Rate: %v", err)
	}
	m, err := machines.Semaphore(machines.SemaphoreOptions{LockNamePath: "$.env", Limit: 1, Work: work, Rate: &machines.RateOptions{PerSecond: 1}})
	if err != nil {
		t.Fatal(err)
	}
	check := m.States.Get(machines.StateCheckLockName).(*asl.Choice)
	last := check.Choices[len(check.Choices)-1]
	if last.Operator != "StringMatches" || last.Value != "rate#*" || last.Next != machines.StateReservedLockName {
		t.Errorf("Check Lock Name's last rule = %+v, want StringMatches rate#* → %s", last, machines.StateReservedLockName)
	}
}

// TestRateRejectsInvalidOptions checks each invalid Rate option's OptionError.
func TestRateRejectsInvalidOptions(t *testing.T) {
	work := machines.LambdaWork("arn:aws:lambda:us-east-1:123456789012:function:work")
	tests := []struct {
		name      string
		rate      machines.RateOptions
		wantField string
		wantInMsg string
	}{
		{"zero rate", machines.RateOptions{}, "Rate.PerSecond", "got 0"},
		{"negative rate", machines.RateOptions{PerSecond: -1}, "Rate.PerSecond", "got -1"},
		{"NaN rate", machines.RateOptions{PerSecond: math.NaN()}, "Rate.PerSecond", "NaN"},
		{"infinite rate", machines.RateOptions{PerSecond: math.Inf(1)}, "Rate.PerSecond", "+Inf"},
		{"rate above a permit a millisecond", machines.RateOptions{PerSecond: 1001}, "Rate.PerSecond", "got 1001"},
		{"rate below one a day", machines.RateOptions{PerSecond: 1e-6}, "Rate.PerSecond", "one a day"},
		{"negative burst", machines.RateOptions{PerSecond: 1, Burst: -1}, "Rate.Burst", "got -1"},
		{"burst too large", machines.RateOptions{PerSecond: 1, Burst: machines.MaxRateBurst + 1}, "Rate.Burst", "got 100001"},
		{"unknown mode", machines.RateOptions{PerSecond: 1, Mode: "Drop"}, "Rate.Mode", `got "Drop"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rate := tc.rate
			_, err := machines.Semaphore(machines.SemaphoreOptions{LockName: "L", Limit: 1, Work: work, Rate: &rate})
			var oe *machines.OptionError
			if !errors.As(err, &oe) {
				t.Fatalf("got %v, want an *OptionError", err)
			}
			if oe.Field != tc.wantField || !errors.Is(err, machines.ErrRate) || !strings.Contains(err.Error(), tc.wantInMsg) {
				t.Errorf("got %q (field %s), want field %s, ErrRate and %q in the message", err, oe.Field, tc.wantField, tc.wantInMsg)
			}
		})
	}
}

// TestSemaphoreRateReadsTheRateBack checks that SemaphoreRate reads every golden case's Rate,
// defaults applied, from the rendered and parsed definition, and finds none without a Rate.
func TestSemaphoreRateReadsTheRateBack(t *testing.T) {
	for _, tc := range append(rateCases(), goldenCases()...) {
		m, err := machines.Semaphore(tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := m.Render()
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := asl.Parse(doc)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := machines.SemaphoreRate(parsed)
		if tc.opts.Rate == nil {
			if ok {
				t.Errorf("%s: SemaphoreRate = %+v, want none", tc.name, got)
			}
			continue
		}
		want := *tc.opts.Rate
		want.Burst = max(want.Burst, machines.DefaultRateBurst)
		if want.Mode == "" {
			want.Mode = machines.RateDelay
		}
		if !ok || *got != want {
			t.Errorf("%s: SemaphoreRate = %+v, %v; want %+v", tc.name, got, ok, want)
		}
	}
}
