#!/usr/bin/env bash
# Runs the benchmarks of bench/ once, on one browser the benchmarks start
# themselves, and prints their lines and then the summary tables (medians,
# ratios to the raw getFullAXTree, the project's targets).
#
#   bash bench/run.sh                     # 7 timed operations per cell
#   BENCHTIME=15x bash bench/run.sh       # more operations per cell
#   SETTLE=20s bash bench/run.sh          # longer wait for a provider to warm up
#   bash bench/run.sh -bench 'Read/10k'   # extra go test flags (here: one page)
#   CHROME=/path/to/chrome bash bench/run.sh
#
# Needs Go and a Chromium ($CHROME, or chromium on PATH). The raw output is
# kept in $OUT (default: a new temporary file, named at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCHTIME=${BENCHTIME:-7x}
SETTLE=${SETTLE:-90s}
OUT=${OUT:-$(mktemp -t cdpprovider-bench-XXXXXX.txt)}

dirty=""
git diff --quiet HEAD 2>/dev/null || dirty="+changes"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo n/a)$dirty; $(go version | cut -d' ' -f3-)"
if [ -r /proc/cpuinfo ]; then
  echo "# machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), $(awk '/MemTotal/{printf "%.0f GB", $2/1048576}' /proc/meminfo) RAM, $(uname -sr); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
echo "# go test -run '^\$' -bench . -benchtime $BENCHTIME ./bench/ -settle $SETTLE $*"
go test -run '^$' -bench . -benchtime "$BENCHTIME" -timeout 60m ./bench/ -settle "$SETTLE" "$@" | tee "$OUT"
if [ -r /proc/loadavg ]; then echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"; fi
echo "# raw output: $OUT"
