package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
)

// localRegion is the region the operators' commands sign for when an endpoint flag points them
// at a local stack and the AWS configuration names none.
const localRegion = "us-east-1"

// awsFlags are the flags that point an operator's command at a semaphore: the standard AWS
// configuration (environment, shared files), or the endpoints of `turnstile up`.
type awsFlags struct {
	endpointDynamoDB string
	endpointSFN      string
}

// register adds the flags to fs.
func (a *awsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&a.endpointDynamoDB, "endpoint-dynamodb", "", "DynamoDB endpoint URL, e.g. turnstile up's (default: AWS_ENDPOINT_URL_DYNAMODB or AWS's)")
	fs.StringVar(&a.endpointSFN, "endpoint-sfn", "", "Step Functions endpoint URL, e.g. turnstile up's (default: AWS_ENDPOINT_URL_SFN or AWS's)")
}

// clients returns the DynamoDB and Step Functions clients. With an endpoint flag and no region
// or access key in the environment, they sign for localRegion with dummy credentials, as a
// local stack accepts.
func (a awsFlags) clients(ctx context.Context) (*dynamodb.Client, *sfn.Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("load the AWS configuration: %w", err)
	}
	if a.endpointDynamoDB != "" || a.endpointSFN != "" {
		if cfg.Region == "" {
			cfg.Region = localRegion
		}
		if os.Getenv("AWS_ACCESS_KEY_ID") == "" && os.Getenv("AWS_PROFILE") == "" {
			cfg.Credentials = credentials.NewStaticCredentialsProvider("local", "local", "")
		}
	}
	ddb := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if a.endpointDynamoDB != "" {
			o.BaseEndpoint = aws.String(a.endpointDynamoDB)
		}
	})
	sfnClient := sfn.NewFromConfig(cfg, func(o *sfn.Options) {
		if a.endpointSFN != "" {
			o.BaseEndpoint = aws.String(a.endpointSFN)
		}
	})
	return ddb, sfnClient, nil
}

// statusGone is the status shown for an execution Step Functions no longer knows (its history
// expired, or it never existed).
const statusGone = "GONE"

// executionStatus returns the execution's status (RUNNING, SUCCEEDED, ...), or statusGone.
func executionStatus(ctx context.Context, client *sfn.Client, execution string) (string, error) {
	out, err := client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(execution)})
	var missing *sfntypes.ExecutionDoesNotExist
	switch {
	case errors.As(err, &missing):
		return statusGone, nil
	case err != nil:
		return "", fmt.Errorf("describe the execution %s: %w", execution, err)
	}
	return string(out.Status), nil
}

// lockTimeLayout is how the lock table writes times (lock.Holder.Since, lock.Waiter.Since).
const lockTimeLayout = time.RFC3339Nano

// age is how long ago the lock table's time since was, to the tenth of a second, or 0 when it
// cannot be read.
func age(since string, now time.Time) time.Duration {
	t, err := time.Parse(lockTimeLayout, since)
	if err != nil {
		return 0
	}
	return now.Sub(t).Round(100 * time.Millisecond)
}
