package sfnapi_test

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

func identity(s string) string { return s }

func letters(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('a' + i))
	}
	return out
}

func TestPaginateWalksEveryItemOnce(t *testing.T) {
	tests := []struct {
		items, pageSize int
		wantPages       int
	}{
		{0, 10, 1},
		{5, 10, 1},
		{10, 10, 1},
		{11, 10, 2},
		{26, 4, 7},
		{150, 0, 2}, // 0 means DefaultPageSize (100)
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d items by %d", tt.items, tt.pageSize), func(t *testing.T) {
			items := make([]string, tt.items)
			for i := range items {
				items[i] = strconv.Itoa(i)
			}
			var got []string
			token, pages := "", 0
			for {
				page, next, err := sfnapi.Paginate("scope", items, int32(tt.pageSize), token, identity)
				if err != nil {
					t.Fatalf("Paginate: %v", err)
				}
				pages++
				got = append(got, page...)
				if next == "" {
					break
				}
				token = next
			}
			if pages != tt.wantPages || len(got) != tt.items || (tt.items > 0 && !reflect.DeepEqual(got, items)) {
				t.Errorf("%d pages of %v, want %d pages of all %d items in order", pages, got, tt.wantPages, tt.items)
			}
		})
	}
}

func TestPaginateIsStableWhenItemsArePrepended(t *testing.T) {
	items := letters(6)
	first, token, err := sfnapi.Paginate("s", items, 3, "", identity)
	if err != nil {
		t.Fatal(err)
	}
	// Newer items arrive at the front, as new executions do in ListExecutions.
	items = append([]string{"new1", "new2"}, items...)
	second, next, err := sfnapi.Paginate("s", items, 3, token, identity)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, []string{"a", "b", "c"}) || !reflect.DeepEqual(second, []string{"d", "e", "f"}) || next != "" {
		t.Errorf("pages %v then %v (next %q), want [a b c] then [d e f]", first, second, next)
	}
}

func TestPaginateRejectsForeignTokens(t *testing.T) {
	items := letters(5)
	_, token, err := sfnapi.Paginate("machine-A", items, 2, "", identity)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, scope, token string
		items              []string
	}{
		{"another listing's token", "machine-B", token, items},
		{"not base64", "machine-A", "!!!", items},
		{"base64 of something else", "machine-A", "aGVsbG8", items},
		{"a token past an item no longer listed", "machine-A", token, []string{"c", "d", "e"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, _, err := sfnapi.Paginate(tt.scope, tt.items, 2, tt.token, identity)
			if !errors.Is(err, sfnapi.ErrInvalidToken) {
				t.Errorf("Paginate = %v, %v; want ErrInvalidToken", page, err)
			}
		})
	}
}
