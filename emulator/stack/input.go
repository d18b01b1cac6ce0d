package stack

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ohler55/ojg/jp"
	"github.com/ohler55/ojg/oj"

	"github.com/turnstile-sfn/turnstile/emulator/template"
)

// ErrTargetInput is wrapped by the errors of a target's input shaping (InputPath,
// InputTransformer).
var ErrTargetInput = errors.New("stack: cannot shape the target's input")

// targetInput returns the text a rule target receives for an event, as EventBridge shapes it:
// the constant Input, the part of the event selected by InputPath, the InputTransformer's
// template filled in from the event, or the whole event.
func targetInput(t template.Target, event []byte) (string, error) {
	switch {
	case t.Input != "":
		return t.Input, nil
	case t.InputPath != "":
		doc, err := oj.Parse(event)
		if err != nil {
			return "", fmt.Errorf("%w: the event is not JSON: %v", ErrTargetInput, err)
		}
		v, err := selectPath(doc, t.InputPath)
		if err != nil {
			return "", err
		}
		return oj.JSON(v, &oj.Options{Sort: true}), nil
	case t.InputTransformer != nil:
		return transformInput(*t.InputTransformer, event)
	default:
		return string(event), nil
	}
}

// selectPath returns the value at path in doc, or nil when it selects nothing.
func selectPath(doc any, path string) (any, error) {
	x, err := jp.ParseString(path)
	if err != nil {
		return nil, fmt.Errorf("%w: invalid path %q: %v", ErrTargetInput, path, err)
	}
	found := x.Get(doc)
	if len(found) == 0 {
		return nil, nil
	}
	return found[0], nil
}

// transformInput fills the transformer's template: a <variable> inside a JSON string is replaced
// by the value's text, anywhere else by its JSON. Unknown variables stay as written, as
// EventBridge leaves them.
func transformInput(tr template.InputTransformer, event []byte) (string, error) {
	doc, err := oj.Parse(event)
	if err != nil {
		return "", fmt.Errorf("%w: the event is not JSON: %v", ErrTargetInput, err)
	}
	names := make([]string, 0, len(tr.InputPathsMap))
	for name := range tr.InputPathsMap {
		names = append(names, name)
	}
	sort.Strings(names)
	out := tr.InputTemplate
	for _, name := range names {
		v, err := selectPath(doc, tr.InputPathsMap[name])
		if err != nil {
			return "", err
		}
		out = replaceVariable(out, "<"+name+">", v)
	}
	return out, nil
}

// replaceVariable replaces every placeholder in tmpl, choosing the value's plain text inside a
// JSON string and its JSON elsewhere.
func replaceVariable(tmpl, placeholder string, v any) string {
	var b strings.Builder
	inString := false
	for i := 0; i < len(tmpl); {
		if strings.HasPrefix(tmpl[i:], placeholder) {
			b.WriteString(render(v, inString))
			i += len(placeholder)
			continue
		}
		c := tmpl[i]
		if c == '"' && (i == 0 || tmpl[i-1] != '\\') {
			inString = !inString
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

func render(v any, inString bool) string {
	if s, ok := v.(string); ok && inString {
		quoted, _ := json.Marshal(s)
		return string(quoted[1 : len(quoted)-1])
	}
	if v == nil {
		return "null"
	}
	text := oj.JSON(v, &oj.Options{Sort: true})
	if inString {
		quoted, _ := json.Marshal(text)
		return string(quoted[1 : len(quoted)-1])
	}
	return text
}
