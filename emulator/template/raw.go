package template

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// rawTemplate is a CloudFormation template as decoded from JSON, before any resolution. Numbers
// are kept as json.Number so that definitions re-encode them exactly. The Rules section (CDK's
// bootstrap-version check), Outputs and Metadata are not needed to run the stack and are ignored.
type rawTemplate struct {
	Parameters map[string]rawParameter `json:"Parameters"`
	Conditions map[string]any          `json:"Conditions"`
	Mappings   map[string]any          `json:"Mappings"`
	Resources  map[string]rawResource  `json:"Resources"`
}

// rawParameter is a template parameter.
type rawParameter struct {
	Type    string `json:"Type"`
	Default any    `json:"Default"`
}

// rawResource is one entry of the Resources section.
type rawResource struct {
	Type       string         `json:"Type"`
	Properties map[string]any `json:"Properties"`
	DependsOn  any            `json:"DependsOn"`
	Condition  string         `json:"Condition"`
	Metadata   map[string]any `json:"Metadata"`
}

// cdkPathKey is the metadata key under which CDK records a resource's construct path.
const cdkPathKey = "aws:cdk:path"

// parseRawTemplate decodes a template document.
func parseRawTemplate(data []byte) (*rawTemplate, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var tpl rawTemplate
	if err := dec.Decode(&tpl); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidTemplate, err)
	}
	if tpl.Resources == nil {
		return nil, fmt.Errorf("%w: no Resources section", ErrInvalidTemplate)
	}
	for _, id := range sortedKeys(tpl.Resources) {
		if tpl.Resources[id].Type == "" {
			return nil, fmt.Errorf("%w: resource %s has no Type", ErrInvalidTemplate, id)
		}
	}
	return &tpl, nil
}

// cdkPath returns the construct path CDK recorded for the resource, or "".
func (r rawResource) cdkPath() string {
	path, _ := r.Metadata[cdkPathKey].(string)
	return path
}

// dependsOn returns the DependsOn attribute as a list (it may be a string or a list).
func (r rawResource) dependsOn() []string {
	switch v := r.DependsOn.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, item := range v {
			if s, ok := item.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// sortedKeys returns the keys of a map in ascending order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
