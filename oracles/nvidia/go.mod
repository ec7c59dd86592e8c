// The NVIDIA oracles: the device plugin and MPS control daemon (built unchanged from their module), and nvcheck,
// a batch CLI over go-nvlib's MIG profile grammar, mig-parted's config spec and apply/assert logic on go-nvml's
// mock GPUs, and Kubernetes' label-value validation. Versions: oracles/pins.toml.
module gpu-components.local/oracles/nvidia

go 1.26.0

require (
	github.com/NVIDIA/go-nvlib v0.13.0
	github.com/NVIDIA/go-nvml v0.13.4-1
	github.com/NVIDIA/mig-parted v0.10.0
	github.com/sirupsen/logrus v1.9.4
	k8s.io/apimachinery v0.35.4
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/kr/pretty v0.3.1 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/urfave/cli/v2 v2.27.7 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
	go.yaml.in/yaml/v2 v2.4.3 // indirect
	golang.org/x/sys v0.48.0 // indirect
	gopkg.in/check.v1 v1.0.0-20201130134442-10cb98267c6c // indirect
	k8s.io/klog/v2 v2.130.1 // indirect
	k8s.io/utils v0.0.0-20251002143259-bc988d571ff4 // indirect
	sigs.k8s.io/yaml v1.6.0 // indirect
)
