package intrinsic

// function is one intrinsic function: its name, its argument count and its implementation.
type function struct {
	name    string
	minArgs int
	maxArgs int // negative: no maximum
	apply   func(inv invocation) (any, error)
}

// invocation is one call of a function with its evaluated arguments.
type invocation struct {
	call *call
	args []any
	env  Env
}

// functions maps each supported name to its function. Names are case-sensitive.
var functions = map[string]*function{}

func init() {
	for _, fn := range []*function{
		{name: "States.Format", minArgs: 1, maxArgs: -1, apply: format},
		{name: "States.StringToJson", minArgs: 1, maxArgs: 1, apply: stringToJSON},
		{name: "States.JsonToString", minArgs: 1, maxArgs: 1, apply: jsonToString},
		{name: "States.Array", minArgs: 0, maxArgs: -1, apply: array},
		{name: "States.ArrayPartition", minArgs: 2, maxArgs: 2, apply: arrayPartition},
		{name: "States.ArrayContains", minArgs: 2, maxArgs: 2, apply: arrayContains},
		{name: "States.ArrayRange", minArgs: 3, maxArgs: 3, apply: arrayRange},
		{name: "States.ArrayGetItem", minArgs: 2, maxArgs: 2, apply: arrayGetItem},
		{name: "States.ArrayLength", minArgs: 1, maxArgs: 1, apply: arrayLength},
		{name: "States.ArrayUnique", minArgs: 1, maxArgs: 1, apply: arrayUnique},
		{name: "States.Base64Encode", minArgs: 1, maxArgs: 1, apply: base64Encode},
		{name: "States.Base64Decode", minArgs: 1, maxArgs: 1, apply: base64Decode},
		{name: "States.Hash", minArgs: 2, maxArgs: 2, apply: hashData},
		{name: "States.JsonMerge", minArgs: 3, maxArgs: 3, apply: jsonMerge},
		{name: "States.MathRandom", minArgs: 2, maxArgs: 3, apply: mathRandom},
		{name: "States.MathAdd", minArgs: 2, maxArgs: 2, apply: mathAdd},
		{name: "States.StringSplit", minArgs: 2, maxArgs: 2, apply: stringSplit},
		{name: "States.UUID", minArgs: 0, maxArgs: 0, apply: uuid},
	} {
		functions[fn.name] = fn
	}
}
