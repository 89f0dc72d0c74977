#!/bin/sh
# The MCP Bundle's command on macOS and Linux: a bundle's manifest picks
# its command by system only, so this picks the binary of this system's
# processor from the six beside it, and runs it with the host's
# arguments (serve and the person's settings) in its place.
dir=$(dirname "$0")
case $(uname -s) in
Darwin) os=darwin ;;
Linux) os=linux ;;
*) echo "cdpprovider: no binary in this bundle for $(uname -s)" >&2; exit 1 ;;
esac
case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
arm64 | aarch64) arch=arm64 ;;
*) echo "cdpprovider: no binary in this bundle for $(uname -s) on $(uname -m)" >&2; exit 1 ;;
esac
exec "$dir/cdpprovider-$os-$arch" "$@"
