package dynamo

import (
	"errors"
	"reflect"
	"sort"
	"testing"
)

func TestAWSSDKActions(t *testing.T) {
	in := newIntegration(t)
	table := createTable(t, true)
	row := func(pk, sk, v string) map[string]any { return map[string]any{"pk": s(pk), "sk": s(sk), "v": n(v)} }
	put := func(item map[string]any) map[string]any {
		return map[string]any{"PutRequest": map[string]any{"Item": item}}
	}

	steps := []struct {
		name   string
		action string
		params map[string]any
		want   map[string]any
	}{
		{
			name:   "batchWriteItem",
			action: "batchWriteItem",
			params: map[string]any{"RequestItems": map[string]any{table: []any{put(row("a", "1", "10")), put(row("a", "2", "20")), put(row("b", "1", "30"))}}},
			want:   map[string]any{"UnprocessedItems": map[string]any{}},
		},
		{
			name:   "query in key order",
			action: "query",
			params: map[string]any{
				"TableName":                 table,
				"KeyConditionExpression":    "pk = :pk",
				"ExpressionAttributeValues": map[string]any{":pk": s("a")},
				"ConsistentRead":            true,
			},
			want: map[string]any{"Count": int64(2), "ScannedCount": int64(2), "Items": []any{row("a", "1", "10"), row("a", "2", "20")}},
		},
		{
			name:   "query backwards with a limit",
			action: "query",
			params: map[string]any{
				"TableName":                 table,
				"KeyConditionExpression":    "pk = :pk",
				"ExpressionAttributeValues": map[string]any{":pk": s("a")},
				"ScanIndexForward":          false,
				"Limit":                     int64(1),
			},
			want: map[string]any{"Count": int64(1), "ScannedCount": int64(1), "Items": []any{row("a", "2", "20")},
				"LastEvaluatedKey": map[string]any{"pk": s("a"), "sk": s("2")}},
		},
		{
			name:   "scan counting",
			action: "scan",
			params: map[string]any{"TableName": table, "Select": "COUNT", "FilterExpression": "v >= :min", "ExpressionAttributeValues": map[string]any{":min": n("20")}},
			want:   map[string]any{"Count": int64(2), "ScannedCount": int64(3)},
		},
		{
			name:   "putItem returns the plain response",
			action: "putItem",
			params: map[string]any{"TableName": table, "Item": row("c", "1", "40")},
			want:   map[string]any{},
		},
		{
			name:   "getItem returns the plain response",
			action: "getItem",
			params: map[string]any{"TableName": table, "Key": map[string]any{"pk": s("c"), "sk": s("1")}, "ProjectionExpression": "v"},
			want:   map[string]any{"Item": map[string]any{"v": n("40")}},
		},
		{
			name:   "updateItem with ReturnValues",
			action: "updateItem",
			params: map[string]any{
				"TableName":                 table,
				"Key":                       map[string]any{"pk": s("c"), "sk": s("1")},
				"UpdateExpression":          "ADD v :d",
				"ExpressionAttributeValues": map[string]any{":d": n("-0.5")},
				"ReturnValues":              "UPDATED_NEW",
			},
			want: map[string]any{"Attributes": map[string]any{"v": n("39.5")}},
		},
		{
			name:   "deleteItem",
			action: "deleteItem",
			params: map[string]any{"TableName": table, "Key": map[string]any{"pk": s("c"), "sk": s("1")}},
			want:   map[string]any{},
		},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			got := invoke(t, in, "arn:aws:states:::aws-sdk:dynamodb:"+step.action, step.params)
			if !reflect.DeepEqual(got, step.want) {
				t.Errorf("result = %#v\nwant %#v", got, step.want)
			}
		})
	}

	t.Run("batchGetItem", func(t *testing.T) {
		got := invoke(t, in, "arn:aws:states:::aws-sdk:dynamodb:batchGetItem", map[string]any{
			"RequestItems": map[string]any{table: map[string]any{
				"Keys": []any{map[string]any{"pk": s("b"), "sk": s("1")}, map[string]any{"pk": s("a"), "sk": s("1")}},
			}},
		})
		responses, _ := got["Responses"].(map[string]any)
		items, _ := responses[table].([]any)
		// BatchGetItem returns items in no particular order.
		sort.Slice(items, func(i, j int) bool {
			return items[i].(map[string]any)["pk"].(map[string]any)["S"].(string) < items[j].(map[string]any)["pk"].(map[string]any)["S"].(string)
		})
		want := map[string]any{"Responses": map[string]any{table: []any{row("a", "1", "10"), row("b", "1", "30")}}, "UnprocessedKeys": map[string]any{}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("result = %#v\nwant %#v", got, want)
		}
	})

	t.Run("describeTable", func(t *testing.T) {
		got := invoke(t, in, "arn:aws:states:::aws-sdk:dynamodb:describeTable", map[string]any{"TableName": table})
		desc, _ := got["Table"].(map[string]any)
		wantKeys := []any{
			map[string]any{"AttributeName": "pk", "KeyType": "HASH"},
			map[string]any{"AttributeName": "sk", "KeyType": "RANGE"},
		}
		if desc["TableName"] != table || desc["TableStatus"] != "ACTIVE" || !reflect.DeepEqual(desc["KeySchema"], wantKeys) {
			t.Errorf("Table = %v\nwant TableName %s, TableStatus ACTIVE, KeySchema %v", desc, table, wantKeys)
		}
	})
}

func TestActionsTheServerLacksAreReportedNotEmulated(t *testing.T) {
	in := newIntegration(t)
	table := createTable(t, false)
	resource := "arn:aws:states:::aws-sdk:dynamodb:createBackup"
	if !in.Supports(resource) {
		t.Fatalf("Supports(%s) = false, want true: it is a DynamoDB API action", resource)
	}
	_, err := in.Invoke(t.Context(), resource, map[string]any{"TableName": table, "BackupName": "before"})
	if !errors.Is(err, ErrNotEmulated) {
		t.Fatalf("error = %v, want ErrNotEmulated", err)
	}
	if failure := taskFailure(t, err); failure.Name != "States.Runtime" {
		t.Errorf("name = %q, want States.Runtime", failure.Name)
	}
	if got := itemCount(t, table); got != 0 {
		t.Errorf("items after the failed call = %d, want 0", got)
	}
}
