package demo_test

import "encoding/json"

// jsonString renders v as JSON.
func jsonString(v any) string {
	out, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(out)
}
