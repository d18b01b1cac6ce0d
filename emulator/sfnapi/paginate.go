package sfnapi

import (
	"encoding/base64"
	"strings"
)

// DefaultPageSize is the page size of the List and Get operations when maxResults is 0.
const DefaultPageSize = 100

// tokenVersion starts every pagination token, so that a token of another format is refused.
const tokenVersion = "sfnapi1"

// Paginate returns the page of items a List or Get request asks for, and the nextToken of the
// page after it ("" on the last page): at most maxResults items (DefaultPageSize when 0 or less),
// starting after the item the request's nextToken points at. key identifies an item (an ARN, an
// event id) and scope identifies the listing (e.g. the state machine ARN, the filter and the
// order), so that a token only continues the listing it came from. Tokens point at an item
// rather than an offset, so items added at the front of a listing (new executions, listed
// newest first) do not shift the pages. A token Paginate did not make, or that points at an item
// no longer listed, is an InvalidToken error.
func Paginate[T any](scope string, items []T, maxResults int32, nextToken string, key func(T) string) ([]T, string, error) {
	start := 0
	if nextToken != "" {
		after, err := decodeToken(scope, nextToken)
		if err != nil {
			return nil, "", err
		}
		start = -1
		for i, item := range items {
			if key(item) == after {
				start = i + 1
				break
			}
		}
		if start < 0 {
			return nil, "", InvalidToken(nextToken)
		}
	}
	size := int(maxResults)
	if size <= 0 {
		size = DefaultPageSize
	}
	end := min(start+size, len(items))
	page := items[start:end]
	if end == len(items) {
		return page, "", nil
	}
	return page, encodeToken(scope, key(items[end-1])), nil
}

// encodeToken makes the token of the page that starts after the item with key after.
func encodeToken(scope, after string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(tokenVersion + "\x00" + scope + "\x00" + after))
}

// decodeToken returns the key a token points after, checking that it belongs to scope.
func decodeToken(scope, token string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", InvalidToken(token)
	}
	parts := strings.SplitN(string(raw), "\x00", 3)
	if len(parts) != 3 || parts[0] != tokenVersion || parts[1] != scope {
		return "", InvalidToken(token)
	}
	return parts[2], nil
}
