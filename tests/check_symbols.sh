#!/bin/sh
# The shared library exports only gr_* symbols and carries a SONAME of the major version.
# usage: check_symbols.sh LIBRARY MAJOR
set -eu
lib=$1
major=$2
command -v nm >/dev/null 2>&1 || { echo "nm not found: skipped"; exit 77; }
bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^gr_' || true)
if [ -n "$bad" ]; then
    echo "symbols outside the gr_ namespace are exported:"
    echo "$bad"
    exit 1
fi
count=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -c '^gr_')
soname=$(objdump -p "$lib" 2>/dev/null | awk '/SONAME/ {print $2}')
case "$soname" in
    libgranular.so."$major") ;;
    *) echo "SONAME is '$soname', expected libgranular.so.$major"; exit 1 ;;
esac
# only libc, libm and pthreads (and the dynamic loader) are needed
needed=$(objdump -p "$lib" | awk '/NEEDED/ {print $2}' | grep -v -E '^(libc|libm|libpthread|ld-linux[^ ]*)\.so' || true)
if [ -n "$needed" ]; then
    echo "unexpected dependencies: $needed"
    exit 1
fi
# every allocation goes through the world's allocator: no libc call that allocates on the
# library's behalf (qsort may malloc; the library sorts with gr_sort). malloc/free/calloc
# are the default allocator's (lib/core/alloc.c).
allocating=$(nm -D --undefined-only "$lib" | awk '{print $2}' | sed 's/@.*//' |
    grep -x -E 'qsort|qsort_r|strdup|strndup|asprintf|vasprintf|open_memstream|getline' || true)
if [ -n "$allocating" ]; then
    echo "libc functions that allocate are called: $allocating"
    exit 1
fi
echo "$count gr_ symbols exported, SONAME $soname, dependencies ok, no allocating libc calls"
