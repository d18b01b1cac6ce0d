package gobuild_test

import (
	"fmt"

	"github.com/turnstile-sfn/turnstile/golambda/gobuild"
)

// Where a package lives and how it is built, resolved from the working directory's module.
func ExampleResolve() {
	source, err := gobuild.Resolve(".", "github.com/turnstile-sfn/turnstile/lambdas/handoff")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(source.ModulePath, source.Dir)
	// Output: github.com/turnstile-sfn/turnstile lambdas/handoff
}
