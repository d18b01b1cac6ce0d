// Command dowork is the demo work Lambda function of Turnstile: it sleeps for a configured time
// and fails at a configured rate. The logic lives in package work; this is the Lambda entry point.
package main

import (
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/turnstile-sfn/turnstile/lambdas/dowork/work"
)

func main() {
	lambda.Start(work.EnvHandler(os.LookupEnv))
}
