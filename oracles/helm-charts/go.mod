// Not built: pins, with go.sum hashes, the Go modules whose source trees ship the Helm charts the Helm oracle
// renders (oracles/pins.toml [helm-chart-*]; tests/oracles/helm.py reads each chart from Go's module cache).
// A module of its own so that these modules never join the build list of Helm (oracles/helm).
module gpu-components/oracles/helm-charts

go 1.25

require (
	github.com/NVIDIA/gpu-operator v0.0.0-20250917190837-d73a0086a6ba
	github.com/NVIDIA/k8s-device-plugin v0.19.1
	github.com/aws/karpenter-provider-aws v1.14.1
	sigs.k8s.io/dra-driver-nvidia-gpu v0.4.1
)
