package template

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// intrinsic evaluates one intrinsic function; s is the site of the function key.
func (r *resolver) intrinsic(s site, name string, arg any) (any, error) {
	switch name {
	case "Ref":
		refName, ok := arg.(string)
		if !ok {
			return nil, s.failf(ErrInvalidIntrinsic, "Ref takes a string")
		}
		return r.ref(s, refName)
	case "Fn::GetAtt":
		return r.getAtt(s, arg)
	case "Fn::Join":
		return r.join(s, arg)
	case "Fn::Sub":
		return r.sub(s, arg)
	case "Fn::Select":
		return r.selectElement(s, arg)
	case "Fn::Split":
		return r.split(s, arg)
	case "Fn::If":
		return r.ifThenElse(s, arg)
	case "Fn::Base64":
		return r.base64(s, arg)
	case "Fn::GetAZs":
		return r.availabilityZones(s, arg)
	case "Fn::FindInMap":
		return r.findInMap(s, arg)
	}
	return nil, s.failf(ErrUnsupportedIntrinsic, "%s", name)
}

// args resolves an intrinsic's argument list and checks its length.
func (r *resolver) args(s site, name string, arg any, want int) ([]any, error) {
	list, ok := arg.([]any)
	if !ok || len(list) != want {
		return nil, s.failf(ErrInvalidIntrinsic, "%s takes a list of %d arguments", name, want)
	}
	out := make([]any, len(list))
	for i, item := range list {
		v, err := r.resolve(s.index(i), item)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// join evaluates {"Fn::Join": [delimiter, [values...]]}.
func (r *resolver) join(s site, arg any) (any, error) {
	args, err := r.args(s, "Fn::Join", arg, 2)
	if err != nil {
		return nil, err
	}
	delimiter, ok := args[0].(string)
	if !ok {
		return nil, s.index(0).failf(ErrInvalidIntrinsic, "Fn::Join delimiter must be a string")
	}
	values, ok := args[1].([]any)
	if !ok {
		return nil, s.index(1).failf(ErrInvalidIntrinsic, "Fn::Join values must be a list")
	}
	parts := make([]string, len(values))
	for i, v := range values {
		if parts[i], ok = scalarString(v); !ok {
			return nil, s.index(1).index(i).failf(ErrInvalidIntrinsic, "Fn::Join value is not a string")
		}
	}
	return strings.Join(parts, delimiter), nil
}

// sub evaluates {"Fn::Sub": "template"} and {"Fn::Sub": ["template", {vars}]}.
func (r *resolver) sub(s site, arg any) (any, error) {
	var text string
	vars := map[string]string{}
	switch t := arg.(type) {
	case string:
		text = t
	case []any:
		if len(t) != 2 {
			return nil, s.failf(ErrInvalidIntrinsic, "Fn::Sub takes a string or [string, variables]")
		}
		var ok bool
		if text, ok = t[0].(string); !ok {
			return nil, s.index(0).failf(ErrInvalidIntrinsic, "Fn::Sub template must be a string")
		}
		raw, ok := t[1].(map[string]any)
		if !ok {
			return nil, s.index(1).failf(ErrInvalidIntrinsic, "Fn::Sub variables must be an object")
		}
		for _, k := range sortedKeys(raw) {
			v, err := r.resolve(s.index(1).key(k), raw[k])
			if err != nil {
				return nil, err
			}
			if vars[k], ok = scalarString(v); !ok {
				return nil, s.index(1).key(k).failf(ErrInvalidIntrinsic, "Fn::Sub variable is not a string")
			}
		}
	default:
		return nil, s.failf(ErrInvalidIntrinsic, "Fn::Sub takes a string or [string, variables]")
	}
	return r.substitute(s, text, vars)
}

// substitute replaces ${Name}, ${Logical.Attr} and ${!Literal} in an Fn::Sub template.
func (r *resolver) substitute(s site, text string, vars map[string]string) (string, error) {
	var b strings.Builder
	for {
		start := strings.Index(text, "${")
		if start < 0 {
			b.WriteString(text)
			return b.String(), nil
		}
		b.WriteString(text[:start])
		rest := text[start+2:]
		if literal, ok := strings.CutPrefix(rest, "!"); ok {
			b.WriteString("${")
			text = literal
			continue
		}
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return "", s.failf(ErrInvalidIntrinsic, "Fn::Sub: unclosed ${ in %q", text)
		}
		value, err := r.subVariable(s, strings.TrimSpace(rest[:end]), vars)
		if err != nil {
			return "", err
		}
		b.WriteString(value)
		text = rest[end+1:]
	}
}

// subVariable evaluates one ${...} of Fn::Sub.
func (r *resolver) subVariable(s site, name string, vars map[string]string) (string, error) {
	if v, ok := vars[name]; ok {
		return v, nil
	}
	var v any
	var err error
	if id, attr, isAttr := strings.Cut(name, "."); isAttr && !strings.Contains(id, "::") {
		v, err = r.getAtt(s, []any{id, attr})
	} else {
		v, err = r.ref(s, name)
	}
	if err != nil {
		return "", err
	}
	str, ok := scalarString(v)
	if !ok {
		return "", s.failf(ErrInvalidIntrinsic, "Fn::Sub variable ${%s} is not a string", name)
	}
	return str, nil
}

// selectElement evaluates {"Fn::Select": [index, [values...]]}.
func (r *resolver) selectElement(s site, arg any) (any, error) {
	args, err := r.args(s, "Fn::Select", arg, 2)
	if err != nil {
		return nil, err
	}
	indexText, ok := scalarString(args[0])
	index, convErr := strconv.Atoi(indexText)
	if !ok || convErr != nil {
		return nil, s.index(0).failf(ErrInvalidIntrinsic, "Fn::Select index must be an integer")
	}
	values, ok := args[1].([]any)
	if !ok {
		return nil, s.index(1).failf(ErrInvalidIntrinsic, "Fn::Select values must be a list")
	}
	if index < 0 || index >= len(values) {
		return nil, s.index(0).failf(ErrInvalidIntrinsic, "Fn::Select index %d out of range [0, %d)", index, len(values))
	}
	return values[index], nil
}

// split evaluates {"Fn::Split": [delimiter, source]}.
func (r *resolver) split(s site, arg any) (any, error) {
	args, err := r.args(s, "Fn::Split", arg, 2)
	if err != nil {
		return nil, err
	}
	delimiter, okDelim := args[0].(string)
	source, okSource := args[1].(string)
	if !okDelim || !okSource {
		return nil, s.failf(ErrInvalidIntrinsic, "Fn::Split takes [delimiter, string]")
	}
	parts := strings.Split(source, delimiter)
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out, nil
}

// ifThenElse evaluates {"Fn::If": [condition, valueIfTrue, valueIfFalse]}; only the chosen
// branch is resolved.
func (r *resolver) ifThenElse(s site, arg any) (any, error) {
	list, ok := arg.([]any)
	if !ok || len(list) != 3 {
		return nil, s.failf(ErrInvalidIntrinsic, "Fn::If takes [condition, valueIfTrue, valueIfFalse]")
	}
	name, ok := list[0].(string)
	if !ok {
		return nil, s.index(0).failf(ErrInvalidIntrinsic, "Fn::If condition must be a condition name")
	}
	holds, err := r.condition(s.index(0), name)
	if err != nil {
		return nil, err
	}
	if holds {
		return r.resolve(s.index(1), list[1])
	}
	return r.resolve(s.index(2), list[2])
}

// base64 evaluates {"Fn::Base64": string}.
func (r *resolver) base64(s site, arg any) (any, error) {
	v, err := r.resolve(s, arg)
	if err != nil {
		return nil, err
	}
	text, ok := v.(string)
	if !ok {
		return nil, s.failf(ErrInvalidIntrinsic, "Fn::Base64 takes a string")
	}
	return base64.StdEncoding.EncodeToString([]byte(text)), nil
}

// availabilityZones evaluates {"Fn::GetAZs": region} as three zones a, b and c of the region.
func (r *resolver) availabilityZones(s site, arg any) (any, error) {
	v, err := r.resolve(s, arg)
	if err != nil {
		return nil, err
	}
	region, ok := v.(string)
	if !ok {
		return nil, s.failf(ErrInvalidIntrinsic, "Fn::GetAZs takes a region name")
	}
	if region == "" {
		region = r.stack.region
	}
	return []any{region + "a", region + "b", region + "c"}, nil
}

// findInMap evaluates {"Fn::FindInMap": [map, topLevelKey, secondLevelKey]}.
func (r *resolver) findInMap(s site, arg any) (any, error) {
	args, err := r.args(s, "Fn::FindInMap", arg, 3)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 3)
	for i, a := range args {
		var ok bool
		if keys[i], ok = scalarString(a); !ok {
			return nil, s.index(i).failf(ErrInvalidIntrinsic, "Fn::FindInMap keys must be strings")
		}
	}
	var node any = r.tpl.Mappings
	for _, k := range keys {
		m, ok := node.(map[string]any)
		if !ok {
			return nil, s.failf(ErrUnknownReference, "Fn::FindInMap %s", strings.Join(keys, "."))
		}
		if node, ok = m[k]; !ok {
			return nil, s.failf(ErrUnknownReference, "Fn::FindInMap %s", strings.Join(keys, "."))
		}
	}
	return node, nil
}
