#!/usr/bin/env bash
# Install what the build needs on Debian when it is missing (sourced by scripts/demo and
# scripts/test). Usage: ensure_packages CMD:PACKAGE ...   (CMD may be a path or a python module
# written as py=MODULE)
ensure_packages() {
    local missing=()
    local spec cmd pkg
    for spec in "$@"; do
        cmd=${spec%%:*}
        pkg=${spec#*:}
        case "$cmd" in
            py=*) /usr/bin/python3 -c "import ${cmd#py=}" >/dev/null 2>&1 || missing+=("$pkg") ;;
            /*) [ -e "$cmd" ] || missing+=("$pkg") ;;   # a header is a path, not an executable
            *) command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg") ;;
        esac
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "need root to install: ${missing[*]}" >&2; return 1; }
        sudo="sudo"
    fi
    echo "installing: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq >&2 || return 1
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}
