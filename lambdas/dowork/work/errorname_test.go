//lint:file-ignore SA1019 lambda.NewFunction is the runtime's own invoke path: the test reports errors exactly as aws-lambda-go does

package work_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambda/messages"

	"github.com/turnstile-sfn/turnstile/lambdas/dowork/work"
)

// invoke runs handler the way the Lambda runtime does and returns the error it reports.
func invoke(t *testing.T, handler work.LambdaHandler, payload string) *messages.InvokeResponse_Error {
	t.Helper()
	fn := lambda.NewFunction(lambda.NewHandler(handler))
	request := &messages.InvokeRequest{
		Payload:  []byte(payload),
		Deadline: messages.InvokeRequest_Timestamp{Seconds: time.Now().Add(time.Hour).Unix()},
	}
	var response messages.InvokeResponse
	if err := fn.Invoke(request, &response); err != nil {
		t.Fatalf("Invoke() error = %v", err)
	}
	return response.Error
}

// TestReportedErrorNames checks each ErrorName const against the errorType that aws-lambda-go
// reports for the error, which is what Step Functions matches in ErrorEquals.
func TestReportedErrorNames(t *testing.T) {
	noWait := work.WithSleeper(work.SleeperFunc(func(context.Context, time.Duration) error { return nil }))
	deadline := work.WithSleeper(work.SleeperFunc(func(context.Context, time.Duration) error {
		return context.DeadlineExceeded
	}))
	tests := []struct {
		name    string
		env     env
		option  work.Option
		payload string
		want    string
	}{
		{name: "failure", env: env{work.EnvFailureRate: "1"}, option: noWait, payload: `{}`, want: work.ErrorNameWorkFailed},
		{name: "bad config", env: env{work.EnvDuration: "soon"}, option: noWait, payload: `{}`, want: work.ErrorNameInvalidConfig},
		{name: "bad input", env: env{}, option: noWait, payload: `[]`, want: work.ErrorNameInvalidInput},
		{name: "deadline", env: env{}, option: deadline, payload: `{}`, want: work.ErrorNameWorkInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := invoke(t, work.EnvHandler(tt.env.lookup, tt.option), tt.payload)
			if got == nil {
				t.Fatalf("invocation succeeded, want error %s", tt.want)
			}
			if got.Type != tt.want {
				t.Errorf("reported errorType = %q, want %q (message %q)", got.Type, tt.want, got.Message)
			}
		})
	}
}

func TestEnvHandlerSucceeds(t *testing.T) {
	handler := work.EnvHandler(env{work.EnvDuration: "2s", work.EnvFailureRate: "0"}.lookup,
		work.WithSleeper(&recordingSleeper{}))
	got, err := handler(context.Background(), json.RawMessage(`{"attempt":1}`))
	if err != nil {
		t.Fatalf("handler() error = %v", err)
	}
	if want := (work.Result{WorkedMillis: 2000}); got != want {
		t.Errorf("handler() = %+v, want %+v", got, want)
	}
}

func TestEnvHandlerReportsConfigOnEveryInvocation(t *testing.T) {
	handler := work.EnvHandler(env{work.EnvFailureRate: "2"}.lookup)
	for i := range 2 {
		_, err := handler(context.Background(), json.RawMessage(`{}`))
		if !errors.Is(err, work.ErrFailureRateOutOfRange) {
			t.Errorf("invocation %d: error = %v, want ErrFailureRateOutOfRange", i, err)
		}
	}
}
