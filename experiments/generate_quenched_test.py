"""The two generate_quenched programs (reference/ensemble: the CPU only; experiments: --backend=auto|cpu|gpu)
are one program: from the same flags they write the same configurations (the links bit for bit; the NERSC
headers differ only in their creation date) and the same plaquette history (timings apart). --backend=gpu
without a GPU exits 1 with one line giving CUDA's reason, before any work; --backend=auto says which it took.
The GPU's sweeps themselves are tested against the CPU's in //gpu:gpu_heatbath_test."""
import csv
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
EXPERIMENTS = os.path.join(HERE, "generate_quenched")
REFERENCE = os.path.join(HERE, "..", "reference", "ensemble", "generate_quenched")
FLAGS = ["--lattice=4x4x4x8", "--therm=2", "--sep=1", "--configs=2", "--start=hot", "--seed=5"]


def run(binary, args):
    return subprocess.run([binary] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)


def links(path):
    data = open(path, "rb").read()
    end = data.index(b"END_HEADER\n") + len(b"END_HEADER\n")
    return data[end:]


def plaquettes(path):
    with open(path, newline="") as f:
        return [(r["sweep"], r["plaquette"], r["spatial"], r["temporal"]) for r in csv.DictReader(f)]


class GenerateQuenchedTest(unittest.TestCase):
    def test_both_programs_write_the_same_ensemble(self):
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "reference"), os.path.join(d, "experiments")
            ra = run(REFERENCE, FLAGS + ["--output=" + a])
            rb = run(EXPERIMENTS, FLAGS + ["--output=" + b, "--backend=cpu"])
            self.assertEqual(ra.returncode, 0, ra.stderr)
            self.assertEqual(rb.returncode, 0, rb.stderr)
            self.assertIn("backend = cpu (--backend=cpu)", rb.stdout)
            names = sorted(n for n in os.listdir(a) if n.endswith(".nersc"))
            self.assertEqual(names, ["config_3.nersc", "config_4.nersc"])
            self.assertEqual(names, sorted(n for n in os.listdir(b) if n.endswith(".nersc")))
            for name in names:
                self.assertEqual(links(os.path.join(a, name)), links(os.path.join(b, name)), name)
            self.assertEqual(plaquettes(os.path.join(a, "plaquette.csv")), plaquettes(os.path.join(b, "plaquette.csv")))

    def test_backend_flag(self):
        self.assertIn("--backend=cpu", run(REFERENCE, ["--help"]).stdout)
        self.assertIn("--backend=auto|cpu|gpu", run(EXPERIMENTS, ["--help"]).stdout)
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "never")
            gpu = run(EXPERIMENTS, FLAGS + ["--output=" + out, "--backend=gpu"])
            if "no usable GPU" in gpu.stderr:  # this machine: refused before any work, with the reason
                self.assertEqual(gpu.returncode, 1)
                self.assertEqual(len(gpu.stderr.strip().splitlines()), 1, gpu.stderr)
                self.assertFalse(os.path.exists(out))
                auto = run(EXPERIMENTS, FLAGS + ["--backend=auto"])
                self.assertEqual(auto.returncode, 0, auto.stderr)
                self.assertIn("backend = cpu (--backend=auto: no usable GPU", auto.stdout)
            else:  # a GPU machine with Bazel: the GPU's ensemble is the CPU's
                self.assertEqual(gpu.returncode, 0, gpu.stderr)
                self.assertIn("sweeps on = GPU", gpu.stdout)
        self.assertEqual(run(REFERENCE, ["--backend=gpu"]).returncode, 1)


if __name__ == "__main__":
    unittest.main()
