package ddblocal

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// InstallDir is where `make setup` installs DynamoDB Local, relative to the module root.
const InstallDir = ".cdk/dynamodb-local"

// jarName is DynamoDB Local's executable jar inside the install directory; libDir holds its
// dependencies and the sqlite4java native libraries.
const (
	jarName = "DynamoDBLocal.jar"
	libDir  = "DynamoDBLocal_lib"
)

// ErrNotInstalled reports that DynamoDB Local could not be found.
var ErrNotInstalled = errors.New("ddblocal: DynamoDB Local is not installed; run `turnstile setup` " +
	"(`go tool turnstile setup` in an app that requires Turnstile as a tool), or `make setup` in a Turnstile checkout")

// ErrJavaMissing reports that no java command was found.
var ErrJavaMissing = errors.New("ddblocal: no Java 17 or newer found; DynamoDB Local needs it (on Debian/Ubuntu: apt-get install openjdk-17-jre-headless)")

// tools are the java command and the directory DynamoDB Local is installed in.
type tools struct {
	java string
	dir  string
}

// jar returns the path of DynamoDBLocal.jar.
func (t tools) jar() string { return filepath.Join(t.dir, jarName) }

// locateTools resolves the install directory (opts.Dir, else the module root's InstallDir found
// from the working directory, else from this source file) and the java command, and checks both.
func locateTools(opts Options) (tools, error) {
	dir, err := installDir(opts.Dir)
	if err != nil {
		return tools{}, err
	}
	java := opts.Java
	if java == "" {
		if java, err = exec.LookPath("java"); err != nil {
			return tools{}, fmt.Errorf("%w (%w)", ErrJavaMissing, err)
		}
	} else if _, err := os.Stat(java); err != nil {
		return tools{}, fmt.Errorf("%w (Options.Java: %w)", ErrJavaMissing, err)
	}
	return tools{java: java, dir: dir}, nil
}

// installDir returns explicit when it holds the jar, or else the first InstallDir holding it
// above the working directory or above this package's source directory (a Turnstile checkout),
// or else UserInstallDir when it holds it (`turnstile setup`).
func installDir(explicit string) (string, error) {
	if explicit != "" {
		if _, err := os.Stat(filepath.Join(explicit, jarName)); err != nil {
			return "", fmt.Errorf("%w (Options.Dir: %w)", ErrNotInstalled, err)
		}
		return explicit, nil
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		starts = append(starts, filepath.Dir(file))
	}
	return findInstall(starts)
}

// findInstall returns the first InstallDir holding the jar above one of starts, else
// UserInstallDir when it holds it.
func findInstall(starts []string) (string, error) {
	for _, start := range starts {
		if dir, ok := findUp(start); ok {
			return dir, nil
		}
	}
	user, err := UserInstallDir()
	if err == nil {
		if _, err := os.Stat(filepath.Join(user, jarName)); err == nil {
			return user, nil
		}
	}
	return "", fmt.Errorf("%w (no %s holding %s above %q, nor %s)", ErrNotInstalled, InstallDir, jarName, starts, user)
}

// findUp walks up from start to the first directory whose InstallDir holds the jar.
func findUp(start string) (string, bool) {
	for dir := start; ; dir = filepath.Dir(dir) {
		candidate := filepath.Join(dir, filepath.FromSlash(InstallDir))
		if _, err := os.Stat(filepath.Join(candidate, jarName)); err == nil {
			return candidate, true
		}
		if filepath.Dir(dir) == dir {
			return "", false
		}
	}
}
