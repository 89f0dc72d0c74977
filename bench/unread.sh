#!/usr/bin/env bash
# The memory of `cdpprovider serve` while a subscribed host never reads, on
# a page that changes every 20 ms: builds the binary and
# runs bench/unread, which prints the serving process's RSS over the span.
#
#   bash bench/unread.sh              # 10 minutes, a sample every 30 s
#   FOR=2m EVERY=10s bash bench/unread.sh
#   CHROME=/path/to/chrome bash bench/unread.sh
#
# Needs Go and a Chromium ($CHROME, or one the provider finds).
set -euo pipefail
cd "$(dirname "$0")/.."
FOR=${FOR:-10m}
EVERY=${EVERY:-30s}
bin=$(mktemp -d)/cdpprovider
go build -o "$bin" ./cmd/cdpprovider
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo n/a); $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
go run ./bench/unread -bin "$bin" -chrome "${CHROME:-}" -for "$FOR" -every "$EVERY"
