package faultproxy

import (
	"encoding/json"
	"slices"
	"strings"
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

func TestLargestItemSize(t *testing.T) {
	tests := []struct {
		items string
		want  int
	}{
		{items: "", want: 0},
		{items: `[]`, want: 0},
		{items: `[{"a":{"S":"xyz"}},{"bb":{"S":"x"}}]`, want: 1 + 3},
		{items: `[{"bb":{"S":"x"}},{"m":{"M":{"k":{"N":"12345"}}}}]`, want: 1 + 3 + (1 + 1 + 4)},
		{items: `{"a":{"S":"xyz"}}`, want: 0}, // not a list
	}
	for _, tt := range tests {
		var raw json.RawMessage
		if tt.items != "" {
			raw = json.RawMessage(tt.items)
		}
		if got := largestItemSize(raw); got != tt.want {
			t.Errorf("largestItemSize(%s) = %d, want %d", tt.items, got, tt.want)
		}
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
		{name: "transaction", op: "TransactWriteItems", body: `{"TransactItems":"not a list"}`, want: added{}},
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

func TestCancelledHalvesCountsConditionsAndConflictsOnly(t *testing.T) {
	tx := &transaction{items: []transactionItem{
		{action: actionPut, after: 1500},                                // 2 units
		{action: actionUpdate, key: json.RawMessage(`{}`), before: 100}, // 1 unit
	}}
	tests := []struct {
		name    string
		reasons []cancellation
		want    int64
		billed  bool
	}{
		{name: "condition failed", reasons: []cancellation{{Code: "None"}, {Code: "ConditionalCheckFailed", Item: json.RawMessage(`{"pk":{"S":"` + strings.Repeat("x", 2100) + `"}}`)}}, want: 2 * (2 + 3), billed: true},
		{name: "conflict", reasons: []cancellation{{Code: "TransactionConflict"}, {Code: "None"}}, want: 2 * (2 + 1), billed: true},
		{name: "validation", reasons: []cancellation{{Code: "ValidationError"}, {Code: "None"}}},
		{name: "throttled", reasons: []cancellation{{Code: "ThrottlingError"}, {Code: "ThrottlingError"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, billed := tx.cancelledHalves(tt.reasons)
			if got != tt.want || billed != tt.billed {
				t.Errorf("cancelledHalves = %d, %v; want %d, %v", got, billed, tt.want, tt.billed)
			}
		})
	}
}

func TestPrepareTransactionAsksForTheOldItemOfConditionalItemsOnly(t *testing.T) {
	body := `{"ClientRequestToken":"tok","TransactItems":[` +
		`{"Put":{"TableName":"t","Item":{"pk":{"S":"a"}}}},` +
		`{"Update":{"TableName":"t","Key":{"pk":{"S":"b"}},"ConditionExpression":"x"}},` +
		`{"Delete":{"TableName":"t","Key":{"pk":{"S":"c"}},"ConditionExpression":"x","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}},` +
		`{"ConditionCheck":{"TableName":"t","Key":{"pk":{"S":"d"}},"ConditionExpression":"x"}}]}`
	out, a := prepare("TransactWriteItems", []byte(body))
	if a.tx == nil || a.tx.token != "tok" || len(a.tx.items) != 4 {
		t.Fatalf("prepare learnt %+v, want the token and 4 items", a.tx)
	}
	var addedOld []bool
	for _, it := range a.tx.items {
		addedOld = append(addedOld, it.addedOld)
	}
	if want := []bool{false, true, false, true}; !slices.Equal(addedOld, want) {
		t.Errorf("added ALL_OLD to %v, want %v", addedOld, want)
	}
	if a.tx.items[0].after != 2+1 || a.tx.items[0].key != nil || a.tx.items[3].action != actionConditionCheck {
		t.Errorf("items = %+v", a.tx.items)
	}
	if n := strings.Count(string(out), `"ReturnValuesOnConditionCheckFailure":"ALL_OLD"`); n != 3 {
		t.Errorf("forwarded body asks ALL_OLD %d times, want 3: %s", n, out)
	}
}
