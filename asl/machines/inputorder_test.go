package machines_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// TestSemaphoreInputOrder: the paths, the ageing (its default too) and the limit read back from
// deployed definitions; a machine without priorities or weights reads nothing.
func TestSemaphoreInputOrder(t *testing.T) {
	for _, tc := range []struct {
		opts machines.SemaphoreOptions
		want machines.InputOrder
	}{
		{machines.SemaphoreOptions{LockName: "L", Limit: 4, WaitStrategy: machines.WaitCallback, PriorityPath: "$.p", PriorityAgeing: 7, WeightPath: "$.w"},
			machines.InputOrder{PriorityPath: "$.p", PriorityAgeing: 7, WeightPath: "$.w", Limit: 4}},
		{machines.SemaphoreOptions{LockName: "L", Limit: 2, WaitStrategy: machines.WaitCallback, PriorityPath: "$.job.p"},
			machines.InputOrder{PriorityPath: "$.job.p", PriorityAgeing: machines.DefaultPriorityAgeing, Limit: 2}},
		{machines.SemaphoreOptions{LockName: "L", Limit: 3, WaitStrategy: machines.WaitCallback},
			machines.InputOrder{Limit: 3}},
	} {
		if got := machines.SemaphoreInputOrder(deployed(t, tc.opts)); got != tc.want {
			t.Errorf("SemaphoreInputOrder = %+v, want %+v", got, tc.want)
		}
	}
}

// TestInputOrderRead: absent values take the defaults, whole numbers in range are read (3.0 is
// 3, as the machine's NumericEquals reads it), anything else is a named error.
func TestInputOrderRead(t *testing.T) {
	o := machines.InputOrder{PriorityPath: "$.p", PriorityAgeing: 5, WeightPath: "$.w", Limit: 4}
	for _, tc := range []struct {
		input            string
		priority, weight int
		err              error
	}{
		{`{}`, machines.DefaultPriority, machines.DefaultWeight, nil},
		{`{"p":9,"w":4}`, 9, 4, nil},
		{`{"p":3.0,"w":2.0}`, 3, 2, nil},
		{`{"p":10}`, 0, 0, machines.ErrInputPriority},
		{`{"p":1.5}`, 0, 0, machines.ErrInputPriority},
		{`{"p":"9"}`, 0, 0, machines.ErrInputPriority},
		{`{"p":null}`, 0, 0, machines.ErrInputPriority},
		{`{"w":5}`, 0, 0, machines.ErrInputWeight},
		{`{"w":0}`, 0, 0, machines.ErrInputWeight},
		{`{"w":2.5}`, 0, 0, machines.ErrInputWeight},
	} {
		var doc map[string]any
		if err := json.Unmarshal([]byte(tc.input), &doc); err != nil {
			t.Fatal(err)
		}
		p, w, err := o.Read(func(path string) (any, bool) { v, ok := doc[path[2:]]; return v, ok })
		if !errors.Is(err, tc.err) || (err == nil && (p != tc.priority || w != tc.weight)) {
			t.Errorf("%s: %d, %d, %v; want %d, %d, %v", tc.input, p, w, err, tc.priority, tc.weight, tc.err)
		}
	}
	if p, w, err := (machines.InputOrder{}).Read(func(string) (any, bool) { return 9, true }); p != 0 || w != 1 || err != nil {
		t.Errorf("the zero InputOrder read %d, %d, %v; want 0, 1, nil", p, w, err)
	}
}
