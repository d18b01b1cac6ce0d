package sidebyside

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strconv"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal/ddblocaltest"
	"github.com/turnstile-sfn/turnstile/lock"
)

// One DynamoDB Local serves the tests that need one.
var server ddblocaltest.Server

func TestMain(m *testing.M) { os.Exit(ddblocaltest.Main(m, &server)) }

// root returns the checkout holding the Node tooling, skipping the test without it.
func root(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	r, err := FindRoot(wd)
	if errors.Is(err, ErrNoTooling) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// sameJSON reports whether two JSON texts hold equal values (member order aside: the two
// interpreters need not order members alike).
func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// Both interpreters run the flow workload to the same output, the one the definition computes.
func TestFlowRunsAlikeInBothInterpreters(t *testing.T) {
	load := Load{Executions: 20, Concurrency: 4}
	ours, err := RunOurs(t.Context(), Flow(), load)
	if err != nil {
		t.Fatal(err)
	}
	want := json.RawMessage(`{"discount":20,"totals":[13,0,9,21,41,23],
		"labels":["order-1-regular","none","order-3-regular","order-4-bulk","order-5-regular","order-6-bulk"],
		"batch":"large","greeting":"Hello, Ada"}`)
	if !sameJSON(t, ours.FirstOutput, want) {
		t.Errorf("ours: output %s, want %s", ours.FirstOutput, want)
	}
	if ours.Executions != load.Executions || ours.ExecutionsPerSecond <= 0 || ours.DynamoDBRequests != 0 {
		t.Errorf("ours: %+v", ours)
	}
	theirs, err := RunTheirs(t.Context(), root(t), Flow(), load)
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, theirs.FirstOutput, want) {
		t.Errorf("theirs: output %s, want %s", theirs.FirstOutput, want)
	}
	if theirs.Executions != load.Executions || theirs.ExecutionsPerSecond <= 0 {
		t.Errorf("theirs: %+v", theirs)
	}
}

// Both interpreters run the semaphore workload against DynamoDB Local with the same requests
// (an acquire and a release per execution) and leave the lock free.
func TestSemaphoreRunsAlikeInBothInterpreters(t *testing.T) {
	server.SkipIfMissing(t)
	const limit = 3
	load := Load{Executions: 12, Concurrency: limit}
	// Each run gets its subtest's t: a failure there must end the subtest, not its parent.
	for name, run := range map[string]func(t *testing.T, w Workload, table string) (Result, error){
		"ours": func(t *testing.T, w Workload, _ string) (Result, error) { return RunOurs(t.Context(), w, load) },
		"theirs": func(t *testing.T, w Workload, _ string) (Result, error) {
			return RunTheirs(t.Context(), root(t), w, load)
		},
		"alone": func(t *testing.T, w Workload, table string) (Result, error) {
			return RunDynamoDBAlone(t.Context(), w.Endpoint, table, limit, load)
		},
	} {
		t.Run(name, func(t *testing.T) {
			table := server.CreateLockTable(t)
			w, err := Semaphore(server.Endpoint, table, limit)
			if err != nil {
				t.Fatal(err)
			}
			r, err := run(t, w, table)
			if err != nil {
				t.Fatal(err)
			}
			if r.DynamoDBRequests != 2*int64(load.Executions) {
				t.Errorf("%d DynamoDB requests, want %d (an acquire and a release per execution)", r.DynamoDBRequests, 2*load.Executions)
			}
			if name != "alone" && !sameJSON(t, r.FirstOutput, json.RawMessage(`{"worked":true,"input":{"job":1}}`)) {
				t.Errorf("output %s, want the work's", r.FirstOutput)
			}
			count, holders := lockState(t, table)
			if count != "0" || holders != 0 {
				t.Errorf("the lock holds count %s and %d holders, want 0 and 0", count, holders)
			}
		})
	}
}

// lockState reads the lock: its counter and its number of holders.
func lockState(t *testing.T, table string) (string, int) {
	t.Helper()
	locks, err := lock.New(table, server.Client, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := locks.Read(t.Context(), SemaphoreLock)
	if err != nil {
		t.Fatalf("read the lock: %v", err)
	}
	return strconv.Itoa(st.Count), len(st.Holders)
}

func TestMedian(t *testing.T) {
	rs := []Result{{ExecutionsPerSecond: 3}, {ExecutionsPerSecond: 1}, {ExecutionsPerSecond: 2}, {ExecutionsPerSecond: 10}}
	if got := Median(rs, ExecutionsPerSecond); got != 3 {
		t.Errorf("Median of 1, 2, 3, 10 = %v, want the upper median 3", got)
	}
	if got := Median(rs[:3], ExecutionsPerSecond); got != 2 {
		t.Errorf("Median of 3, 1, 2 = %v, want 2", got)
	}
	if got := Median(nil, ExecutionsPerSecond); got != 0 {
		t.Errorf("Median of none = %v, want 0", got)
	}
}

func TestInvalidLoad(t *testing.T) {
	for _, load := range []Load{{Executions: 0, Concurrency: 1}, {Executions: 1, Concurrency: 0}} {
		if _, err := RunOurs(t.Context(), Flow(), load); !errors.Is(err, ErrInvalidLoad) {
			t.Errorf("RunOurs(%+v) = %v, want ErrInvalidLoad", load, err)
		}
	}
}
