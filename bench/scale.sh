#!/usr/bin/env bash
# scale.sh: the benchmarks of issue 32, pages whose cost stays flat as history
# grows (docs/performance.md, "Pages as history grows"): every read with a
# short and a long history (bench/scale: 1,000 deployments with 1,000 and with
# 100,000 ended tasks) beside /healthz and /readyz, then the executor's claim
# of a task. They take a few minutes, so they run only here, never in
# `make test`.
#
#   bench/scale.sh                 # 1000 requests a read, 1000 claims
#   BENCHTIME=2000x bench/scale.sh
set -euo pipefail

cd "$(dirname "$0")/.."
benchtime=${BENCHTIME:-1000x}
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD), load average $(cut -d' ' -f1-3 /proc/loadavg)"
# Each size in a process of its own, with a database server of its own: a
# size measured in the process that has just filled and served the other
# measured 10 to 40% slower, whichever size came second (docs/performance.md).
for tasks in 1000 100000; do
  go test -run '^$' -bench "^BenchmarkPages\$/^tasks=$tasks\$/" -benchtime "$benchtime" -timeout 30m ./bench/scale/
done
go test -run '^$' -bench ClaimAtScale -benchtime "$benchtime" -timeout 30m ./executor/
echo "# $(date -u +%FT%TZ) done, load average $(cut -d' ' -f1-3 /proc/loadavg)"
