package template

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// property resolves one property of a resource. present is false when the property is absent
// or resolves to AWS::NoValue.
func (r *resolver) property(id string, res rawResource, name string) (value any, present bool, err error) {
	raw, ok := res.Properties[name]
	if !ok {
		return nil, false, nil
	}
	v, err := r.resolve(propertySite(id, name), raw)
	if err != nil {
		return nil, false, err
	}
	if _, absent := v.(noValue); absent {
		return nil, false, nil
	}
	return v, true, nil
}

func propertySite(id, name string) site { return site{id, "Properties." + name} }

// stringProperty resolves a scalar property to a string, or returns def when it is absent.
func (r *resolver) stringProperty(id string, res rawResource, name, def string) (string, error) {
	v, present, err := r.property(id, res, name)
	if err != nil || !present {
		return def, err
	}
	str, ok := scalarString(v)
	if !ok {
		return "", propertySite(id, name).failf(ErrInvalidProperty, "%s must be a string", name)
	}
	return str, nil
}

// intProperty resolves an integer property (a JSON number or a numeric string), or returns def
// when it is absent.
func (r *resolver) intProperty(id string, res rawResource, name string, def int) (int, error) {
	n, err := r.optionalIntProperty(id, res, name)
	if err != nil || n == nil {
		return def, err
	}
	return *n, nil
}

// optionalIntProperty is intProperty for properties whose absence matters: nil when absent.
func (r *resolver) optionalIntProperty(id string, res rawResource, name string) (*int, error) {
	v, present, err := r.property(id, res, name)
	if err != nil || !present {
		return nil, err
	}
	n, ok := toInt(v)
	if !ok {
		return nil, propertySite(id, name).failf(ErrInvalidProperty, "%s must be an integer", name)
	}
	return &n, nil
}

// secondsProperty resolves an integer property counting seconds.
func (r *resolver) secondsProperty(id string, res rawResource, name string, def int) (time.Duration, error) {
	n, err := r.intProperty(id, res, name, def)
	return time.Duration(n) * time.Second, err
}

// boolProperty resolves a boolean property (true/false or "true"/"false"), or returns def when
// it is absent.
func (r *resolver) boolProperty(id string, res rawResource, name string, def bool) (bool, error) {
	v, present, err := r.property(id, res, name)
	if err != nil || !present {
		return def, err
	}
	b, ok := toBool(v)
	if !ok {
		return false, propertySite(id, name).failf(ErrInvalidProperty, "%s must be a boolean", name)
	}
	return b, nil
}

// decodeProperty resolves a property and decodes it into dst (a pointer to a struct or slice
// whose JSON field names are the CloudFormation property names). present is false when the
// property is absent.
func (r *resolver) decodeProperty(id string, res rawResource, name string, dst any) (present bool, err error) {
	v, present, err := r.property(id, res, name)
	if err != nil || !present {
		return false, err
	}
	if err := decodeValue(v, dst); err != nil {
		return false, propertySite(id, name).failf(ErrInvalidProperty, "%s: %v", name, err)
	}
	return true, nil
}

// decodeValue converts a resolved JSON value into a typed Go value; fields the target type
// does not model are ignored.
func decodeValue(v, dst any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.NewDecoder(bytes.NewReader(data)).Decode(dst)
}

// toInt converts a JSON number or numeric string to an int.
func toInt(v any) (int, bool) {
	text, ok := scalarString(v)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(text)
	return n, err == nil
}

// toBool converts a JSON boolean or "true"/"false" to a bool.
func toBool(v any) (bool, bool) {
	switch t := v.(type) {
	case bool:
		return t, true
	case string:
		b, err := strconv.ParseBool(t)
		return b, err == nil
	}
	return false, false
}
