// Command netprobe is the real-node network tests' image program (a static
// binary). `netprobe serve` answers HTTP on :8080 with "served by HOSTNAME";
// `netprobe probe NAME URL` looks NAME up through the pod's resolver, GETs
// URL and prints the pod's IPv4 routes, one result a line.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "serve" {
		serve()
		return
	}
	if len(os.Args) >= 4 && os.Args[1] == "probe" {
		probe(os.Args[2], os.Args[3:])
		return
	}
	fmt.Fprintln(os.Stderr, "usage: netprobe serve | netprobe probe NAME URL...")
	os.Exit(2)
}

func serve() {
	host, _ := os.Hostname()
	http.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintf(w, "served by %s", host) })
	server := &http.Server{Addr: ":8080", ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintln(os.Stderr, server.ListenAndServe())
	os.Exit(1)
}

func probe(name string, urls []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupHost(ctx, name)
	fmt.Printf("lookup %s %v %v\n", name, addrs, err)
	client := httpClient()
	for _, url := range urls {
		fmt.Printf("get %s %s\n", url, get(ctx, client, url))
	}
	routes, _ := os.ReadFile("/proc/net/route")
	for _, line := range strings.Split(string(routes), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 8 {
			continue
		}
		d, _ := hex.DecodeString(f[1])
		m, _ := hex.DecodeString(f[7])
		ones, _ := net.IPv4Mask(m[3], m[2], m[1], m[0]).Size()
		fmt.Printf("route %s/%d\n", net.IPv4(d[3], d[2], d[1], d[0]), ones)
	}
}

// httpClient trusts the service-account CA the kubelet mounts into the pod.
func httpClient() *http.Client {
	pool := x509.NewCertPool()
	if ca, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"); err == nil {
		pool.AppendCertsFromPEM(ca)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
}

func get(ctx context.Context, client *http.Client, url string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err.Error()
	}
	resp, err := client.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err.Error()
	}
	return string(body)
}
