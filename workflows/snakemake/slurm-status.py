#!/usr/bin/env python3
"""Job status for `snakemake --cluster "sbatch --parsable ..." --cluster-status`:
prints running, success or failed for the Slurm job id given, from
`scontrol show job` (no accounting database needed). Without it Snakemake
waits for ever on a job that Slurm ended before it ran (e.g. an -o directory
that does not exist). A job Slurm no longer knows (it forgets finished jobs
after MinJobAge, 300 s by default) is reported as success: Snakemake then
checks that its outputs exist.
"""
import re
import subprocess
import sys

job = sys.argv[1].split(";")[0]  # --parsable prints "id" or "id;cluster"
run = subprocess.run(["scontrol", "show", "job", job], capture_output=True, text=True)
state = re.search(r"JobState=(\S+)", run.stdout)
if run.returncode != 0 or not state:
    if "Invalid job id" in run.stderr:
        print("success")
        sys.exit(0)
    # scontrol itself failed (controller busy): ask again later.
    print("running")
    sys.exit(0)
state = state.group(1)
if state == "COMPLETED":
    print("success")
elif state in ("PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING"):
    print("running")
else:
    print("failed")
