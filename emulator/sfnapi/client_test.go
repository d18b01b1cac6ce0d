package sfnapi_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/aws/smithy-go"

	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

// newClient serves backend and returns the AWS SDK's Step Functions client pointed at it.
func newClient(t *testing.T, backend sfnapi.Backend) (*sfn.Client, *sfnapi.Server) {
	t.Helper()
	srv, err := sfnapi.Serve(context.Background(), backend, "127.0.0.1:0")
	if err != nil {
		t.Fatalf("Serve: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	client := sfn.NewFromConfig(aws.Config{
		Region:           "us-east-1",
		Credentials:      credentials.NewStaticCredentialsProvider("AKIDLOCAL", "local-secret", ""),
		RetryMaxAttempts: 1, // a test must see the server's first answer
	}, func(o *sfn.Options) { o.BaseEndpoint = aws.String(srv.URL()) })
	return client, srv
}

// execARN is the ARN of an execution of the demo machine.
func execARN(name string) string {
	return "arn:aws:states:us-east-1:" + testAccount + ":execution:demo:" + name
}

func TestExecutionLifecycle(t *testing.T) {
	ctx := context.Background()
	client, _ := newClient(t, newFakeBackend())

	started, err := client.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(machineARN),
		Name:            aws.String("run-1"),
		Input:           aws.String(`{"job":1}`),
		TraceHeader:     aws.String("Root=1-abc"),
	})
	if err != nil {
		t.Fatalf("StartExecution: %v", err)
	}
	wantStart := time.Date(2026, 3, 14, 15, 9, 28, 35_000_000, time.UTC)
	if aws.ToString(started.ExecutionArn) != execARN("run-1") || !started.StartDate.Equal(wantStart) {
		t.Errorf("StartExecution = %s at %v, want %s at %v", aws.ToString(started.ExecutionArn), started.StartDate, execARN("run-1"), wantStart)
	}

	desc, err := client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: started.ExecutionArn})
	if err != nil {
		t.Fatalf("DescribeExecution: %v", err)
	}
	got := []any{aws.ToString(desc.Name), desc.Status, aws.ToString(desc.Input), aws.ToString(desc.TraceHeader),
		desc.InputDetails.Included, desc.StopDate, aws.ToInt32(desc.RedriveCount), aws.ToString(desc.StateMachineArn)}
	want := []any{"run-1", types.ExecutionStatusRunning, `{"job":1}`, "Root=1-abc", true, (*time.Time)(nil), int32(0), machineARN}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DescribeExecution = %v, want %v", got, want)
	}

	meta, err := client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: started.ExecutionArn, IncludedData: types.IncludedDataMetadataOnly})
	if err != nil {
		t.Fatalf("DescribeExecution(METADATA_ONLY): %v", err)
	}
	if meta.Input != nil {
		t.Errorf("METADATA_ONLY returned input %q", aws.ToString(meta.Input))
	}

	stopped, err := client.StopExecution(ctx, &sfn.StopExecutionInput{ExecutionArn: started.ExecutionArn, Error: aws.String("Stopped"), Cause: aws.String("test")})
	if err != nil {
		t.Fatalf("StopExecution: %v", err)
	}
	wantStop := wantStart.Add(1500 * time.Millisecond)
	if !stopped.StopDate.Equal(wantStop) {
		t.Errorf("StopDate = %v, want %v", stopped.StopDate, wantStop)
	}
	desc, err = client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: started.ExecutionArn})
	if err != nil {
		t.Fatalf("DescribeExecution: %v", err)
	}
	if desc.Status != types.ExecutionStatusAborted || !desc.StopDate.Equal(wantStop) || aws.ToString(desc.Error) != "Stopped" || aws.ToString(desc.Cause) != "test" {
		t.Errorf("after StopExecution: status %s, stop %v, error %q, cause %q", desc.Status, desc.StopDate, aws.ToString(desc.Error), aws.ToString(desc.Cause))
	}

	redriven, err := client.RedriveExecution(ctx, &sfn.RedriveExecutionInput{ExecutionArn: started.ExecutionArn, ClientToken: aws.String("once")})
	if err != nil {
		t.Fatalf("RedriveExecution: %v", err)
	}
	desc, err = client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: started.ExecutionArn})
	if err != nil {
		t.Fatalf("DescribeExecution: %v", err)
	}
	if desc.Status != types.ExecutionStatusRunning || aws.ToInt32(desc.RedriveCount) != 1 || !desc.RedriveDate.Equal(*redriven.RedriveDate) {
		t.Errorf("after RedriveExecution: status %s, redriveCount %d, redriveDate %v (want %v)", desc.Status, aws.ToInt32(desc.RedriveCount), desc.RedriveDate, redriven.RedriveDate)
	}
}

func TestStartExecutionDefaults(t *testing.T) {
	ctx := context.Background()
	backend := newFakeBackend()
	client, _ := newClient(t, backend)
	out, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(machineARN)})
	if err != nil {
		t.Fatalf("StartExecution: %v", err)
	}
	desc, err := client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: out.ExecutionArn})
	if err != nil {
		t.Fatalf("DescribeExecution: %v", err)
	}
	if aws.ToString(desc.Input) != "{}" || aws.ToString(desc.Name) != "generated-1" {
		t.Errorf("an execution started without input and name has input %q and name %q, want {} and the backend's name",
			aws.ToString(desc.Input), aws.ToString(desc.Name))
	}
	// Starting again with the same name and input while it runs is idempotent.
	again, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(machineARN), Name: aws.String("generated-1")})
	if err != nil || aws.ToString(again.ExecutionArn) != aws.ToString(out.ExecutionArn) {
		t.Errorf("repeated StartExecution = %v, %v; want the same execution", again, err)
	}
}

func TestListExecutionsPagination(t *testing.T) {
	ctx := context.Background()
	client, _ := newClient(t, newFakeBackend())
	var want []string
	for i := range 23 {
		out, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(machineARN), Name: aws.String(fmt.Sprintf("e%02d", i))})
		if err != nil {
			t.Fatalf("StartExecution: %v", err)
		}
		want = append([]string{aws.ToString(out.ExecutionArn)}, want...) // listed newest first
		if i%3 == 0 {
			if _, err := client.StopExecution(ctx, &sfn.StopExecutionInput{ExecutionArn: out.ExecutionArn}); err != nil {
				t.Fatalf("StopExecution: %v", err)
			}
		}
	}
	if _, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(otherARN)}); err != nil {
		t.Fatalf("StartExecution(other): %v", err)
	}

	tests := []struct {
		name      string
		filter    types.ExecutionStatus
		pageSize  int32
		wantPages []int
		wantCount int
	}{
		{"pages of 10", "", 10, []int{10, 10, 3}, 23},
		{"the default page size", "", 0, []int{23}, 23},
		{"pages of one", "", 1, nil, 23},
		{"a status filter", types.ExecutionStatusAborted, 3, []int{3, 3, 2}, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			paginator := sfn.NewListExecutionsPaginator(client, &sfn.ListExecutionsInput{
				StateMachineArn: aws.String(machineARN), StatusFilter: tt.filter, MaxResults: tt.pageSize,
			})
			var got []string
			var pages []int
			for paginator.HasMorePages() {
				page, err := paginator.NextPage(ctx)
				if err != nil {
					t.Fatalf("NextPage: %v", err)
				}
				pages = append(pages, len(page.Executions))
				for _, e := range page.Executions {
					if tt.filter != "" && e.Status != tt.filter {
						t.Errorf("%s has status %s, want only %s", aws.ToString(e.ExecutionArn), e.Status, tt.filter)
					}
					got = append(got, aws.ToString(e.ExecutionArn))
				}
			}
			if len(got) != tt.wantCount {
				t.Errorf("listed %d executions, want %d", len(got), tt.wantCount)
			}
			if tt.filter == "" && !reflect.DeepEqual(got, want) {
				t.Errorf("listed\n%v\nwant (newest first)\n%v", got, want)
			}
			if tt.wantPages != nil && !reflect.DeepEqual(pages, tt.wantPages) {
				t.Errorf("page sizes = %v, want %v", pages, tt.wantPages)
			}
		})
	}
}

func TestListExecutionsOfAMachineWithoutExecutions(t *testing.T) {
	client, _ := newClient(t, newFakeBackend())
	out, err := client.ListExecutions(context.Background(), &sfn.ListExecutionsInput{StateMachineArn: aws.String(otherARN)})
	if err != nil {
		t.Fatalf("ListExecutions: %v", err)
	}
	if len(out.Executions) != 0 || out.NextToken != nil {
		t.Errorf("ListExecutions = %d executions, token %v; want none", len(out.Executions), out.NextToken)
	}
}

func TestGetExecutionHistory(t *testing.T) {
	ctx := context.Background()
	client, _ := newClient(t, newFakeBackend())
	started, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(machineARN), Input: aws.String(`{"a":1}`)})
	if err != nil {
		t.Fatalf("StartExecution: %v", err)
	}
	tests := []struct {
		name        string
		reverse     bool
		includeData *bool
		pageSize    int32
		wantIDs     []int64
		wantData    bool
	}{
		{"in order, in pages of two", false, nil, 2, []int64{1, 2, 3}, true},
		{"reversed", true, nil, 0, []int64{3, 2, 1}, true},
		{"reversed, in pages of one", true, aws.Bool(true), 1, []int64{3, 2, 1}, true},
		{"without execution data", false, aws.Bool(false), 0, []int64{1, 2, 3}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			paginator := sfn.NewGetExecutionHistoryPaginator(client, &sfn.GetExecutionHistoryInput{
				ExecutionArn: started.ExecutionArn, ReverseOrder: tt.reverse, IncludeExecutionData: tt.includeData, MaxResults: tt.pageSize,
			})
			var events []types.HistoryEvent
			for paginator.HasMorePages() {
				page, err := paginator.NextPage(ctx)
				if err != nil {
					t.Fatalf("NextPage: %v", err)
				}
				events = append(events, page.Events...)
			}
			var ids []int64
			for _, e := range events {
				ids = append(ids, e.Id)
			}
			if !reflect.DeepEqual(ids, tt.wantIDs) {
				t.Fatalf("event ids = %v, want %v", ids, tt.wantIDs)
			}
			byID := map[int64]types.HistoryEvent{}
			for _, e := range events {
				byID[e.Id] = e
			}
			startedEvent, exited := byID[1], byID[3]
			if startedEvent.Type != types.HistoryEventTypeExecutionStarted || startedEvent.PreviousEventId != 0 ||
				!startedEvent.Timestamp.Equal(*started.StartDate) || aws.ToString(startedEvent.ExecutionStartedEventDetails.RoleArn) == "" {
				t.Errorf("event 1 = %+v, want ExecutionStarted at the start date with a role", startedEvent)
			}
			if exited.Type != types.HistoryEventTypePassStateExited || exited.PreviousEventId != 2 || aws.ToString(exited.StateExitedEventDetails.Name) != "Hello" {
				t.Errorf("event 3 = %+v, want PassStateExited of Hello after event 2", exited)
			}
			gotData := []string{aws.ToString(startedEvent.ExecutionStartedEventDetails.Input), aws.ToString(exited.StateExitedEventDetails.Output)}
			wantData := []string{"", ""}
			if tt.wantData {
				wantData = []string{`{"a":1}`, `"world"`}
			}
			if !reflect.DeepEqual(gotData, wantData) {
				t.Errorf("execution data = %q, want %q", gotData, wantData)
			}
		})
	}
}

func TestTaskCallbacks(t *testing.T) {
	ctx := context.Background()
	backend := newFakeBackend()
	client, _ := newClient(t, backend)
	if _, err := client.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String("tok-ok"), Output: aws.String(`{"ok":true}`)}); err != nil {
		t.Errorf("SendTaskSuccess: %v", err)
	}
	if _, err := client.SendTaskFailure(ctx, &sfn.SendTaskFailureInput{TaskToken: aws.String("tok-ok"), Error: aws.String("WorkFailed"), Cause: aws.String("boom")}); err != nil {
		t.Errorf("SendTaskFailure: %v", err)
	}
	if _, err := client.SendTaskHeartbeat(ctx, &sfn.SendTaskHeartbeatInput{TaskToken: aws.String("tok-ok")}); err != nil {
		t.Errorf("SendTaskHeartbeat: %v", err)
	}
	want := []string{`success {"ok":true}`, "failure WorkFailed boom", "heartbeat"}
	if !reflect.DeepEqual(backend.taskCalls, want) {
		t.Errorf("the backend saw %q, want %q", backend.taskCalls, want)
	}
}

func TestStateMachines(t *testing.T) {
	ctx := context.Background()
	client, _ := newClient(t, newFakeBackend())
	desc, err := client.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: aws.String(machineARN)})
	if err != nil {
		t.Fatalf("DescribeStateMachine: %v", err)
	}
	got := []any{aws.ToString(desc.Name), desc.Type, desc.Status, desc.CreationDate.UTC(), desc.LoggingConfiguration.Level,
		desc.TracingConfiguration.Enabled, strings.HasPrefix(aws.ToString(desc.Definition), `{"StartAt":"Hello"`)}
	want := []any{"demo", types.StateMachineTypeStandard, types.StateMachineStatusActive, created, types.LogLevelOff, false, true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DescribeStateMachine = %v, want %v", got, want)
	}

	var names []string
	paginator := sfn.NewListStateMachinesPaginator(client, &sfn.ListStateMachinesInput{MaxResults: 2})
	for paginator.HasMorePages() {
		page, err := paginator.NextPage(ctx)
		if err != nil {
			t.Fatalf("NextPage: %v", err)
		}
		for _, m := range page.StateMachines {
			if !m.CreationDate.Equal(created) {
				t.Errorf("%s created %v, want %v", aws.ToString(m.Name), m.CreationDate, created)
			}
			names = append(names, aws.ToString(m.Name))
		}
	}
	if want := []string{"machine-0", "machine-1", "machine-2", "machine-3", "machine-4"}; !reflect.DeepEqual(names, want) {
		t.Errorf("ListStateMachines = %v, want %v", names, want)
	}
}

func TestErrorsReachTheSDKTyped(t *testing.T) {
	ctx := context.Background()
	backend := newFakeBackend()
	client, _ := newClient(t, backend)
	running, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(machineARN), Name: aws.String("running")})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		call        func() error
		target      any // a pointer to the SDK's typed error
		wantMessage string
	}{
		{"an unknown execution", func() error {
			_, err := client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(execARN("ghost"))})
			return err
		}, new(*types.ExecutionDoesNotExist), "Execution Does Not Exist: '" + execARN("ghost") + "'"},
		{"an unknown state machine", func() error {
			_, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(otherARN + "x")})
			return err
		}, new(*types.StateMachineDoesNotExist), "State Machine Does Not Exist: '" + otherARN + "x'"},
		{"a name in use with another input", func() error {
			_, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(machineARN), Name: aws.String("running"), Input: aws.String(`{"x":1}`)})
			return err
		}, new(*types.ExecutionAlreadyExists), "Execution Already Exists: '" + aws.ToString(running.ExecutionArn) + "'"},
		{"a state machine ARN where an execution ARN belongs", func() error {
			_, err := client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(machineARN)})
			return err
		}, new(*types.InvalidArn), "Invalid Arn: 'Resource type not valid in this context: stateMachine'"},
		{"a malformed ARN", func() error {
			_, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String("demo")})
			return err
		}, new(*types.InvalidArn), "Invalid Arn: 'demo'"},
		{"a name with a space", func() error {
			_, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(machineARN), Name: aws.String("my run")})
			return err
		}, new(*types.InvalidName), "Invalid Name: 'my run'"},
		{"a name with a slash", func() error {
			_, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(machineARN), Name: aws.String("a/b")})
			return err
		}, new(*types.InvalidName), "Invalid Name: 'a/b'"},
		{"an input that is not JSON", func() error {
			_, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(machineARN), Input: aws.String(`{"a":`)})
			return err
		}, new(*types.InvalidExecutionInput), "Invalid State Machine Execution Input: 'unexpected end of JSON input'"},
		{"a name longer than 80 characters", func() error {
			_, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(machineARN), Name: aws.String(strings.Repeat("n", 81))})
			return err
		}, new(*types.ValidationException), "1 validation error detected: Value '" + strings.Repeat("n", 81) + "' at 'name' failed to satisfy constraint: Member must have length less than or equal to 80"},
		{"an input over 256 KiB", func() error {
			big := `"` + strings.Repeat("x", sfnapi.MaxPayloadBytes) + `"`
			_, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(machineARN), Input: aws.String(big)})
			return err
		}, new(*types.ValidationException), "1 validation error detected: Value at 'input' failed to satisfy constraint: Member must have length less than or equal to 262144"},
		{"two violated constraints", func() error {
			_, err := client.ListExecutions(ctx, &sfn.ListExecutionsInput{StateMachineArn: aws.String(machineARN), MaxResults: 1001, StatusFilter: "DONE"})
			return err
		}, new(*types.ValidationException), "2 validation errors detected: Value 'DONE' at 'statusFilter' failed to satisfy constraint: Member must satisfy enum value set: " +
			"[RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED, PENDING_REDRIVE]; Value '1001' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 1000"},
		{"a foreign pagination token", func() error {
			_, err := client.ListExecutions(ctx, &sfn.ListExecutionsInput{StateMachineArn: aws.String(machineARN), NextToken: aws.String("bm90LWEtdG9rZW4")})
			return err
		}, new(*types.InvalidToken), "Invalid Token: 'bm90LWEtdG9rZW4'"},
		{"an unknown task token", func() error {
			_, err := client.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String("tok-unknown"), Output: aws.String("{}")})
			return err
		}, new(*types.InvalidToken), "Invalid Token: 'Invalid token'"},
		{"a finished task", func() error {
			_, err := client.SendTaskHeartbeat(ctx, &sfn.SendTaskHeartbeatInput{TaskToken: aws.String("tok-done")})
			return err
		}, new(*types.TaskDoesNotExist), "Task Does Not Exist: 'Task Does Not Exist'"},
		{"a timed-out task", func() error {
			_, err := client.SendTaskFailure(ctx, &sfn.SendTaskFailureInput{TaskToken: aws.String("tok-late")})
			return err
		}, new(*types.TaskTimedOut), "Task Timed Out: 'Provided task does not exist anymore'"},
		{"a task output that is not JSON", func() error {
			_, err := client.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String("tok-ok"), Output: aws.String("done")})
			return err
		}, new(*types.InvalidOutput), "Invalid Output: 'invalid character 'd' looking for beginning of value'"},
		{"a redrive of a running execution", func() error {
			_, err := client.RedriveExecution(ctx, &sfn.RedriveExecutionInput{ExecutionArn: running.ExecutionArn})
			return err
		}, new(*types.ExecutionNotRedrivable), "Execution '" + aws.ToString(running.ExecutionArn) + "' is not redrivable: Execution is RUNNING and cannot be redriven"},
		{"a redrive of an Express execution", func() error {
			_, err := client.RedriveExecution(ctx, &sfn.RedriveExecutionInput{ExecutionArn: aws.String("arn:aws:states:us-east-1:" + testAccount + ":express:demo:run:0b1c")})
			return err
		}, new(*types.InvalidArn), "Invalid Arn: 'Resource type not valid in this context: express'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil {
				t.Fatal("the call succeeded, want an error")
			}
			if !errors.As(err, tt.target) {
				t.Fatalf("error %v (%T) is not a %T", err, errors.Unwrap(err), tt.target)
			}
			var apiErr smithy.APIError
			if !errors.As(err, &apiErr) || apiErr.ErrorMessage() != tt.wantMessage {
				t.Errorf("message = %q\n want %q", apiErr.ErrorMessage(), tt.wantMessage)
			}
			var httpErr *awshttp.ResponseError
			if !errors.As(err, &httpErr) || httpErr.HTTPStatusCode() != 400 {
				t.Errorf("HTTP status = %v, want 400", err)
			}
		})
	}
}

func TestUnsupportedOperationsAndInternalFailures(t *testing.T) {
	ctx := context.Background()
	client, _ := newClient(t, newFakeBackend())
	tests := []struct {
		name       string
		call       func() error
		wantCode   string
		wantStatus int
	}{
		{"an operation the emulator does not serve", func() error {
			_, err := client.CreateActivity(ctx, &sfn.CreateActivityInput{Name: aws.String("worker")})
			return err
		}, "UnknownOperationException", 400},
		{"a backend error that is not an API error", func() error {
			_, err := client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(brokenARN)})
			return err
		}, "InternalFailure", 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var apiErr smithy.APIError
			if !errors.As(err, &apiErr) || apiErr.ErrorCode() != tt.wantCode {
				t.Fatalf("error = %v, want code %s", err, tt.wantCode)
			}
			var httpErr *awshttp.ResponseError
			if !errors.As(err, &httpErr) || httpErr.HTTPStatusCode() != tt.wantStatus {
				t.Errorf("HTTP status of %v, want %d", err, tt.wantStatus)
			}
		})
	}
}
