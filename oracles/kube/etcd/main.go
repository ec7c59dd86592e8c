// Command etcd is etcd's own server command (go.etcd.io/etcd/server/v3/etcdmain), built from the module version
// that k8s.io/kubernetes requires, for the control plane of the Kubernetes oracle.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
