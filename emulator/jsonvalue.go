package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// MaxPayloadBytes is the largest state input, state output or execution input Step Functions
// accepts: 256 KiB of UTF-8 JSON.
const MaxPayloadBytes = 256 * 1024

// encodeJSON renders a JSON value compactly, objects in their member order, without escaping HTML
// characters, as Step Functions shows payloads.
func encodeJSON(v any) string {
	buf := encodeBuffers.Get().(*[]byte)
	defer encodeBuffers.Put(buf)
	out, err := jsonvalue.Append((*buf)[:0], v)
	if cap(out) <= maxPooledBuffer {
		*buf = out
	}
	if err != nil {
		// Only non-JSON values (channels, NaN) fail, and normalizeValue never produces them.
		return fmt.Sprintf("%q", err.Error())
	}
	return string(out)
}

// encodeBuffers holds encodeJSON's scratch buffers, so that rendering a payload allocates only
// its string.
var encodeBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBuffer is the largest buffer encodeJSON keeps: a state's payload limit.
const maxPooledBuffer = MaxPayloadBytes

// normalizeValue turns any Go value an integration returns into the interpreter's JSON value
// model (package jsonvalue) through a JSON round trip, so that the interpreter never shares
// mutable data with an integration. Objects keep the member order the value marshals with.
func normalizeValue(v any) (any, error) {
	switch v.(type) {
	case nil, string, bool, int64, float64:
		return v, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("the result is not JSON: %w", err)
	}
	return jsonvalue.Decode(buf.Bytes())
}

// toFloat returns a JSON number as float64.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

// toInteger returns a JSON number that holds an integral value as int64.
func toInteger(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return int64(x), true
		}
	}
	return 0, false
}

// describeValue renders a value inside an error cause: strings as they are, everything else as
// JSON.
func describeValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return encodeJSON(v)
}
