// Command nvcheck runs NVIDIA's own MIG code on a batch of checks: one JSON object per stdin line in, one JSON
// result per line out ({"id", "ok", "error", ...}), so one process judges hundreds of rendered configs.
//
// Checks ("check" field):
//
//	mig-profile   go-nvlib's MIG profile grammar (pkg/nvlib/device/mig_profile.go AssertValidMigProfileFormat) on
//	              "profile"; with "gpu" (a mock GPU, below) also go-nvlib's ParseMigProfile against the profiles
//	              that GPU offers (devicelib.GetMigProfiles over go-nvml's mock), returning the canonical name.
//	mig-profiles  the MIG profiles go-nvlib finds on a mock GPU ("gpu"), by name.
//	mig-resource  an extended resource name such as nvidia.com/mig-1g.10gb: its profile parsed by go-nvlib, the
//	              name rebuilt with the device plugin's rule (internal/rm/rm.go: "mig-"+profile, "+" -> "."),
//	              and the name checked as a Kubernetes qualified name (apimachinery util/validation).
//	mig-parted    a mig-parted config file ("config", YAML) parsed as nvidia-mig-parted does
//	              (cmd/nvidia-mig-parted/assert ParseConfigFile -> api/spec/v1 Spec.UnmarshalJSON), every config
//	              name checked as a label value (it becomes nvidia.com/mig.config); returns the names.
//	mig-apply     one config ("selected") of a mig-parted file applied to a mock GPU of go-nvml (pkg/nvml/mock,
//	              "gpu" names a gpus.Config) with mig-parted's mode and config managers (pkg/mig/mode,
//	              pkg/mig/config SetMigConfig), then asserted as `nvidia-mig-parted assert` does
//	              (cmd/nvidia-mig-parted/assert/config.go: GetMigConfig equals the spec's mig-devices). go-nvml's
//	              mock does not model GPU capacity (it creates any instance asked for), so on the A100-SXM4-40GB,
//	              the one GPU mig-parted knows the valid layouts of (pkg/mig/config/known_configs.go), the layout
//	              is also checked with that MigConfigGroup's AssertValidConfiguration.
//
// mig-parted resolves profile names through package-level NVML handles of pkg/types (real NVML, else its own
// fixed A100-40GB mock); nvcheck points them at the go-nvml mock GPU under test (go:linkname below), so
// profiles are resolved against that GPU's own MIG tables.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	_ "unsafe" // go:linkname

	nvdevice "github.com/NVIDIA/go-nvlib/pkg/nvlib/device"
	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	v1 "github.com/NVIDIA/mig-parted/api/spec/v1"
	"github.com/NVIDIA/mig-parted/cmd/nvidia-mig-parted/assert"
	migconfig "github.com/NVIDIA/mig-parted/pkg/mig/config"
	"github.com/NVIDIA/mig-parted/pkg/mig/mode"
	"github.com/NVIDIA/mig-parted/pkg/types"
	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/util/validation"
)

// typesNvml and typesNvdev are mig-parted's pkg/types NVML and go-nvlib handles (package-level, unexported).
//
//go:linkname typesNvml github.com/NVIDIA/mig-parted/pkg/types.nvmllib
var typesNvml nvml.Interface

//go:linkname typesNvdev github.com/NVIDIA/mig-parted/pkg/types.nvdevlib
var typesNvdev nvdevice.Interface

type request struct {
	ID       string `json:"id"`
	Check    string `json:"check"`
	Profile  string `json:"profile,omitempty"`
	Resource string `json:"resource,omitempty"`
	Config   string `json:"config,omitempty"`
	Selected string `json:"selected,omitempty"`
	GPU      string `json:"gpu,omitempty"`
}

type result struct {
	ID      string   `json:"id"`
	OK      bool     `json:"ok"`
	Error   string   `json:"error,omitempty"`
	Name    string   `json:"name,omitempty"`
	Names   []string `json:"names,omitempty"`
	Applied []string `json:"applied,omitempty"`
}

// mockGPUs are the GPUs go-nvml's mock server models, by the name a request uses.
var mockGPUs = map[string]gpus.Config{
	"A100-SXM4-40GB":  gpus.A100_SXM4_40GB,
	"A100-SXM4-80GB":  gpus.A100_SXM4_80GB,
	"A100-PCIE-40GB":  gpus.A100_PCIE_40GB,
	"A100-PCIE-80GB":  gpus.A100_PCIE_80GB,
	"A30-PCIE-24GB":   gpus.A30_PCIE_24GB,
	"H100-SXM5-80GB":  gpus.H100_SXM5_80GB,
	"H200-SXM5-141GB": gpus.H200_SXM5_141GB,
	"B200-SXM5-180GB": gpus.B200_SXM5_180GB,
}

func main() {
	logrus.SetLevel(logrus.ErrorLevel)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		var res result
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			res = result{Error: "bad request: " + err.Error()}
		} else {
			res = run(req)
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

func run(req request) result {
	var res result
	var err error
	switch req.Check {
	case "mig-profile":
		res.Name, err = checkProfile(req.Profile, req.GPU)
	case "mig-profiles":
		res.Names, err = mockProfiles(req.GPU)
	case "mig-resource":
		res.Name, err = checkResource(req.Resource, req.GPU)
	case "mig-parted":
		res.Names, err = checkMigParted(req.Config)
	case "mig-apply":
		res.Applied, err = applyOnMock(req.Config, req.Selected, req.GPU)
	default:
		err = fmt.Errorf("unknown check %q", req.Check)
	}
	if err != nil {
		res.Error = err.Error()
	} else {
		res.OK = true
	}
	return res
}

// checkProfile checks a MIG profile name with go-nvlib's grammar and, given a mock GPU, parses it against the
// profiles that GPU offers; the canonical name comes back (the name itself without a GPU).
func checkProfile(profile, gpu string) (string, error) {
	if gpu == "" {
		if err := nvdevice.New(nil).AssertValidMigProfileFormat(profile); err != nil {
			return "", err
		}
		return profile, nil
	}
	nvmlMock, err := mockServer(gpu)
	if err != nil {
		return "", err
	}
	parsed, err := nvdevice.New(nvmlMock).ParseMigProfile(profile)
	if err != nil {
		return "", fmt.Errorf("%q on %s: %v", profile, gpu, err)
	}
	return parsed.String(), nil
}

// mockProfiles lists the MIG profiles go-nvlib finds on a mock GPU (devicelib.GetMigProfiles), by name.
func mockProfiles(gpu string) ([]string, error) {
	nvmlMock, err := mockServer(gpu)
	if err != nil {
		return nil, err
	}
	profiles, err := nvdevice.New(nvmlMock).GetMigProfiles()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(profiles))
	for _, p := range profiles {
		names = append(names, p.String())
	}
	sort.Strings(names)
	return names, nil
}

// mockServer is go-nvml's mock NVML with one GPU of the named kind.
func mockServer(gpu string) (*server.Server, error) {
	gpuConfig, known := mockGPUs[gpu]
	if !known {
		return nil, fmt.Errorf("no mock GPU %q", gpu)
	}
	return server.New(server.WithGPUs(gpuConfig))
}

// checkResource checks a MIG extended resource name as the device plugin makes it for the mixed strategy.
func checkResource(resource, gpu string) (string, error) {
	if errs := validation.IsQualifiedName(resource); len(errs) > 0 {
		return "", fmt.Errorf("invalid resource name %q: %s", resource, strings.Join(errs, "; "))
	}
	const prefix = "nvidia.com/mig-"
	if !strings.HasPrefix(resource, prefix) {
		return "", fmt.Errorf("%q is not a MIG resource name (prefix %s)", resource, prefix)
	}
	// The plugin writes "+attr" as ".attr"; the first two dot-separated fields are <C>g.<M>gb (or <C>c.<G>g.<M>gb).
	fields := strings.Split(strings.TrimPrefix(resource, prefix), ".")
	split := 2
	if len(fields) > 0 && strings.HasSuffix(fields[0], "c") {
		split = 3
	}
	if len(fields) < split {
		return "", fmt.Errorf("%q: too few fields for a MIG profile", resource)
	}
	profile := strings.Join(fields[:split], ".")
	if len(fields) > split {
		profile += "+" + strings.Join(fields[split:], "+")
	}
	canonical, err := checkProfile(profile, gpu)
	if err != nil {
		return "", err
	}
	rebuilt := "nvidia.com/" + strings.ReplaceAll("mig-"+canonical, "+", ".")
	if rebuilt != resource {
		return "", fmt.Errorf("the device plugin names profile %s %q, not %q", canonical, rebuilt, resource)
	}
	return canonical, nil
}

// parseMigParted parses a mig-parted config file exactly as `nvidia-mig-parted apply/assert -f` does.
func parseMigParted(config string) (*v1.Spec, error) {
	file, err := os.CreateTemp("", "nvcheck-*.yaml")
	if err != nil {
		return nil, err
	}
	defer os.Remove(file.Name())
	if _, err := file.WriteString(config); err != nil {
		return nil, err
	}
	file.Close()
	return assert.ParseConfigFile(&assert.Flags{ConfigFile: file.Name()})
}

func checkMigParted(config string) ([]string, error) {
	spec, err := parseMigParted(config)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(spec.MigConfigs))
	for name := range spec.MigConfigs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if errs := validation.IsValidLabelValue(name); len(errs) > 0 {
			return nil, fmt.Errorf("mig-config %q is not a valid value of label nvidia.com/mig.config: %s",
				name, strings.Join(errs, "; "))
		}
	}
	return names, nil
}

// knows tells whether every profile of a layout is one of the group's device types (mig-parted v0.10.0's A100-40GB
// table predates the 1g.10gb profile that GPU has since gained; layouts using it are not judged by the table).
func knows(group types.MigConfigGroup, layout types.MigConfig) bool {
	known := map[string]bool{}
	for _, profile := range group.GetDeviceTypes() {
		known[profile.String()] = true
	}
	for profile := range layout {
		if !known[profile] {
			return false
		}
	}
	return true
}

// applyOnMock applies the selected config to a one-GPU mock server and asserts it, returning the MIG devices the
// mock GPU then reports (profile=count, sorted).
func applyOnMock(config, selected, gpu string) ([]string, error) {
	nvmlMock, err := mockServer(gpu)
	if err != nil {
		return nil, err
	}
	spec, err := parseMigParted(config)
	if err != nil {
		return nil, err
	}
	flags := &assert.Flags{SelectedConfig: selected}
	specs, err := assert.GetSelectedMigConfig(flags, spec)
	if err != nil {
		return nil, err
	}
	typesNvml, typesNvdev = nvmlMock, nvdevice.New(nvmlMock)
	defer func() { typesNvml, typesNvdev = nil, nil }()
	modes := mode.NewMockNvmlMigModeManager(nvmlMock)
	configs := migconfig.NewMockNvmlMigConfigManager(nvmlMock)
	device, _ := nvmlMock.DeviceGetHandleByIndex(0)
	pci, _ := device.GetPciInfo()
	deviceID := types.DeviceID(pci.PciDeviceId)
	const index = 0
	var applied types.MigConfig
	for _, mc := range specs {
		if !mc.MatchesDeviceFilter(deviceID) || !mc.MatchesDevices(index) {
			continue
		}
		want := mode.Disabled
		if mc.MigEnabled {
			want = mode.Enabled
		}
		if err := modes.SetMigMode(index, want); err != nil {
			return nil, fmt.Errorf("error setting MIG mode: %v", err)
		}
		if !mc.MigEnabled {
			continue
		}
		if len(mc.MigDevices.Flatten()) == 0 {
			return nil, fmt.Errorf("mig-devices %v: no profile of it exists on %s", mc.MigDevices, gpu)
		}
		if group := migconfig.NewA100_SXM4_40GB_MigConfigGroup(); gpu == "A100-SXM4-40GB" && knows(group, mc.MigDevices) {
			if err := group.AssertValidConfiguration(mc.MigDevices); err != nil {
				return nil, fmt.Errorf("mig-devices %v on %s: %v", mc.MigDevices, gpu, err)
			}
		}
		if err := configs.SetMigConfig(index, mc.MigDevices); err != nil {
			return nil, fmt.Errorf("error setting MIG config %v: %v", mc.MigDevices, err)
		}
		current, err := configs.GetMigConfig(index)
		if err != nil {
			return nil, fmt.Errorf("error getting MIGConfig: %v", err)
		}
		if !current.Equals(mc.MigDevices) {
			return nil, fmt.Errorf("assert failed: GPU reports %v, config asks %v", current, mc.MigDevices)
		}
		applied = current
	}
	if applied == nil {
		return nil, fmt.Errorf("no MIG-enabled entry of %q matches mock GPU %s (device id %v)", selected, gpu, deviceID)
	}
	out := make([]string, 0, len(applied))
	for profile, count := range applied {
		out = append(out, fmt.Sprintf("%s=%d", profile, count))
	}
	sort.Strings(out)
	return out, nil
}
