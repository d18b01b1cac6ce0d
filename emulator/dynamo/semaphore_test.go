package dynamo

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The lock of docs/architecture.md, "The lock item": one item per lock name, a counter and one
// attribute per holder, changed only by conditional updates.
const (
	lockLimit      = "5"
	updateResource = "arn:aws:states:::dynamodb:updateItem"
)

func holderARN(i int) string {
	return fmt.Sprintf("arn:aws:states:us-east-1:123456789012:execution:Semaphore:run-%d", i)
}

func acquireParams(table, holder string) map[string]any {
	return map[string]any{
		"TableName":                table,
		"Key":                      map[string]any{"pk": s("demo")},
		"UpdateExpression":         "SET #c = if_not_exists(#c, :zero) + :one, #h = :now",
		"ConditionExpression":      "(attribute_not_exists(#c) OR #c < :limit) AND attribute_not_exists(#h)",
		"ExpressionAttributeNames": map[string]any{"#c": "count", "#h": holder},
		"ExpressionAttributeValues": map[string]any{
			":zero": n("0"), ":one": n("1"), ":limit": n(lockLimit), ":now": s("2026-01-01T00:00:00Z"),
		},
		"ReturnValues": "UPDATED_NEW",
	}
}

func releaseParams(table, holder string) map[string]any {
	return map[string]any{
		"TableName":                 table,
		"Key":                       map[string]any{"pk": s("demo")},
		"UpdateExpression":          "SET #c = #c - :one REMOVE #h",
		"ConditionExpression":       "attribute_exists(#h)",
		"ExpressionAttributeNames":  map[string]any{"#c": "count", "#h": holder},
		"ExpressionAttributeValues": map[string]any{":one": n("1")},
	}
}

// lockState reads the lock item and returns its counter and its holders, sorted.
func lockState(t *testing.T, in *Integration, table string) (string, []string) {
	t.Helper()
	got := invoke(t, in, "arn:aws:states:::dynamodb:getItem", map[string]any{
		"TableName": table, "Key": map[string]any{"pk": s("demo")}, "ConsistentRead": true,
	})
	item, _ := got["Item"].(map[string]any)
	count, _ := item["count"].(map[string]any)
	var holders []string
	for name := range item {
		if strings.HasPrefix(name, "arn:") {
			holders = append(holders, name)
		}
	}
	sort.Strings(holders)
	c, _ := count["N"].(string)
	return c, holders
}

func TestSemaphoreAcquireAdmitsUpToTheLimit(t *testing.T) {
	in := newIntegration(t)
	table := createTable(t, false)

	const contenders = 6
	errs := make([]error, contenders)
	var wg sync.WaitGroup
	for i := range contenders {
		wg.Go(func() {
			_, errs[i] = in.Invoke(t.Context(), updateResource, acquireParams(table, holderARN(i)))
		})
	}
	wg.Wait()

	admitted, refused := 0, 0
	var wantHolders []string
	for i, err := range errs {
		if err == nil {
			admitted++
			wantHolders = append(wantHolders, holderARN(i))
			continue
		}
		if name := taskFailure(t, err).Name; name != "DynamoDB.ConditionalCheckFailedException" {
			t.Errorf("contender %d: %q, want DynamoDB.ConditionalCheckFailedException", i, name)
		}
		refused++
	}
	if admitted != 5 || refused != 1 {
		t.Fatalf("admitted %d, refused %d; want 5 and 1", admitted, refused)
	}
	sort.Strings(wantHolders)
	count, holders := lockState(t, in, table)
	if count != "5" || !reflect.DeepEqual(holders, wantHolders) {
		t.Fatalf("lock = count %s, holders %v; want 5, %v", count, holders, wantHolders)
	}

	t.Run("a holder cannot acquire twice", func(t *testing.T) {
		release := invoke(t, in, updateResource, releaseParams(table, wantHolders[0]))
		_ = splitMetadata(t, release)
		_, err := in.Invoke(t.Context(), updateResource, acquireParams(table, wantHolders[1]))
		if name := taskFailure(t, err).Name; name != "DynamoDB.ConditionalCheckFailedException" {
			t.Errorf("second acquire by %s: %q, want DynamoDB.ConditionalCheckFailedException", wantHolders[1], name)
		}
		if count, _ := lockState(t, in, table); count != "4" {
			t.Errorf("count = %s, want 4", count)
		}
	})
	t.Run("a second release is refused", func(t *testing.T) {
		_, err := in.Invoke(t.Context(), updateResource, releaseParams(table, wantHolders[0]))
		if name := taskFailure(t, err).Name; name != "DynamoDB.ConditionalCheckFailedException" {
			t.Errorf("second release: %q, want DynamoDB.ConditionalCheckFailedException", name)
		}
		if count, _ := lockState(t, in, table); count != "4" {
			t.Errorf("count = %s, want 4", count)
		}
	})
	t.Run("a freed slot admits a new holder", func(t *testing.T) {
		got := splitMetadata(t, invoke(t, in, updateResource, acquireParams(table, holderARN(99))))
		want := map[string]any{"Attributes": map[string]any{"count": n("5"), holderARN(99): s("2026-01-01T00:00:00Z")}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("result = %v, want %v", got, want)
		}
	})
}
