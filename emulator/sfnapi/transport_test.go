package sfnapi_test

import (
	"context"
	"errors"
	"net/http"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
)

// A client through Transport gets what a client through the URL gets, and a refused connection
// once the server is closed.
func TestTransportServesInProcess(t *testing.T) {
	ctx := context.Background()
	overHTTP, srv := newClient(t, newFakeBackend())
	inProcess := sfn.New(overHTTP.Options(), func(o *sfn.Options) { o.HTTPClient = &http.Client{Transport: srv.Transport()} })

	started, err := inProcess.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(machineARN), Name: aws.String("in-process"), Input: aws.String(`{"job":1}`),
	})
	if err != nil {
		t.Fatalf("StartExecution in process: %v", err)
	}
	got, err := overHTTP.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: started.ExecutionArn})
	if err != nil {
		t.Fatalf("DescribeExecution over HTTP of the execution started in process: %v", err)
	}
	if aws.ToString(got.Input) != `{"job":1}` {
		t.Errorf("Input = %q, want the one given in process", aws.ToString(got.Input))
	}
	if _, err := inProcess.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(execARN("missing"))}); err == nil {
		t.Error("DescribeExecution of a missing execution in process: no error, want ExecutionDoesNotExist")
	}

	if err := srv.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	_, err = inProcess.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: started.ExecutionArn})
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("DescribeExecution in process after Close: %v, want a refused connection", err)
	}
}
