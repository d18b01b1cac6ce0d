package asl

import "strings"

// Path is the value of a path field (InputPath, OutputPath, ResultPath, ItemsPath) that may be
// absent (a nil *Path), explicitly null, or a path. The three differ in meaning: an absent
// InputPath selects the whole input ("$"), a null one selects nothing ({}).
type Path struct {
	// Null reports that the field was the JSON value null.
	Null bool
	// Value is the path (for example "$.detail") when Null is false.
	Value string
}

// P returns a *Path holding the given path.
func P(path string) *Path { return &Path{Value: path} }

// NullPath returns a *Path that renders as JSON null.
func NullPath() *Path { return &Path{Null: true} }

// isReferencePath reports whether s looks like a JSONPath rooted at the input ("$"), at a workflow
// variable ("$name") or at the context object ("$$").
func isReferencePath(s string) bool {
	return s == "$" || strings.HasPrefix(s, "$.") || strings.HasPrefix(s, "$[") || strings.HasPrefix(s, "$$") || isVariablePath(s)
}

// isVariablePath reports whether s is a path rooted at a workflow variable: "$name", "$name.x".
func isVariablePath(s string) bool {
	rest, ok := strings.CutPrefix(s, "$")
	if !ok || rest == "" {
		return false
	}
	c := rest[0]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// pathValue returns the rendered JSON value of p: nil for null, the string otherwise.
func (p *Path) pathValue() any {
	if p.Null {
		return nil
	}
	return p.Value
}
