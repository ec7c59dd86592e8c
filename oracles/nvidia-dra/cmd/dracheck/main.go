// Command dracheck judges opaque device configs of the NVIDIA DRA driver (driver gpu.nvidia.com) the way the
// driver does: one JSON object per stdin line ({"id", "parameters"}: a claim's
// spec.devices.config[].opaque.parameters), one JSON result per stdout line ({"id", "ok", "error", "kind",
// "normalized"}).
//
// Each config is decoded with the driver's StrictDecoder (api/nvidia.com/resource/v1beta1/api.go: unknown fields
// fail), must be one of the kinds the driver's admission webhook accepts in a claim (cmd/webhook/main.go:
// GpuConfig, MigDeviceConfig, ComputeDomainChannelConfig, ComputeDomainDaemonConfig), and is then normalized and
// validated by its own Normalize and Validate (gpuconfig.go, migconfig.go, sharing.go, validate.go), which read
// the driver's feature gates. The gates are given as the chart gives them to every driver container
// (FEATURE_GATES, "Name=bool,..."), with --feature-gates, and checked by the driver's ValidateFeatureGates.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	nvapi "sigs.k8s.io/dra-driver-nvidia-gpu/api/nvidia.com/resource/v1beta1"
	"sigs.k8s.io/dra-driver-nvidia-gpu/pkg/featuregates"
)

type request struct {
	ID         string          `json:"id"`
	Parameters json.RawMessage `json:"parameters"`
}

type result struct {
	ID         string          `json:"id"`
	OK         bool            `json:"ok"`
	Error      string          `json:"error,omitempty"`
	Kind       string          `json:"kind,omitempty"`
	Normalized json.RawMessage `json:"normalized,omitempty"`
}

func main() {
	gates := flag.String("feature-gates", "", "the driver's feature gates, as the chart's FEATURE_GATES value")
	flag.Parse()
	if err := featuregates.FeatureGates().Set(*gates); err != nil {
		fmt.Fprintf(os.Stderr, "feature gates %q: %v\n", *gates, err)
		os.Exit(3)
	}
	if err := featuregates.ValidateFeatureGates(); err != nil {
		fmt.Fprintf(os.Stderr, "feature gates %q: %v\n", *gates, err)
		os.Exit(3)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		res := result{}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			res.Error = "bad request: " + err.Error()
		} else {
			res = check(req.Parameters)
			res.ID = req.ID
		}
		if err := out.Encode(res); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

// check follows the driver's webhook (cmd/webhook/main.go): strict decode, known kind, Normalize, Validate.
func check(parameters []byte) result {
	decoded, err := runtime.Decode(nvapi.StrictDecoder, parameters)
	if err != nil {
		return result{Error: fmt.Sprintf("error decoding object: %v", err)}
	}
	var config nvapi.Interface
	switch cast := decoded.(type) {
	case *nvapi.GpuConfig:
		config = cast
	case *nvapi.MigDeviceConfig:
		config = cast
	case *nvapi.ComputeDomainChannelConfig:
		config = cast
	case *nvapi.ComputeDomainDaemonConfig:
		config = cast
	default:
		return result{Error: fmt.Sprintf("expected a recognized configuration type but got: %T", decoded)}
	}
	kind := decoded.GetObjectKind().GroupVersionKind().Kind
	if err := config.Normalize(); err != nil {
		return result{Kind: kind, Error: fmt.Sprintf("error normalizing config: %v", err)}
	}
	if err := config.Validate(); err != nil {
		return result{Kind: kind, Error: fmt.Sprintf("object is invalid: %v", err)}
	}
	normalized, err := json.Marshal(config)
	if err != nil {
		return result{Kind: kind, Error: err.Error()}
	}
	return result{OK: true, Kind: kind, Normalized: normalized}
}
