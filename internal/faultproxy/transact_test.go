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

// capacityFixture is a table with two items, written past the proxy, and a client through a
// fresh proxy.
type capacityFixture struct {
	table  string
	proxy  *faultproxy.Proxy
	client *dynamodb.Client
}

// The fixture's items: "big" is "pk" + "big" + "d" + 1,500 bytes = 1,506 bytes (2 write units, 1
// read unit); "small" is "pk" + "small" = 7 bytes (1 unit).
const bigItemBytes = 2 + 3 + 1 + 1500

func newCapacityFixture(t *testing.T, withSortKey bool) capacityFixture {
	t.Helper()
	f := capacityFixture{table: server.CreateTable(t, withSortKey), proxy: startProxy(t, faultproxy.Config{})}
	var err error
	if f.client, err = ddblocal.NewClient(t.Context(), f.proxy.URL()); err != nil {
		t.Fatal(err)
	}
	if !withSortKey {
		f.putDirect(t, item("big", "d", strings.Repeat("x", 1500)))
		f.putDirect(t, item("small"))
	}
	return f
}

// putDirect writes an item past the proxy.
func (f capacityFixture) putDirect(t *testing.T, it map[string]types.AttributeValue) {
	t.Helper()
	if _, err := server.Client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(f.table), Item: it}); err != nil {
		t.Fatalf("PutItem: %v", err)
	}
}

// item is the item of key pk with the string attributes name, value, ... that follow.
func item(pk string, attrs ...string) map[string]types.AttributeValue {
	it := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}
	for i := 0; i+1 < len(attrs); i += 2 {
		it[attrs[i]] = &types.AttributeValueMemberS{Value: attrs[i+1]}
	}
	return it
}

// key is the key of item pk.
func key(pk string) map[string]types.AttributeValue { return item(pk) }

func TestCommittedTransactionCostsTwoWritesPerKBPerItem(t *testing.T) {
	f := newCapacityFixture(t, false)
	out, err := f.client.TransactWriteItems(t.Context(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(f.table), Item: item("new"), ConditionExpression: aws.String("attribute_not_exists(pk)")}},
		{Update: &types.Update{TableName: aws.String(f.table), Key: key("big"), UpdateExpression: aws.String("SET n = :one"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String(f.table), Key: key("small"), ConditionExpression: aws.String("attribute_exists(pk)")}},
	}})
	if err != nil {
		t.Fatalf("TransactWriteItems: %v", err)
	}
	if out.ConsumedCapacity != nil {
		t.Errorf("TransactWriteItems without ReturnConsumedCapacity got ConsumedCapacity %+v", out.ConsumedCapacity)
	}
	got := f.proxy.Stats()
	// 2 × (put 1 + update of 1,506 → 1,509 bytes 2 + condition check 1).
	if got.WriteUnits != 8 || got.ReadUnits != 0 || got.FailedConditionalWrites != 0 || got.LargestItemBytes != bigItemBytes+1+2 {
		t.Errorf("Stats = %+v, want 8 write units, no read units, no failed write, the largest item the updated one (%d bytes)", got, bigItemBytes+1+2)
	}
}

func TestDeleteInATransactionIsSizedByTheItemBefore(t *testing.T) {
	f := newCapacityFixture(t, false)
	_, err := f.client.TransactWriteItems(t.Context(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: aws.String(f.table), Key: key("big")}},
	}})
	if err != nil {
		t.Fatalf("TransactWriteItems: %v", err)
	}
	if got := f.proxy.Stats(); got.WriteUnits != 4 {
		t.Errorf("Stats = %+v, want 4 write units: 2 × the 1,506-byte item deleted", got)
	}
}

// The items of a transaction are read in one batch: each is sized as its own, an absent one as
// empty, whatever order the server returns them in.
func TestTransactionItemsReadInOneBatchAreSizedEachByItsOwn(t *testing.T) {
	f := newCapacityFixture(t, false)
	one := map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}
	_, err := f.client.TransactWriteItems(t.Context(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Update: &types.Update{TableName: aws.String(f.table), Key: key("absent"), UpdateExpression: aws.String("SET n = :one"), ExpressionAttributeValues: one}},
		{Update: &types.Update{TableName: aws.String(f.table), Key: key("small"), UpdateExpression: aws.String("SET n = :one"), ExpressionAttributeValues: one}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String(f.table), Key: key("big"), ConditionExpression: aws.String("attribute_exists(pk)")}},
	}})
	if err != nil {
		t.Fatalf("TransactWriteItems: %v", err)
	}
	// 2 × (the new item of 12 bytes 1 + small, 7 → 10 bytes, 1 + the 1,506-byte item checked 2).
	if got := f.proxy.Stats(); got.WriteUnits != 8 || got.LargestItemBytes != bigItemBytes {
		t.Errorf("Stats = %+v, want 8 write units and the largest item the checked one (%d bytes)", got, bigItemBytes)
	}
}

func TestCancelledTransactionCostsOneWritePerItem(t *testing.T) {
	f := newCapacityFixture(t, false)
	_, err := f.client.TransactWriteItems(t.Context(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(f.table), Item: item("new", "d", strings.Repeat("y", 1100))}},
		{Update: &types.Update{TableName: aws.String(f.table), Key: key("big"), UpdateExpression: aws.String("SET n = :one"),
			ConditionExpression:       aws.String("attribute_not_exists(pk)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String(f.table), Key: key("small"), ConditionExpression: aws.String("attribute_not_exists(pk)"),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
	}})
	var cancelled *types.TransactionCanceledException
	if !errors.As(err, &cancelled) {
		t.Fatalf("TransactWriteItems = %v, want TransactionCanceledException", err)
	}
	reasons := cancelled.CancellationReasons
	if len(reasons) != 3 {
		t.Fatalf("CancellationReasons = %+v, want 3", reasons)
	}
	if reasons[1].Item != nil {
		t.Errorf("the Update's failed condition returned the item %v, which the client did not ask for", reasons[1].Item)
	}
	if reasons[2].Item == nil {
		t.Errorf("the ConditionCheck's failed condition returned no item, although the client asked for ALL_OLD")
	}
	if itemExists(t, f.table, "new") {
		t.Errorf("the cancelled transaction's Put landed")
	}
	got := f.proxy.Stats()
	// One write of each item: the put's 1,106-byte item 2 + the 1,506-byte item 2 + 1.
	want := faultproxy.Stats{
		Requests: 1, Forwarded: 1,
		WriteUnits: 5, FailedConditionalWrites: 1, FailedConditionalWriteUnits: 5,
		LargestItemBytes: bigItemBytes,
	}
	if got != want {
		t.Errorf("Stats = %+v\nwant    %+v", got, want)
	}
}

func TestReplayedTransactionCostsReads(t *testing.T) {
	f := newCapacityFixture(t, false)
	in := &dynamodb.TransactWriteItemsInput{
		ClientRequestToken: aws.String("replayed-token"),
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(f.table), Item: item("new")}},
		},
	}
	for range 2 {
		if _, err := f.client.TransactWriteItems(t.Context(), in); err != nil {
			t.Fatalf("TransactWriteItems: %v", err)
		}
	}
	if got := f.proxy.Stats(); got.WriteUnits != 2 || got.ReadUnits != 2 {
		t.Errorf("Stats = %+v, want 2 write units (the commit) and 2 read units (the replay)", got)
	}
}

func TestBatchGetItemCostsAGetItemPerKey(t *testing.T) {
	for _, tt := range []struct {
		name       string
		consistent bool
		want       float64
	}{
		{name: "strongly consistent", consistent: true, want: 3}, // big 1 + small 1 + missing 1
		{name: "eventually consistent", want: 1.5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newCapacityFixture(t, false)
			out, err := f.client.BatchGetItem(t.Context(), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				f.table: {Keys: []map[string]types.AttributeValue{key("big"), key("small"), key("missing")}, ConsistentRead: aws.Bool(tt.consistent)},
			}})
			if err != nil {
				t.Fatalf("BatchGetItem: %v", err)
			}
			if n := len(out.Responses[f.table]); n != 2 {
				t.Fatalf("BatchGetItem returned %d items, want 2", n)
			}
			if got := f.proxy.Stats(); got.ReadUnits != tt.want || got.LargestItemBytes != bigItemBytes {
				t.Errorf("Stats = %+v, want %v read units and the largest item %d bytes", got, tt.want, bigItemBytes)
			}
		})
	}
}

func TestQuerySumsItemSizesBeforeRounding(t *testing.T) {
	f := newCapacityFixture(t, true)
	// Three items of "pk" + "lock" + "sk" + 1 + "d" + 1,500 bytes = 1,510 bytes: 4,530 bytes in
	// all, 2 units strongly consistent (3 if each item were rounded up on its own).
	for _, sk := range []string{"a", "b", "c"} {
		f.putDirect(t, map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "lock"}, "sk": &types.AttributeValueMemberS{Value: sk},
			"d": &types.AttributeValueMemberS{Value: strings.Repeat("x", 1500)},
		})
	}
	out, err := f.client.Query(t.Context(), &dynamodb.QueryInput{
		TableName: aws.String(f.table), KeyConditionExpression: aws.String("pk = :pk"), ConsistentRead: aws.Bool(true),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "lock"}},
	})
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	if out.Count != 3 {
		t.Fatalf("Query returned %d items, want 3", out.Count)
	}
	if got := f.proxy.Stats(); got.ReadUnits != 2 || got.LargestItemBytes != 1510 {
		t.Errorf("Stats = %+v, want 2 read units and the largest item 1,510 bytes", got)
	}
}
