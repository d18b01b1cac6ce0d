// Package intrinsic parses and evaluates the intrinsic functions of the Amazon States Language
// (JSONPath query language), such as "States.Format('Hello {}', $.name)", with the results,
// error names and causes AWS Step Functions produces.
//
// The interpreter calls IsIntrinsic on the value of each "key.$" field of a payload template
// (Parameters, ResultSelector, ItemSelector), Parse when it loads the definition, and Evaluate
// when the state runs:
//
//	if intrinsic.IsIntrinsic(value) {
//		expr, err := intrinsic.Parse(value) // *SyntaxError: AWS rejects the definition
//		...
//		resolve := intrinsic.NewResolver(stateInput, contextObject) // contextObject: func() any
//		v, err := expr.Evaluate(resolve, intrinsic.Env{Rand: executionRand})
//		var failure *intrinsic.Error
//		if errors.As(err, &failure) {
//			return failure.ASL(stateName, enteredEventID) // States.Runtime with AWS's cause
//		}
//	}
//
// Values use the emulator's JSON value model (package jsonvalue): *jsonvalue.Object, []any,
// string, bool, nil, int64 for integral numbers and float64 for the others.
//
// Supported functions: States.Format, StringToJson, JsonToString, Array, ArrayPartition,
// ArrayContains, ArrayRange, ArrayGetItem, ArrayLength, ArrayUnique, Base64Encode,
// Base64Decode, Hash, JsonMerge, MathRandom, MathAdd, StringSplit and UUID.
//
// Where AWS's behaviour differs from the States Language specification, this package follows
// AWS as recorded: numbers are Java ints (MathAdd rounds fractions with Math.round; ArrayRange,
// ArrayPartition, ArrayGetItem and MathRandom drop them), States.Format renders objects and
// arrays as Java's toString does ({a=1, b=[x]}), JSON text is written as Jackson writes it
// (1.0, 1.0E21), Base64Decode is lenient, and every run-time failure is States.Runtime.
// Object keys are written in sorted order, since the emulator's maps do not keep AWS's order.
package intrinsic
