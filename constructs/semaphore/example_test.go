package semaphore_test

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
)

// A semaphore of five slots in front of a Lambda function.
func ExampleNew() {
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("Example"), nil)
	work := awslambda.NewFunction(stack, jsii.String("Work"), &awslambda.FunctionProps{
		Runtime: awslambda.Runtime_NODEJS_22_X(),
		Handler: jsii.String("index.handler"),
		Code:    awslambda.Code_FromInline(jsii.String("exports.handler = async (event) => event;")),
	})

	sem := semaphore.New(stack, jsii.String("Semaphore"), &semaphore.Props{
		LockName:     "MySemaphore",
		Limit:        5,
		WorkFunction: work,
	})

	fmt.Println(sem.LockName(), sem.Limit())
	fmt.Println(sem.Definition().StartAt, *sem.Definition().TimeoutSeconds)
	// Output:
	// MySemaphore 5
	// Prepare Acquire 3600
}
