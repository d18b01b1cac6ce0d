package faultproxy_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
	"github.com/turnstile-sfn/turnstile/internal/faultproxy"
)

func TestCapacityIsCountedAndRepliesStayAsAsked(t *testing.T) {
	table := server.CreateTable(t, false)
	p := startProxy(t, faultproxy.Config{})
	client, err := ddblocal.NewClient(t.Context(), p.URL())
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "lock"}}
	// "pk" + "lock" + "d" + 2,500 bytes: 2,506 bytes, 3 write units.
	big := &types.AttributeValueMemberS{Value: strings.Repeat("x", 2500)}
	const itemBytes = 2 + 4 + 1 + 2500

	put, err := client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(table), Item: map[string]types.AttributeValue{"pk": key["pk"], "d": big},
	})
	if err != nil {
		t.Fatalf("PutItem: %v", err)
	}
	if put.ConsumedCapacity != nil {
		t.Errorf("PutItem without ReturnConsumedCapacity got ConsumedCapacity %+v", put.ConsumedCapacity)
	}
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(table), Item: key, ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		t.Fatalf("conditional PutItem = %v, want ConditionalCheckFailedException", err)
	}
	if ccf.Item != nil {
		t.Errorf("the failed condition returned the item %v, which the client did not ask for", ccf.Item)
	}
	upd, err := client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(table), Key: key, UpdateExpression: aws.String("SET n = :one"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		t.Fatalf("UpdateItem: %v", err)
	}
	if upd.ConsumedCapacity == nil || aws.ToFloat64(upd.ConsumedCapacity.CapacityUnits) != 3 {
		t.Errorf("UpdateItem with ReturnConsumedCapacity TOTAL: ConsumedCapacity %+v, want 3 units", upd.ConsumedCapacity)
	}
	if _, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key}); err != nil {
		t.Fatalf("GetItem: %v", err)
	}
	if _, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)}); err != nil {
		t.Fatalf("GetItem: %v", err)
	}

	got := p.Stats()
	// put 3 + failed put 3 + update 3; reads: eventually consistent 0.5, strongly consistent 1.
	want := faultproxy.Stats{
		Requests: 5, Forwarded: 5,
		ReadUnits: 1.5, WriteUnits: 9, FailedConditionalWrites: 1, FailedConditionalWriteUnits: 3,
		LargestItemBytes: itemBytes + 1 + 2, // after the update: + "n" + the number 1
	}
	if got != want {
		t.Errorf("Stats = %+v\nwant    %+v", got, want)
	}
}

func TestFailedConditionOnAMissingItemCostsOneUnit(t *testing.T) {
	table := server.CreateTable(t, false)
	p := startProxy(t, faultproxy.Config{})
	client, err := ddblocal.NewClient(t.Context(), p.URL())
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.DeleteItem(t.Context(), &dynamodb.DeleteItemInput{
		TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "none"}},
		ConditionExpression: aws.String("attribute_exists(pk)"),
	})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		t.Fatalf("conditional DeleteItem = %v, want ConditionalCheckFailedException", err)
	}
	if got := p.Stats(); got.WriteUnits != 1 || got.FailedConditionalWrites != 1 || got.FailedConditionalWriteUnits != 1 {
		t.Errorf("Stats = %+v, want 1 failed conditional write of 1 unit", got)
	}
}
