package intrinsic

import (
	"github.com/ohler55/ojg"
	"github.com/ohler55/ojg/oj"
)

// stringToJSON implements States.StringToJson(string): the parsed JSON value. As on AWS, an
// empty or blank string parses to null.
func stringToJSON(inv invocation) (any, error) {
	s, ok := inv.args[0].(string)
	if !ok {
		return nil, ErrInvalidArguments
	}
	v, err := oj.ParseString(s, ojg.NumConvFloat64)
	if err != nil {
		return nil, ErrInvalidArguments
	}
	return v, nil
}

// jsonToString implements States.JsonToString(value): the value as compact JSON text, written as
// AWS writes it (see appendJSON).
func jsonToString(inv invocation) (any, error) {
	return string(appendJSON(nil, inv.args[0])), nil
}

// jsonMerge implements States.JsonMerge(object, object, false): a shallow merge where the second
// object's keys win. AWS supports only the shallow mode: a third argument other than false is
// an invalid argument.
func jsonMerge(inv invocation) (any, error) {
	first, okFirst := inv.args[0].(map[string]any)
	second, okSecond := inv.args[1].(map[string]any)
	deep, okDeep := inv.args[2].(bool)
	if !okFirst || !okSecond || !okDeep || deep {
		return nil, ErrInvalidArguments
	}
	merged := make(map[string]any, len(first)+len(second))
	for k, v := range first {
		merged[k] = v
	}
	for k, v := range second {
		merged[k] = v
	}
	return merged, nil
}
