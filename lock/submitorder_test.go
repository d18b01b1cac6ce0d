package lock_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/lock"
)

// submitOrdered submits input with a priority (ageing 0: none) and a weight.
func submitOrdered(t *testing.T, c *lock.Client, limit int, input string, priority int, ageing int64, weight int) lock.Submission {
	t.Helper()
	s, err := c.Submit(t.Context(), lock.SubmitRequest{Lock: lockName, Limit: limit, StateMachine: machine, Input: input,
		Priority: priority, PriorityAgeing: ageing, Weight: weight})
	if err != nil {
		t.Fatalf("submit %s: %v", input, err)
	}
	return s
}

// TestSubmissionPriorities: limit 1, ageing 2; e0 holds. s1 and s2 (priority 0) queue, then s3
// (priority 9) queues ahead of them: its ticket is within 9·2 of theirs. After 20 more tickets
// s4 (priority 9) is past the bound and queues behind s1 and s2. Ids and tickets carry the
// places; status, cancel and the hand-offs find the submissions by them, and a started
// submission's park (at its own place) finds its slot.
func TestSubmissionPriorities(t *testing.T) {
	c, f := newSubmitClient(t, time.Now)
	ctx := t.Context()
	const ageing = 2
	if res := park(t, c, 1, 0, 0); !res.Admitted {
		t.Fatalf("e0 = %+v, want admitted", res)
	}
	s1 := submitOrdered(t, c, 1, `{"job":1}`, 0, ageing, 0)
	s2 := submitOrdered(t, c, 1, `{"job":2}`, 0, ageing, 0)
	s3 := submitOrdered(t, c, 1, `{"job":3}`, 9, ageing, 0)
	if want := lock.Place(4, 9, ageing); s3.Ticket != want || !strings.HasPrefix(s3.ID, strconv.FormatInt(want, 10)+"-") {
		t.Fatalf("s3 = %+v, want place %d in its ticket and id", s3, want)
	}
	for range 20 {
		if _, err := c.DrawTicket(ctx, lockName); err != nil {
			t.Fatal(err)
		}
	}
	s4 := submitOrdered(t, c, 1, `{"job":4}`, 9, ageing, 0)
	if got, want := waiters(read(t, c, 1)), []string{s3.Execution, s1.Execution, s2.Execution, s4.Execution}; !slices.Equal(got, want) {
		t.Fatalf("queue = %v, want %v", got, want)
	}
	if st := status(t, c, s3.ID); st.Outcome != lock.OutcomeQueued || st.Ahead != 0 {
		t.Fatalf("s3 = %+v, want queued first", st)
	}
	if st := status(t, c, s4.ID); st.Outcome != lock.OutcomeQueued || st.Ahead != 3 {
		t.Fatalf("s4 = %+v, want queued with 3 ahead", st)
	}
	if st, err := c.Cancel(ctx, lockName, s2.ID, ""); err != nil || st.Outcome != lock.OutcomeCancelled {
		t.Fatalf("cancel s2 = %+v, %v", st, err)
	}
	holder := execution(0)
	for _, next := range []lock.Submission{s3, s1, s4} {
		res, err := c.Release(ctx, lockName, holder, 1)
		if err != nil || !slices.Equal(res.HandedTo, []string{next.Execution}) {
			t.Fatalf("release %s = %+v, %v; want handed to %s", holder, res, err, next.Execution)
		}
		if st := status(t, c, next.ID); st.Outcome != lock.OutcomeStarted {
			t.Fatalf("%s = %+v, want started", next.ID, st)
		}
		// The machine draws a ticket and parks at its place with the input's priority.
		ticket, err := c.DrawTicket(ctx, lockName)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := c.Park(ctx, lock.ParkRequest{Lock: lockName, Limit: 1, Execution: next.Execution,
			Ticket: lock.Place(ticket, 9, ageing), Token: "tok-" + next.ID}); err != nil || !res.Admitted {
			t.Fatalf("the park of %s = %+v, %v; want admitted at once", next.ID, res, err)
		}
		holder = next.Execution
	}
	if got := f.executions(); len(got) != 3 {
		t.Fatalf("started %v, want s1, s3 and s4", got)
	}
}

// TestWeightedSubmission: limit 3; e0 (1) holds. s1 (3) does not fit and queues; s2 (1) queues
// behind it although it would fit. e0's release grants s1 its 3 slots (its holder item
// carries the weight, the counter counts it, never above the limit); its execution's park
// goes straight on; s1's release hands on to s2.
func TestWeightedSubmission(t *testing.T) {
	c, f := newSubmitClient(t, time.Now)
	ctx := t.Context()
	if res := park(t, c, 3, 0, 0); !res.Admitted {
		t.Fatalf("e0 = %+v, want admitted", res)
	}
	s1 := submitOrdered(t, c, 3, `{"job":1}`, 0, 0, 3)
	s2 := submitOrdered(t, c, 3, `{"job":2}`, 0, 0, 1)
	if st := read(t, c, 3); st.Count != 1 || !slices.Equal(waiters(st), []string{s1.Execution, s2.Execution}) {
		t.Fatalf("after the submissions: %+v, want e0 holding 1 and s1, s2 waiting", st)
	}
	if res, err := c.Release(ctx, lockName, execution(0), 3); err != nil || !slices.Equal(res.HandedTo, []string{s1.Execution}) {
		t.Fatalf("release e0 = %+v, %v; want handed to s1", res, err)
	}
	st := read(t, c, 3)
	if st.Count != 3 || len(st.Holders) != 1 || st.Holders[0].Execution != s1.Execution || st.Holders[0].Weight != 3 {
		t.Fatalf("after s1's grant: %+v, want s1 holding 3", st)
	}
	if _, ok := f.started[s1.Execution]; !ok {
		t.Fatalf("started %v, want s1", f.executions())
	}
	ticket, err := c.DrawTicket(ctx, lockName)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := c.Park(ctx, lock.ParkRequest{Lock: lockName, Limit: 3, Execution: s1.Execution, Ticket: ticket, Token: "tok-s1", Weight: 3}); err != nil || !res.Admitted {
		t.Fatalf("s1's park = %+v, %v; want admitted at once", res, err)
	}
	if st := read(t, c, 3); st.Count != 3 {
		t.Fatalf("after s1's park: count %d, want 3", st.Count)
	}
	if res, err := c.Release(ctx, lockName, s1.Execution, 3); err != nil || !slices.Equal(res.HandedTo, []string{s2.Execution}) {
		t.Fatalf("release s1 = %+v, %v; want handed to s2", res, err)
	}
	if st := read(t, c, 3); st.Count != 1 || !slices.Equal(holders(st), []string{s2.Execution}) {
		t.Fatalf("after s1's release: %+v, want s2 holding 1", st)
	}
}

// TestSubmitRejectsPrioritiesAndWeightsOutOfRange: each invalid priority or weight is a named
// error, and nothing is queued.
func TestSubmitRejectsPrioritiesAndWeightsOutOfRange(t *testing.T) {
	c, _ := newSubmitClient(t, time.Now)
	for _, tc := range []struct {
		name             string
		priority, weight int
		ageing           int64
		want             error
	}{
		{"a priority without ageing", 3, 0, 0, lock.ErrInvalidRequest},
		{"priority 10", 10, 0, 2, lock.ErrInvalidRequest},
		{"ageing above the maximum", 1, 0, lock.MaxPriorityAgeing + 1, lock.ErrInvalidRequest},
		{"a negative weight", 0, -1, 0, lock.ErrInvalidRequest},
		{"a weight above the limit", 0, 3, 0, lock.ErrWeightAboveLimit},
	} {
		_, err := c.Submit(t.Context(), lock.SubmitRequest{Lock: lockName, Limit: 2, StateMachine: machine,
			Priority: tc.priority, PriorityAgeing: tc.ageing, Weight: tc.weight})
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if st := read(t, c, 2); len(st.Waiters) != 0 || st.Count != 0 {
		t.Fatalf("after the refused submissions: %+v", st)
	}
}
