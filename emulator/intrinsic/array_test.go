package intrinsic

import "testing"

func TestArrayFunctions(t *testing.T) {
	runEvalCases(t, []evalCase{
		// States.Array: documentation, specification and AWS recordings.
		{name: "Array doc", expr: "States.Array($.Id)", input: `{"Id":123456}`, want: `[123456]`},
		{name: "Array spec", expr: "States.Array('Foo', 2020, $.someJson, null)", input: `{"someJson":{"random":"abcdefg"}}`, want: `["Foo",2020,{"random":"abcdefg"},null]`},
		{name: "Array empty", expr: "States.Array()", want: `[]`},
		{name: "Array nulls", expr: "States.Array($.a, $.b)", input: `{"a":null,"b":null}`, want: `[null,null]`},
		{name: "Array nested", expr: "States.Array(States.Array(), 1.5, true)", want: `[[],1.5,true]`},

		// States.ArrayPartition (documentation; AWS recordings over arrays of 0..4 items).
		{name: "Partition doc", expr: "States.ArrayPartition($.inputArray,4)", input: `{"inputArray":[1,2,3,4,5,6,7,8,9]}`, want: `[[1,2,3,4],[5,6,7,8],[9]]`},
		{name: "Partition empty", expr: "States.ArrayPartition($.a, 4)", input: `{"a":[]}`, want: `[]`},
		{name: "Partition by one", expr: "States.ArrayPartition($.a, 1)", input: `{"a":[0,1,2,3]}`, want: `[[0],[1],[2],[3]]`},
		{name: "Partition remainder", expr: "States.ArrayPartition($.a, 3)", input: `{"a":[0,1,2,3]}`, want: `[[0,1,2],[3]]`},
		{name: "Partition oversized", expr: "States.ArrayPartition($.a, 2147483647)", input: `{"a":[1,2,3]}`, want: `[[1,2,3]]`},
		{name: "Partition size loses fraction", expr: "States.ArrayPartition($.a, 2.6)", input: `{"a":[1,2,3,4,5]}`, want: `[[1,2],[3,4],[5]]`},
		{name: "Partition size zero", expr: "States.ArrayPartition($.a, 0)", input: `{"a":[1]}`, wantDetail: "Invalid arguments in States.ArrayPartition"},
		{name: "Partition size truncated to zero", expr: "States.ArrayPartition($.a, 0.6)", input: `{"a":[1]}`, wantDetail: "Invalid arguments in States.ArrayPartition"},
		{name: "Partition size negative", expr: "States.ArrayPartition($.a, -1)", input: `{"a":[1]}`, wantDetail: "Invalid arguments in States.ArrayPartition"},
		{name: "Partition size string", expr: "States.ArrayPartition($.a, '2')", input: `{"a":[1]}`, wantDetail: "Invalid arguments in States.ArrayPartition"},
		{name: "Partition size null", expr: "States.ArrayPartition($.a, null)", input: `{"a":[1]}`, wantDetail: "Invalid arguments in States.ArrayPartition"},
		{name: "Partition not an array", expr: "States.ArrayPartition('not-array', 2)", wantDetail: "Invalid arguments in States.ArrayPartition"},
		{name: "Partition arity", expr: "States.ArrayPartition($.a)", input: `{"a":[1]}`, wantDetail: "Invalid arguments in States.ArrayPartition"},

		// States.ArrayContains (documentation; AWS recordings).
		{name: "Contains doc", expr: "States.ArrayContains($.inputArray, $.lookingFor)", input: `{"inputArray":[1,2,3,4,5,6,7,8,9],"lookingFor":5}`, want: `true`},
		{name: "Contains null in empty", expr: "States.ArrayContains($.a, $.v)", input: `{"a":[],"v":null}`, want: `false`},
		{name: "Contains array", expr: "States.ArrayContains($.a, $.v)", input: `{"a":[[1,2,3],2],"v":[1,2,3]}`, want: `true`},
		{name: "Contains object", expr: "States.ArrayContains($.a, $.v)", input: `{"a":[{"1":2,"2":[]}],"v":{"2":[],"1":2}}`, want: `true`},
		{name: "Contains object not empty array", expr: "States.ArrayContains($.a, $.v)", input: `{"a":[{"1":2,"2":[]}],"v":[]}`, want: `false`},
		{name: "Contains false", expr: "States.ArrayContains($.a, false)", input: `{"a":[true,false]}`, want: `true`},
		{name: "Contains is type-sensitive", expr: "States.ArrayContains($.a, 1)", input: `{"a":["1",1.0]}`, want: `false`},
		{name: "Contains not an array", expr: "States.ArrayContains($.a, 1)", input: `{"a":{"x":1}}`, wantDetail: "Invalid arguments in States.ArrayContains"},

		// States.ArrayRange (documentation; AWS recordings and observations).
		{name: "Range doc", expr: "States.ArrayRange(1, 9, 2)", want: `[1,3,5,7,9]`},
		{name: "Range stops before last", expr: "States.ArrayRange(0, 10, 3)", want: `[0,3,6,9]`},
		{name: "Range single", expr: "States.ArrayRange(1, 9, 9)", want: `[1]`},
		{name: "Range descending", expr: "States.ArrayRange(5, 1, -2)", want: `[5,3,1]`},
		{name: "Range wrong direction", expr: "States.ArrayRange(1, 5, -1)", want: `[]`},
		{name: "Range equal bounds", expr: "States.ArrayRange(3, 3, -1)", want: `[3]`},
		{name: "Range fractions truncated", expr: "States.ArrayRange(1.6, 1.4, 1)", want: `[1]`},
		{name: "Range negative fractions truncated", expr: "States.ArrayRange(5.4, -0.6, -2.4)", want: `[5,3,1]`},
		{name: "Range nested", expr: "States.ArrayRange(States.MathAdd($.base, 1), States.MathAdd($.base, 5), 2)", input: `{"base":0}`, want: `[1,3,5]`},
		{name: "Range zero step", expr: "States.ArrayRange(1, 10, 0)", wantDetail: "Invalid arguments in States.ArrayRange"},
		{name: "Range step truncated to zero", expr: "States.ArrayRange(1, 10, 0.49)", wantDetail: "Invalid arguments in States.ArrayRange"},
		{name: "Range 1001 items", expr: "States.ArrayRange(1, 1001, 1)", wantDetail: "Invalid arguments in States.ArrayRange"},
		{name: "Range 1001 items descending", expr: "States.ArrayRange(1001, 1, -1)", wantDetail: "Invalid arguments in States.ArrayRange"},
		{name: "Range string", expr: "States.ArrayRange('a', 5, 1)", wantDetail: "Invalid arguments in States.ArrayRange"},
		{name: "Range beyond int", expr: "States.ArrayRange(1, 3000000000, 1)", wantDetail: "Invalid arguments in States.ArrayRange"},
		{name: "Range arity", expr: "States.ArrayRange(1, 5)", wantDetail: "Invalid arguments in States.ArrayRange"},

		// States.ArrayGetItem (documentation; AWS recordings and observations).
		{name: "GetItem doc", expr: "States.ArrayGetItem($.inputArray, $.index)", input: `{"inputArray":[1,2,3,4,5,6,7,8,9],"index":5}`, want: `6`},
		{name: "GetItem object", expr: "States.ArrayGetItem($.a, 1)", input: `{"a":[{"a":1},{"b":2}]}`, want: `{"b":2}`},
		{name: "GetItem null item", expr: "States.ArrayGetItem($.a, 0)", input: `{"a":[null]}`, want: `null`},
		{name: "GetItem index truncated", expr: "States.ArrayGetItem($.a, 1.2)", input: `{"a":[10,20,30]}`, want: `20`},
		{name: "GetItem empty array is null", expr: "States.ArrayGetItem($.a, 999)", input: `{"a":[]}`, want: `null`},
		{name: "GetItem index = length", expr: "States.ArrayGetItem($.a, 3)", input: `{"a":[10,20,30]}`, wantDetail: "Invalid arguments in States.ArrayGetItem"},
		{name: "GetItem negative", expr: "States.ArrayGetItem($.a, -1)", input: `{"a":[10,20,30]}`, wantDetail: "Invalid arguments in States.ArrayGetItem"},
		{name: "GetItem string index", expr: "States.ArrayGetItem($.a, '1')", input: `{"a":[10,20,30]}`, wantDetail: "Invalid arguments in States.ArrayGetItem"},
		{name: "GetItem huge index", expr: "States.ArrayGetItem($.a, $.i)", input: `{"a":[1,2,3],"i":18446744073709551616}`, wantDetail: "Invalid arguments in States.ArrayGetItem"},
		{name: "GetItem not an array", expr: "States.ArrayGetItem('not-array', 0)", wantDetail: "Invalid arguments in States.ArrayGetItem"},

		// States.ArrayLength (documentation; AWS recordings).
		{name: "Length doc", expr: "States.ArrayLength($.inputArray)", input: `{"inputArray":[1,2,3,4,5,6,7,8,9]}`, want: `9`},
		{name: "Length empty", expr: "States.ArrayLength($.a)", input: `{"a":[]}`, want: `0`},
		{name: "Length wildcard matching nothing", expr: "States.ArrayLength($.items[*].nope)", input: `{"items":[1,2]}`, want: `0`},
		{name: "Length not an array", expr: "States.ArrayLength($.a)", input: `{"a":"abc"}`, wantDetail: "Invalid arguments in States.ArrayLength"},

		// States.ArrayUnique (documentation).
		{name: "Unique doc", expr: "States.ArrayUnique($.inputArray)", input: `{"inputArray":[1,2,3,3,3,3,3,3,4]}`, want: `[1,2,3,4]`},
		{name: "Unique mixed", expr: "States.ArrayUnique($.a)", input: `{"a":[null,null,true,true,1,1,1.0,"1",[],[],[null],[null],{"a":1,"b":2},{"b":2,"a":1},{"a":1,"b":1}]}`, want: `[null,true,1,1.0,"1",[],[null],{"a":1,"b":2},{"a":1,"b":1}]`},
		{name: "Unique not an array", expr: "States.ArrayUnique(1)", wantDetail: "Invalid arguments in States.ArrayUnique"},
	})
}
