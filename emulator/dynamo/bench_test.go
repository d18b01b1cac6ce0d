package dynamo

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// counterUpdate increments one counter: the write the semaphore's acquire and release make.
func counterUpdate(table string) map[string]any {
	return map[string]any{
		"TableName":                 table,
		"Key":                       map[string]any{"pk": s("demo")},
		"UpdateExpression":          "SET #c = if_not_exists(#c, :zero) + :one",
		"ExpressionAttributeNames":  map[string]any{"#c": "count"},
		"ExpressionAttributeValues": map[string]any{":zero": n("0"), ":one": n("1")},
	}
}

// BenchmarkInvokeUpdateItem measures optimized updateItem invocations against DynamoDB Local, one at a
// time.
func BenchmarkInvokeUpdateItem(b *testing.B) {
	in := newIntegration(b)
	params := counterUpdate(createTable(b, false))
	calls := 0
	for b.Loop() {
		if _, err := in.Invoke(b.Context(), updateResource, params); err != nil {
			b.Fatal(err)
		}
		calls++
	}
	b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "invocations/s")
}

// BenchmarkInvokeUpdateItemParallel measures the same invocations from 8×GOMAXPROCS goroutines
// that all update one item, as concurrent executions contending for one lock do.
func BenchmarkInvokeUpdateItemParallel(b *testing.B) {
	in := newIntegration(b)
	params := counterUpdate(createTable(b, false))
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := in.Invoke(b.Context(), updateResource, params); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "invocations/s")
}

// BenchmarkSDKClientUpdateItem is the baseline: the same update through the typed AWS SDK
// client.
func BenchmarkSDKClientUpdateItem(b *testing.B) {
	newIntegration(b) // skips without a server
	in := &dynamodb.UpdateItemInput{
		TableName:                 aws.String(createTable(b, false)),
		Key:                       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "demo"}},
		UpdateExpression:          aws.String("SET #c = if_not_exists(#c, :zero) + :one"),
		ExpressionAttributeNames:  map[string]string{"#c": "count"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":zero": &types.AttributeValueMemberN{Value: "0"}, ":one": &types.AttributeValueMemberN{Value: "1"}},
	}
	calls := 0
	for b.Loop() {
		if _, err := server.Client.UpdateItem(b.Context(), in); err != nil {
			b.Fatal(err)
		}
		calls++
	}
	b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "invocations/s")
}
