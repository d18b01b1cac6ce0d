// Package lambdafn is the Lambda side of the local Step Functions emulator: Go handlers
// registered per function and invoked the way Lambda invokes them, and the Task integration
// that Step Functions uses to call them.
//
// A Registry holds the handlers. Functions are named as Lambda names them (a name, a partial
// ARN or an ARN, see ParseFunctionName) and configured as in Lambda: a timeout, reserved
// concurrency that throttles invocations beyond it, and retries of asynchronous (Event)
// invocations. Handlers get a context carrying a lambdacontext.LambdaContext and a deadline at
// the timeout. A handler written for aws-lambda-go registers unchanged through
// FromLambdaHandler, and fails the way aws-lambda-go's runtime reports failures: errorType is the
// name of the Go error's type.
//
// An Integration runs Task states whose Resource is "arn:aws:states:::lambda:invoke" or a plain
// function ARN, returns what Step Functions returns, and fails with the *asl.Error names Step
// Functions reports (the function's errorType, Lambda.Unknown, Lambda.TooManyRequestsException,
// Lambda.ResourceNotFoundException, …).
//
// Usage:
//
//	reg, err := lambdafn.NewRegistry(lambdafn.WithTimeScale(0.01))
//	if err != nil {
//		return err
//	}
//	defer reg.Close(context.Background())
//	err = reg.Register("dowork", lambdafn.FromLambdaHandler(dowork.Handle),
//		lambdafn.Timeout(30*time.Second), lambdafn.ReservedConcurrency(5))
//	if err != nil {
//		return err
//	}
//	lambda := lambdafn.NewIntegration(reg)
//	out, err := lambda.Invoke(ctx, "arn:aws:states:::lambda:invoke", map[string]any{
//		"FunctionName": "dowork",
//		"Payload":      map[string]any{"job": int64(1)},
//	})
//	// out["Payload"] is the handler's result; err is an *asl.Error such as
//	// {Name: "WorkFailed", Cause: `{"errorMessage":"…","errorType":"WorkFailed"}`}.
package lambdafn
