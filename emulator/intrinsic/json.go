package intrinsic

import (
	"strings"

	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// stringToJSON implements States.StringToJson(string): the parsed JSON value. As on AWS, an
// empty or blank string parses to null.
func stringToJSON(inv invocation) (any, error) {
	s, ok := inv.args[0].(string)
	if !ok {
		return nil, ErrInvalidArguments
	}
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	v, err := jsonvalue.Decode([]byte(s))
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
// object's keys win. The merged object lists its members as a Java HashMap iterates them
// (jsonvalue.HashMapOrder), not in the order of its arguments: AWS's recorded merge of
// {"a","b","d"} and {"a","c","d"} is {"a","b","c","d"}. AWS supports only the shallow mode: a third argument other than false is
// an invalid argument.
func jsonMerge(inv invocation) (any, error) {
	first, okFirst := inv.args[0].(*jsonvalue.Object)
	second, okSecond := inv.args[1].(*jsonvalue.Object)
	deep, okDeep := inv.args[2].(bool)
	if !okFirst || !okSecond || !okDeep || deep {
		return nil, ErrInvalidArguments
	}
	union := first.Clone(second.Len())
	for _, k := range second.Keys() {
		v, _ := second.ValueForKey(k)
		union.SetValueForKey(k, v)
	}
	merged := jsonvalue.NewObject(union.Len())
	for _, k := range jsonvalue.HashMapOrder(union.Keys()) {
		v, _ := union.ValueForKey(k)
		merged.SetValueForKey(k, v)
	}
	return merged, nil
}
