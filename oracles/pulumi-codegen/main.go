// Command pulumi-codegen generates the TypeScript (nodejs) or Go SDK of a Pulumi package schema with Pulumi's own
// code generators (github.com/pulumi/pulumi/pkg/v3/codegen, the version of oracles/pins.toml [pulumi-codegen]), the
// way `pulumi package add <local path>` does it, without the language hosts (not served by the Go module proxy):
//
//  1. the CLI binds the schema the plugin serves (schema validation on, dangling references allowed), sets
//     SupportPack (always on for `package add`) and sends the bound package, re-serialized, to the language host;
//  2. the language host binds that JSON again with the same options and runs its generator: nodejs with no overlay
//     files, no local dependencies and local=true; go with no local dependencies.
//
// Schema references to other packages are refused (this program has no plugins to load them from): the
// gpu-components schema references only pulumi.json#/Any, a built-in type.
//
// Usage: pulumi-codegen -schema schema.json -language nodejs|go -out DIR [-namespace ORG]
// -namespace stands for a git source (`pulumi package add github.com/ORG/REPO@TAG`): the CLI then sets the schema's
// namespace to the URL's owner, lower-cased, before binding; a local path sets none.
// Diagnostics (warnings and errors) go to stderr, one per line, prefixed "diagnostic: "; exit status 1 on any
// error, 2 on bad usage.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/blang/semver"
	"github.com/hashicorp/hcl/v2"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// offlineLoader loads no package: any reference from the schema to another package is an error that names it.
type offlineLoader struct{}

func refused(name string) error {
	return fmt.Errorf("the schema references package %q: this generator runs offline and loads no other package", name)
}

func (offlineLoader) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, refused(pkg)
}

func (offlineLoader) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, refused(d.Name)
}

func (offlineLoader) LoadPackageReference(pkg string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, refused(pkg)
}

func (offlineLoader) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, refused(d.Name)
}

func report(diags hcl.Diagnostics) {
	for _, d := range diags {
		fmt.Fprintf(os.Stderr, "diagnostic: %s\n", d.Error())
	}
}

func bind(spec schema.PackageSpec, loader schema.ReferenceLoader) (*schema.Package, error) {
	pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{AllowDanglingReferences: true})
	report(diags)
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, errors.New("the schema does not bind")
	}
	return pkg, nil
}

func generate(schemaPath, language, namespace string) (map[string][]byte, error) {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return nil, err
	}
	loader := schema.NewCachedLoader(offlineLoader{})

	// The CLI's side (`pulumi package add`).
	var served schema.PackageSpec
	if err := json.Unmarshal(raw, &served); err != nil {
		return nil, fmt.Errorf("%s: %w", schemaPath, err)
	}
	if served.Namespace == "" {
		served.Namespace = strings.ToLower(namespace)
	}
	cliPkg, err := bind(served, loader)
	if err != nil {
		return nil, err
	}
	cliPkg.SupportPack = true
	sent, err := cliPkg.MarshalJSON()
	if err != nil {
		return nil, err
	}

	// The language host's side (GeneratePackage).
	var received schema.PackageSpec
	if err := json.Unmarshal(sent, &received); err != nil {
		return nil, err
	}
	pkg, err := bind(received, loader)
	if err != nil {
		return nil, err
	}
	switch language {
	case "nodejs":
		return nodejs.GeneratePackage("pulumi-language-nodejs", pkg, nil, nil, true, loader)
	case "go":
		return gogen.GeneratePackage("pulumi-language-go", pkg, nil)
	}
	return nil, fmt.Errorf("unknown language %q (nodejs or go)", language)
}

func write(out string, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
		fmt.Println(name)
	}
	return nil
}

func main() {
	schemaPath := flag.String("schema", "", "the package schema (JSON)")
	language := flag.String("language", "", "nodejs or go")
	out := flag.String("out", "", "the directory the SDK is written to (created)")
	namespace := flag.String("namespace", "", "the owner of a git source's URL (none for a local path)")
	flag.Parse()
	if *schemaPath == "" || *language == "" || *out == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	files, err := generate(*schemaPath, *language, *namespace)
	if err == nil {
		err = write(*out, files)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-codegen: %v\n", err)
		os.Exit(1)
	}
}
