# The two commands a newcomer needs: `make run` and `make test`.
# Everything else here is what those two are built from.

GO ?= go
export GOFLAGS := -buildvcs=false
# CLUSTER starts/stops the local cluster; `scope -- CMD` runs CMD with it up and stops it afterwards if scope started it.
CLUSTER := $(GO) run ./devcluster/cmd/cluster
# TOOL runs a code generator (templ, sqlc, oapi-codegen) of the tools module (tools/go.mod), which keeps
# their dependencies out of the product's go.mod; -modfile uses it while working in the repository's root.
TOOL := $(GO) tool -modfile=$(CURDIR)/tools/go.mod

# VERSION is the one version of the binary, the chart and the Python package: the VERSION file's
# (version/version_test.go holds deploy/chart/Chart.yaml and sdk/python to it); `make release VERSION=x.y.z` overrides it.
VERSION ?= $(shell cat $(CURDIR)/VERSION)

.PHONY: run test test-engine generate check-generated cluster cluster-stop build release images cluster-image action-runner-image

## run: start the whole app (private PostgreSQL and local Kubernetes when none is configured).
## Where packages cannot be installed, the cluster's node falls back to a simulated one and says why.
## `make run OIDC=dex` also starts a local Dex and signs people in through it (README, Single sign-on).
run:
	-./scripts/ensure-node-packages
	STYRMIN_DEV_OIDC=$(OIDC) $(GO) run ./cmd/styrmin-dev run

## test: run every test, starting whatever they need, each once and under the race detector
## (scripts/test-race): the main module's inside a scope that starts the local cluster and stops it
## afterwards if it started it, then localkube's (whose cluster tests start clusters of their own
## from the binaries the scope built). `go test` vets nothing again: `go vet` checked the main
## module before, and localkube's run is its only vet. Every test runs in the same build, so on a
## cold cache each package is compiled once with the race detector and once without (for vet,
## the cluster's programs and the image of Styrmin the chart's test runs).
test: check-generated
	./scripts/check-format
	./scripts/ensure-chromium
	./scripts/ensure-dex
	./scripts/ensure-buildah
	./scripts/ensure-node-packages
	$(GO) vet ./...
	$(CLUSTER) scope -- ./scripts/test-race -vet=off
	cd localkube && ../scripts/test-race

## test-engine: drive the task engine through random sequences of queue, claim, link, finish, cancel,
## kill, recover and database outages for ENGINE_TIME (default 3m), checking after each step that no
## deployment stays held by a task that ended (make test runs one short sequence); a failure names its
## seed, which STYRMIN_ENGINE_PROPERTY_SEED=N replays.
ENGINE_TIME ?= 3m
test-engine:
	STYRMIN_ENGINE_PROPERTY_TIME=$(ENGINE_TIME) $(GO) test -race -count=1 -run TestTheHoldInvariantHoldsWhateverHappensToTasks -timeout 30m -v ./executor/

## cluster: start the local Kubernetes cluster, building it on first use (about 13 min on
## 2 cores, cached afterwards); kubeconfig in .cluster/kubeconfig, kubectl in .cluster/bin.
## Its node is real (containerd and a kubelet); STYRMIN_LOCAL_NODE=kwok simulates it instead (docs/local-cluster.md).
cluster:
	./scripts/ensure-node-packages
	$(CLUSTER) start

## cluster-stop: stop the local Kubernetes cluster (kwok, scheduler, controller-manager, apiserver, etcd).
cluster-stop:
	$(CLUSTER) stop

## cluster-image: build Styrmin's image (deploy/styrmin/Containerfile's contents, without a container engine)
## and import it into the running local cluster's node; prints styrmin.local/styrmin:dev-<hash>.
cluster-image:
	./scripts/cluster-image

## action-runner-image: build the image driver actions run in under the pod runtime
## (deploy/action-runner/Containerfile's contents, without a container engine)
action-runner-image:
	./scripts/action-runner-image

## build: build the styrmin binary into bin/, stamped with VERSION, the commit and the date (`bin/styrmin version`).
build:
	$(GO) build -ldflags "$$(./scripts/version-ldflags $(VERSION))" -o bin/styrmin ./cmd/styrmin

## release: build a release into dist/VERSION/ (`make release VERSION=x.y.z`; default the VERSION file's): the
## binary, the chart package, the Python sdist and wheel and the two images (OCI archives), with SHA256SUMS (scripts/release).
release:
	./scripts/release $(VERSION)

## images: build Styrmin's and the action runner's images with buildah (installed when missing) from their Containerfiles,
## tagged styrmin.local/...:VERSION; the base images are substituted by ones built here, in the open (scripts/images).
images:
	./scripts/images $(VERSION)

## generate: tidy go.mod and go.sum (the product's and the tools module's), regenerate templ views, sqlc queries,
## the REST API's Go code (server and client) and the docs/ reference.
generate:
	cd api && $(TOOL) oapi-codegen -config oapi-codegen.yaml -o api.gen.go openapi.yaml
	cd api/client && $(TOOL) oapi-codegen -config oapi-codegen.yaml -o client.gen.go ../openapi.yaml
	$(GO) mod tidy
	cd tools && $(GO) mod tidy
	$(TOOL) templ generate
	$(TOOL) sqlc generate
	$(GO) run ./cmd/styrmin docs driver-api --out docs/driver-api.md
	$(GO) run ./cmd/styrmin docs openapi --out docs/openapi.json
	$(GO) run ./cmd/styrmin driver schema > docs/driver.schema.json

## check-generated: fail when committed generated code differs from a fresh generation.
check-generated:
	./scripts/check-generated
