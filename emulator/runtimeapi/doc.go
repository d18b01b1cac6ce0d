// Package runtimeapi runs a user's Go Lambda function in the emulator unchanged: it builds the
// function's main package into a bootstrap binary for this machine and runs it the way Lambda's
// provided.al2023 runtime does, as processes that fetch invocations from the Lambda Runtime API
// (GET /2018-06-01/runtime/invocation/next) and post their answers (…/{id}/response,
// …/{id}/error, /runtime/init/error). aws-lambda-go's lambda.Start speaks that API when the
// binary is built with the lambda.norpc tag and AWS_LAMBDA_RUNTIME_API is set, so nothing in the
// function changes.
//
// A Function keeps a pool of processes, each with its own Runtime API endpoint on 127.0.0.1,
// started on demand up to a maximum, reused between invocations and given one invocation at a
// time, as Lambda's execution environments are. Its Invoke method is a lambdafn.Handler: the
// request id, the invoked function ARN, the client context and the deadline lambdafn puts in the
// context reach the function through the Runtime API headers, so lambdacontext.FromContext sees
// them there. A function error comes back as a lambdafn.FunctionError (errorType and
// errorMessage, which a Step Functions Catch matches); a process that exits during an invocation
// gives Runtime.ExitError and is replaced; a timeout kills the process. The process environment
// is the function's own variables, the ones Lambda defines, dummy credentials and the
// AWS_ENDPOINT_URL_<SERVICE> variables of the local APIs, so that the function's AWS SDK v2
// clients (config.LoadDefaultConfig) talk to the emulator.
//
// Usage:
//
//	b := runtimeapi.NewBuilder("", outDir) // resolve packages from the working directory's module
//	bin, err := b.Build(ctx, "example.com/myapp/work")
//	if err != nil {
//		return err // gobuild.ErrGoNotFound, ErrPackageNotFound, or a *gobuild.BuildError
//	}
//	fn, err := runtimeapi.New(runtimeapi.Config{
//		Binary:       bin,
//		FunctionName: "work",
//		Environment:  map[string]string{"TABLE": "locks"},
//		Endpoints:    runtimeapi.Endpoints{DynamoDB: ddbURL, StepFunctions: sfnURL},
//	})
//	if err != nil {
//		return err
//	}
//	defer fn.Close()
//	err = registry.Register("work", fn.Handler(), lambdafn.Timeout(30*time.Second))
package runtimeapi
