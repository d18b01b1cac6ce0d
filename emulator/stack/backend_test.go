package stack

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/turnstile-sfn/turnstile/emulator"
	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

// TestHistoryThroughTheSDK reads an execution's history with the AWS SDK through the API the
// stack serves: the events the emulator records are the API's, served as they are.
func TestHistoryThroughTheSDK(t *testing.T) {
	start := time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC)
	em := emulator.New(emulator.Options{Clock: emulator.NewScaledClock(start, 0)})
	t.Cleanup(func() { _ = em.Close() })
	arn, err := em.CreateStateMachine("history", `{"StartAt":"P","States":{
		"P":{"Type":"Parallel","Next":"M","Branches":[{"StartAt":"A","States":{"A":{"Type":"Pass","End":true}}}]},
		"M":{"Type":"Map","ItemsPath":"$[0].items","End":true,
			"ItemProcessor":{"StartAt":"I","States":{"I":{"Type":"Pass","End":true}}}}}}`, emulator.StateMachineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sfnapi.Serve(context.Background(), newBackend(em, nil), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	client := sfn.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDLOCAL", "local-secret", ""),
	}, func(o *sfn.Options) { o.BaseEndpoint = aws.String(srv.URL()) })

	ctx := context.Background()
	started, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: &arn, Input: aws.String(`{"items":[1,2]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := em.Wait(ctx, *started.ExecutionArn); err != nil {
		t.Fatal(err)
	}
	want, err := em.GetExecutionHistory(ctx, *started.ExecutionArn)
	if err != nil {
		t.Fatal(err)
	}
	var got []types.HistoryEvent
	pages := sfn.NewGetExecutionHistoryPaginator(client, &sfn.GetExecutionHistoryInput{ExecutionArn: started.ExecutionArn, MaxResults: 4})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page.Events...)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d", len(got), len(want))
	}
	for i, e := range got {
		w := want[i]
		if e.Id != w.ID || e.PreviousEventId != w.PreviousEventID || string(e.Type) != string(w.Type) ||
			!e.Timestamp.Equal(w.Timestamp.Truncate(time.Millisecond)) { // the wire carries milliseconds
			t.Errorf("event %d: got #%d after #%d %s at %v, want #%d after #%d %s at %v",
				i, e.Id, e.PreviousEventId, e.Type, e.Timestamp, w.ID, w.PreviousEventID, w.Type, w.Timestamp.Time)
		}
		switch {
		case w.StateEnteredEventDetails != nil:
			if d := e.StateEnteredEventDetails; d == nil || *d.Name != w.StateEnteredEventDetails.Name || *d.Input != w.StateEnteredEventDetails.Input {
				t.Errorf("event %d: stateEnteredEventDetails %+v, want %+v", i, d, w.StateEnteredEventDetails)
			}
		case w.MapIterationStartedEventDetails != nil:
			if d := e.MapIterationStartedEventDetails; d == nil || d.Index != w.MapIterationStartedEventDetails.Index {
				t.Errorf("event %d: mapIterationStartedEventDetails %+v, want %+v", i, d, w.MapIterationStartedEventDetails)
			}
		case w.MapStateStartedEventDetails != nil:
			if d := e.MapStateStartedEventDetails; d == nil || d.Length != 2 {
				t.Errorf("event %d: mapStateStartedEventDetails %+v, want length 2", i, d)
			}
		}
	}
	if got[0].Type != types.HistoryEventTypeExecutionStarted || got[len(got)-1].Type != types.HistoryEventTypeExecutionSucceeded {
		t.Errorf("first and last events: %s, %s", got[0].Type, got[len(got)-1].Type)
	}
}
