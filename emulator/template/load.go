package template

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Load reads one stack and resolves it into local resources. path is a template file
// ("*.template.json"), a cloud assembly directory ("cdk.out") or its manifest.json. A cloud
// assembly must hold exactly one stack matching opts.StackName (any stack when it is empty).
func Load(path string, opts Options) (*Template, error) {
	all, err := LoadAll(path, opts)
	if err != nil {
		return nil, err
	}
	if len(all) > 1 {
		names := make([]string, len(all))
		for i, t := range all {
			names[i] = t.StackName
		}
		return nil, fmt.Errorf("template: %s: %w: %s", path, ErrAmbiguousStack, strings.Join(names, ", "))
	}
	return all[0], nil
}

// LoadAll reads every stack at path that matches opts.StackName (all stacks when it is empty),
// in manifest order (by artifact ID). path is as for Load.
func LoadAll(path string, opts Options) ([]*Template, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("template: %w: %v", ErrInvalidTemplate, err)
	}
	if !info.IsDir() && filepath.Base(path) != manifestFileName {
		base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), templateSuffix), ".json")
		stackName := firstNonEmpty(opts.StackName, base)
		t, err := loadStack(stackArtifact{stackName: stackName, templatePath: path}, opts)
		if err != nil {
			return nil, err
		}
		return []*Template{t}, nil
	}
	dir := path
	if !info.IsDir() {
		dir = filepath.Dir(path)
	}
	stacks, err := readAssembly(dir, 0)
	if err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	var out []*Template
	for _, s := range stacks {
		if !s.matches(opts.StackName) {
			continue
		}
		t, err := loadStack(s, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		if opts.StackName == "" {
			return nil, fmt.Errorf("template: %s: %w: the assembly has no stack artifact", dir, ErrStackNotFound)
		}
		return nil, fmt.Errorf("template: %s: %w: no stack named %q", dir, ErrStackNotFound, opts.StackName)
	}
	return out, nil
}

// loadStack reads and resolves one stack's template.
func loadStack(s stackArtifact, opts Options) (*Template, error) {
	data, err := os.ReadFile(s.templatePath)
	if err != nil {
		return nil, fmt.Errorf("template: %w: %v", ErrInvalidTemplate, err)
	}
	raw, err := parseRawTemplate(data)
	if err != nil {
		return nil, fmt.Errorf("template: %s: %w", s.templatePath, err)
	}
	opts = opts.withDefaults(s.account, s.region)
	return build(raw, newStackContext(s.stackName, opts), opts.Parameters)
}
