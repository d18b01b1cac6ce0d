// Package gobuild locates a Go main package from a module's point of view and builds it into a
// Lambda `bootstrap` binary: the part of golambda that needs no CDK, which the local emulator
// shares to build the same package, the same way, for the machine it runs on.
//
// A package is an import path that the module's go.mod provides (its own packages, those of the
// modules it requires, through replace directives, go.work or the module cache), or a directory
// of the module relative to its root. Resolve asks the go command where it lives; Build compiles
// it there:
//
//	src, err := gobuild.Resolve(".", "github.com/turnstile-sfn/turnstile/lambdas/handoff")
//	if err != nil {
//		return err // ErrGoNotFound, ErrNoModule, ErrPackageNotFound, ErrNotMain
//	}
//	binary, err := gobuild.Build(ctx, src, gobuild.Lambda, outDir) // or a *BuildError
package gobuild
