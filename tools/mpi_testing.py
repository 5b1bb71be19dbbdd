"""The shared helpers of the tests that run programs under mpirun (gpu/multi_gpu_check_test.py,
experiments/pion_multi_rank_test.py, gpu/comm/mpi_communicator_test.py). Standard library only.

gpu_count(): how many GPUs `nvidia-smi -L` lists; 0 without nvidia-smi, a working driver or an answer within
  30 s, so a machine without a GPU skips the GPU runs instead of failing them.
mpirun_command(ranks, program, flags): `mpirun --oversubscribe --bind-to none -np RANKS [--allow-run-as-root]
  PROGRAM FLAGS`.
  --oversubscribe: the tests start more ranks than this host may have cores (or GPUs, with --share-gpu).
  --bind-to none: Open MPI binds each of one or two ranks to a single core by default, which would run every
  rank's host threads (generation, uploads, checks) on that core.
  --allow-run-as-root only when running as root: test containers often run as root, and Open MPI refuses
  root without it.
environment(session_dir_base=None): this process's environment with Open MPI confined to one host: shared
  memory and loopback only (OMPI_MCA_btl=self,vader, so no network probing slows start-up) and
  oversubscription allowed. With session_dir_base, Open MPI's session directory goes under it
  (OMPI_MCA_orte_tmpdir_base): sandboxes with their own PID namespaces would otherwise collide in
  /tmp/ompi.<host>.<uid>/pid.<pid>.
run(command, timeout_s, env=None, sigterm_grace_s=None): runs command with its output captured and returns
  (status, stdout, stderr). The command runs in a session (process group) of its own, so that a hang can be
  ended without touching the test runner: on timeout the whole group is killed with SIGKILL (mpirun and
  whatever it left in that group), or, with sigterm_grace_s, mpirun first gets SIGTERM (on which it kills its
  ranks, which Open MPI may run in process groups of their own, out of reach of the group kill) and
  sigterm_grace_s seconds to end before the group kill. Either way the test then fails (AssertionError with
  the command and its output so far), so a deadlock never blocks the test suite.
mpirun(ranks, program, flags, timeout_s, session_dir_base=None, sigterm_grace_s=None): run() of
  mpirun_command() in environment().

Imported as `from tools import mpi_testing` under Bazel (//tools:mpi_testing) and as `mpi_testing` from the
GPU bundle, where tools/gpu_bundle.sh copies it into programs/ next to the tests.
"""
import os
import shutil
import signal
import subprocess


def gpu_count():
    """The number of GPUs nvidia-smi lists (0 without nvidia-smi or a working driver)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return 0
    try:
        listing = subprocess.run([smi, "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                 timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    if listing.returncode != 0:
        return 0
    return sum(1 for line in listing.stdout.splitlines() if line.startswith("GPU "))


def mpirun_command(ranks, program, flags):
    """mpirun --oversubscribe --bind-to none -np RANKS [--allow-run-as-root] PROGRAM FLAGS."""
    command = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(ranks)]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")  # test containers often run as root; Open MPI refuses otherwise
    return command + [program] + list(flags)


def environment(session_dir_base=None):
    """os.environ plus Open MPI on this host only (shared memory and loopback, oversubscription allowed)."""
    env = dict(os.environ, OMPI_MCA_btl="self,vader", OMPI_MCA_rmaps_base_oversubscribe="1")
    if session_dir_base is not None:
        env["OMPI_MCA_orte_tmpdir_base"] = session_dir_base
    return env


def run(command, timeout_s, env=None, sigterm_grace_s=None):
    """Runs `command` in its own process group and returns (status, stdout, stderr); on timeout ends it (the
    module's docstring says how) and raises AssertionError."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        if sigterm_grace_s is None:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
        else:
            process.terminate()
            try:
                out, err = process.communicate(timeout=sigterm_grace_s)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                out, err = process.communicate()
        raise AssertionError("timed out after %d s (hang?): %s\n%s%s" % (timeout_s, " ".join(command), out, err))
    return process.returncode, out, err


def mpirun(ranks, program, flags, timeout_s, session_dir_base=None, sigterm_grace_s=None):
    """`mpirun -np RANKS PROGRAM FLAGS` on this host under run(); returns (status, stdout, stderr)."""
    return run(mpirun_command(ranks, program, flags), timeout_s, environment(session_dir_base), sigterm_grace_s)
