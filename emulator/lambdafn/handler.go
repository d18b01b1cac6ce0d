package lambdafn

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"
)

// Handler is a Lambda function as the emulator runs it: the raw invocation payload in and the
// raw response payload out, as the Lambda runtime API carries them. A returned error is a
// function error, reported the way aws-lambda-go reports it (see FunctionError), except a
// *ServiceError, which simulates a failure of the Lambda service itself.
//
// The context carries a lambdacontext.LambdaContext (request id, invoked function ARN, client
// context) and a deadline at the function's timeout, as in Lambda.
type Handler func(ctx context.Context, payload []byte) ([]byte, error)

// FromLambdaHandler adapts a handler of any signature aws-lambda-go's lambda.Start accepts, for
// example func(context.Context, MyEvent) (MyResult, error), so that a Lambda's handler package
// registers unchanged. JSON decoding and encoding are aws-lambda-go's own (lambda.NewHandler).
// A handler lambda.Start would reject fails every invocation with aws-lambda-go's message.
func FromLambdaHandler(h any) Handler {
	return func(ctx context.Context, payload []byte) ([]byte, error) {
		// One lambda.Handler per invocation: the bytes its Invoke returns belong to a pooled
		// buffer that goes back to the handler's pool as Invoke returns, so a handler shared by
		// concurrent invocations could hand the same buffer to two of them.
		return lambda.NewHandler(h).Invoke(ctx, payload)
	}
}
