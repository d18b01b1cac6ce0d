// Command testrunner is the load-test Lambda: its event is a runner.Config (JSON) and its result
// the runner.Report. It uses the function's own credentials and region.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/lambdas/testrunner/runner"
)

func main() {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatalf("testrunner: load AWS configuration: %v", err)
	}
	r := &runner.Runner{StepFunctions: sfn.NewFromConfig(cfg), DynamoDB: dynamodb.NewFromConfig(cfg)}
	lambda.Start(r.Run)
}
