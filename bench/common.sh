# common.sh - what the `make bench` scripts share, sourced after they set
# runs and here (with the script's arguments): bin (the first argument, or
# ./probescan), data (PS_DATA), threads (THREADS, or every core), a work
# folder removed at exit, timing whole processes and the header line.
#   wall CMD...    seconds of one run of CMD (its output dropped)
#   timeit CMD...  the median of RUNS runs
#   header         probescan's version and commit, threads, cores, CPU
bin=${1:-./probescan}
data=${PS_DATA:-../shared/data}
threads=${THREADS:-$(nproc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
wall() {
    local s e
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" 'BEGIN {printf "%.4f\n", e - s}'
}
timeit() { for _ in $(seq "$runs"); do wall "$@"; done | median; }
header() {
    echo "probescan $("$bin" --version), $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown), $threads threads, $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
}
