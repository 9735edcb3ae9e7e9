"""Slurm backend of `strata sweep` (--backend slurm): the runs still to do become one `sbatch --array` job
whose task i runs run i of DIR/slurm/tasks.json through the same run_one as the local pool (temp folder,
rename, failure record), so the folders, the resume rule and the collection are the same. Per-task
resources come from the spec's [slurm] table. The sweep waits for the job (polling squeue; `sbatch
--wait` returns slowly) and then collects; with --no-wait it returns after submitting, and a later
sweep on DIR first waits for that job instead of submitting the runs again.
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


class SlurmError(Exception):
    pass


def _sh(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SlurmError(f"{cmd[0]}: {e}")
    if p.returncode != 0:
        raise SlurmError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout.strip()


def active_job(out):
    """The id of this DIR's submitted array job if squeue still lists it, else None."""
    try:
        with open(os.path.join(out, "slurm", "job_id")) as f:
            job = f.read().strip()
    except OSError:
        return None
    try:
        return job if job and _sh(["squeue", "-h", "-j", job, "-o", "%i"]) else None
    except SlurmError:
        return None


def wait(out, job, total):
    """Poll squeue until the job has left it, with a progress line of the run folders under DIR/runs."""
    t0 = time.time()
    while True:
        try:
            left = _sh(["squeue", "-h", "-j", job, "-o", "%i"])
        except SlurmError:
            left = ""  # a finished job can vanish from squeue with an error
        done = len(os.listdir(os.path.join(out, "runs")))
        failed = len(os.listdir(os.path.join(out, "failed")))
        sys.stderr.write(f"sweep: slurm job {job}: done {done}/{total}  failed {failed}  "
                         f"elapsed {int(time.time() - t0)}s\n")
        if not left:
            return
        time.sleep(1)


def run(spec, a, out, to_run, total, python, sweep_py):
    """Submit `to_run` as one array job. Returns None to go on collecting, or an exit status to stop."""
    job = active_job(out)
    if job:
        print(f"sweep: slurm job {job} of an earlier sweep on {out} is still running: waiting for it",
              file=sys.stderr)
        wait(out, job, total)
        return None
    if not to_run:
        return None
    sdir = os.path.join(out, "slurm")
    os.makedirs(sdir, exist_ok=True)
    with open(os.path.join(sdir, "tasks.json"), "w") as f:
        json.dump(to_run, f)
    res = spec.get("slurm", {})
    lines = ["#!/bin/sh", f"#SBATCH --job-name=strata-{spec['name']}", f"#SBATCH --array=0-{len(to_run) - 1}%{a.jobs}",
             f"#SBATCH --output={os.path.abspath(sdir)}/task-%a.log", f"#SBATCH --chdir={os.getcwd()}",
             f"#SBATCH --cpus-per-task={res.get('cpus_per_task', 1)}"]
    lines += [f"#SBATCH --mem={res['mem']}"] if "mem" in res else []
    lines += [f"#SBATCH --time={res['time']}"] if "time" in res else []
    lines += [f"#SBATCH --partition={res['partition']}"] if "partition" in res else []
    lines += [f"exec {python} {sweep_py} --run-task {os.path.abspath(sdir)}/tasks.json "
              f"{os.path.abspath(out)} $SLURM_ARRAY_TASK_ID {int(spec.get('timeout', 0))}"]
    script = os.path.join(sdir, "job.sh")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    try:
        job = _sh(["sbatch", "--parsable", "--export=ALL", script]).split(";")[0]
    except SlurmError as e:
        print(f"strata sweep: slurm: {e}", file=sys.stderr)
        return 1
    with open(os.path.join(sdir, "job_id"), "w") as f:
        f.write(job + "\n")
    print(f"sweep: submitted slurm array job {job} ({len(to_run)} tasks, at most {a.jobs} at a time)", file=sys.stderr)
    if a.no_wait:
        print("sweep: --no-wait: rerun the same sweep command to wait for it and collect", file=sys.stderr)
        return 0
    wait(out, job, total)
    return None
