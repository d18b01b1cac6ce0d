package main

import (
	"os"
	"testing"
)

// TestParksInQueue: a default limit is refused for a Poll semaphore (its new locks would not
// take it) and accepted for a Callback one, read from the machines' own rendered definitions.
func TestParksInQueue(t *testing.T) {
	for file, want := range map[string]bool{
		"../../asl/machines/testdata/semaphore-default.asl.json":  false, // Poll
		"../../asl/machines/testdata/semaphore-callback.asl.json": true,
	} {
		definition, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := parksInQueue(string(definition)); err != nil || got != want {
			t.Errorf("parksInQueue(%s) = %v, %v; want %v", file, got, err, want)
		}
	}
	if _, err := parksInQueue("{"); err == nil {
		t.Error("parksInQueue of a broken definition: no error")
	}
}
