package ddblocal

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// benchmarkServer starts DynamoDB Local for a benchmark, skipping it when the tooling is not
// installed, and returns a client with a table "bench" keyed by the string "pk".
func benchmarkServer(b *testing.B) *dynamodb.Client {
	b.Helper()
	ctx := context.Background()
	srv, err := Start(ctx, Options{})
	if errors.Is(err, ErrNotInstalled) || errors.Is(err, ErrJavaMissing) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatalf("Start: %v", err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	client, err := NewClient(ctx, srv.Endpoint())
	if err != nil {
		b.Fatal(err)
	}
	_, err = client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("bench"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		b.Fatal(err)
	}
	return client
}

// BenchmarkRoundTrips measures one request's round trip to DynamoDB Local on an item of about
// 13 KB, the size of a semaphore's lock item with a hundred holders: a conditional UpdateItem of
// its counter that returns the whole item, then a strongly consistent GetItem. Under a skipping
// clock these round trips follow one another (virtual time stands still while one is in
// flight), so their latency bounds a simulation's wall time.
func BenchmarkRoundTrips(b *testing.B) {
	client := benchmarkServer(b)
	ctx := context.Background()
	holders := map[string]types.AttributeValue{}
	for i := range 100 {
		holders["exec-"+strconv.Itoa(i)] = &types.AttributeValueMemberS{Value: strings.Repeat("x", 100)}
	}
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "lock"}}
	_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: map[string]types.AttributeValue{
		"pk": key["pk"], "count": &types.AttributeValueMemberN{Value: "100"}, "holders": &types.AttributeValueMemberM{Value: holders},
	}})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("UpdateItem", func(b *testing.B) {
		start := time.Now()
		for i := 0; b.Loop(); i++ {
			delta := "1"
			if i%2 == 1 {
				delta = "-1"
			}
			_, err := client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String("bench"), Key: key,
				UpdateExpression:          aws.String("ADD #c :d"),
				ConditionExpression:       aws.String("#c < :limit"),
				ExpressionAttributeNames:  map[string]string{"#c": "count"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":d": &types.AttributeValueMemberN{Value: delta}, ":limit": &types.AttributeValueMemberN{Value: "1000"}},
				ReturnValues:              types.ReturnValueAllNew,
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N), "µs/request")
	})
	b.Run("GetItem", func(b *testing.B) {
		start := time.Now()
		for b.Loop() {
			out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("bench"), Key: key, ConsistentRead: aws.Bool(true)})
			if err != nil || out.Item == nil {
				b.Fatalf("GetItem: %v, item %v", err, out)
			}
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N), "µs/request")
	})
}
