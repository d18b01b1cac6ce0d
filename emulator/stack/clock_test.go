package stack

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestRequestKey: a request's latency key ignores the order of object keys and the idempotency
// token, and tells apart the callers a handler's requests are marked with.
func TestRequestKey(t *testing.T) {
	key := func(body, caller string) string {
		r, err := http.NewRequest(http.MethodPost, "http://ddb", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("X-Amz-Target", "DynamoDB_20120810.TransactWriteItems")
		if caller != "" {
			r.Header.Set(callerHeader, caller)
		}
		k := requestKey(r)
		if rest, err := io.ReadAll(r.Body); err != nil || string(rest) != body {
			t.Fatalf("the body was not put back: %q, %v", rest, err)
		}
		return k
	}
	a := key(`{"TransactItems":[1],"ClientRequestToken":"a1","TableName":"T"}`, "")
	if b := key(`{"TableName":"T","ClientRequestToken":"b2","TransactItems":[1]}`, ""); a != b {
		t.Errorf("keys differ by token or key order: %q, %q", a, b)
	}
	if c := key(`{"TableName":"T","TransactItems":[2]}`, ""); a == c {
		t.Error("two different requests have one key")
	}
	if d, e := key(`{"TableName":"T"}`, "1"), key(`{"TableName":"T"}`, "2"); d == e {
		t.Error("two callers' same request have one key")
	}
}
