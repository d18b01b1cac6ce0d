package cleanup_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/constructs/cleanup"
)

// newInStack runs cleanup.New in a new stack with a table and a machine, after edit changes the
// valid props; it returns the Cleanup, or the panic's message.
func newInStack(edit func(*cleanup.Props)) (c cleanup.Cleanup, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprint(r)
		}
	}()
	stack := awscdk.NewStack(newApp(), jsii.String("Props"), nil)
	table, machine := newSemaphoreParts(stack)
	p := &cleanup.Props{StateMachine: machine, Table: table, LockName: "Reports", Limit: 2}
	edit(p)
	return cleanup.New(stack, jsii.String("Cleanup"), p), ""
}

// TestInvalidPropsPanicNamingTheField checks that each invalid prop makes New panic with a
// message naming it.
func TestInvalidPropsPanicNamingTheField(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*cleanup.Props)
		field string
	}{
		{"no state machine", func(p *cleanup.Props) { p.StateMachine = nil }, "Props.StateMachine"},
		{"no table", func(p *cleanup.Props) { p.Table = nil }, "Props.Table"},
		{"no lock name", func(p *cleanup.Props) { p.LockName = "" }, "LockName"},
		{"both lock names", func(p *cleanup.Props) { p.LockNamePath = "$.environment" }, "LockName"},
		{"lock name path not a path", func(p *cleanup.Props) { p.LockName, p.LockNamePath = "", "environment" }, "Props.LockNamePath"},
		{"limit 0 with the redrive guard", func(p *cleanup.Props) { p.Limit = 0 }, "Props.Limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := newInStack(tt.edit)
			if got == "" {
				t.Fatalf("New did not panic, want a panic naming %s", tt.field)
			}
			if !strings.HasPrefix(got, "cleanup: ") || !strings.Contains(got, tt.field) {
				t.Errorf("panic %q, want one starting with \"cleanup: \" and naming %s", got, tt.field)
			}
		})
	}
}

// TestNilPropsPanic checks that New without props panics naming the required props.
func TestNilPropsPanic(t *testing.T) {
	defer func() {
		got := fmt.Sprint(recover())
		if !strings.Contains(got, "Props.StateMachine") || !strings.Contains(got, "Props.Table") {
			t.Errorf("panic %q, want one naming Props.StateMachine and Props.Table", got)
		}
	}()
	cleanup.New(awscdk.NewStack(newApp(), jsii.String("NilProps"), nil), jsii.String("Cleanup"), nil)
}

// TestOptionalParts checks that Reconciler and RedriveGuard turn their parts off, and that the
// limit is not needed without the redrive guard.
func TestOptionalParts(t *testing.T) {
	tests := []struct {
		name                      string
		edit                      func(*cleanup.Props)
		wantReconciler, wantGuard bool
	}{
		{"defaults", func(*cleanup.Props) {}, true, true},
		{"no reconciler", func(p *cleanup.Props) { p.Reconciler = jsii.Bool(false) }, false, true},
		{"no redrive guard, no limit", func(p *cleanup.Props) { p.RedriveGuard, p.Limit = jsii.Bool(false), 0 }, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, panicked := newInStack(tt.edit)
			if panicked != "" {
				t.Fatalf("New panicked: %s", panicked)
			}
			if got := c.Reconciler() != nil; got != tt.wantReconciler {
				t.Errorf("Reconciler() present = %t, want %t", got, tt.wantReconciler)
			}
			if got := c.RedriveGuard() != nil; got != tt.wantGuard {
				t.Errorf("RedriveGuard() present = %t, want %t", got, tt.wantGuard)
			}
			if c.StateMachine() == nil || c.Rule() == nil || c.DeadLetterQueue() == nil || c.DeadLetterAlarm() == nil {
				t.Error("a required part (machine, rule, queue, alarm) is nil")
			}
		})
	}
}
