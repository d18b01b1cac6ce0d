package semaphore_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
)

// TestNewPanicsOnInvalidProps checks that each invalid prop panics at construction with a
// message that names the prop and its value.
func TestNewPanicsOnInvalidProps(t *testing.T) {
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Invalid"), nil)
	fn := awslambda.Function_FromFunctionArn(stack, jsii.String("Fn"), jsii.String("arn:aws:lambda:us-east-1:123456789012:function:work"))
	child := awsstepfunctions.StateMachine_FromStateMachineArn(stack, jsii.String("Child"),
		jsii.String("arn:aws:states:us-east-1:123456789012:stateMachine:child"))
	clash := awsstepfunctions.NewPass(stack, jsii.String("Acquire Slot"), nil)
	valid := func(edit func(p *semaphore.Props)) *semaphore.Props {
		p := &semaphore.Props{LockName: "MySemaphore", Limit: 5, WorkFunction: fn}
		edit(p)
		return p
	}
	tests := []struct {
		name  string
		props *semaphore.Props
		want  string
	}{
		{"nil props", nil, "semaphore: props are required (Props.Limit, a lock name and the work)"},
		{"zero limit", valid(func(p *semaphore.Props) { p.Limit = 0 }), "semaphore: Props.Limit must be > 0, got 0"},
		{"negative limit", valid(func(p *semaphore.Props) { p.Limit = -1 }), "semaphore: Props.Limit must be > 0, got -1"},
		{"limit above MaxLimit", valid(func(p *semaphore.Props) { p.Limit = semaphore.MaxLimit + 1 }),
			fmt.Sprintf("semaphore: Props.Limit must be <= MaxLimit (%d), got %d", semaphore.MaxLimit, semaphore.MaxLimit+1)},
		{"no lock name", valid(func(p *semaphore.Props) { p.LockName = "" }), "semaphore: Props.LockName or LockNamePath is required, got neither"},
		{"both lock names", valid(func(p *semaphore.Props) { p.LockNamePath = "$.environment" }), "semaphore: Props.LockName and LockNamePath are mutually exclusive, got both"},
		{"lock name path without $.", valid(func(p *semaphore.Props) { p.LockName, p.LockNamePath = "", "environment" }),
			`semaphore: Props.LockNamePath must be a "$." reference path such as "$.environment", got "environment"`},
		{"no work", valid(func(p *semaphore.Props) { p.WorkFunction = nil }),
			"semaphore: Props.Work, Props.WorkFunction or Props.WorkStateMachine is required, got none"},
		{"two kinds of work", valid(func(p *semaphore.Props) { p.WorkStateMachine = child }),
			"semaphore: Props.Work, Props.WorkFunction and Props.WorkStateMachine are mutually exclusive, got WorkFunction and WorkStateMachine"},
		{"work reusing a semaphore state name", valid(func(p *semaphore.Props) { p.WorkFunction, p.Work = nil, clash }),
			`semaphore: Props.Work must not reuse a state name of the semaphore, got "Acquire Slot"`},
		{"zero timeout", valid(func(p *semaphore.Props) { p.Timeout = awscdk.Duration_Seconds(jsii.Number(0)) }),
			"semaphore: Props.Timeout must be at least 1s, got 0 seconds"},
		{"fractional wait", valid(func(p *semaphore.Props) { p.WaitMin = awscdk.Duration_Millis(jsii.Number(1500)) }),
			"semaphore: Props.WaitMin must be a whole number of seconds, at least 1s, got 1.5s"},
		{"acquire timeout past the execution timeout", valid(func(p *semaphore.Props) {
			p.Timeout, p.AcquireTimeout = awscdk.Duration_Minutes(jsii.Number(5)), awscdk.Duration_Minutes(jsii.Number(10))
		}), "semaphore: Props.AcquireTimeout must be shorter than Timeout (5m0s), got 10m0s"},
		{"wait bounds crossed", valid(func(p *semaphore.Props) {
			p.WaitMin, p.WaitMax = awscdk.Duration_Seconds(jsii.Number(8)), awscdk.Duration_Seconds(jsii.Number(2))
		}), "semaphore: Props.WaitMax must be greater than WaitMin (8s), got 2s"},
		{"several locks with a rate", valid(func(p *semaphore.Props) {
			p.LockName, p.Rate = "", &semaphore.Rate{PerSecond: 1}
			p.Locks = []semaphore.LockSpec{{LockName: "db"}, {LockNamePath: "$.region"}}
		}), `semaphore: Props.Rate is not supported with Locks; remove it, or use a single lock, got set`},
		{"a total limit under Poll", valid(func(p *semaphore.Props) {
			p.LockName, p.LockNamePath, p.TotalLimit, p.WaitStrategy = "", "$.tenant", 12, semaphore.WaitPoll
		}), `semaphore: Props.WaitStrategy must be "Callback" with TotalLimit, got "Poll"`},
		{"several locks with a bad path", valid(func(p *semaphore.Props) {
			p.LockName, p.Locks = "", []semaphore.LockSpec{{LockName: "db"}, {LockNamePath: "$.regions[*]"}}
		}), `semaphore: Props.Locks[1].LockNamePath must be a "$." reference path such as "$.environment", got "$.regions[*]"`},
		{"priorities under Poll", valid(func(p *semaphore.Props) { p.WaitStrategy, p.PriorityPath = semaphore.WaitPoll, "$.priority" }),
			`semaphore: Props.PriorityPath applies to WaitStrategy "Callback" only (Poll has no queue to order); set WaitStrategy to "Callback", got "$.priority"`},
		{"priority ageing out of range", valid(func(p *semaphore.Props) { p.PriorityPath, p.PriorityAgeing = "$.priority", -5 }),
			"semaphore: Props.PriorityAgeing must be 1 to 1000000, got -5"},
		{"weights under Poll", valid(func(p *semaphore.Props) { p.WaitStrategy, p.WeightPath = semaphore.WaitPoll, "$.slots" }),
			`semaphore: Props.WeightPath applies to WaitStrategy "Callback" only; set WaitStrategy to "Callback", got "$.slots"`},
		{"priority ageing without priorities", valid(func(p *semaphore.Props) { p.PriorityAgeing = 5 }),
			"semaphore: Props.PriorityAgeing applies with PriorityPath only; remove it, or set PriorityPath, got 5"},
		{"rate without a rate", valid(func(p *semaphore.Props) { p.Rate = &semaphore.Rate{Burst: 5} }),
			"semaphore: Props.Rate.PerSecond must be from one a day (1/86400) to 1000 permits a second, got 0"},
		{"rate with an unknown mode", valid(func(p *semaphore.Props) { p.Rate = &semaphore.Rate{PerSecond: 2, Mode: "Drop"} }),
			`semaphore: Props.Rate.Mode must be "Delay" or "Reject", got "Drop"`},
		{"rate on a lock name like a rate item's key", valid(func(p *semaphore.Props) {
			p.LockName, p.Rate = "rate#api", &semaphore.Rate{PerSecond: 2}
		}), `semaphore: Props.LockName must not begin with "rate#" with a Rate: the rate items' keys do, got "rate#api"`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := panicMessage(func() { semaphore.New(stack, jsii.String(fmt.Sprintf("Semaphore%d", i)), tt.props) })
			if got != tt.want {
				t.Errorf("panic message:\n got: %q\nwant: %q", got, tt.want)
			}
		})
	}
	if children := len(*stack.Node().Children()); children != 3 {
		t.Errorf("the stack has %d children, want 3 (Fn, Child, Acquire Slot): an invalid semaphore joined the tree", children)
	}
}

// TestPriorityProps: PriorityPath, PriorityAgeing and WeightPath reach the machine: its park
// payload carries the priority, the ageing step (the default when PriorityAgeing is unset) and
// the weight.
func TestPriorityProps(t *testing.T) {
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Priorities"), nil)
	fn := awslambda.Function_FromFunctionArn(stack, jsii.String("Fn"), jsii.String("arn:aws:lambda:us-east-1:123456789012:function:work"))
	for i, tc := range []struct{ ageing, want int }{{0, semaphore.DefaultPriorityAgeing}, {7, 7}} {
		s := semaphore.New(stack, jsii.String(fmt.Sprintf("Semaphore%d", i)), &semaphore.Props{
			LockName: "Jobs", Limit: 2, WorkFunction: fn, PriorityPath: "$.priority", PriorityAgeing: tc.ageing, WeightPath: "$.slots", Cleanup: jsii.Bool(false),
		})
		def, err := s.Definition().Render()
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range []string{`"Check Priority"`, `"priority.$":"$.priority.level"`, fmt.Sprintf(`"priorityAgeing":%d`, tc.want), `"weight.$":"$.weight.units"`} {
			if !strings.Contains(string(def), part) {
				t.Errorf("ageing %d: the definition lacks %s", tc.ageing, part)
			}
		}
	}
}

// panicMessage runs f and returns the message it panicked with, or "" if it did not panic.
func panicMessage(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = strings.TrimSpace(fmt.Sprint(r))
		}
	}()
	f()
	return ""
}
