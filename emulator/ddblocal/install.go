package ddblocal

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// The pinned DynamoDB Local: DynamoDBLocal.jar 1.25.1 with its DynamoDBLocal_lib/, as the npm
// package Package ships it in its emulator/ folder, checked against TarballSHA256.
const (
	Package       = "amplify-dynamodb-simulator"
	Version       = "2.9.30"
	TarballSHA256 = "3503ffac19f183407909fecdacf4db51ab1fdad1da7b2f177016670b2d80e4b9"
	// MinJava is the oldest Java that runs it.
	MinJava = 17
)

// stampName is the file in an install directory that names the package version installed there.
const stampName = ".turnstile-package"

// ErrNoNpm reports that npm, which fetches the pinned package, is not on PATH.
var ErrNoNpm = errors.New("ddblocal: npm not found; install Node.js 20 or newer with npm, then install again")

// ErrChecksum reports a fetched package whose sha256 is not the pinned one.
var ErrChecksum = errors.New("ddblocal: the fetched package does not have the pinned sha256")

// UserInstallDir is where `turnstile setup` installs DynamoDB Local for apps outside a
// Turnstile checkout: turnstile/dynamodb-local-<Version> in the user's cache directory.
func UserInstallDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("ddblocal: %w", err)
	}
	return filepath.Join(cache, "turnstile", "dynamodb-local-"+Version), nil
}

// CheckJava runs java (from PATH when "") and returns its major version, or ErrJavaMissing
// when there is none or it is older than MinJava.
func CheckJava(java string) (int, error) {
	if java == "" {
		var err error
		if java, err = exec.LookPath("java"); err != nil {
			return 0, ErrJavaMissing
		}
	}
	out, err := exec.Command(java, "-version").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%w (%s -version: %v)", ErrJavaMissing, java, err)
	}
	m := regexp.MustCompile(`version "(\d+)`).FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("%w (cannot read the version of %s: %q)", ErrJavaMissing, java, strings.TrimSpace(string(out)))
	}
	major, _ := strconv.Atoi(string(m[1]))
	if major < MinJava {
		return major, fmt.Errorf("%w (%s is Java %d)", ErrJavaMissing, java, major)
	}
	return major, nil
}

// Install puts the pinned DynamoDB Local into dir, unless that version is already there: npm
// fetches the package alone (`npm pack`, none of its dependencies), its sha256 is checked, and
// only its emulator/ folder is extracted. It reports what it did to log. Java is checked first,
// since the jar is of no use without it.
func Install(ctx context.Context, dir string, log io.Writer) error {
	major, err := CheckJava("")
	if err != nil {
		return err
	}
	want := Package + "@" + Version + " " + TarballSHA256
	if stamp, err := os.ReadFile(filepath.Join(dir, stampName)); err == nil && strings.TrimSpace(string(stamp)) == want {
		if _, err := os.Stat(filepath.Join(dir, jarName)); err == nil {
			fmt.Fprintf(log, "setup: DynamoDB Local is up to date in %s (%s@%s, java %d)\n", dir, Package, Version, major)
			return nil
		}
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return ErrNoNpm
	}
	tmp, err := os.MkdirTemp("", "turnstile-ddblocal-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintf(log, "setup: npm pack %s@%s\n", Package, Version)
	cmd := exec.CommandContext(ctx, npm, "pack", Package+"@"+Version, "--silent", "--pack-destination", tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("ddblocal: npm pack %s@%s: %w: %s", Package, Version, err, strings.TrimSpace(stderr.String()))
	}
	tarball, err := os.ReadFile(filepath.Join(tmp, strings.TrimSpace(string(out))))
	if err != nil {
		return fmt.Errorf("ddblocal: npm pack wrote no tarball: %w", err)
	}
	if sum := sha256.Sum256(tarball); hex.EncodeToString(sum[:]) != TarballSHA256 {
		return fmt.Errorf("%w: got %x, want %s", ErrChecksum, sum, TarballSHA256)
	}
	// Extract beside dir, then move into place, so that an interrupted install leaves no half.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	staging, err := os.MkdirTemp(filepath.Dir(dir), ".dynamodb-local-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(staging)
	if err := extract(tarball, "package/emulator/", staging); err != nil {
		return err
	}
	for _, f := range []string{jarName, libDir + "/sqlite4java.jar"} {
		if _, err := os.Stat(filepath.Join(staging, filepath.FromSlash(f))); err != nil {
			return fmt.Errorf("ddblocal: %s@%s has no emulator/%s", Package, Version, f)
		}
	}
	if err := os.WriteFile(filepath.Join(staging, stampName), []byte(want), 0o644); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.Rename(staging, dir); err != nil {
		return err
	}
	fmt.Fprintf(log, "setup: installed DynamoDB Local into %s (%s@%s, java %d)\n", dir, Package, Version, major)
	return nil
}

// extract writes the regular files of a gzipped tarball below prefix into dir.
func extract(tarball []byte, prefix, dir string) error {
	gz, err := gzip.NewReader(bytes.NewReader(tarball))
	if err != nil {
		return fmt.Errorf("ddblocal: %w", err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("ddblocal: %w", err)
		}
		name := path.Clean(h.Name)
		if h.Typeflag != tar.TypeReg || !strings.HasPrefix(name, prefix) {
			continue
		}
		target := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(name, prefix)))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755|0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, tr); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
}
