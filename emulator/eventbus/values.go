package eventbus

import (
	"bytes"
	"encoding/json"
)

// toJSONValue turns a pattern or an event given as JSON text ([]byte, json.RawMessage, string)
// or as Go data into generic JSON data (objects are map[string]any, numbers json.Number).
func toJSONValue(v any) (any, error) {
	var data []byte
	switch t := v.(type) {
	case map[string]any:
		return t, nil
	case json.RawMessage:
		data = t
	case []byte:
		data = t
	case string:
		data = []byte(t)
	default:
		var err error
		if data, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// toNumber converts a JSON number in any of its Go representations to float64.
func toNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case uint64:
		return float64(n), true
	}
	return 0, false
}
