package faultproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/ohler55/ojg/oj"
)

// How the proxy bills TransactWriteItems, after "Capacity management for transactions" in the
// DynamoDB developer guide
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling):
// DynamoDB reads or writes every item of a transaction twice, once to prepare the transaction
// and once to commit it, and bills both. Each item's write is sized as a single write is ("DynamoDB
// read and write operations": ceil(the larger of the item before and after / 1 KB) units, at least
// 1), a ConditionCheck included.
//
//   - A transaction that succeeds costs 2 write units per KB per item. The proxy computes this
//     itself: DynamoDB Local 1.25.1 reports other figures (4 units for one item under 1 KB, 4 for
//     two). Sizes: a Put's new item from the request; the item before, of an Update, Delete and
//     ConditionCheck, from a strongly consistent read the proxy sends the server just before
//     it forwards the transaction (a GetItem, or one BatchGetItem for several items); an
//     Update's item after, from one just after it succeeds. Those reads are not counted. Under concurrent writes to the same items the sizes may be off;
//     items of 1 KB or less always cost 1 unit each, whatever the race. The old item a Put
//     replaces is not read (a Put has no key of its own to read it by).
//   - A transaction cancelled (TransactionCanceledException) because a condition failed
//     (ConditionalCheckFailed) or because it conflicted with another transaction
//     (TransactionConflict) has run its prepare phase and not its commit: the proxy counts one
//     write per item, ceil(size / 1 KB) units, at least 1, and counts the transaction as a failed
//     conditional write. The cancellation carries no ConsumedCapacity (the TransactWriteItems API
//     reference lists only the cancellation reasons), just as a failed single conditional write
//     carries none. Sizes: for an item whose condition failed, the existing item DynamoDB puts in
//     its cancellation reason when asked with ReturnValuesOnConditionCheckFailure ALL_OLD (the
//     proxy asks for it on every conditional item that did not, and takes it out of the reply
//     again); for the others, the read before, and a Put's new item. A cancellation for another
//     reason (validation, throttling, capacity) is counted as none. The guide does not give the
//     figure of a cancelled transaction in so many words: this rule is read from its two
//     underlying writes, and one of them did not happen.
//   - A transaction repeated with the ClientRequestToken of one that succeeded in the last 10
//     minutes changes nothing and, per the same guide ("Idempotency"), is billed as reads: the
//     proxy counts a transactional read of each item, 2 read units per 4 KB.

// transactionAction names the four actions of a TransactWriteItems item.
const (
	actionPut            = "Put"
	actionUpdate         = "Update"
	actionDelete         = "Delete"
	actionConditionCheck = "ConditionCheck"
)

// tokenWindow is how long DynamoDB keeps a transaction's ClientRequestToken: a repeat within it
// is a replay.
const tokenWindow = 10 * time.Minute

// transaction is what the proxy learns of a TransactWriteItems request to size its writes.
type transaction struct {
	token string
	items []transactionItem
}

// transactionItem is one item of a transaction.
type transactionItem struct {
	action string
	table  string
	key    json.RawMessage // nil for a Put
	// addedOld is set when the proxy added ReturnValuesOnConditionCheckFailure ALL_OLD.
	addedOld bool
	// before and after are the item's sizes before and after the transaction, 0 when unknown
	// or absent.
	before, after int
}

// prepareTransaction parses the TransactItems of req, asks for the old item of every conditional
// item that did not, and returns what it learnt. changed reports whether req was changed.
func prepareTransaction(req map[string]json.RawMessage) (tx *transaction, changed bool) {
	var items []map[string]map[string]json.RawMessage
	if json.Unmarshal(req["TransactItems"], &items) != nil {
		return nil, false
	}
	tx = &transaction{items: make([]transactionItem, len(items))}
	_ = json.Unmarshal(req["ClientRequestToken"], &tx.token)
	for i, wrapper := range items {
		for action, body := range wrapper {
			item := transactionItem{action: action, key: body["Key"]}
			_ = json.Unmarshal(body["TableName"], &item.table)
			if action == actionPut {
				item.after = itemSize(body["Item"])
			}
			if _, conditional := body["ConditionExpression"]; conditional && absentOr(body["ReturnValuesOnConditionCheckFailure"], "NONE") {
				body["ReturnValuesOnConditionCheckFailure"] = json.RawMessage(`"ALL_OLD"`)
				item.addedOld, changed = true, true
			}
			tx.items[i] = item
		}
	}
	if changed {
		out, err := json.Marshal(items)
		if err != nil {
			return tx, false
		}
		req["TransactItems"] = out
	}
	return tx, changed
}

// sizeBefore reads, at the target, the items an Update, Delete or ConditionCheck of tx touches,
// and records their sizes. header is the client's request's: its Authorization names the
// DynamoDB Local database.
func (p *Proxy) sizeBefore(ctx context.Context, header http.Header, tx *transaction) {
	p.sizeItems(ctx, header, tx, func(item *transactionItem) *int {
		if item.key == nil {
			return nil
		}
		return &item.before
	})
}

// sizeAfter reads, at the target, the items the Updates of a committed tx wrote, and records
// their sizes.
func (p *Proxy) sizeAfter(ctx context.Context, header http.Header, tx *transaction) {
	p.sizeItems(ctx, header, tx, func(item *transactionItem) *int {
		if item.action != actionUpdate {
			return nil
		}
		return &item.after
	})
}

// sizeItems reads, at the target, the items of tx for which size gives where to record their
// size (nil: not to read), and records them: one item with a GetItem, several with one
// BatchGetItem (one request for the server instead of one per item), or with a GetItem each
// when the batch does not answer for every key (see batchSizes).
func (p *Proxy) sizeItems(ctx context.Context, header http.Header, tx *transaction, size func(*transactionItem) *int) {
	var items []*transactionItem
	var into []*int
	for i := range tx.items {
		if at := size(&tx.items[i]); at != nil {
			items, into = append(items, &tx.items[i]), append(into, at)
		}
	}
	var sizes []int
	if len(items) > 1 {
		sizes = p.batchSizes(ctx, header, items)
	}
	for i, item := range items {
		if sizes != nil && sizes[i] >= 0 {
			*into[i] = sizes[i]
		} else {
			*into[i] = p.readSize(ctx, header, item.table, item.key)
		}
	}
}

// batchSizes reads the items at the keys of items with one strongly consistent BatchGetItem and
// returns their sizes, in the order of items: 0 for an item that is absent, -1 for one the reply
// does not settle (a key with a number or binary value, which the server may store in another
// form than the request wrote it, whose item is not in the reply); nil when the batch fails or
// leaves keys unprocessed.
func (p *Proxy) batchSizes(ctx context.Context, header http.Header, items []*transactionItem) []int {
	type tableKeys struct {
		Keys           []json.RawMessage
		ConsistentRead bool
	}
	request := map[string]*tableKeys{}
	seen := map[string]bool{}
	for _, item := range items {
		if seen[item.table+"\x00"+string(item.key)] {
			continue // a batch must not name a key twice
		}
		seen[item.table+"\x00"+string(item.key)] = true
		t := request[item.table]
		if t == nil {
			t = &tableKeys{ConsistentRead: true}
			request[item.table] = t
		}
		t.Keys = append(t.Keys, item.key)
	}
	var out struct {
		Responses       map[string][]json.RawMessage
		UnprocessedKeys map[string]json.RawMessage
	}
	if !p.readTarget(ctx, header, "BatchGetItem", map[string]any{"RequestItems": request}, &out) || len(out.UnprocessedKeys) > 0 {
		return nil
	}
	found := map[string][]map[string]any{}
	for table, raws := range out.Responses {
		for _, raw := range raws {
			if v, err := oj.Parse(raw); err == nil {
				if m, ok := v.(map[string]any); ok {
					found[table] = append(found[table], m)
				}
			}
		}
	}
	sizes := make([]int, len(items))
	for i, item := range items {
		sizes[i] = -1
		v, err := oj.Parse(item.key)
		key, ok := v.(map[string]any)
		if err != nil || !ok {
			continue
		}
		if m := matchKey(found[item.table], key); m != nil {
			sizes[i] = parsedItemSize(m)
		} else if onlyStrings(key) {
			sizes[i] = 0 // a string is stored as written: the item is absent
		}
	}
	return sizes
}

// matchKey returns the item of items whose key attributes are key's, or nil.
func matchKey(items []map[string]any, key map[string]any) map[string]any {
	for _, item := range items {
		match := true
		for name, value := range key {
			if !reflect.DeepEqual(item[name], value) {
				match = false
				break
			}
		}
		if match {
			return item
		}
	}
	return nil
}

// onlyStrings reports whether every attribute of key is a string ({"S": "..."}).
func onlyStrings(key map[string]any) bool {
	for _, value := range key {
		typed, ok := value.(map[string]any)
		if _, isString := typed["S"]; !ok || !isString || len(typed) != 1 {
			return false
		}
	}
	return true
}

// readSize is the size of the item of table at key, read strongly consistent from the target;
// 0 when it is absent or cannot be read.
func (p *Proxy) readSize(ctx context.Context, header http.Header, table string, key json.RawMessage) int {
	var out struct{ Item json.RawMessage }
	if !p.readTarget(ctx, header, "GetItem", map[string]any{"TableName": table, "Key": key, "ConsistentRead": true}, &out) {
		return 0
	}
	return itemSize(out.Item)
}

// readTarget sends the target a read of operation op with the request body req, and decodes its
// reply into out; false when it cannot or the reply is not a success. header is the client's
// request's: its Authorization names the DynamoDB Local database. The proxy's own reads are not
// counted.
func (p *Proxy) readTarget(ctx context.Context, header http.Header, op string, req, out any) bool {
	body, err := json.Marshal(req)
	if err != nil {
		return false
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, p.target+"/", bytes.NewReader(body))
	if err != nil {
		return false
	}
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	r.Header.Set(targetHeader, "DynamoDB_20120810."+op)
	r.Header.Set("Authorization", header.Get("Authorization"))
	resp, err := p.upstream.Do(r)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return false
	}
	return json.Unmarshal(reply, out) == nil
}

// writeUnits is the write units of one write of an item of size bytes: ceil(size / 1 KB), at
// least 1.
func writeUnits(size int) int64 {
	return max(1, int64(math.Ceil(float64(size)/writeUnitBytes)))
}

// readUnitBytes is the item size one strongly consistent read unit covers.
const readUnitBytes = 4096

// readUnits is the read units of one strongly consistent read of an item of size bytes:
// ceil(size / 4 KB), at least 1 (a read of an absent item costs a unit too).
func readUnits(size int) int64 {
	return max(1, int64(math.Ceil(float64(size)/readUnitBytes)))
}

// committedHalves is the write units of a committed transaction, in halves: two writes of each
// item, each sized by the larger of the item before and after.
func (tx *transaction) committedHalves() int64 {
	var halves int64
	for _, item := range tx.items {
		halves += 2 * 2 * writeUnits(max(item.before, item.after))
	}
	return halves
}

// replayHalves is the read units of a replay of a committed transaction, in halves: a
// transactional read (2 units per 4 KB) of each item.
func (tx *transaction) replayHalves() int64 {
	var halves int64
	for _, item := range tx.items {
		halves += 2 * 2 * readUnits(max(item.before, item.after))
	}
	return halves
}

// cancellation is one entry of a TransactionCanceledException's CancellationReasons.
type cancellation struct {
	Code string
	Item json.RawMessage
}

// cancelledHalves is the write units of a transaction cancelled with reasons, in halves: one
// write (the prepare) of each item, sized by the existing item a failed condition returned or
// else by the read before, and a Put's new item. ok is false when the cancellation is not
// billed: no condition failed and no transaction conflicted.
func (tx *transaction) cancelledHalves(reasons []cancellation) (halves int64, ok bool) {
	for _, r := range reasons {
		ok = ok || r.Code == "ConditionalCheckFailed" || r.Code == "TransactionConflict"
	}
	if !ok {
		return 0, false
	}
	for i, item := range tx.items {
		before := item.before
		if i < len(reasons) && reasons[i].Item != nil {
			before = itemSize(reasons[i].Item)
		}
		after := 0
		if item.action == actionPut {
			after = item.after
		}
		halves += 2 * writeUnits(max(before, after))
	}
	return halves, true
}

// isTransactionCanceled reports whether an error type is a TransactionCanceledException.
func isTransactionCanceled(errType json.RawMessage) bool {
	var s string
	return json.Unmarshal(errType, &s) == nil && strings.HasSuffix(s, "TransactionCanceledException")
}

// tokens remembers the ClientRequestTokens of the transactions that committed, to tell a replay.
type tokens struct {
	mu    sync.Mutex
	seen  map[string]time.Time
	swept time.Time // when tokens older than the window were last forgotten
}

// replay reports whether token committed within the last tokenWindow before now.
func (t *tokens) replay(token string, now time.Time) bool {
	if token == "" {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	at, ok := t.seen[token]
	return ok && now.Sub(at) < tokenWindow
}

// commit records that the transaction of token committed at now, and forgets tokens older than
// the window.
func (t *tokens) commit(token string, now time.Time) {
	if token == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.seen == nil {
		t.seen = map[string]time.Time{}
	}
	if now.Sub(t.swept) >= time.Minute {
		for k, at := range t.seen {
			if now.Sub(at) >= tokenWindow {
				delete(t.seen, k)
			}
		}
		t.swept = now
	}
	t.seen[token] = now
}
