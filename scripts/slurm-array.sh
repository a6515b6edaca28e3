#!/bin/bash
# One simstudy study as a SLURM job array: array task I of N computes shard I/N of the
# study's work units into its own store; a second job, started when every task succeeded,
# merges the shards' stores into one and renders the study from it.
#
#   jid=$(sbatch --parsable --array=1-16 scripts/slurm-array.sh type1 --runs 1000)
#   sbatch --dependency=afterok:$jid scripts/slurm-array.sh type1
#
# Give every task the same study options (--runs, --seed, --chunk, --costs): the split into
# shards depends on them and on nothing else, so the tasks agree without talking to each
# other.  A task that is requeued or resubmitted resumes its own store.  The merge job
# refuses shards of different definitions, seeds or statistics code, and names any shard
# that is missing; rerunning that task and the merge job completes the study.
#
# Copy this file and adapt the #SBATCH lines (partition, account, time, memory) to your
# cluster.  Run it from the repository's root (or wherever `python -m simstudy` works), in
# the environment that has simstudy installed: activate it below.
#
#SBATCH --job-name=simstudy
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=04:00:00
#SBATCH --output=shards/%x-%A_%a.log
#SBATCH --requeue

set -euo pipefail

STUDY=${1:?usage: sbatch --array=1-N scripts/slurm-array.sh STUDY [run options]}
shift
DIR=${SIMSTUDY_SHARDS:-shards}  # on a file system every node and the merge job can read
mkdir -p "$DIR"

# source ~/venvs/simstudy/bin/activate        # the environment with simstudy installed

# Every node computes bit-identical numbers only if it compiles for, and runs BLAS kernels
# of, the same CPU: pin both (choose a target every node supports; see docs/cluster.md).
export NUMBA_CPU_NAME=${NUMBA_CPU_NAME:-haswell}
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Haswell}
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1  # one BLAS thread per worker process

if [[ -n "${SLURM_ARRAY_TASK_ID:-}" ]]; then
    # array task: shard I of N (arrays may start at 0 or 1; they must be contiguous)
    N=${SLURM_ARRAY_TASK_COUNT:?SLURM_ARRAY_TASK_COUNT not set: submit with --array=1-N}
    I=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-1} + 1))
    STORE="$DIR/$STUDY-shard-$I-of-$N.sqlite"
    # SQLite wants a local disk: compute into node-local scratch, resume from the shared
    # copy if a previous attempt left one, and put the store back when done
    WORK=${TMPDIR:-/tmp}/simstudy-$SLURM_JOB_ID
    mkdir -p "$WORK"
    if [[ -f "$STORE" ]]; then cp "$STORE" "$WORK/"; fi
    python -m simstudy run "$STUDY" --shard "$I/$N" --jobs "${SLURM_CPUS_PER_TASK:-1}" \
        --store "$WORK/$(basename "$STORE")" --no-progress "$@"
    # one self-contained file, written beside the shared copy and renamed over it
    python -m simstudy snapshot --store "$WORK/$(basename "$STORE")" "$STORE"
    rm -rf "$WORK"
else
    # the merge job: every shard store of the study, into one store, then the report
    shopt -s nullglob
    SHARDS=("$DIR/$STUDY"-shard-*-of-*.sqlite)
    if [[ ${#SHARDS[@]} -eq 0 ]]; then
        echo "no shard stores $DIR/$STUDY-shard-*-of-*.sqlite; run the array first" >&2
        exit 2
    fi
    MERGED="$DIR/$STUDY.sqlite"
    rm -f "$MERGED"
    python -m simstudy merge "$MERGED" "${SHARDS[@]}"
    python -m simstudy report "$STUDY" --store "$MERGED" --format html --out "out/$STUDY" "$@"
fi
