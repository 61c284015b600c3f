#!/usr/bin/env bash
# make cluster-test: the scatter / gather workflows on a one-host Slurm
# cluster, each gathered output compared byte for byte with one local run.
#   - installs what it needs with apt (slurm-wlm, munge, snakemake, cwltool,
#     toil, nodejs) where a command is missing;
#   - writes small inputs: the bundled E. coli genome cut into three
#     "chromosome" files and two read sets sampled from it;
#   - cwltool runs workflows/cwl/scatter.cwl locally (by-file with -m 1,
#     totals, by-record);
#   - starts munged, slurmctld and slurmd on this host (a munge key, socket
#     and slurm.conf of its own in a temporary directory, free ports, no
#     accounting), then runs workflows/snakemake/scatter through
#     `snakemake --cluster "sbatch --parsable"`, the example pipeline
#     (workflows/snakemake/example) on the small inputs the same way, a job
#     that fails (Snakemake must stop, not wait), and scatter.cwl through
#     `toil-cwl-runner --batchSystem slurm`;
#   - stops every daemon it started by its pid, also on failure.
# Usage (as root): tests/cluster.sh [PROBESCAN]   (default ./probescan)
#   KEEP=1 keeps the temporary directory. Ends with "cluster-test: N passed, N failed".
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-$repo/probescan}
[ -x "$bin" ] || { echo "cluster-test: no $bin: build it first with make" >&2; exit 1; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
if [ "$(id -u)" != 0 ]; then
    echo "cluster-test: run as root (it installs Slurm with apt and starts its daemons)" >&2
    exit 1
fi

# What is missing, installed once; the commands, not the packages, are checked
# so that a machine set up by other means is used as it is.
need=()
for pair in slurmctld:slurm-wlm slurmd:slurm-wlm sbatch:slurm-wlm munged:munge mungekey:munge \
            snakemake:snakemake cwltool:cwltool toil-cwl-runner:toil node:nodejs; do
    command -v "${pair%%:*}" >/dev/null || need+=("${pair#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
    mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
    echo "cluster-test: installing ${need[*]}"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null; } ||
        { echo "cluster-test: apt-get install ${need[*]} failed" >&2; exit 1; }
fi

# munged wants every directory above its socket searchable by all.
work=$(mktemp -d "${TMPDIR:-/tmp}/probescan-cluster.XXXXXX")
chmod 755 "$work"
pids=()   # pid files of the daemons started, stopped in reverse order
stop_daemons() {
    local i f pid n
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        f=${pids[i]}
        [ -s "$f" ] || continue
        pid=$(cat "$f")
        kill "$pid" 2>/dev/null || continue
        for n in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        if kill -0 "$pid" 2>/dev/null; then
            echo "cluster-test: pid $pid ($f) still running after 10 s: killed" >&2
            kill -9 "$pid" 2>/dev/null
        fi
    done
    pids=()
}
cleanup() {
    stop_daemons
    if [ "${KEEP:-0}" = 1 ]; then echo "cluster-test: results kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
# same NAME GOT WANT: the gathered file GOT equals WANT byte for byte.
same() {
    if [ -s "$3" ] && cmp -s "$2" "$3"; then
        ok "$1"
    else
        bad "$1: $2 differs from one local run ($3)"
        diff "$2" "$3" 2>&1 | head -n 5
    fi
}
# run_log NAME LOG CMD...: runs CMD (at most 10 minutes), its output in LOG, shown on failure.
run_log() {
    local name=$1 log=$2
    shift 2
    local rc=0
    timeout 600 "$@" > "$log" 2>&1 || rc=$?
    [ $rc = 0 ] && return 0
    bad "$name: exit $rc$([ $rc = 124 ] && echo ' (timed out)'); the end of $log:"
    tail -n 25 "$log"
    return 1
}

section() { echo "== $* [$((SECONDS - start)) s]"; }
export PATH="$(dirname "$bin"):$PATH"
[ "$(basename "$bin")" = probescan ] || ln -s "$bin" "$work/probescan"
export PATH="$work:$PATH"
start=$SECONDS
echo "cluster-test: probescan $(probescan --version), snakemake $(snakemake --version)," \
     "cwltool $(cwltool --version 2>/dev/null | awk '{print $NF}'), toil $(toil --version 2>/dev/null | tail -n 1)," \
     "slurm $(slurmctld -V | awk '{print $2}'); work in $work"

# The inputs: two "chromosome" files, of two and four records, one gzip, and
# two read sets of 150 bp reads from both strands, one gzip, one plain FASTQ.
data=$work/data
mkdir -p "$data"
python3 - "$repo/fasta/ecoli_K12_MG1655.fa.gz" "$data" <<'PY' || { echo "cluster-test: could not write the inputs" >&2; exit 1; }
import gzip, random, sys
src, out = sys.argv[1], sys.argv[2]
seq = "".join(l.strip() for l in gzip.open(src, "rt") if not l.startswith(">"))
cuts = [0, 700000, 1500000, 2300000, 3000000, 3900000, len(seq)]
for f, records in ((1, range(0, 2)), (2, range(2, 6))):
    path = f"{out}/chr{f}.fa" + (".gz" if f == 2 else "")
    with (gzip.open(path, "wt") if f == 2 else open(path, "w")) as o:
        for r in records:
            o.write(f">part{r + 1}\n")
            for i in range(cuts[r], cuts[r + 1], 80):
                o.write(seq[i:i + 80] + "\n")
rng = random.Random(40)
comp = str.maketrans("ACGT", "TGCA")
for s, gz in (("sampleA", True), ("sampleB", False)):
    path = f"{out}/{s}.fq" + (".gz" if gz else "")
    with (gzip.open(path, "wt") if gz else open(path, "w")) as o:
        for n in range(3000):
            p = rng.randrange(len(seq) - 150)
            r = seq[p:p + 150]
            if rng.random() < 0.5:
                r = r.translate(comp)[::-1]
            o.write(f"@{s}_{n}\n{r}\n+\n{'I' * 150}\n")
PY
probes=$repo/fasta/ecoli_probes.fa
inputs=("$data/chr1.fa" "$data/chr2.fa.gz" "$data/sampleA.fq.gz" "$data/sampleB.fq")

# One local run of each, the reference every gathered output is compared with.
ref=$work/ref
mkdir -p "$ref/summary"
probescan count -q --by-file -m 1 -p "$probes" -o "$ref/by_file.tsv" "${inputs[@]}" &&
probescan count -q -p "$probes" -o "$ref/totals.tsv" "${inputs[@]}" &&
probescan count -q --by-record -p "$probes" -o "$ref/by_record.tsv" "${inputs[@]}" &&
probescan locate -q -m 1 -p "$probes" -o "$ref/sites_m1.bed" "${inputs[@]}" &&
probescan locate -q -p "$probes" -o "$ref/sites.bed" "${inputs[@]}" &&
probescan summary -q -o "$ref/summary" "$ref/by_file.tsv" ||
    { echo "cluster-test: the local reference runs failed" >&2; exit 1; }

# A CWL job order: the inputs in order, and the shape's options.
job_order() {   # job_order FILE YAML-LINES...
    local f=$1 i
    shift
    { echo "probes: {class: File, path: $probes}"
      echo "inputs:"
      for i in "${inputs[@]}"; do echo "  - {class: File, path: $i}"; done
      printf '%s\n' "$@"; } > "$f"
}
cwl=$repo/workflows/cwl
job_order "$work/by_file.yml" "by_file: true" "mismatches: 1"
job_order "$work/totals.yml"
job_order "$work/by_record.yml" "by_record: true"

section "cwltool --validate"
for f in "$cwl"/*.cwl; do
    run_log "cwltool --validate $(basename "$f")" "$work/validate.log" cwltool --validate "$f" &&
        ok "cwltool --validate $(basename "$f")"
done

section "snakemake --lint: workflows/snakemake/scatter"
if snakemake -s "$repo/workflows/snakemake/scatter/Snakefile" --directory "$work/lint" --lint \
        --config probes="$probes" "inputs=[$data/chr1.fa]" > "$work/lint.log" 2>&1 &&
    grep -q "good condition" "$work/lint.log"; then
    ok "snakemake --lint scatter"
else
    bad "snakemake --lint scatter:"
    cat "$work/lint.log"
fi

section "cwltool: scatter.cwl on this machine"
for shape in by_file totals by_record; do
    out=$work/cwltool-$shape
    run_log "cwltool $shape" "$work/cwltool-$shape.log" \
        cwltool --outdir "$out" "$cwl/scatter.cwl" "$work/$shape.yml" || continue
    same "cwltool $shape: counts" "$out/counts.tsv" "$ref/$shape.tsv"
    if [ "$shape" = by_file ]; then
        same "cwltool $shape: sites" "$out/sites.bed" "$ref/sites_m1.bed"
        for f in "$ref"/summary/*; do same "cwltool $shape: summary $(basename "$f")" "$out/summary/$(basename "$f")" "$f"; done
    else
        same "cwltool $shape: sites" "$out/sites.bed" "$ref/sites.bed"
    fi
done

section "a one-host Slurm cluster"
conf=$work/slurm
mkdir -p "$conf/munge" "$conf/state" "$conf/spool" "$conf/log"
chmod 755 "$conf" "$conf/munge"
if command -v mungekey >/dev/null; then
    mungekey --create --keyfile="$conf/munge/munge.key" || exit 1
else
    dd if=/dev/urandom of="$conf/munge/munge.key" bs=1024 count=1 status=none || exit 1
fi
chmod 400 "$conf/munge/munge.key"
pids+=("$conf/munge/munged.pid")
munged --key-file="$conf/munge/munge.key" --socket="$conf/munge/munge.sock" --pid-file="$conf/munge/munged.pid" \
    --log-file="$conf/log/munged.log" --seed-file="$conf/munge/munged.seed" ||
    { cat "$conf/log/munged.log" >&2; echo "cluster-test: munged did not start" >&2; exit 1; }
host=$(hostname -s)
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
mem=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
cat > "$conf/slurm.conf" <<EOF
ClusterName=probescan
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$conf/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$conf/state
SlurmdSpoolDir=$conf/spool
SlurmctldPidFile=$conf/slurmctld.pid
SlurmdPidFile=$conf/slurmd.pid
SlurmctldLogFile=$conf/log/slurmctld.log
SlurmdLogFile=$conf/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=${mem:-1024} State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$conf/slurm.conf
pids+=("$conf/slurmctld.pid")
slurmctld -f "$SLURM_CONF" || { tail "$conf/log/slurmctld.log" >&2; echo "cluster-test: slurmctld did not start" >&2; exit 1; }
pids+=("$conf/slurmd.pid")
slurmd -f "$SLURM_CONF" -N "$host" || { tail "$conf/log/slurmd.log" >&2; echo "cluster-test: slurmd did not start" >&2; exit 1; }
for n in $(seq 60); do
    [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && break
    sleep 0.5
done
if [ "$(sinfo -h -o %t 2>/dev/null)" = idle ]; then
    ok "Slurm: $(sinfo -h -o '%P %D node(s) %c CPUs %t') on $host (ports $ctld_port, $slurmd_port)"
else
    bad "Slurm: the node is not idle: $(sinfo -h 2>&1)"
    tail -n 20 "$conf/log/slurmctld.log" "$conf/log/slurmd.log"
    exit 1
fi

# Snakemake on Slurm: each job through sbatch, its state through scontrol.
sm_cluster=(--cluster "sbatch --parsable -c {threads} -o slurm-%j.out"
            --cluster-status "$repo/workflows/snakemake/slurm-status.py" --jobs 8 --latency-wait 30)

section "snakemake --cluster sbatch: workflows/snakemake/scatter"
list=$(printf '%s, ' "${inputs[@]}")
if run_log "snakemake scatter" "$work/sm-scatter.log" \
    snakemake -s "$repo/workflows/snakemake/scatter/Snakefile" --directory "$work/sm-scatter" "${sm_cluster[@]}" \
        --config probes="$probes" "inputs=[${list%, }]" count="--by-file -m 1" locate="-m 1"; then
    jobs=$(ls "$work/sm-scatter"/slurm-*.out 2>/dev/null | wc -l)
    # count and locate for each of 4 inputs, and the merge (the concatenation runs locally)
    [ "$jobs" = 9 ] && ok "snakemake scatter: $jobs Slurm jobs" || bad "snakemake scatter: $jobs Slurm jobs, not 9"
    same "snakemake scatter: counts" "$work/sm-scatter/counts.tsv" "$ref/by_file.tsv"
    same "snakemake scatter: sites" "$work/sm-scatter/sites.bed" "$ref/sites_m1.bed"
fi

section "snakemake --cluster sbatch: workflows/snakemake/example on the small inputs"
# Its samples: the two read sets (split in two) and a genome of two records
# (one chunk each); the pipeline checks its matrix against its own direct run.
# They keep the names of the example's own config, since a config file given
# adds to that one key by key.
gzip -c "$data/chr1.fa" > "$data/genome.fa.gz" && gzip -k "$data/sampleB.fq" || exit 1
cat > "$work/example.yaml" <<EOF
data: $data
reads:
  illumina: sampleA.fq.gz
  ont: sampleB.fq.gz
genomes:
  yeast: genome.fa.gz
read_chunks: 2
EOF
if run_log "snakemake example" "$work/sm-example.log" \
    snakemake matrix.tsv check.ok -s "$repo/workflows/snakemake/example/Snakefile" --directory "$work/sm-example" \
        "${sm_cluster[@]}" --configfile "$work/example.yaml"; then
    chunks=$(find "$work/sm-example/counts" -name '*.tsv' | wc -l)
    [ "$chunks" = 6 ] && ok "snakemake example: 6 chunk tables" || bad "snakemake example: $chunks chunk tables, not 6"
    probescan count -q --by-file -p "$repo/workflows/snakemake/example/probes.fa" -o "$work/example-direct.tsv" \
        "$work/sm-example/inputs/illumina.fq.gz" "$work/sm-example/inputs/ont.fq.gz" "$work/sm-example/inputs/yeast.fa.gz"
    same "snakemake example: matrix" "$work/sm-example/matrix.tsv" "$work/example-direct.tsv"
fi

section "snakemake --cluster sbatch: a job Slurm fails stops the run"
# An -o directory that does not exist: Slurm ends the job before it runs.
before=$SECONDS
if timeout 300 snakemake -s "$repo/workflows/snakemake/scatter/Snakefile" --directory "$work/sm-fail" \
        --cluster "sbatch --parsable -o no/such/dir/%j.out" --cluster-status "$repo/workflows/snakemake/slurm-status.py" \
        --jobs 2 --latency-wait 5 --config probes="$probes" "inputs=[$data/chr1.fa]" > "$work/sm-fail.log" 2>&1; then
    bad "snakemake with a failing job: exit 0"
elif [ $? = 124 ]; then
    bad "snakemake with a failing job: still waiting after 300 s"
elif grep -q "Error in rule" "$work/sm-fail.log"; then
    ok "snakemake with a failing job: stopped with its error after $((SECONDS - before)) s"
else
    bad "snakemake with a failing job: no 'Error in rule' in $work/sm-fail.log"
fi

section "the README's Slurm array (Beyond one machine), one task a CPU"
arr=$work/array
mkdir -p "$arr" && cp "$probes" "$arr/probes.fa" && printf '%s\n' "${inputs[@]}" > "$arr/inputs.txt"
if (cd "$arr" && n=$(wc -l < inputs.txt) && mkdir -p parts &&
    jid=$(sbatch --parsable --array=1-$n -c 1 -o array-%A_%a.out --wrap '
      f=$(sed -n "${SLURM_ARRAY_TASK_ID}p" inputs.txt); i=$(printf %04d $SLURM_ARRAY_TASK_ID)
      probescan count --by-file -t 1 -p probes.fa -o parts/$i.tsv "$f" &&
      probescan locate -t 1 -p probes.fa -o parts/$i.bed "$f"') &&
    timeout 300 sbatch --wait --dependency=afterok:$jid -o gather.out --wrap \
      'probescan merge -p probes.fa -o counts.tsv parts/*.tsv && cat parts/*.bed > sites.bed') > "$work/array.log" 2>&1; then
    probescan count -q --by-file -p "$probes" -o "$ref/by_file_m0.tsv" "${inputs[@]}"
    same "sbatch array: counts" "$arr/counts.tsv" "$ref/by_file_m0.tsv"
    same "sbatch array: sites" "$arr/sites.bed" "$ref/sites.bed"
else
    bad "sbatch array: $(cat "$work/array.log")"
fi

section "toil-cwl-runner --batchSystem slurm: scatter.cwl"
# statePollingWait: Toil asks Slurm about its jobs every second, not every
# SchedulerTimeSlice x 1.2 (36 s by default).
out=$work/toil
if run_log "toil-cwl-runner" "$work/toil.log" \
    toil-cwl-runner --batchSystem slurm --statePollingWait 1 --jobStore "$work/jobstore" --workDir "$work" \
        --defaultMemory 512Mi --disableCaching --logLevel WARNING --outdir "$out" "$cwl/scatter.cwl" "$work/by_file.yml"; then
    same "toil slurm: counts" "$out/counts.tsv" "$ref/by_file.tsv"
    same "toil slurm: sites" "$out/sites.bed" "$ref/sites_m1.bed"
    for f in "$ref"/summary/*; do same "toil slurm: summary $(basename "$f")" "$out/summary/$(basename "$f")" "$f"; done
    jobs=$(grep -c "sched: Allocate" "$conf/log/slurmctld.log")
    echo "cluster-test: $jobs Slurm jobs in all"
fi

stop_daemons
left=0
for p in munged slurmctld slurmd; do
    for f in "$conf/$p.pid" "$conf/munge/$p.pid"; do
        [ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && left=1
    done
done
[ $left = 0 ] && ok "daemons stopped" || bad "a daemon still runs"
echo "cluster-test: $((SECONDS - start)) s"
echo "cluster-test: $passed passed, $failed failed"
[ "$failed" = 0 ]
