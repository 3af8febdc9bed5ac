// Command coredns is the local cluster's DNS server: CoreDNS with only the
// plugins that answer the cluster's own names (kubernetes, bind, ready, errors,
// cache, loadbalance). It has no forward plugin: it sends nothing upstream,
// so a name outside the cluster's zone gets an error answer.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/ready"
)

func main() {
	dnsserver.Directives = []string{"bind", "ready", "errors", "cache", "loadbalance", "kubernetes"}
	coremain.Run()
}
