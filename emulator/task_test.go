package emulator

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
)

// conditionalStore is a ResourceInvoker standing in for the emulator/dynamo integration.
type conditionalStore struct{ calls []any }

func (s *conditionalStore) Supports(resource string) bool {
	return resource == "arn:aws:states:::dynamodb:updateItem"
}

func (s *conditionalStore) Invoke(_ context.Context, resource string, params any) (any, error) {
	s.calls = append(s.calls, params)
	if len(s.calls) == 1 {
		return nil, asl.NewError("DynamoDB.ConditionalCheckFailedException", "The conditional request failed")
	}
	return map[string]any{"Attributes": map[string]any{"count": map[string]any{"N": "1"}}}, nil
}

func TestResourceInvokerAdapter(t *testing.T) {
	store := &conditionalStore{}
	em := newEmulator(t, 0, FromResourceInvoker(store))
	done := runMachine(t, em, `{"StartAt":"Acquire","States":{"Acquire":{"Type":"Task","Resource":"arn:aws:states:::dynamodb:updateItem",
"Parameters":{"TableName":"locks","Key":{"LockName":{"S.$":"$.lock"}}},
"Retry":[{"ErrorEquals":["DynamoDB.ConditionalCheckFailedException"],"IntervalSeconds":1,"MaxAttempts":3}],
"ResultSelector":{"count.$":"$.Attributes.count.N"},"End":true}}}`, `{"lock":"demo"}`)
	if done.Status != StatusSucceeded || deref(done.Output) != `{"count":"1"}` {
		t.Fatalf("got %s %s (%s)", done.Status, deref(done.Output), deref(done.Cause))
	}
	want := mustJSON(t, `{"TableName":"locks","Key":{"LockName":{"S":"demo"}}}`)
	if len(store.calls) != 2 || !sameJSON(store.calls[0], want) {
		t.Errorf("calls: got %s, want two with %s", encodeJSON(store.calls), encodeJSON(want))
	}
}

func TestTaskResultOverTheLimit(t *testing.T) {
	const invoke = "arn:aws:states:::lambda:invoke"
	em := newEmulator(t, 0, newFake().handle(invoke, returning(strings.Repeat("x", MaxPayloadBytes))))
	done := runMachine(t, em, `{"StartAt":"Big","States":{"Big":{"Type":"Task","Resource":"`+invoke+`",
"Catch":[{"ErrorEquals":["States.ALL"],"Next":"Handled"}],"End":true},"Handled":{"Type":"Pass","End":true}}}`, `{}`)
	want := `{"Error":"States.DataLimitExceeded","Cause":"The state/task 'lambda' returned a result with a size exceeding the maximum number of bytes service limit."}`
	if done.Status != StatusSucceeded || !sameJSON(mustJSON(t, deref(done.Output)), mustJSON(t, want)) {
		t.Fatalf("got %s %s, want the limit error caught: %s", done.Status, deref(done.Output), want)
	}
}

func TestTaskCallHeartbeat(t *testing.T) {
	const work = "arn:aws:states:::lambda:invoke"
	tests := []struct {
		name      string
		beat      bool
		wantState string
	}{
		{"heartbeats keep a long task alive", true, "Done"},
		{"a silent task misses its heartbeat", false, "Lost"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// HeartbeatSeconds 10; 30 s of work that beats every virtual second, or never. On the
			// skipping clock, so that a loaded machine cannot stretch a beat's interval past the
			// heartbeat timeout.
			em := newEmulator(t, 0)
			em.RegisterIntegration(newFake().handle(work, func(ctx context.Context, call *TaskCall) (any, error) {
				for range 30 {
					if err := em.Clock().Sleep(ctx, time.Second); err != nil {
						return nil, err
					}
					if tt.beat {
						call.Heartbeat()
					}
				}
				return "done", nil
			}))
			done := runMachine(t, em, `{"StartAt":"Work","States":{"Work":{"Type":"Task","Resource":"`+work+`","HeartbeatSeconds":10,
"Catch":[{"ErrorEquals":["States.HeartbeatTimeout"],"Next":"Lost"}],"Next":"Done"},"Done":{"Type":"Pass","End":true},"Lost":{"Type":"Pass","End":true}}}`, `{}`)
			states := enteredStates(history(t, em, done.ExecutionArn))
			if done.Status != StatusSucceeded || !slices.Equal(states, []string{"Work", tt.wantState}) {
				t.Fatalf("got %s through %v, want SUCCEEDED through Work and %s", done.Status, states, tt.wantState)
			}
		})
	}
}
