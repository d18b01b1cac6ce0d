package test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/emulator"
	"github.com/turnstile-sfn/turnstile/emulator/eventbus"
	"github.com/turnstile-sfn/turnstile/emulator/stack"
	"github.com/turnstile-sfn/turnstile/internal/simulate"
	"github.com/turnstile-sfn/turnstile/lock"
)

// timedStack is a stack of its own: one semaphore (the demo's construct ID and lock name, limit
// 1) whose work waits an hour while the execution times out after two minutes, and whose
// reconciler runs once a day, so that only the TIMED_OUT event can free a slot in a test.
var timedStack struct {
	once sync.Once
	err  error
	st   *stack.Stack
	dir  string
}

// Timings of the timed stack, in virtual time.
const (
	timedExecutionTimeout = 2 * time.Minute
	timedAcquireTimeout   = time.Minute
	timedWork             = time.Hour
)

// synthesizeTimed writes the timed stack's cloud assembly into outdir; jsii passes CDK failures
// as panics, returned here as errors.
func synthesizeTimed(outdir string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("synthesize the timed stack: %v", r)
		}
	}()
	// jsii copies the environment when its runtime starts: restart it to apply the setting.
	if os.Getenv("CDK_VALIDATION") == "" {
		if err := os.Setenv("CDK_VALIDATION", "false"); err != nil {
			return err
		}
		jsii.Close()
	}
	appContext := map[string]any{"aws:cdk:bundling-stacks": []any{}}
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(outdir), Context: &appContext})
	st := awscdk.NewStack(app, jsii.String("TurnstileTimed"), nil)
	semaphore.New(st, jsii.String(demo.SemaphoreID), &semaphore.Props{
		LockName: demo.DefaultLockName,
		Limit:    1,
		Work: awsstepfunctions.NewWait(st, jsii.String("Work For An Hour"), &awsstepfunctions.WaitProps{
			Time: awsstepfunctions.WaitTime_Duration(awscdk.Duration_Seconds(jsii.Number(timedWork.Seconds()))),
		}),
		Timeout:           awscdk.Duration_Seconds(jsii.Number(timedExecutionTimeout.Seconds())),
		AcquireTimeout:    awscdk.Duration_Seconds(jsii.Number(timedAcquireTimeout.Seconds())),
		ReconcileSchedule: awsevents.Schedule_Rate(awscdk.Duration_Days(jsii.Number(1))),
	})
	app.Synth(nil)
	return nil
}

// startTimedStack synthesizes the timed stack once and runs it.
func startTimedStack(t *testing.T) *stack.Stack {
	t.Helper()
	c := &timedStack
	c.once.Do(func() {
		if c.dir, c.err = os.MkdirTemp("", "turnstile-timed-"); c.err != nil {
			return
		}
		if c.err = synthesizeTimed(c.dir); c.err != nil {
			return
		}
		c.st, c.err = stack.Start(context.Background(), c.dir, stack.Options{
			DynamoDB: database.Local, Held: true, Seed: 5, Handlers: simulate.Handlers(),
		})
	})
	if c.err != nil {
		t.Fatalf("start the timed stack: %v", c.err)
	}
	return c.st
}

// TestTimedOutHolderIsReleasedByCleanup: an execution that times out while it holds the slot
// has its slot back after its TIMED_OUT event (the reconciler runs once a day in this stack, so
// the event is what frees it).
func TestTimedOutHolderIsReleasedByCleanup(t *testing.T) {
	st := startTimedStack(t)
	ctx := context.Background()
	a := startHolder(t, st)
	waitForLock(t, st, "A to hold the slot", heldBy(a))
	var desc emulator.ExecutionDescription
	waitForLock(t, st, "A to time out", func(lockView) bool {
		var err error
		if desc, err = st.Emulator.DescribeExecution(ctx, a); err != nil {
			t.Fatal(err)
		}
		return desc.Status != emulator.StatusRunning
	})
	if desc.Status != emulator.StatusTimedOut {
		t.Fatalf("A's status = %s, want %s", desc.Status, emulator.StatusTimedOut)
	}
	waitForLock(t, st, "the cleanup to free A's slot", free)
}

// TestStaleFailedEventLeavesRedrivenHolder: A is aborted while it holds the slot, the cleanup
// frees it, A is redriven and the redrive guard takes the free slot back for it; then a stale
// FAILED event of A's first run arrives. Its cleanup sees A RUNNING and releases nothing: A
// keeps its slot and the counter equals the holders at every read.
func TestStaleFailedEventLeavesRedrivenHolder(t *testing.T) {
	st := startCleanupStack(t)
	cleanupStack.fault.Store(int32(deliverEvents))
	ctx := context.Background()
	a := abortedAndFreed(t, st)
	firstRun, err := st.Emulator.DescribeExecution(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Emulator.RedriveExecution(ctx, a); err != nil {
		t.Fatalf("RedriveExecution: %v", err)
	}
	waitForLock(t, st, "the redrive guard to give A its slot back", heldBy(a))

	// The stale event: A's first run reported FAILED, delivered after the redrive.
	stale := eventbus.ExecutionSnapshot{
		ExecutionARN:    a,
		StateMachineARN: firstRun.StateMachineArn,
		Name:            firstRun.Name,
		Status:          eventbus.StatusFailed,
		StartDate:       firstRun.StartDate,
		StopDate:        *firstRun.StopDate,
		Input:           firstRun.Input,
		Error:           "States.TaskFailed",
		Cause:           "the first run failed",
	}
	staleID := "stale-failed-" + firstRun.Name
	event, err := eventbus.NewStatusChangeEvent(staleID, *firstRun.StopDate, stale)
	if err != nil {
		t.Fatal(err)
	}
	cleanupArn := machineARN(t, st, demo.SemaphoreID+semaphore.CleanupID+"StateMachine")
	if err := st.Bus.Publish(ctx, event); err != nil {
		t.Fatalf("publish the stale event: %v", err)
	}
	var run emulator.ExecutionDescription
	waitForLock(t, st, "the stale event's cleanup to end", func(l lockView) bool {
		if !heldBy(a)(l) {
			t.Fatalf("the stale FAILED event changed the redriven A's slot: %+v", l)
		}
		var found bool
		run, found = executionWithInput(t, st, cleanupArn, staleID)
		return found && run.Status != emulator.StatusRunning
	})
	if run.Status != emulator.StatusSucceeded {
		t.Errorf("the stale event's cleanup ended %s, want %s", run.Status, emulator.StatusSucceeded)
	}
	if got, want := enteredStates(t, st, run.ExecutionArn), []string{machines.StateStillRunning, machines.StateNothingToRelease}; !containsInOrder(got, want) {
		t.Errorf("the stale event's cleanup went through %v, want %v among them and no release", got, want)
	} else if slices.Contains(got, machines.StateReleaseHolder) {
		t.Errorf("the stale event's cleanup entered %q: %v", machines.StateReleaseHolder, got)
	}
	if l := readLock(t, st); !heldBy(a)(l) {
		t.Errorf("after the stale event's cleanup the lock is %+v, want held by the redriven A", l)
	}
	stop(t, st, a)
	waitForLock(t, st, "the cleanup to free the redriven A's slot", free)
}

// TestLateAcquireWriteIsReleasedByReconciler: an acquire write that lands after its execution
// ended and its cleanup ran (written here directly, with the semaphore's acquire expressions)
// holds a slot for a dead execution; the reconciler frees it on its next run.
func TestLateAcquireWriteIsReleasedByReconciler(t *testing.T) {
	st := startCleanupStack(t)
	cleanupStack.fault.Store(int32(deliverEvents))
	ctx := context.Background()
	a := abortedAndFreed(t, st)

	ddb, err := st.DynamoDBClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	locks, err := lock.New(lockTableName(st), ddb, nil)
	if err != nil {
		t.Fatal(err)
	}
	if held, err := locks.TryAcquire(ctx, demo.DefaultLockName, a, 1); err != nil || !held {
		t.Fatalf("the late acquire write: %v, %v", held, err)
	}
	if l := readLock(t, st); !heldBy(a)(l) {
		t.Fatalf("after the late acquire write the lock is %+v, want held by the dead A", l)
	}
	waitForLock(t, st, "the reconciler to free the late write's slot", free)
}

// lockTableName is the name of the stack's only table.
func lockTableName(st *stack.Stack) string {
	var name string
	for _, tb := range st.Template.Tables {
		name = tb.Name
	}
	return name
}

// machineARN returns the ARN of the state machine whose logical ID starts with prefix.
func machineARN(t *testing.T, st *stack.Stack, prefix string) string {
	t.Helper()
	for _, sm := range st.Template.StateMachines {
		if strings.HasPrefix(sm.LogicalID, prefix) {
			return sm.ARN
		}
	}
	t.Fatalf("no state machine %s*", prefix)
	return ""
}

// executionWithInput returns the execution of machine whose input contains marker.
func executionWithInput(t *testing.T, st *stack.Stack, machine, marker string) (emulator.ExecutionDescription, bool) {
	t.Helper()
	ctx := context.Background()
	in := emulator.ListExecutionsInput{StateMachineArn: machine}
	for {
		page, next, err := st.Emulator.ListExecutions(ctx, in)
		if err != nil {
			t.Fatalf("ListExecutions: %v", err)
		}
		for _, item := range page {
			desc, err := st.Emulator.DescribeExecution(ctx, item.ExecutionArn)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(desc.Input, marker) {
				return desc, true
			}
		}
		if next == "" {
			return emulator.ExecutionDescription{}, false
		}
		in.NextToken = next
	}
}

// enteredStates lists the states an execution entered, in order.
func enteredStates(t *testing.T, st *stack.Stack, arn string) []string {
	t.Helper()
	history, err := st.Emulator.GetExecutionHistory(context.Background(), arn)
	if err != nil {
		t.Fatalf("GetExecutionHistory: %v", err)
	}
	var names []string
	for _, e := range history {
		if e.StateEnteredEventDetails != nil {
			names = append(names, e.StateEnteredEventDetails.Name)
		}
	}
	return names
}

// containsInOrder reports whether want is a subsequence of got.
func containsInOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// TestItemTooLargeFailsFast: the lock's counter item is so full (a foreign attribute fills it
// to a few bytes under DynamoDB's 400 KB) that the execution's first write to it cannot fit; the
// execution fails at once with Turnstile.LockTableError and the lock is left as it was, with no
// holder and the counter at 0.
func TestItemTooLargeFailsFast(t *testing.T) {
	st := startCleanupStack(t)
	cleanupStack.fault.Store(int32(deliverEvents))
	ctx := context.Background()
	ddb, err := st.DynamoDBClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	key := lock.Key(demo.DefaultLockName, lock.EntryLock) // the counter item
	const filler = "filler"
	fill := func(update string, names map[string]string, values map[string]types.AttributeValue) {
		t.Helper()
		_, err := ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(lockTableName(st)), Key: key, UpdateExpression: aws.String(update),
			ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The lock is free and nobody waits: its counter, ticket and change counts can go (they
	// come back from 0), and its live limit (the next park copies it in again). The item's size (DynamoDB's rules: attribute names plus values) is then its key
	// with the filler's name, plus the filler: 4 bytes to spare, less than the ticket count the
	// machine's first write adds.
	keyBytes := len(lock.AttributeLockName) + len(demo.DefaultLockName) + len(lock.AttributeEntry) + len(lock.EntryLock) + len(filler)
	fill("SET #f = :f REMOVE #count, #tickets, #changes, #limit, #semaphore", map[string]string{"#f": filler, "#count": lock.AttributeCount, "#tickets": lock.AttributeTickets, "#changes": lock.AttributeChanges, "#limit": lock.AttributeLimit, "#semaphore": lock.AttributeSemaphore},
		map[string]types.AttributeValue{":f": &types.AttributeValueMemberS{Value: strings.Repeat("x", 400*1024-keyBytes-4)}})
	defer fill("REMOVE #f", map[string]string{"#f": filler}, nil)

	a := startHolder(t, st)
	if d := waitForEnd(t, st, a); d.Status != emulator.StatusFailed || deref(d.Error) != machines.ErrorLockTable {
		t.Fatalf("A ended %s %s, want FAILED %s", d.Status, deref(d.Error), machines.ErrorLockTable)
	}
	if l := readLock(t, st); !free(l) {
		t.Errorf("after the failed acquire the lock is %+v, want no holder and a counter at 0", l)
	}
}
