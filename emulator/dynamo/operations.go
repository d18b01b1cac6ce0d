package dynamo

import (
	"context"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// operations is the set of DynamoDB API operation names (PascalCase, e.g. "TransactWriteItems")
// known to the pinned AWS SDK for Go: the methods of *dynamodb.Client shaped
// Op(context.Context, *OpInput, ...func(*dynamodb.Options)) (*OpOutput, error).
var operations = operationsOf(reflect.TypeFor[*dynamodb.Client]())

func operationsOf(client reflect.Type) map[string]bool {
	contextType := reflect.TypeFor[context.Context]()
	ops := make(map[string]bool)
	for m := range client.Methods() {
		f := m.Type // the receiver is the first argument
		if f.NumIn() != 4 || f.In(1) != contextType || !f.IsVariadic() || f.NumOut() != 2 {
			continue
		}
		in, out := f.In(2), f.Out(0)
		if in.Kind() == reflect.Pointer && in.Elem().Name() == m.Name+"Input" &&
			out.Kind() == reflect.Pointer && out.Elem().Name() == m.Name+"Output" {
			ops[m.Name] = true
		}
	}
	return ops
}
