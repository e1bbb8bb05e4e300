#!/usr/bin/env bash
# Peer baseline: time LIGGGHTS on the shared "settle-box" scene and print one comparable line.
#
#   bench/peers/liggghts.sh --n 10000|100000 --phase pour|dense [--ranks 1|2] [--repeat K]
#
# Output (stdout, exactly one line):
#   settle-box-liggghts N=<n> phase=<p> ranks=<r> particle_steps_per_s=<x> contacts_per_particle=<c> bytes_per_particle=<b>
# Progress messages go to stderr; full LIGGGHTS logs are kept in bench/out/peers/.
# Environment:
#   GRANULAR_SHARED  shared tree holding bench/{liggghts,data,gen_lattice.py}
#                    (default: <repo root>/../shared)
#   LIGGGHTS         liggghts binary (default: liggghts on PATH)
#   MPIRUN           mpirun binary for --ranks > 1 (default: mpirun on PATH)
set -euo pipefail
export LC_ALL=C

die() { echo "liggghts.sh: error: $*" >&2; exit 1; }
note() { echo "liggghts.sh: $*" >&2; }
usage() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
    exit "${1:-2}"
}

n="" phase="" ranks=1 repeat=1
while [ $# -gt 0 ]; do
    case "$1" in
        --n) n="${2:-}"; shift 2 || usage ;;
        --phase) phase="${2:-}"; shift 2 || usage ;;
        --ranks) ranks="${2:-}"; shift 2 || usage ;;
        --repeat) repeat="${2:-}"; shift 2 || usage ;;
        -h|--help) usage 0 ;;
        *) echo "liggghts.sh: unknown argument: $1" >&2; usage ;;
    esac
done

case "$n" in
    10000) lattice="20 20 25"; tag=10k ;;
    100000) lattice="80 50 25"; tag=100k ;;
    *) die "--n must be 10000 or 100000 (got '${n}')" ;;
esac
case "$phase" in
    pour) nsteps=4000 ;;
    dense) nsteps=2000 ;;
    *) die "--phase must be pour or dense (got '${phase}')" ;;
esac
[[ "$ranks" =~ ^[1-9][0-9]*$ ]] || die "--ranks must be a positive integer (got '${ranks}')"
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || die "--repeat must be a positive integer (got '${repeat}')"

# --- locations -------------------------------------------------------------
script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$script_dir/../.." && pwd)"
shared="${GRANULAR_SHARED:-$repo_root/../shared}"
[ -d "$shared" ] || die "shared directory not found: $shared (set GRANULAR_SHARED)"
shared="$(cd "$shared" && pwd)"
scenedir="$shared/bench/liggghts"
if [ ! -f "$scenedir/bench.in" ] || [ ! -f "$scenedir/scene.in" ]; then
    die "LIGGGHTS decks not found in $scenedir (set GRANULAR_SHARED)"
fi

outdir="$repo_root/bench/out/peers"
mkdir -p "$outdir"

# --- tools -----------------------------------------------------------------
lig="${LIGGGHTS:-liggghts}"
lig_path="$(command -v "$lig" 2>/dev/null)" \
    || die "LIGGGHTS binary '$lig' not found (apt-get install -y liggghts, or set LIGGGHTS=...)"
timebin=/usr/bin/time
[ -x "$timebin" ] || die "/usr/bin/time (GNU time) not found, needed for peak memory (apt-get install -y time)"
if [ "$ranks" -gt 1 ]; then
    mpirun_bin="$(command -v "${MPIRUN:-mpirun}" 2>/dev/null)" \
        || die "mpirun not found, needed for --ranks $ranks (apt-get install -y openmpi-bin)"
fi

work="$(mktemp -d "$outdir/work.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# --- input -----------------------------------------------------------------
datafile="$work/${phase}_${tag}.data"
if [ "$phase" = pour ]; then
    gen="$shared/bench/gen_lattice.py"
    [ -f "$gen" ] || die "lattice generator not found: $gen"
    # shellcheck disable=SC2086
    python3 "$gen" $lattice "$datafile" || die "gen_lattice.py failed"
else
    gz="$shared/bench/data/settled_${tag}.data.gz"
    [ -f "$gz" ] || die "settled bed not found: $gz"
    gzip -dc "$gz" > "$datafile" || die "cannot gunzip $gz"
fi

# Per-process wrapper: runs liggghts under GNU time and writes its peak RSS (kB)
# to a per-rank file, so the memory of every MPI rank is measured.
wrapper="$work/rank_wrap.sh"
cat > "$wrapper" <<WRAP
#!/usr/bin/env bash
r="\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-\${PMIX_RANK:-0}}}"
exec "$timebin" -f "%M" -o "\$RSS_DIR/rss.\$r" "$lig_path" "\$@"
WRAP
chmod +x "$wrapper"

export OMP_NUM_THREADS=1

# --- runs ------------------------------------------------------------------
# drop logs of an earlier invocation of this configuration (e.g. a larger --repeat)
rm -f "$outdir/liggghts-N${n}-${phase}-r${ranks}-run"*.log
results="$work/results"   # lines: pps contacts bytes run
: > "$results"
for run in $(seq 1 "$repeat"); do
    log="$outdir/liggghts-N${n}-${phase}-r${ranks}-run${run}.log"
    rssdir="$work/rss.$run"
    mkdir -p "$rssdir"
    args=(-var scenedir "$scenedir" -var datafile "$datafile" -var nsteps "$nsteps"
          -in "$scenedir/bench.in" -log none)
    if [ "$ranks" -gt 1 ]; then
        cmd=("$mpirun_bin" --allow-run-as-root -np "$ranks" -x RSS_DIR="$rssdir" -x OMP_NUM_THREADS "$wrapper" "${args[@]}")
    else
        cmd=("$wrapper" "${args[@]}")
    fi
    note "run $run/$repeat: N=$n phase=$phase ranks=$ranks steps=$nsteps (log: $log)"
    {
        echo "# command: ${cmd[*]}"
        echo "# started: $(date -Is) on $(hostname)"
    } > "$log"
    rc=0
    ( cd "$work" && RSS_DIR="$rssdir" "${cmd[@]}" ) >> "$log" 2>&1 </dev/null || rc=$?
    if [ "$rc" -ne 0 ]; then
        tail -n 20 "$log" >&2
        die "LIGGGHTS failed (exit $rc), see $log"
    fi
    loop="$(grep -m1 '^Loop time of' "$log" || true)"
    [ -n "$loop" ] || { tail -n 20 "$log" >&2; die "no 'Loop time of' line in LIGGGHTS output, see $log"; }
    # Loop time of T on P procs for S steps with N atoms
    read -r t p s natoms < <(echo "$loop" | awk '{print $4, $6, $9, $12}')
    [ "$p" = "$ranks" ] || die "LIGGGHTS ran on $p procs, expected $ranks (see $log)"
    [ "$s" = "$nsteps" ] || die "LIGGGHTS ran $s steps, expected $nsteps (see $log)"
    [ "$natoms" = "$n" ] || die "LIGGGHTS ended with $natoms atoms, expected $n (see $log)"
    # c_cnavg at the last thermo row before the loop-time line
    cn="$(awk '
        /^Loop time of/ { exit }
        $1 == "Step" { col = 0; for (i = 1; i <= NF; i++) if ($i == "cnavg" || $i == "c_cnavg") col = i; next }
        col && $1 ~ /^[0-9]+$/ && NF >= col { last = $col }
        END { if (last != "") print last }' "$log")"
    [ -n "$cn" ] || die "cannot find the c_cnavg thermo column in $log"
    # peak RSS summed over ranks (GNU time %M is in kB)
    nfiles="$(find "$rssdir" -type f -name 'rss.*' | wc -l)"
    [ "$nfiles" -eq "$ranks" ] || die "expected $ranks per-rank memory files, found $nfiles in $rssdir"
    kb="$(cat "$rssdir"/rss.* | awk '$1 ~ /^[0-9]+$/ { s += $1; k++ } END { if (k) print s }')"
    [ -n "$kb" ] || die "cannot read peak RSS from $rssdir"
    { echo "# peak RSS per rank (kB): $(cat "$rssdir"/rss.* | tr '\n' ' ')"; echo "# finished: $(date -Is)"; } >> "$log"
    awk -v t="$t" -v n="$natoms" -v s="$s" -v cn="$cn" -v kb="$kb" -v run="$run" \
        'BEGIN { printf "%.6f %s %.6f %d\n", n * s / t, cn, kb * 1024 / n, run }' >> "$results"
    note "run $run: loop time ${t}s, $(awk -v t="$t" -v n="$natoms" -v s="$s" 'BEGIN{printf "%.0f", n*s/t}') particle-steps/s, contacts $cn, peak RSS ${kb} kB"
done

# median run by particle_steps_per_s (even K: the upper of the two middle runs)
med="$(sort -g -k1,1 "$results" | awk -v k="$repeat" 'NR == int(k / 2) + 1')"
read -r pps cn bpp medrun <<< "$med"
[ "$repeat" -gt 1 ] && note "median run: $medrun"
printf 'settle-box-liggghts N=%s phase=%s ranks=%s particle_steps_per_s=%.0f contacts_per_particle=%.2f bytes_per_particle=%.0f\n' \
    "$n" "$phase" "$ranks" "$pps" "$cn" "$bpp"
