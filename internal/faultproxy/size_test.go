package faultproxy

import (
	"encoding/json"
	"testing"
)

func TestItemSize(t *testing.T) {
	tests := []struct {
		name string
		item string
		want int
	}{
		{name: "no item", item: ``, want: 0},
		{name: "string", item: `{"pk":{"S":"lock"}}`, want: 2 + 4},
		{name: "utf-8 string", item: `{"é":{"S":"ü"}}`, want: 2 + 2},
		{name: "numbers", item: `{"a":{"N":"12345"},"b":{"N":"-0.00100"},"c":{"N":"0"}}`, want: 1 + 4 + 1 + 2 + 1 + 1},
		{name: "binary", item: `{"b":{"B":"AAEC"}}`, want: 1 + 3},
		{name: "bool and null", item: `{"t":{"BOOL":true},"n":{"NULL":true}}`, want: 1 + 1 + 1 + 1},
		{name: "list", item: `{"l":{"L":[{"S":"ab"},{"N":"1"}]}}`, want: 1 + 3 + (1 + 2) + (1 + 2)},
		{name: "map", item: `{"m":{"M":{"k":{"S":"v"}}}}`, want: 1 + 3 + (1 + 1 + 1)},
		{name: "empty map", item: `{"m":{"M":{}}}`, want: 1 + 3},
		{name: "string set", item: `{"s":{"SS":["a","bc"]}}`, want: 1 + 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw json.RawMessage
			if tt.item != "" {
				raw = json.RawMessage(tt.item)
			}
			if got := itemSize(raw); got != tt.want {
				t.Errorf("itemSize(%s) = %d, want %d", tt.item, got, tt.want)
			}
		})
	}
}

func TestPrepareAddsOnlyWhatIsMissing(t *testing.T) {
	tests := []struct {
		name, op, body string
		want           added
	}{
		{name: "table operation", op: "CreateTable", body: `{"TableName":"t"}`, want: added{}},
		{name: "read", op: "GetItem", body: `{"TableName":"t"}`, want: added{capacity: true}},
		{name: "read asking for capacity", op: "GetItem", body: `{"ReturnConsumedCapacity":"INDEXES"}`, want: added{}},
		{name: "plain put", op: "PutItem", body: `{"TableName":"t"}`, want: added{capacity: true}},
		{name: "conditional put", op: "PutItem", body: `{"ConditionExpression":"x"}`, want: added{capacity: true, oldOnFailure: true}},
		{name: "conditional update asking for all", op: "UpdateItem", body: `{"ConditionExpression":"x","ReturnValuesOnConditionCheckFailure":"ALL_OLD","ReturnConsumedCapacity":"TOTAL"}`, want: added{}},
		{name: "not JSON", op: "GetItem", body: `{`, want: added{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, got := prepare(tt.op, []byte(tt.body))
			if got != tt.want {
				t.Errorf("prepare(%s, %s) added %+v, want %+v", tt.op, tt.body, got, tt.want)
			}
			if got == (added{}) && string(out) != tt.body {
				t.Errorf("prepare changed the body to %s although it added nothing", out)
			}
		})
	}
}
