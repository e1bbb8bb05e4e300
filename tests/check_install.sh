#!/bin/sh
# Install the build into a scratch root and build a client with nothing but pkg-config
# (shared), and once more against the static library.
# usage: check_install.sh BUILD_DIR CLIENT_SOURCE
set -eu
build=$1
client=$2
command -v pkg-config >/dev/null 2>&1 || { echo "pkg-config not installed: skipped"; exit 77; }
command -v cc >/dev/null 2>&1 || { echo "no C compiler: skipped"; exit 77; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
meson install -C "$build" --destdir "$root" --no-rebuild --quiet >/dev/null
pc=$(find "$root" -name granular.pc | head -n 1)
[ -n "$pc" ] || { echo "granular.pc was not installed"; exit 1; }
export PKG_CONFIG_PATH="$(dirname "$pc")"
export PKG_CONFIG_SYSROOT_DIR="$root"
flags=$(pkg-config --cflags --libs granular)
cc -std=c99 -Wall -Wextra -pedantic -Werror "$client" $flags -o "$root/client_shared"
libdir=$(dirname "$(dirname "$pc")")
LD_LIBRARY_PATH="$libdir" "$root/client_shared"
cc -std=c99 "$client" $(pkg-config --cflags granular) "$libdir/libgranular.a" -lm -pthread -o "$root/client_static"
"$root/client_static"
echo "installed headers, libraries and granular.pc work for shared and static clients"
