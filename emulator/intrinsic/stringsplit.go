package intrinsic

import "strings"

// stringSplit implements States.StringSplit(string, delimiters): the string cut at every
// character of delimiters, without the empty pieces (like Java's StringTokenizer). An empty
// delimiter string leaves the string whole.
func stringSplit(inv invocation) (any, error) {
	s, okString := inv.args[0].(string)
	delimiters, okDelimiters := inv.args[1].(string)
	if !okString || !okDelimiters {
		return nil, ErrInvalidArguments
	}
	pieces := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(delimiters, r) })
	out := make([]any, len(pieces))
	for i, piece := range pieces {
		out[i] = piece
	}
	return out, nil
}
