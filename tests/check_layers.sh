#!/bin/sh
# The layers of lib/ (docs/architecture.md): a folder includes its own headers and those of
# the layers it may use, never one above. Fails listing each include that breaks the rule.
# Usage: check_layers.sh LIB_DIR
lib=$1
allowed() {
    case $1 in
    core) echo "core" ;;
    grid | simd) echo "core" ;;
    qp) echo "core" ;;
    geom) echo "core grid" ;;
    bodies) echo "core geom grid" ;;
    upsample) echo "core geom grid simd bodies" ;;
    dem | pbd) echo "core geom grid simd bodies upsample" ;;
    continuum) echo "core geom grid simd bodies upsample qp" ;;
    terrain) echo "core geom grid bodies" ;;
    couple) echo "core geom grid bodies terrain" ;;
    world) echo "core geom grid simd bodies" ;;
    api) echo "core geom grid simd bodies upsample world dem pbd terrain" ;;
    *) echo "" ;;
    esac
}
bad=0
for dir in "$lib"/*/; do
    layer=$(basename "$dir")
    ok=$(allowed "$layer")
    if [ -z "$ok" ]; then
        echo "lib/$layer: a folder docs/architecture.md does not place in the layers"
        bad=$((bad + 1))
        continue
    fi
    for f in "$dir"*.c "$dir"*.h; do
        [ -e "$f" ] || continue
        for inc in $(sed -n 's|^#include "\.\./\([a-z0-9_]*\)/.*|\1|p' "$f"); do
            case " $ok " in
            *" $inc "*) ;;
            *)
                echo "lib/$layer/$(basename "$f") includes lib/$inc (a $layer file may include: $ok)"
                bad=$((bad + 1))
                ;;
            esac
        done
    done
done
[ "$bad" -eq 0 ] && echo "layers: every include goes downward"
exit $((bad > 0))
