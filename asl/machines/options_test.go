package machines_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// TestSemaphoreRejectsInvalidOptions checks that each invalid option yields an *OptionError
// naming the field, wrapping the right sentinel, with the value in the message.
func TestSemaphoreRejectsInvalidOptions(t *testing.T) {
	work := machines.LambdaWork("arn:aws:lambda:us-east-1:123456789012:function:work")
	valid := func(edit func(o *machines.SemaphoreOptions)) machines.SemaphoreOptions {
		o := machines.SemaphoreOptions{LockName: "MySemaphore", Limit: 5, Work: work}
		edit(&o)
		return o
	}
	clash := &asl.Graph{StartAt: machines.StateAcquireSlot, States: asl.States{
		{Name: machines.StateAcquireSlot, State: &asl.Succeed{}},
	}}
	broken := &asl.Graph{StartAt: "Missing", States: asl.States{{Name: "Only", State: &asl.Succeed{}}}}
	tests := []struct {
		name      string
		opts      machines.SemaphoreOptions
		wantErr   error
		wantField string
		wantInMsg string
	}{
		{"no lock name", valid(func(o *machines.SemaphoreOptions) { o.LockName = "" }), machines.ErrLockName, "LockName", "got neither"},
		{"both lock names", valid(func(o *machines.SemaphoreOptions) { o.LockNamePath = "$.env" }), machines.ErrLockName, "LockName", "got both"},
		{"lock name too long", valid(func(o *machines.SemaphoreOptions) { o.LockName = strings.Repeat("x", 2049) }), machines.ErrLockName, "LockName", "2049 bytes"},
		{"lock name with a placeholder", valid(func(o *machines.SemaphoreOptions) { o.LockName = "a${B}" }), machines.ErrLockName, "LockName", `"a${B}"`},
		{"lock name of blanks", valid(func(o *machines.SemaphoreOptions) { o.LockName = " \t " }), machines.ErrLockName, "LockName", "must not be only blanks"},
		{"callback timeout under Poll", valid(func(o *machines.SemaphoreOptions) {
			o.WaitStrategy, o.CallbackTimeout = machines.WaitPoll, time.Minute
		}), machines.ErrTiming, "CallbackTimeout", `applies to WaitStrategy "Callback" only`},
		{"path without $.", valid(func(o *machines.SemaphoreOptions) { o.LockName, o.LockNamePath = "", "environment" }), machines.ErrLockNamePath, "LockNamePath", `"environment"`},
		{"root path", valid(func(o *machines.SemaphoreOptions) { o.LockName, o.LockNamePath = "", "$" }), machines.ErrLockNamePath, "LockNamePath", `"$"`},
		{"context path", valid(func(o *machines.SemaphoreOptions) { o.LockName, o.LockNamePath = "", "$$.Execution.Name" }), machines.ErrLockNamePath, "LockNamePath", "$$.Execution.Name"},
		{"wildcard path", valid(func(o *machines.SemaphoreOptions) { o.LockName, o.LockNamePath = "", "$.envs[*]" }), machines.ErrLockNamePath, "LockNamePath", "$.envs[*]"},
		{"zero limit", valid(func(o *machines.SemaphoreOptions) { o.Limit = 0 }), machines.ErrLimit, "Limit", "must be > 0, got 0"},
		{"negative limit", valid(func(o *machines.SemaphoreOptions) { o.Limit = -3 }), machines.ErrLimit, "Limit", "got -3"},
		{"limit above one item", valid(func(o *machines.SemaphoreOptions) { o.Limit = machines.MaxLimit + 1 }), machines.ErrLimit, "Limit", "got 1000001"},
		{"no work", valid(func(o *machines.SemaphoreOptions) { o.Work = nil }), machines.ErrWork, "Work", "is required"},
		{"broken work", valid(func(o *machines.SemaphoreOptions) { o.Work = broken }), asl.ErrInvalidDefinition, "Work", "names no state"},
		{"work reuses a state name", valid(func(o *machines.SemaphoreOptions) { o.Work = clash }), machines.ErrWork, "Work", `"Acquire Slot"`},
		{"fractional wait", valid(func(o *machines.SemaphoreOptions) { o.WaitMin = 1500 * time.Millisecond }), machines.ErrTiming, "WaitMin", "got 1.5s"},
		{"negative timeout", valid(func(o *machines.SemaphoreOptions) { o.Timeout = -time.Hour }), machines.ErrTiming, "Timeout", "got -1h0m0s"},
		{"wait bounds crossed", valid(func(o *machines.SemaphoreOptions) { o.WaitMin, o.WaitMax = 9*time.Second, 3*time.Second }), machines.ErrTiming, "WaitMax", "greater than WaitMin (9s)"},
		{"unknown wait strategy", valid(func(o *machines.SemaphoreOptions) { o.WaitStrategy = "Spin" }), machines.ErrWaitStrategy, "WaitStrategy", `got "Spin"`},
		{"callback period above the acquire timeout", valid(func(o *machines.SemaphoreOptions) {
			o.WaitStrategy, o.CallbackTimeout, o.AcquireTimeout = machines.WaitCallback, 10*time.Minute, 5*time.Minute
		}), machines.ErrTiming, "CallbackTimeout", "at most AcquireTimeout (5m0s)"},
		{"timeout over a year", valid(func(o *machines.SemaphoreOptions) { o.Timeout = 366 * 24 * time.Hour }), machines.ErrTiming, "Timeout", "one year"},
		{"priority under Poll", valid(func(o *machines.SemaphoreOptions) { o.PriorityPath = "$.priority" }), machines.ErrPriority, "PriorityPath", `applies to WaitStrategy "Callback" only`},
		{"priority path without $.", valid(func(o *machines.SemaphoreOptions) {
			o.WaitStrategy, o.PriorityPath = machines.WaitCallback, "priority"
		}), machines.ErrPriority, "PriorityPath", `"priority"`},
		{"ageing without priorities", valid(func(o *machines.SemaphoreOptions) { o.PriorityAgeing = 10 }), machines.ErrPriority, "PriorityAgeing", "with PriorityPath only"},
		{"ageing out of range", valid(func(o *machines.SemaphoreOptions) {
			o.WaitStrategy, o.PriorityPath, o.PriorityAgeing = machines.WaitCallback, "$.priority", -1
		}), machines.ErrPriority, "PriorityAgeing", "got -1"},
		{"ageing too large", valid(func(o *machines.SemaphoreOptions) {
			o.WaitStrategy, o.PriorityPath, o.PriorityAgeing = machines.WaitCallback, "$.priority", machines.MaxPriorityAgeing+1
		}), machines.ErrPriority, "PriorityAgeing", "must be 1 to 1000000"},
		{"weight under Poll", valid(func(o *machines.SemaphoreOptions) { o.WeightPath = "$.weight" }), machines.ErrWeight, "WeightPath", `applies to WaitStrategy "Callback" only`},
		{"weight path without $.", valid(func(o *machines.SemaphoreOptions) {
			o.WaitStrategy, o.WeightPath = machines.WaitCallback, "weight"
		}), machines.ErrWeight, "WeightPath", `"weight"`},
		{"acquire outlasts execution", valid(func(o *machines.SemaphoreOptions) { o.Timeout = 10 * time.Minute }), machines.ErrTiming, "AcquireTimeout", "shorter than Timeout (10m0s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := machines.Semaphore(tt.opts)
			if err == nil {
				t.Fatalf("Semaphore = %v, want an error", m)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("error %q does not wrap %v", err, tt.wantErr)
			}
			var oe *machines.OptionError
			if !errors.As(err, &oe) {
				t.Fatalf("error %q is not an *OptionError", err)
			}
			if oe.Field != tt.wantField {
				t.Errorf("Field = %q, want %q", oe.Field, tt.wantField)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "SemaphoreOptions."+tt.wantField) || !strings.Contains(msg, tt.wantInMsg) {
				t.Errorf("message %q should start with SemaphoreOptions.%s and contain %q", msg, tt.wantField, tt.wantInMsg)
			}
		})
	}
}

// TestIsLockNamePath lists the accepted and rejected lock name paths.
func TestIsLockNamePath(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"$.environment", true},
		{"$.detail.tenant", true},
		{"$.tenants[0]", true},
		{"$['environment']", false},
		{"$", false},
		{"$.", false},
		{"$..environment", false},
		{"$.a..b", false},
		{"$.envs[*]", false},
		{"$.envs[?(@.on)]", false},
		{"$$.Execution.Name", false},
		{"environment", false},
		{"$.trailing.", false},
	}
	for _, tt := range tests {
		if got := machines.IsLockNamePath(tt.path); got != tt.want {
			t.Errorf("IsLockNamePath(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// TestSemaphoreDefaults checks that zero options take the documented defaults.
func TestSemaphoreDefaults(t *testing.T) {
	m, err := machines.Semaphore(machines.SemaphoreOptions{LockName: "L", Limit: 1, Work: machines.LambdaWork("fn")})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := *m.TimeoutSeconds, int(machines.DefaultTimeout/time.Second); got != want {
		t.Errorf("TimeoutSeconds = %d, want %d", got, want)
	}
	acquire := m.States.Get(machines.StateAcquireSlot).(*asl.Task)
	items := acquire.Parameters.(map[string]any)["TransactItems"].([]any)
	if got := items[0].(map[string]any)["Update"].(map[string]any)["TableName"]; got != "${LockTableName}" {
		t.Errorf("TableName = %v, want the ${LockTableName} placeholder", got)
	}
	held := m.States.Get(machines.StateSlotHeld).(*asl.Choice)
	if got, want := held.Choices[1].Value, int(machines.DefaultAcquireTimeout/time.Second); got != want {
		t.Errorf("acquire deadline = %v, want %d", got, want)
	}
	check := m.States.Get(machines.StateCheckHolder).(*asl.Task)
	if got := check.ResultSelector.(map[string]any)["nextWaitSeconds.$"]; got != "States.MathRandom(1, 5)" {
		t.Errorf("next wait = %v, want States.MathRandom(1, 5)", got)
	}
}
