package eventbus

// Comparison operators of numeric matching.
const (
	numEqual        = "="
	numLess         = "<"
	numLessEqual    = "<="
	numGreater      = ">"
	numGreaterEqual = ">="
)

// numericRange is a compiled numeric matcher: an equality, or an interval open or closed at
// either end, possibly unbounded on one side.
type numericRange struct {
	equal                    bool
	lower, upper             float64
	hasLower, hasUpper       bool
	lowerClosed, upperClosed bool
}

// compileNumeric compiles {"numeric": ["=", 3]}, {"numeric": [">", 0]} or
// {"numeric": [">", 0, "<=", 5]}. A lower bound comes before an upper bound, and must be below it.
func compileNumeric(path string, arg any) (leafMatcher, error) {
	list, ok := arg.([]any)
	if !ok || (len(list) != 2 && len(list) != 4) {
		return nil, patternErrorf(path, ErrInvalidPattern, "numeric takes [op, number] or [op, number, op, number]")
	}
	var r numericRange
	for i := 0; i < len(list); i += 2 {
		op, okOp := list[i].(string)
		n, okNum := toNumber(list[i+1])
		if !okOp || !okNum {
			return nil, patternErrorf(path, ErrInvalidPattern, "numeric takes operator strings followed by numbers")
		}
		first := i == 0
		switch {
		case op == numEqual && len(list) == 2:
			r.equal, r.lower = true, n
		case (op == numGreater || op == numGreaterEqual) && first:
			r.hasLower, r.lower, r.lowerClosed = true, n, op == numGreaterEqual
		case (op == numLess || op == numLessEqual) && (len(list) == 2 || !first):
			r.hasUpper, r.upper, r.upperClosed = true, n, op == numLessEqual
		default:
			return nil, patternErrorf(path, ErrInvalidPattern, "numeric operator %q out of place; use a lower bound (>, >=) before an upper bound (<, <=), or = alone", op)
		}
	}
	if r.hasLower && r.hasUpper && r.lower >= r.upper {
		return nil, patternErrorf(path, ErrInvalidPattern, "numeric range is empty: lower bound %v is not below upper bound %v", r.lower, r.upper)
	}
	return anyValue(r.contains), nil
}

// contains reports whether an event value is a number inside the range.
func (r numericRange) contains(v any) bool {
	n, ok := toNumber(v)
	if !ok {
		return false
	}
	if r.equal {
		return n == r.lower
	}
	if r.hasLower && (n < r.lower || (n == r.lower && !r.lowerClosed)) {
		return false
	}
	if r.hasUpper && (n > r.upper || (n == r.upper && !r.upperClosed)) {
		return false
	}
	return true
}
