// Command fn is a Lambda function for the runtimeapi tests: it runs through aws-lambda-go's
// lambda.Start and behaves as its input asks.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/metrics"
)

// Input says what the function does.
type Input struct {
	// Action is one of echo, fail, panic, context, env, exit, dynamo, sleep, big, metric.
	Action string `json:"action"`
	// Value is echoed back, or is the exit code, or the variable to read.
	Value string `json:"value,omitempty"`
	// Sleep is how long a sleep lasts.
	Sleep time.Duration `json:"sleep,omitempty"`
}

// Output is what the function returns.
type Output struct {
	Value        string            `json:"value,omitempty"`
	RequestID    string            `json:"requestId,omitempty"`
	FunctionARN  string            `json:"functionArn,omitempty"`
	Custom       map[string]string `json:"custom,omitempty"`
	DeadlineMs   int64             `json:"deadlineMs,omitempty"`
	PID          int               `json:"pid"`
	Invocations  int               `json:"invocations"`
	FunctionName string            `json:"functionName,omitempty"`
	RuntimeAPI   string            `json:"runtimeApi"`
}

// WorkFailed is the named error the function fails with on "fail".
type WorkFailed struct{ Reason string }

// Error describes the failure; aws-lambda-go reports the type name, WorkFailed, as errorType.
func (e *WorkFailed) Error() string { return "work failed: " + e.Reason }

var invocations int

func handle(ctx context.Context, in Input) (Output, error) {
	invocations++
	out := Output{PID: os.Getpid(), Invocations: invocations, FunctionName: lambdacontext.FunctionName, RuntimeAPI: os.Getenv("AWS_LAMBDA_RUNTIME_API")}
	switch in.Action {
	case "echo":
		out.Value = in.Value
	case "fail":
		return out, &WorkFailed{Reason: in.Value}
	case "panic":
		panic("asked to panic: " + in.Value)
	case "context":
		lc, ok := lambdacontext.FromContext(ctx)
		if !ok {
			return out, fmt.Errorf("no lambda context")
		}
		out.RequestID, out.FunctionARN, out.Custom = lc.AwsRequestID, lc.InvokedFunctionArn, lc.ClientContext.Custom
		if d, ok := ctx.Deadline(); ok {
			out.DeadlineMs = d.UnixMilli()
		}
	case "env":
		out.Value = os.Getenv(in.Value)
	case "exit":
		var code int
		if _, err := fmt.Sscan(in.Value, &code); err != nil {
			return out, err
		}
		os.Exit(code)
	case "dynamo": // writes an item to $LOCK_TABLE with an unchanged AWS SDK client
		cfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return out, err
		}
		_, err = dynamodb.NewFromConfig(cfg).PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(os.Getenv("LOCK_TABLE")),
			Item:      map[string]types.AttributeValue{"LockName": &types.AttributeValueMemberS{Value: in.Value}},
		})
		if err != nil {
			return out, err
		}
		out.Value = "put " + in.Value
	case "sleep":
		time.Sleep(in.Sleep)
	case "big": // a response larger than Lambda accepts
		out.Value = strings.Repeat("x", 7<<20)
	case "metric": // an EMF line on standard output: SlotsHeld = Value of the lock "L"
		var n int
		if _, err := fmt.Sscan(in.Value, &n); err != nil {
			return out, err
		}
		if err := metrics.NewLogger(os.Stdout, "Fn", time.Now).Emit("L", metrics.Count(metrics.SlotsHeld, n)); err != nil {
			return out, err
		}
	default:
		return out, fmt.Errorf("unknown action %q", in.Action)
	}
	return out, nil
}

func main() {
	switch os.Getenv("INIT") {
	case "exit": // dies before it asks for an invocation
		fmt.Fprintln(os.Stderr, "init failed as asked")
		os.Exit(3)
	case "post": // reports an initialisation error through the Runtime API, as runtimes do
		doc, _ := json.Marshal(map[string]string{"errorType": "ConfigMissing", "errorMessage": "no configuration"})
		url := "http://" + os.Getenv("AWS_LAMBDA_RUNTIME_API") + "/2018-06-01/runtime/init/error"
		resp, err := http.Post(url, "application/json", bytes.NewReader(doc))
		if err == nil {
			resp.Body.Close()
		}
		os.Exit(1)
	}
	lambda.Start(handle)
}
