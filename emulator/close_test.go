package emulator

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// packageGoroutines counts the goroutines, other than the caller's, running code of this package.
func packageGoroutines() int {
	buf := make([]byte, 1<<20)
	stacks := strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n")
	n := 0
	for _, s := range stacks[1:] { // the first stack is the caller's
		if strings.Contains(s, "turnstile/emulator.") {
			n++
		}
	}
	return n
}

func TestCloseStopsEverything(t *testing.T) {
	ctx := context.Background()
	fake, tokens := tokenQueue()
	em := New(Options{Clock: NewScaledClock(testStart, 1)}) // real time: these executions would run for an hour
	em.RegisterIntegration(fake)
	em.OnStatusChange(func(StatusChange) {})
	waits, err := em.CreateStateMachine("waits", `{"StartAt":"Both","States":{"Both":{"Type":"Parallel","End":true,"Branches":[
{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":3600,"End":true}}},
{"StartAt":"M","States":{"M":{"Type":"Map","ItemsPath":"$.items","End":true,"ItemProcessor":{"StartAt":"I","States":{"I":{"Type":"Wait","Seconds":3600,"End":true}}}}}}]}}}`,
		StateMachineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	callbacks, err := em.CreateStateMachine("callbacks", waitingMachine, StateMachineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		s, err := em.StartExecution(ctx, waits, "", `{"items":[1,2,3]}`)
		if err != nil {
			t.Fatal(err)
		}
		c, err := em.StartExecution(ctx, callbacks, "", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		<-tokens
		if s.ExecutionArn == c.ExecutionArn {
			t.Fatal("two executions share an ARN")
		}
	}
	if packageGoroutines() == 0 {
		t.Fatal("no goroutine runs the executions")
	}
	if err := em.Close(); err != nil {
		t.Fatal(err)
	}
	// A goroutine that has signalled its end may still be returning: give it a moment, ten
	// seconds at most on a loaded machine.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && packageGoroutines() != 0; {
		time.Sleep(10 * time.Millisecond)
	}
	if n := packageGoroutines(); n != 0 {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines of the package remain after Close:\n%s", n, buf[:runtime.Stack(buf, true)])
	}
	if _, err := em.StartExecution(ctx, waits, "", `{}`); !errors.Is(err, ErrClosed) {
		t.Errorf("StartExecution after Close: got %v, want ErrClosed", err)
	}
	if err := em.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close: got %v, want ErrClosed", err)
	}
}
