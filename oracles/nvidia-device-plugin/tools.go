//go:build tools

// Package tools pins the upstream programs this module builds unchanged.
package tools

import (
	_ "github.com/NVIDIA/k8s-device-plugin/cmd/mps-control-daemon"
	_ "github.com/NVIDIA/k8s-device-plugin/cmd/nvidia-device-plugin"
)
