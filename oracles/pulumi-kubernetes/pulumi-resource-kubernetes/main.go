// Command pulumi-resource-kubernetes serves pulumi-kubernetes' provider (pkg/provider) as its own main does, with
// the package schema read from the file $GPU_COMPONENTS_KUBERNETES_SCHEMA (the module's
// cmd/pulumi-resource-kubernetes/schema.json) instead of one embedded at release time.
package main

import (
	"fmt"
	"os"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

func main() {
	path := os.Getenv("GPU_COMPONENTS_KUBERNETES_SCHEMA")
	schema, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-resource-kubernetes: the schema (GPU_COMPONENTS_KUBERNETES_SCHEMA): %v\n", err)
		os.Exit(1)
	}
	provider.Serve("kubernetes", version.Version, schema, []byte("{}"))
}
