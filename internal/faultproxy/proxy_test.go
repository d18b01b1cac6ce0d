package faultproxy_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
	"github.com/turnstile-sfn/turnstile/emulator/dynamo"
	"github.com/turnstile-sfn/turnstile/internal/faultproxy"
)

const putItemResource = "arn:aws:states:::dynamodb:putItem"

// startProxy starts a proxy in front of the test server, closed after the test.
func startProxy(t *testing.T, c faultproxy.Config) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.Start(server.Endpoint, c)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return p
}

// itemExists reads the item "pk" from the server directly, past the proxy.
func itemExists(t *testing.T, table, pk string) bool {
	t.Helper()
	out, err := server.Client.GetItem(t.Context(), &dynamodb.GetItemInput{
		TableName:      aws.String(table),
		Key:            map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatalf("GetItem: %v", err)
	}
	return out.Item != nil
}

// integrationErrorName puts an item through the emulator's DynamoDB integration and returns the
// name of the error it raises ("" for none).
// client, when not nil, sends the request (the proxy's in-process transport).
func integrationErrorName(t *testing.T, endpoint string, client *http.Client, table, pk string) string {
	t.Helper()
	in, err := dynamo.New(endpoint, dynamo.WithHTTPClient(client))
	if err != nil {
		t.Fatalf("dynamo.New: %v", err)
	}
	_, err = in.Invoke(t.Context(), putItemResource, map[string]any{
		"TableName": table,
		"Item":      map[string]any{"pk": map[string]any{"S": pk}},
	})
	if err == nil {
		return ""
	}
	var failure *asl.Error
	if !errors.As(err, &failure) {
		t.Fatalf("Invoke error = %v (%T), want an *asl.Error", err, err)
	}
	return failure.Name
}

// sdkErrorKind puts an item with the AWS SDK client, without its retries, and classifies the
// error it returns. httpClient, when not nil, sends the request.
func sdkErrorKind(t *testing.T, endpoint string, httpClient *http.Client, table, pk string) string {
	t.Helper()
	client, err := ddblocal.NewClient(t.Context(), endpoint)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	_, err = client.PutItem(t.Context(), &dynamodb.PutItemInput{
		TableName: aws.String(table),
		Item:      map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}},
	}, func(o *dynamodb.Options) {
		o.RetryMaxAttempts = 1
		if httpClient != nil {
			o.HTTPClient = httpClient
		}
	})
	var (
		sendErr        *smithyhttp.RequestSendError
		provisionedErr *types.ProvisionedThroughputExceededException
		throttlingErr  *types.ThrottlingException
	)
	switch {
	case err == nil:
		return "none"
	case errors.As(err, &provisionedErr):
		return "ProvisionedThroughputExceededException"
	case errors.As(err, &throttlingErr):
		return "ThrottlingException"
	case errors.As(err, &sendErr):
		return "RequestSendError"
	default:
		return fmt.Sprintf("%T: %v", err, err)
	}
}

func TestFaultsAsClientsSeeThem(t *testing.T) {
	tests := []struct {
		name            string
		config          faultproxy.Config
		wantIntegration string // the error name emulator/dynamo raises
		wantSDK         string // what the AWS SDK client returns, without retries
		wantApplied     bool
		wantStats       faultproxy.Stats // for the two requests of the test
	}{
		{
			name:        "no fault",
			config:      faultproxy.Config{},
			wantSDK:     "none",
			wantApplied: true,
			wantStats:   faultproxy.Stats{Requests: 2, Forwarded: 2, WriteUnits: 2},
		},
		{
			name:            "applied, reply lost",
			config:          faultproxy.Config{AppliedReplyLost: 1},
			wantIntegration: "DynamoDB.SdkClientException",
			wantSDK:         "RequestSendError",
			wantApplied:     true,
			wantStats:       faultproxy.Stats{Requests: 2, Forwarded: 2, AppliedReplyLost: 2, WriteUnits: 2},
		},
		{
			name:            "lost before",
			config:          faultproxy.Config{LostBefore: 1},
			wantIntegration: "DynamoDB.SdkClientException",
			wantSDK:         "RequestSendError",
			wantStats:       faultproxy.Stats{Requests: 2, LostBefore: 2},
		},
		{
			name:            "throttled, provisioned throughput",
			config:          faultproxy.Config{Throttled: 1},
			wantIntegration: "DynamoDB.ProvisionedThroughputExceededException",
			wantSDK:         "ProvisionedThroughputExceededException",
			wantStats:       faultproxy.Stats{Requests: 2, Throttled: 2},
		},
		{
			name:            "throttled, throttling",
			config:          faultproxy.Config{Throttled: 1, ThrottleCode: faultproxy.ThrottleThrottling},
			wantIntegration: "DynamoDB.ThrottlingException",
			wantSDK:         "ThrottlingException",
			wantStats:       faultproxy.Stats{Requests: 2, Throttled: 2},
		},
	}
	for _, tt := range tests {
		for _, inProcess := range []bool{false, true} {
			name := tt.name + ", listener"
			if inProcess {
				name = tt.name + ", in process"
			}
			t.Run(name, func(t *testing.T) {
				table := createTable(t)
				p := startProxy(t, tt.config)
				var client *http.Client
				if inProcess {
					client = &http.Client{Transport: p.Transport()}
				}

				if got := integrationErrorName(t, p.URL(), client, table, "integration"); got != tt.wantIntegration {
					t.Errorf("emulator/dynamo error = %q, want %q", got, tt.wantIntegration)
				}
				if got := sdkErrorKind(t, p.URL(), client, table, "sdk"); got != tt.wantSDK {
					t.Errorf("AWS SDK error = %q, want %q", got, tt.wantSDK)
				}
				for _, pk := range []string{"integration", "sdk"} {
					if got := itemExists(t, table, pk); got != tt.wantApplied {
						t.Errorf("item %q applied = %v, want %v", pk, got, tt.wantApplied)
					}
				}
				if got := p.Stats(); got != tt.wantStats {
					t.Errorf("Stats() = %+v, want %+v", got, tt.wantStats)
				}
			})
		}
	}
}

func TestOperationsFilterSelectsWhichRequestsFault(t *testing.T) {
	table := createTable(t)
	p := startProxy(t, faultproxy.Config{LostBefore: 1, Operations: []string{"UpdateItem"}})
	in, err := dynamo.New(p.URL())
	if err != nil {
		t.Fatalf("dynamo.New: %v", err)
	}
	key := map[string]any{"pk": map[string]any{"S": "filtered"}}

	if _, err := in.Invoke(t.Context(), putItemResource, map[string]any{"TableName": table, "Item": key}); err != nil {
		t.Errorf("PutItem (not selected) error = %v, want none", err)
	}
	_, err = in.Invoke(t.Context(), "arn:aws:states:::dynamodb:updateItem", map[string]any{
		"TableName": table, "Key": key, "UpdateExpression": "SET #a = :a",
		"ExpressionAttributeNames":  map[string]any{"#a": "a"},
		"ExpressionAttributeValues": map[string]any{":a": map[string]any{"S": "x"}},
	})
	var failure *asl.Error
	if !errors.As(err, &failure) || failure.Name != "DynamoDB.SdkClientException" {
		t.Errorf("UpdateItem (selected) error = %v, want DynamoDB.SdkClientException", err)
	}
	want := faultproxy.Stats{Requests: 2, Forwarded: 1, LostBefore: 1, WriteUnits: 1}
	if got := p.Stats(); got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
}

// The AWS SDK retries a reset connection by itself: a lost reply is hidden from the caller unless
// every attempt fails.
func TestAWSSDKRetriesALostReply(t *testing.T) {
	table := createTable(t)
	p := startProxy(t, faultproxy.Config{AppliedReplyLost: 1})
	client, err := ddblocal.NewClient(t.Context(), p.URL())
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	_, err = client.PutItem(t.Context(), &dynamodb.PutItemInput{
		TableName: aws.String(table),
		Item:      map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "retried"}},
	}, func(o *dynamodb.Options) { o.RetryMaxAttempts = 3 })
	var sendErr *smithyhttp.RequestSendError
	if !errors.As(err, &sendErr) {
		t.Errorf("PutItem error = %v, want a RequestSendError after the retries", err)
	}
	if got, want := p.Stats().AppliedReplyLost, int64(3); got != want {
		t.Errorf("attempts whose reply was lost = %d, want %d", got, want)
	}
}

// faultSequence sends n GetItem requests one after the other through a proxy configured with c
// and returns the error name of each ("" for a reply).
func faultSequence(t *testing.T, table string, c faultproxy.Config, n int) ([]string, faultproxy.Stats) {
	t.Helper()
	p := startProxy(t, c)
	in, err := dynamo.New(p.URL())
	if err != nil {
		t.Fatalf("dynamo.New: %v", err)
	}
	names := make([]string, n)
	for i := range names {
		_, err := in.Invoke(t.Context(), "arn:aws:states:::dynamodb:getItem", map[string]any{
			"TableName": table, "Key": map[string]any{"pk": map[string]any{"S": "absent"}},
		})
		var failure *asl.Error
		if errors.As(err, &failure) {
			names[i] = failure.Name
		} else if err != nil {
			t.Fatalf("GetItem: %v", err)
		}
	}
	return names, p.Stats()
}

func TestSameSeedSameFaults(t *testing.T) {
	table := createTable(t)
	const requests = 60
	config := faultproxy.Config{Seed: 7, AppliedReplyLost: 0.2, LostBefore: 0.1, Throttled: 0.1}
	first, firstStats := faultSequence(t, table, config, requests)
	second, secondStats := faultSequence(t, table, config, requests)
	if fmt.Sprint(first) != fmt.Sprint(second) || firstStats != secondStats {
		t.Errorf("same seed, different faults:\n%v %+v\n%v %+v", first, firstStats, second, secondStats)
	}
	if firstStats.AppliedReplyLost == 0 || firstStats.LostBefore == 0 || firstStats.Throttled == 0 {
		t.Errorf("Stats() = %+v, want every kind of fault among %d requests", firstStats, requests)
	}
	config.Seed = 8
	other, _ := faultSequence(t, table, config, requests)
	if fmt.Sprint(other) == fmt.Sprint(first) {
		t.Errorf("seeds 7 and 8 gave the same faults: %v", first)
	}
}
