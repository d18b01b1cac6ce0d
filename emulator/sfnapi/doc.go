// Package sfnapi serves a subset of the AWS Step Functions API on a loopback address, so that
// code using aws-sdk-go-v2's sfn.Client (the load-test runner, the CLI) runs unchanged against
// the local emulator.
//
// It speaks the AWS JSON 1.0 protocol (POST, "X-Amz-Target: AWSStepFunctions.<Operation>",
// "Content-Type: application/x-amz-json-1.0") for StartExecution, DescribeExecution,
// ListExecutions, GetExecutionHistory, StopExecution, RedriveExecution, SendTaskSuccess,
// SendTaskFailure, SendTaskHeartbeat, DescribeStateMachine and ListStateMachines. SigV4
// signatures are accepted without being checked. Requests are validated as AWS validates them
// (required members, lengths, enums, ARN formats, execution names, JSON payloads up to 256 KiB)
// before a Backend carries them out; errors are answered in AWS's JSON error shape, which the
// SDK turns into its typed errors (*types.ExecutionDoesNotExist, …).
//
// The request and response types mirror the API's wire JSON field for field; timestamps are
// Timestamp values, epoch seconds on the wire. A Backend returns an *APIError (ExecutionDoesNotExist,
// InvalidToken, …) to answer with a Step Functions error, and can page its listings with
// Paginate.
//
// Usage:
//
//	srv, err := sfnapi.Serve(ctx, backend, "127.0.0.1:0")
//	if err != nil {
//		return err
//	}
//	defer srv.Close()
//	client := sfn.NewFromConfig(aws.Config{
//		Region:      "us-east-1",
//		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
//	}, func(o *sfn.Options) { o.BaseEndpoint = aws.String(srv.URL()) })
//	out, err := client.StartExecution(ctx, &sfn.StartExecutionInput{
//		StateMachineArn: aws.String("arn:aws:states:us-east-1:000000000000:stateMachine:demo"),
//	})
package sfnapi
