package dynamo

import (
	"reflect"
	"regexp"
	"strconv"
	"testing"
)

// splitMetadata checks the SdkHttpMetadata and SdkResponseMetadata that the optimized integration
// adds and returns the result without them.
func splitMetadata(t *testing.T, result map[string]any) map[string]any {
	t.Helper()
	http, _ := result["SdkHttpMetadata"].(map[string]any)
	response, _ := result["SdkResponseMetadata"].(map[string]any)
	if http == nil || response == nil {
		t.Fatalf("result %v lacks SdkHttpMetadata or SdkResponseMetadata", result)
	}
	if got := http["HttpStatusCode"]; got != int64(200) {
		t.Errorf("HttpStatusCode = %#v, want int64(200)", got)
	}
	headers, _ := http["HttpHeaders"].(map[string]any)
	all, _ := http["AllHttpHeaders"].(map[string]any)
	if got := headers["Content-Type"]; got != contentType {
		t.Errorf("HttpHeaders[Content-Type] = %#v, want %q", got, contentType)
	}
	if got, want := all["Content-Type"], []any{contentType}; !reflect.DeepEqual(got, want) {
		t.Errorf("AllHttpHeaders[Content-Type] = %#v, want %#v", got, want)
	}
	if _, err := strconv.Atoi(headers["Content-Length"].(string)); err != nil {
		t.Errorf("HttpHeaders[Content-Length] = %#v, want a number", headers["Content-Length"])
	}
	id, _ := response["RequestId"].(string)
	if !regexp.MustCompile(`^`+requestID+`$`).MatchString(id) || headers["x-amzn-RequestId"] != id {
		t.Errorf("RequestId = %q, x-amzn-RequestId = %#v; want the same request ID", id, headers["x-amzn-RequestId"])
	}
	rest := make(map[string]any, len(result))
	for k, v := range result {
		if k != "SdkHttpMetadata" && k != "SdkResponseMetadata" {
			rest[k] = v
		}
	}
	return rest
}

func TestOptimizedItemActions(t *testing.T) {
	in := newIntegration(t)
	table := createTable(t, false)
	key := map[string]any{"pk": s("demo")}
	item := map[string]any{"pk": s("demo"), "count": n("5"), "tags": map[string]any{"SS": []any{"a", "b"}}, "on": map[string]any{"BOOL": true}}

	steps := []struct {
		name     string
		resource string
		params   map[string]any
		want     map[string]any // without the metadata
	}{
		{
			name:     "putItem returns only metadata",
			resource: "arn:aws:states:::dynamodb:putItem",
			params:   map[string]any{"TableName": table, "Item": item},
			want:     map[string]any{},
		},
		{
			name:     "getItem returns the item, numbers as strings",
			resource: "arn:aws:states:::dynamodb:getItem",
			params:   map[string]any{"TableName": table, "Key": key, "ConsistentRead": true},
			want:     map[string]any{"Item": item},
		},
		{
			name:     "updateItem returns the updated attributes",
			resource: "arn:aws:states:::dynamodb:updateItem",
			params: map[string]any{
				"TableName":                 table,
				"Key":                       key,
				"UpdateExpression":          "SET #c = #c + :one",
				"ExpressionAttributeNames":  map[string]any{"#c": "count"},
				"ExpressionAttributeValues": map[string]any{":one": n("1")},
				"ReturnValues":              "UPDATED_NEW",
			},
			want: map[string]any{"Attributes": map[string]any{"count": n("6")}},
		},
		{
			name:     "deleteItem returns the old item",
			resource: "arn:aws-us-gov:states:::dynamodb:deleteItem",
			params:   map[string]any{"TableName": table, "Key": key, "ReturnValues": "ALL_OLD"},
			want:     map[string]any{"Attributes": map[string]any{"pk": s("demo"), "count": n("6"), "tags": map[string]any{"SS": []any{"a", "b"}}, "on": map[string]any{"BOOL": true}}},
		},
		{
			name:     "getItem of a missing item has no Item",
			resource: "arn:aws:states:::dynamodb:getItem",
			params:   map[string]any{"TableName": table, "Key": key, "ConsistentRead": true},
			want:     map[string]any{},
		},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			got := splitMetadata(t, invoke(t, in, step.resource, step.params))
			if !reflect.DeepEqual(got, step.want) {
				t.Errorf("result = %#v\nwant %#v", got, step.want)
			}
		})
	}
}
