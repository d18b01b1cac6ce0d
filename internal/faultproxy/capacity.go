package faultproxy

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"hash/crc32"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/ohler55/ojg/oj"
)

// The proxy accounts for the capacity units DynamoDB bills. It asks the server for them: a
// request of a data operation that lacks ReturnConsumedCapacity (or sets NONE) is forwarded with
// TOTAL, and the reply has its ConsumedCapacity removed again, so the client sees what it asked
// for. A conditional PutItem, UpdateItem or DeleteItem also gets
// ReturnValuesOnConditionCheckFailure ALL_OLD, removed from the reply the same way: a
// ConditionalCheckFailedException carries no ConsumedCapacity, but DynamoDB bills a failed
// conditional write as a write of the existing item, ceil(size / 1 KB) write units, at least 1.
// The proxy computes that from the item the reply returns (no item: 1 unit).
//
// Two operations the proxy bills itself, because DynamoDB Local reports them otherwise than the
// developer guide's "DynamoDB read and write operations" says DynamoDB bills them:
// TransactWriteItems (see transact.go: committed, cancelled and replayed transactions), and
// BatchGetItem, which bills each key as a GetItem: ceil(size / 4 KB) units for an item found,
// 1 unit for a key with no item (DynamoDB Local counts none), halved when eventually
// consistent. Query, Scan, GetItem, TransactGetItems and the single-item writes are counted as
// the server reports them.
//
// The largest item is the largest seen in a reply: items read, returned by a write that asked
// for them, or returned by a failed condition (a lock under contention sees many of those); and
// the items a transaction wrote or found, as the proxy sized them (see transact.go).
//
// Item sizes follow "DynamoDB item sizes and formats" in the DynamoDB developer guide.

// crc32Header is the reply header the AWS SDK checks the reply body against.
const crc32Header = "X-Amz-Crc32"

// writeUnitBytes is the item size one write unit covers.
const writeUnitBytes = 1024

// operationKind tells how the proxy accounts for a DynamoDB operation.
type operationKind int

const (
	notData operationKind = iota // table management and the like: no capacity to account for
	readOp
	writeOp
	itemWriteOp // PutItem, UpdateItem, DeleteItem: one item, maybe conditional
)

var operationKinds = map[string]operationKind{
	"GetItem": readOp, "BatchGetItem": readOp, "Query": readOp, "Scan": readOp, "TransactGetItems": readOp,
	"PutItem": itemWriteOp, "UpdateItem": itemWriteOp, "DeleteItem": itemWriteOp,
	"BatchWriteItem": writeOp, "TransactWriteItems": writeOp,
}

// billedByProxy are the operations whose capacity the proxy computes itself rather than ask the
// server for.
var billedByProxy = map[string]bool{"TransactWriteItems": true, "BatchGetItem": true}

// capacityCounters are the live capacity counts behind Stats. Units are counted in halves: an
// eventually consistent read of up to 4 KB is half a unit.
type capacityCounters struct {
	readHalves, writeHalves, failedWrites, failedWriteHalves, largestItem atomic.Int64
	tokens                                                                tokens
}

// added records which fields the proxy added to a request, to take their answers out of the
// reply, and what it learnt of the request to bill it.
type added struct {
	capacity, oldOnFailure bool
	// tx is the items of a TransactWriteItems, nil for other operations.
	tx *transaction
	// batch is the keys of a BatchGetItem, nil for other operations.
	batch *batchGet
}

// batchGet is what a BatchGetItem asked for: by table, the number of keys and whether the reads
// are strongly consistent.
type batchGet map[string]batchTable

// batchTable is what a BatchGetItem asked of one table.
type batchTable struct {
	keys       int
	consistent bool
}

// parseBatchGet reads the RequestItems of a BatchGetItem request; nil when it cannot.
func parseBatchGet(req map[string]json.RawMessage) *batchGet {
	var items map[string]struct {
		Keys           []json.RawMessage
		ConsistentRead bool
	}
	if json.Unmarshal(req["RequestItems"], &items) != nil {
		return nil
	}
	b := batchGet{}
	for table, t := range items {
		b[table] = batchTable{keys: len(t.Keys), consistent: t.ConsistentRead}
	}
	return &b
}

// halves is the read units of the BatchGetItem reply, in halves: per key answered, a GetItem
// of the item found (ceil(size / 4 KB) units) or of no item (1 unit), halved when eventually
// consistent. Unprocessed keys cost nothing.
func (b batchGet) halves(reply map[string]json.RawMessage) int64 {
	var found map[string][]json.RawMessage
	_ = json.Unmarshal(reply["Responses"], &found)
	var unprocessed map[string]struct{ Keys []json.RawMessage }
	_ = json.Unmarshal(reply["UnprocessedKeys"], &unprocessed)
	var halves int64
	for table, t := range b {
		units := int64(max(0, t.keys-len(found[table])-len(unprocessed[table].Keys)))
		for _, item := range found[table] {
			units += readUnits(itemSize(item))
		}
		if t.consistent {
			units *= 2
		}
		halves += units
	}
	return halves
}

// prepare returns the request body to forward for operation op, with the fields that make the
// server report capacity and item sizes, and what it added. A body it cannot read as a JSON
// object is forwarded unchanged.
func prepare(op string, body []byte) ([]byte, added) {
	kind := operationKinds[op]
	if kind == notData {
		return body, added{}
	}
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		return body, added{}
	}
	var a added
	if absentOr(req["ReturnConsumedCapacity"], "NONE") && !billedByProxy[op] {
		req["ReturnConsumedCapacity"], a.capacity = json.RawMessage(`"TOTAL"`), true
	}
	changed := a.capacity
	switch op {
	case "PutItem", "UpdateItem", "DeleteItem":
		_, conditional := req["ConditionExpression"]
		_, expected := req["Expected"]
		if (conditional || expected) && absentOr(req["ReturnValuesOnConditionCheckFailure"], "NONE") {
			req["ReturnValuesOnConditionCheckFailure"], a.oldOnFailure = json.RawMessage(`"ALL_OLD"`), true
			changed = true
		}
	case "TransactWriteItems":
		var txChanged bool
		a.tx, txChanged = prepareTransaction(req)
		changed = changed || txChanged
	case "BatchGetItem":
		a.batch = parseBatchGet(req)
	}
	if !changed {
		return body, a
	}
	out, err := json.Marshal(req)
	if err != nil {
		return body, added{}
	}
	return out, a
}

// absentOr reports whether a request field is missing, null, or the JSON string want.
func absentOr(field json.RawMessage, want string) bool {
	if field == nil || string(field) == "null" {
		return true
	}
	var s string
	return json.Unmarshal(field, &s) == nil && s == want
}

// account counts the capacity and item sizes of the reply to operation op, and returns the reply
// body the client should see: without the answers to the fields the proxy added. header is
// updated to match a changed body. now tells a transaction's replay.
func (c *capacityCounters) account(op string, a added, status int, header http.Header, body []byte, now time.Time) []byte {
	kind := operationKinds[op]
	if kind == notData {
		return body
	}
	var reply map[string]json.RawMessage
	if err := json.Unmarshal(body, &reply); err != nil {
		return body
	}
	changed := false
	switch {
	case status == http.StatusOK && a.tx != nil:
		for _, item := range a.tx.items {
			c.noteItem(max(item.before, item.after))
		}
		if c.tokens.replay(a.tx.token, now) {
			c.readHalves.Add(a.tx.replayHalves())
		} else {
			c.writeHalves.Add(a.tx.committedHalves())
			c.tokens.commit(a.tx.token, now)
		}
	case status == http.StatusOK && a.batch != nil:
		c.readHalves.Add(a.batch.halves(reply))
	case status == http.StatusOK && kind == readOp:
		c.readHalves.Add(consumedHalves(reply["ConsumedCapacity"]))
	case status == http.StatusOK:
		c.writeHalves.Add(consumedHalves(reply["ConsumedCapacity"]))
	case kind == itemWriteOp && isConditionalCheckFailed(reply["__type"]):
		c.failed(2 * writeUnits(itemSize(reply["Item"]))) // no item: size 0, 1 unit
	case a.tx != nil && isTransactionCanceled(reply["__type"]):
		for _, item := range a.tx.items {
			c.noteItem(item.before)
		}
		changed = c.cancelled(a.tx, reply)
	}
	for _, field := range []string{"Item", "Attributes"} {
		c.noteItem(itemSize(reply[field]))
	}
	c.noteItem(largestItemSize(reply["Items"]))
	c.noteResponses(reply["Responses"])

	remove := func(field string, when bool) {
		if _, ok := reply[field]; ok && when {
			delete(reply, field)
			changed = true
		}
	}
	remove("ConsumedCapacity", a.capacity)
	remove("Item", a.oldOnFailure && status != http.StatusOK)
	if !changed {
		return body
	}
	out, err := json.Marshal(reply)
	if err != nil {
		return body
	}
	header.Set(crc32Header, strconv.FormatUint(uint64(crc32.ChecksumIEEE(out)), 10))
	header.Set("Content-Length", strconv.Itoa(len(out)))
	return out
}

// failed counts a failed conditional write of halves half units.
func (c *capacityCounters) failed(halves int64) {
	c.failedWrites.Add(1)
	c.failedWriteHalves.Add(halves)
	c.writeHalves.Add(halves)
}

// cancelled counts the cancelled transaction tx, notes the items its cancellation reasons return,
// and takes out of reply the items the proxy asked for. It reports whether reply changed.
func (c *capacityCounters) cancelled(tx *transaction, reply map[string]json.RawMessage) bool {
	var reasons []cancellation
	_ = json.Unmarshal(reply["CancellationReasons"], &reasons)
	if halves, ok := tx.cancelledHalves(reasons); ok {
		c.failed(halves)
	}
	var raw []map[string]json.RawMessage
	if json.Unmarshal(reply["CancellationReasons"], &raw) != nil {
		return false
	}
	changed := false
	for i, reason := range raw {
		c.noteItem(itemSize(reason["Item"]))
		if _, ok := reason["Item"]; ok && i < len(tx.items) && tx.items[i].addedOld {
			delete(reason, "Item")
			changed = true
		}
	}
	if !changed {
		return false
	}
	out, err := json.Marshal(raw)
	if err != nil {
		return false
	}
	reply["CancellationReasons"] = out
	return true
}

// noteResponses notes the items of a Responses field: BatchGetItem's (a list of items per table)
// or TransactGetItems' (a list of {"Item": ...}).
func (c *capacityCounters) noteResponses(raw json.RawMessage) {
	var byTable map[string][]json.RawMessage
	if json.Unmarshal(raw, &byTable) == nil {
		for _, items := range byTable {
			for _, item := range items {
				c.noteItem(itemSize(item))
			}
		}
		return
	}
	var gets []struct{ Item json.RawMessage }
	if json.Unmarshal(raw, &gets) == nil {
		for _, g := range gets {
			c.noteItem(itemSize(g.Item))
		}
	}
}

// noteItem raises the largest item size seen to size.
func (c *capacityCounters) noteItem(size int) {
	for {
		cur := c.largestItem.Load()
		if int64(size) <= cur || c.largestItem.CompareAndSwap(cur, int64(size)) {
			return
		}
	}
}

// isConditionalCheckFailed reports whether an error type is a ConditionalCheckFailedException
// ("com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException" or the bare name).
func isConditionalCheckFailed(errType json.RawMessage) bool {
	var s string
	return json.Unmarshal(errType, &s) == nil && strings.HasSuffix(s, "ConditionalCheckFailedException")
}

// consumedHalves sums the CapacityUnits of a ConsumedCapacity (an object, or a list of them for
// the batch and transaction operations), in half units.
func consumedHalves(raw json.RawMessage) int64 {
	type consumed struct{ CapacityUnits float64 }
	var list []consumed
	if raw == nil {
		return 0
	}
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		if json.Unmarshal(raw, &list) != nil {
			return 0
		}
	} else {
		var one consumed
		if json.Unmarshal(raw, &one) != nil {
			return 0
		}
		list = []consumed{one}
	}
	var units float64
	for _, c := range list {
		units += c.CapacityUnits
	}
	return int64(math.Round(units * 2))
}

// itemSize is the size DynamoDB counts for an item in the JSON wire format (a map of attribute
// names to typed values): the names' UTF-8 lengths plus the values' sizes. 0 for no item. The
// item is parsed once (with ojg, several times faster than encoding/json into maps) and sized
// from the tree.
func itemSize(raw json.RawMessage) int {
	if raw == nil {
		return 0
	}
	v, err := oj.Parse(raw)
	if err != nil {
		return 0
	}
	return parsedItemSize(v)
}

// largestItemSize is the size of the largest item of a JSON list of items (a Query's or Scan's
// Items); 0 for no list.
func largestItemSize(raw json.RawMessage) int {
	if raw == nil {
		return 0
	}
	v, err := oj.Parse(raw)
	if err != nil {
		return 0
	}
	items, _ := v.([]any)
	largest := 0
	for _, item := range items {
		largest = max(largest, parsedItemSize(item))
	}
	return largest
}

// parsedItemSize is itemSize of a parsed item; 0 unless every attribute is a typed value (an
// object).
func parsedItemSize(v any) int {
	item, _ := v.(map[string]any)
	size := 0
	for name, value := range item {
		typed, ok := value.(map[string]any)
		if !ok {
			return 0
		}
		size += len(name) + valueSize(typed)
	}
	return size
}

// valueSize is the size of one typed attribute value ({"S": "..."}, {"N": "..."}, ...). A list
// or map costs 3 bytes plus 1 byte and the size of each element; a set the sum of its elements.
func valueSize(value map[string]any) int {
	for typ, v := range value {
		switch typ {
		case "S", "N", "B":
			s, _ := v.(string)
			return scalarSize(typ, s)
		case "BOOL", "NULL":
			return 1
		case "SS", "NS", "BS":
			elems, _ := v.([]any)
			size := 0
			for _, e := range elems {
				s, _ := e.(string)
				size += scalarSize(typ[:1], s)
			}
			return size
		case "L":
			elems, _ := v.([]any)
			size := 3
			for _, e := range elems {
				typed, _ := e.(map[string]any)
				size += 1 + valueSize(typed)
			}
			return size
		case "M":
			elems, _ := v.(map[string]any)
			size := 3
			for name, e := range elems {
				typed, _ := e.(map[string]any)
				size += 1 + len(name) + valueSize(typed)
			}
			return size
		}
	}
	return 0
}

// scalarSize is the size of a string (S), number (N) or base64-encoded binary (B) value.
func scalarSize(typ, s string) int {
	switch typ {
	case "N":
		return numberSize(s)
	case "B":
		return base64.StdEncoding.DecodedLen(len(s)) - strings.Count(s, "=")
	}
	return len(s)
}

// numberSize is the size of a number: 1 byte per two significant digits, plus 1 (leading and
// trailing zeros, the sign, the decimal point and the exponent do not count).
func numberSize(n string) int {
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		n = n[:i]
	}
	n = strings.TrimLeft(n, "+-")
	if i := strings.IndexByte(n, '.'); i >= 0 {
		n = n[:i] + n[i+1:]
	}
	digits := utf8.RuneCountInString(strings.Trim(n, "0"))
	return (digits+1)/2 + 1
}

// addTo copies the capacity counts into s.
func (c *capacityCounters) addTo(s *Stats) {
	s.ReadUnits = float64(c.readHalves.Load()) / 2
	s.WriteUnits = float64(c.writeHalves.Load()) / 2
	s.FailedConditionalWrites = c.failedWrites.Load()
	s.FailedConditionalWriteUnits = float64(c.failedWriteHalves.Load()) / 2
	s.LargestItemBytes = c.largestItem.Load()
}

// operation returns the operation named by an X-Amz-Target header value such as
// "DynamoDB_20120810.UpdateItem".
func operation(target string) string {
	_, op, _ := strings.Cut(target, ".")
	return op
}
