package intrinsic

import "slices"

// maxRangeLength is the largest array States.ArrayRange may build.
const maxRangeLength = 1000

// array implements States.Array(values...): the values as an array.
func array(inv invocation) (any, error) {
	return inv.args, nil
}

// arrayPartition implements States.ArrayPartition(array, size): the array cut into chunks of
// size items, the last one shorter. The size loses its fraction and must be positive.
func arrayPartition(inv invocation) (any, error) {
	items, okItems := inv.args[0].([]any)
	size, okSize := truncatedInt(inv.args[1])
	if !okItems || !okSize || size <= 0 {
		return nil, ErrInvalidArguments
	}
	chunks := make([]any, 0, (int64(len(items))+size-1)/size)
	for start := int64(0); start < int64(len(items)); start += size {
		end := min(start+size, int64(len(items)))
		chunks = append(chunks, slices.Clone(items[start:end]))
	}
	return chunks, nil
}

// arrayContains implements States.ArrayContains(array, value): whether an item equals the value.
func arrayContains(inv invocation) (any, error) {
	items, ok := inv.args[0].([]any)
	if !ok {
		return nil, ErrInvalidArguments
	}
	for _, item := range items {
		if sameJSON(item, inv.args[1]) {
			return true, nil
		}
	}
	return false, nil
}

// arrayRange implements States.ArrayRange(first, last, step): first, first+step, ... up to and
// including last. The arguments lose their fractions; the step must not be zero and the result
// may not exceed 1000 items. A step that points away from last gives an empty array.
func arrayRange(inv invocation) (any, error) {
	first, okFirst := truncatedInt(inv.args[0])
	last, okLast := truncatedInt(inv.args[1])
	step, okStep := truncatedInt(inv.args[2])
	if !okFirst || !okLast || !okStep || step == 0 {
		return nil, ErrInvalidArguments
	}
	var length int64
	switch {
	case step > 0 && first <= last:
		length = (last-first)/step + 1
	case step < 0 && first >= last:
		length = (first-last)/-step + 1
	}
	if length > maxRangeLength {
		return nil, ErrInvalidArguments
	}
	values := make([]any, length)
	for i := range values {
		values[i] = first + int64(i)*step
	}
	return values, nil
}

// arrayGetItem implements States.ArrayGetItem(array, index): the item at the index, which
// loses its fraction. An index outside the array is an invalid argument, except that AWS
// returns null for any index into an empty array.
func arrayGetItem(inv invocation) (any, error) {
	items, okItems := inv.args[0].([]any)
	index, okIndex := truncatedInt(inv.args[1])
	if !okItems || !okIndex {
		return nil, ErrInvalidArguments
	}
	if len(items) == 0 {
		return nil, nil
	}
	if index < 0 || index >= int64(len(items)) {
		return nil, ErrInvalidArguments
	}
	return items[index], nil
}

// arrayLength implements States.ArrayLength(array): the number of items.
func arrayLength(inv invocation) (any, error) {
	items, ok := inv.args[0].([]any)
	if !ok {
		return nil, ErrInvalidArguments
	}
	return int64(len(items)), nil
}

// arrayUnique implements States.ArrayUnique(array): the items without repeats, in the order of
// their first occurrence.
func arrayUnique(inv invocation) (any, error) {
	items, ok := inv.args[0].([]any)
	if !ok {
		return nil, ErrInvalidArguments
	}
	seen := make(map[string]bool, len(items))
	unique := make([]any, 0, len(items))
	for _, item := range items {
		key := canonicalJSON(item)
		if !seen[key] {
			seen[key] = true
			unique = append(unique, item)
		}
	}
	return unique, nil
}
