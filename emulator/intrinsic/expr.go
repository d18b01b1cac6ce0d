package intrinsic

// Expr is a parsed intrinsic function call, ready to be evaluated any number of times (also
// concurrently, given a Resolver and an Env per goroutine).
type Expr struct {
	source string
	root   *call
}

// String returns the expression as it was written; AWS quotes it verbatim in causes.
func (e *Expr) String() string { return e.source }

// call is one States.X(...) invocation.
type call struct {
	fn   *function
	args []argument
}

// argumentKind tells the syntactic form of an argument.
type argumentKind int

const (
	literalArgument argumentKind = iota // a string, number, boolean or null literal
	pathArgument                        // a JSONPath, "$..." or "$$..."
	callArgument                        // a nested intrinsic function call
)

// argument is one argument of a call, as written.
type argument struct {
	kind argumentKind
	// value is the literal's value (string literals with their escapes decoded).
	value any
	// raw is the text between the quotes of a string literal, escapes kept: States.Format reads
	// its template from it so that \{ and \} stay literal braces.
	raw string
	// quoted marks a string literal.
	quoted bool
	// path is the JSONPath as written.
	path string
	// nested is the nested call.
	nested *call
}
