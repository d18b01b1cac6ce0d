package sfnapi_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

func ExampleServe() {
	ctx := context.Background()
	srv, err := sfnapi.Serve(ctx, newFakeBackend(), "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	client := sfn.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}, func(o *sfn.Options) { o.BaseEndpoint = aws.String(srv.URL()) })
	out, err := client.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String("arn:aws:states:us-east-1:000000000000:stateMachine:demo"),
		Name:            aws.String("first"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(aws.ToString(out.ExecutionArn))

	_, err = client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{
		ExecutionArn: aws.String("arn:aws:states:us-east-1:000000000000:execution:demo:missing"),
	})
	fmt.Println(err != nil)
	// Output:
	// arn:aws:states:us-east-1:000000000000:execution:demo:first
	// true
}

func ExamplePaginate() {
	executions := []string{"exec-5", "exec-4", "exec-3", "exec-2", "exec-1"} // newest first
	token := ""
	for {
		page, next, err := sfnapi.Paginate("demo|RUNNING", executions, 2, token, func(arn string) string { return arn })
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(page)
		if next == "" {
			break
		}
		token = next
	}
	// Output:
	// [exec-5 exec-4]
	// [exec-3 exec-2]
	// [exec-1]
}
