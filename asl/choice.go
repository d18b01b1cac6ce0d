package asl

import "strings"

// Operator is a choice rule's comparison operator, e.g. "StringEquals" or "IsPresent".
type Operator string

// comparisonOperators lists every data-test operator of the States Language. The "Path" variants
// read the comparison value from the input.
var comparisonOperators = map[Operator]bool{
	"StringEquals": true, "StringEqualsPath": true,
	"StringLessThan": true, "StringLessThanPath": true,
	"StringGreaterThan": true, "StringGreaterThanPath": true,
	"StringLessThanEquals": true, "StringLessThanEqualsPath": true,
	"StringGreaterThanEquals": true, "StringGreaterThanEqualsPath": true,
	"StringMatches": true,
	"NumericEquals": true, "NumericEqualsPath": true,
	"NumericLessThan": true, "NumericLessThanPath": true,
	"NumericGreaterThan": true, "NumericGreaterThanPath": true,
	"NumericLessThanEquals": true, "NumericLessThanEqualsPath": true,
	"NumericGreaterThanEquals": true, "NumericGreaterThanEqualsPath": true,
	"BooleanEquals": true, "BooleanEqualsPath": true,
	"TimestampEquals": true, "TimestampEqualsPath": true,
	"TimestampLessThan": true, "TimestampLessThanPath": true,
	"TimestampGreaterThan": true, "TimestampGreaterThanPath": true,
	"TimestampLessThanEquals": true, "TimestampLessThanEqualsPath": true,
	"TimestampGreaterThanEquals": true, "TimestampGreaterThanEqualsPath": true,
	"IsNull": true, "IsPresent": true, "IsNumeric": true, "IsString": true,
	"IsBoolean": true, "IsTimestamp": true,
}

// IsComparison reports whether op is a data-test operator of the States Language.
func (op Operator) IsComparison() bool { return comparisonOperators[op] }

// IsPathVariant reports whether the operator reads its comparison value from the input.
func (op Operator) IsPathVariant() bool { return strings.HasSuffix(string(op), "Path") }

// ChoiceRule is one rule of a Choice state: either a comparison (Variable, Operator, Value) or a
// boolean combination (And, Or, Not) of nested rules. Only top-level rules have Next.
type ChoiceRule struct {
	// Variable is the path of the value tested by a comparison.
	Variable string
	// Operator is the comparison, e.g. "NumericLessThan"; empty for And/Or/Not rules.
	Operator Operator
	// Value is the comparison value: a string, number or boolean, or a path for the Path
	// variants.
	Value any
	// And holds rules that must all match.
	And []*ChoiceRule
	// Or holds rules of which one must match.
	Or []*ChoiceRule
	// Not holds a rule that must not match.
	Not *ChoiceRule
	// Next is the state to go to when this top-level rule matches.
	Next string
	// Comment is a human-readable description.
	Comment string
	// Condition is a JSONata rule's test: a "{% %}" string or a literal boolean; nil in JSONPath
	// rules. A rule with a Condition has no Variable, operator, And, Or or Not.
	Condition any
	// Assign holds the variables a matching top-level rule assigns.
	Assign any
	// Output is the output of the Choice state when this JSONata rule matches.
	Output any
}

// fields returns the rule's JSON fields in rendering order.
func (r *ChoiceRule) fields() []field {
	var fs []field
	fs = addString(fs, "Variable", r.Variable)
	if r.Operator != "" {
		fs = append(fs, field{string(r.Operator), r.Value})
	}
	if r.And != nil {
		fs = append(fs, field{"And", r.And})
	}
	if r.Or != nil {
		fs = append(fs, field{"Or", r.Or})
	}
	if r.Not != nil {
		fs = append(fs, field{"Not", r.Not})
	}
	fs = addAny(fs, "Condition", r.Condition)
	fs = addAny(fs, "Assign", r.Assign)
	fs = addAny(fs, "Output", r.Output)
	fs = addString(fs, "Next", r.Next)
	fs = addString(fs, "Comment", r.Comment)
	return fs
}

// MarshalJSON renders the rule with its fields in a fixed order.
func (r *ChoiceRule) MarshalJSON() ([]byte, error) { return marshalFields(r.fields()) }
