package intrinsic

// format implements States.Format(template, values...): each {} in the template is replaced by
// the next value, rendered as Java's toString renders it (see appendJavaText). In the template
// \{ and \} are literal braces, \' a quote and \\ a backslash; any other brace, or a number of
// values different from the number of {}, is an invalid argument. A template written as a
// string literal is read with its escapes; a template read from a JSONPath is a string whose
// backslashes are the same escapes.
func format(inv invocation) (any, error) {
	var template string
	if first := inv.call.args[0]; first.quoted {
		template = first.raw
	} else if s, ok := inv.args[0].(string); ok {
		template = s
	} else {
		return nil, ErrInvalidArguments
	}
	values := inv.args[1:]
	out := make([]byte, 0, len(template))
	for i := 0; i < len(template); i++ {
		switch c := template[i]; c {
		case '\\':
			if i+1 < len(template) && isEscapable(template[i+1]) {
				i++
				out = append(out, template[i])
			} else {
				out = append(out, c)
			}
		case '{':
			if i+1 >= len(template) || template[i+1] != '}' || len(values) == 0 {
				return nil, ErrInvalidArguments
			}
			i++
			out = appendJavaText(out, values[0])
			values = values[1:]
		case '}':
			return nil, ErrInvalidArguments
		default:
			out = append(out, c)
		}
	}
	if len(values) != 0 {
		return nil, ErrInvalidArguments
	}
	return string(out), nil
}
