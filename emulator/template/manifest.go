package template

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Artifact types of a cloud assembly manifest that the loader follows.
const (
	artifactStack    = "aws:cloudformation:stack"
	artifactAssembly = "cdk:cloud-assembly"
	manifestFileName = "manifest.json"
	templateSuffix   = ".template.json"
	unknownAccount   = "unknown-account"
	unknownRegion    = "unknown-region"
)

// maxAssemblyDepth bounds how deeply nested assemblies (CDK stages) are followed.
const maxAssemblyDepth = 8

// stackArtifact is one stack found in a cloud assembly.
type stackArtifact struct {
	artifactID   string
	displayName  string
	stackName    string
	templatePath string
	account      string
	region       string
}

// manifest is the part of a cloud assembly's manifest.json the loader reads.
type manifest struct {
	Artifacts map[string]manifestArtifact `json:"artifacts"`
}

type manifestArtifact struct {
	Type        string `json:"type"`
	Environment string `json:"environment"`
	DisplayName string `json:"displayName"`
	Properties  struct {
		TemplateFile  string `json:"templateFile"`
		StackName     string `json:"stackName"`
		DirectoryName string `json:"directoryName"`
	} `json:"properties"`
}

// readAssembly lists the stacks of the cloud assembly in dir, following nested assemblies,
// ordered by artifact ID at each level.
func readAssembly(dir string, depth int) ([]stackArtifact, error) {
	if depth > maxAssemblyDepth {
		return nil, fmt.Errorf("%w: cloud assemblies nested deeper than %d levels", ErrInvalidTemplate, maxAssemblyDepth)
	}
	data, err := os.ReadFile(filepath.Join(dir, manifestFileName))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidTemplate, err)
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidTemplate, filepath.Join(dir, manifestFileName), err)
	}
	var stacks []stackArtifact
	for _, id := range sortedKeys(m.Artifacts) {
		a := m.Artifacts[id]
		switch a.Type {
		case artifactStack:
			if a.Properties.TemplateFile == "" {
				return nil, fmt.Errorf("%w: stack artifact %s has no templateFile", ErrInvalidTemplate, id)
			}
			account, region := parseEnvironment(a.Environment)
			stacks = append(stacks, stackArtifact{
				artifactID:   id,
				displayName:  a.DisplayName,
				stackName:    firstNonEmpty(a.Properties.StackName, id),
				templatePath: filepath.Join(dir, a.Properties.TemplateFile),
				account:      account,
				region:       region,
			})
		case artifactAssembly:
			if a.Properties.DirectoryName == "" {
				continue
			}
			nested, err := readAssembly(filepath.Join(dir, a.Properties.DirectoryName), depth+1)
			if err != nil {
				return nil, err
			}
			stacks = append(stacks, nested...)
		}
	}
	return stacks, nil
}

// parseEnvironment reads "aws://account/region", returning "" for unknown parts.
func parseEnvironment(env string) (account, region string) {
	rest, ok := strings.CutPrefix(env, "aws://")
	if !ok {
		return "", ""
	}
	account, region, _ = strings.Cut(rest, "/")
	if account == unknownAccount {
		account = ""
	}
	if region == unknownRegion {
		region = ""
	}
	return account, region
}

// matches reports whether the artifact is the one a StackName filter names.
func (s stackArtifact) matches(name string) bool {
	return name == "" || name == s.stackName || name == s.artifactID || name == s.displayName
}
