"""The command lines of the GPU benchmarks: --help lists every flag; unknown flags, malformed or out-of-range
numbers, odd or too large lattices and conflicting flags are each refused with status 1 and one line
"<program>: error: ..." naming the flag, BEFORE the GPU is looked for, so the same holds on a machine without
one (tools/command_line_testing.py checks that nothing is printed before the error). Only --help and error
paths run: seconds, no GPU needed, no kernel launched."""
import unittest

from tools.command_line_testing import ProgramTestCase

BLOCK_SOLVER = "gpu/block_solver_benchmark"
CLOVER = "gpu/clover_benchmark"
CLOVER_DSLASH = "gpu/clover_dslash_benchmark"
COPY = "gpu/copy_bandwidth_benchmark"
ACCURACY = "gpu/dslash_accuracy"
LADDER = "gpu/dslash_ladder_benchmark"
MULTI_RHS = "gpu/multi_rhs_dslash_benchmark"
SOLVER = "gpu/solver_benchmark"
SWEEP = "gpu/dslash_sweep_benchmark"
WILSON_DSLASH = "gpu/wilson_dslash_benchmark"


class LatticeChecks:
    def assert_bad_lattices(self, path, flag="--lattice"):
        self.assert_error(path, [flag + "=24x24x24x31"], flag, "odd")
        self.assert_error(path, [flag + "=24x24x24"], flag)
        self.assert_error(path, [flag + "=24x24x24x32x2"], flag)
        self.assert_error(path, [flag + "=24x24x24x32abc"], flag)
        self.assert_error(path, [flag + "=24x24x24x0"], flag)
        self.assert_error(path, [flag + "=1024x8x8x8"], flag, "maximum")
        self.assert_error(path, [flag + "=512x512x512x512"], flag, "too large")
        self.assert_error(path, ["32x32x32x32"], "32x32x32x32")  # the old positional form


class CopyBandwidthBenchmarkTest(ProgramTestCase):
    def test_help(self):
        self.assert_help(COPY, ["--mib=N", "--repetitions=N"])

    def test_errors(self):
        self.assert_common_errors(COPY, flag_with_number="--mib", positive_flag="--mib")
        self.assert_common_errors(COPY, flag_with_number="--repetitions", positive_flag="--repetitions")
        self.assert_error(COPY, ["--mib=1000000"], "--mib")
        self.assert_error(COPY, ["1024", "20"], "1024")  # the old positional form


class DslashAccuracyTest(ProgramTestCase, LatticeChecks):
    def test_help(self):
        self.assert_help(ACCURACY, ["--lattice=LXxLYxLZxLT", "--csv=FILE", "--summary=FILE", "--kappa=X",
                                    "--threads=N", "--operator=both|wilson|clover", "--csw=X"])

    def test_errors(self):
        self.assert_common_errors(ACCURACY, flag_with_number="--kappa")
        self.assert_common_errors(ACCURACY, flag_with_number="--threads")
        self.assert_bad_lattices(ACCURACY)
        self.assert_error(ACCURACY, ["--kappa=0"], "--kappa")
        self.assert_error(ACCURACY, ["--kappa=-0.125"], "--kappa")
        self.assert_error(ACCURACY, ["--threads=-1"], "--threads")
        self.assert_error(ACCURACY, ["--csv="], "--csv")
        self.assert_error(ACCURACY, ["--csv=x.csv", "--summary=x.csv"], "--csv", "--summary")
        self.assert_error(ACCURACY, ["--summary=dslash_accuracy.csv"], "--csv", "--summary")
        self.assert_common_errors(ACCURACY, flag_with_number="--csw")
        self.assert_error(ACCURACY, ["--operator=dirac"], "--operator")
        self.assert_error(ACCURACY, ["--operator="], "--operator")
        self.assert_error(ACCURACY, ["--operator=wilson", "--operator=clover"], "--operator", "more than once")
        self.assert_error(ACCURACY, ["--csw=-1"], "--csw")
        self.assert_error(ACCURACY, ["--csw=2.5"], "--csw")


class DslashLadderBenchmarkTest(ProgramTestCase, LatticeChecks):
    def test_help(self):
        self.assert_help(LADDER, ["--lattice=LXxLYxLZxLT", "--repetitions=N", "--threads=N"])

    def test_errors(self):
        self.assert_common_errors(LADDER, flag_with_number="--repetitions", positive_flag="--repetitions")
        self.assert_common_errors(LADDER, flag_with_number="--threads")
        self.assert_bad_lattices(LADDER)
        self.assert_error(LADDER, ["--threads=-1"], "--threads")


class DslashSweepBenchmarkTest(ProgramTestCase):
    def test_help(self):
        self.assert_help(SWEEP, ["--spatial=N", "--temporal=LIST", "--repetitions=N", "--csv=FILE", "--threads=N"])

    def test_errors(self):
        self.assert_common_errors(SWEEP, flag_with_number="--spatial", positive_flag="--repetitions")
        self.assert_common_errors(SWEEP, flag_with_number="--temporal")
        self.assert_common_errors(SWEEP, flag_with_number="--threads")
        self.assert_error(SWEEP, ["--spatial=25"], "--spatial", "odd")
        self.assert_error(SWEEP, ["--spatial=1024"], "--spatial")
        self.assert_error(SWEEP, ["--temporal=9"], "--temporal", "odd")
        self.assert_error(SWEEP, ["--temporal=8,9"], "--temporal", "odd")
        self.assert_error(SWEEP, ["--temporal=9:17:2"], "--temporal", "odd")
        self.assert_error(SWEEP, ["--temporal=8:128:0"], "--temporal")
        self.assert_error(SWEEP, ["--temporal=128:8:8"], "--temporal")
        self.assert_error(SWEEP, ["--temporal=8:128"], "--temporal")
        self.assert_error(SWEEP, ["--temporal=8:128:8abc"], "--temporal")
        self.assert_error(SWEEP, ["--temporal=8,,16"], "--temporal")
        self.assert_error(SWEEP, ["--spatial=256", "--temporal=256"], "--spatial", "--temporal", "too large")
        self.assert_error(SWEEP, ["--t=8:16:8"], "--t")  # the old spelling is gone


class SolverBenchmarkTest(ProgramTestCase, LatticeChecks):
    def test_help(self):
        self.assert_help(SOLVER, ["--lattice=LXxLYxLZxLT", "--kappas=X,...", "--solvers=SPEC,...", "--repetitions=N",
                                  "--seed=N", "--tolerance=X", "--max-iterations=N", "--fermion=wilson|clover",
                                  "--csw=X", "--clover-form=complement|unit-diagonal"])

    def test_errors(self):
        self.assert_common_errors(SOLVER, flag_with_number="--repetitions", positive_flag="--repetitions")
        self.assert_common_errors(SOLVER, flag_with_number="--csw")
        self.assert_bad_lattices(SOLVER)
        self.assert_error(SOLVER, ["--kappas=0.25"], "--kappas")
        self.assert_error(SOLVER, ["--solvers=no-such-solver"], "--solvers")
        self.assert_error(SOLVER, ["--fermion=staggered"], "--fermion", "staggered")
        self.assert_error(SOLVER, ["--fermion=clover", "--clover-form=asymmetric"], "--clover-form", "asymmetric")
        self.assert_error(SOLVER, ["--csw=1"], "--csw", "--fermion=clover")
        self.assert_error(SOLVER, ["--fermion=wilson", "--csw=1"], "--csw", "--fermion=clover")
        self.assert_error(SOLVER, ["--clover-form=unit-diagonal"], "--clover-form", "--fermion=clover")


class WilsonDslashBenchmarkTest(ProgramTestCase, LatticeChecks):
    def test_help(self):
        self.assert_help(WILSON_DSLASH, ["--lattice=LXxLYxLZxLT[,...]", "--repetitions=N",
                                         "--precision=all|double|single|half", "--links=all|18|12|8"])

    def test_errors(self):
        self.assert_common_errors(WILSON_DSLASH, flag_with_number="--repetitions", positive_flag="--repetitions")
        self.assert_bad_lattices(WILSON_DSLASH)
        self.assert_error(WILSON_DSLASH, ["--lattice=32x32x32x32,24x24x24x63"], "--lattice", "odd")
        self.assert_error(WILSON_DSLASH, ["--lattice=32x32x32x32,"], "--lattice")
        self.assert_error(WILSON_DSLASH, ["--precision=quad"], "--precision")
        self.assert_error(WILSON_DSLASH, ["--links=9"], "--links")
        self.assert_error(WILSON_DSLASH, ["--links=18", "--links=12"], "--links", "more than once")
        self.assert_error(WILSON_DSLASH, ["--reconstruct=12"], "--reconstruct")  # renamed to --links


class MultiRhsDslashBenchmarkTest(ProgramTestCase, LatticeChecks):
    def test_help(self):
        self.assert_help(MULTI_RHS, ["--operator=wilson|clover", "--lattice=LXxLYxLZxLT[,...]", "--rhs=",
                                     "--repetitions=N", "--precision=all|double|single|half", "--links=all|18|12|8",
                                     "--gauge-fixed", "--csv=FILE"])

    def test_errors(self):
        self.assert_common_errors(MULTI_RHS, flag_with_number="--repetitions", positive_flag="--repetitions")
        self.assert_bad_lattices(MULTI_RHS)
        self.assert_error(MULTI_RHS, ["--rhs=0"], "--rhs")
        self.assert_error(MULTI_RHS, ["--rhs=65"], "--rhs")
        self.assert_error(MULTI_RHS, ["--rhs=4,x"], "--rhs")
        self.assert_error(MULTI_RHS, ["--precision=quad"], "--precision")
        self.assert_error(MULTI_RHS, ["--links=9"], "--links")
        self.assert_error(MULTI_RHS, ["--operator=staggered"], "--operator")


class BlockSolverBenchmarkTest(ProgramTestCase, LatticeChecks):
    def test_help(self):
        self.assert_help(BLOCK_SOLVER, ["--lattice=LXxLYxLZxLT", "--gauge=PATH", "--kappa=X", "--rhs=",
                                        "--solver=SPEC", "--tolerance=X", "--max-iterations=N", "--seed=N",
                                        "--fermion=wilson|clover", "--csw=X", "--clover-form=complement|unit-diagonal",
                                        "--csv=FILE"])

    def test_errors(self):
        self.assert_common_errors(BLOCK_SOLVER, flag_with_number="--max-iterations", positive_flag="--max-iterations")
        self.assert_common_errors(BLOCK_SOLVER, flag_with_number="--kappa")
        self.assert_bad_lattices(BLOCK_SOLVER)
        self.assert_error(BLOCK_SOLVER, ["--kappa=0.3"], "--kappa")
        self.assert_error(BLOCK_SOLVER, ["--rhs=0"], "--rhs")
        self.assert_error(BLOCK_SOLVER, ["--solver=bogus"], "bogus")
        self.assert_error(BLOCK_SOLVER, ["--solver=bicgstab:double/18/gf"], "/gf")
        self.assert_error(BLOCK_SOLVER, ["--solver=bicgstab-reliable:half/12"], "delta")
        self.assert_error(BLOCK_SOLVER, ["--tolerance=2"], "--tolerance")
        self.assert_error(BLOCK_SOLVER, ["--solver=bicgstab,bogus"], "--solver", "bogus")
        self.assert_error(BLOCK_SOLVER, ["--solver=bicgstab,"], "--solver", "empty")

    def test_fermion_and_csv_errors(self):
        self.assert_common_errors(BLOCK_SOLVER, flag_with_number="--csw")
        self.assert_error(BLOCK_SOLVER, ["--fermion=bogus"], "--fermion", "bogus")
        self.assert_error(BLOCK_SOLVER, ["--fermion=clover", "--fermion=wilson"], "--fermion", "more than once")
        self.assert_error(BLOCK_SOLVER, ["--csw=1"], "--csw", "--fermion=clover")
        self.assert_error(BLOCK_SOLVER, ["--fermion=wilson", "--csw=1"], "--csw", "--fermion=clover")
        self.assert_error(BLOCK_SOLVER, ["--fermion=clover", "--csw=-1"], "--csw")
        self.assert_error(BLOCK_SOLVER, ["--clover-form=unit-diagonal"], "--clover-form", "--fermion=clover")
        self.assert_error(BLOCK_SOLVER, ["--fermion=clover", "--clover-form=asymmetric"], "--clover-form",
                          "asymmetric")
        self.assert_error(BLOCK_SOLVER, ["--fermion=clover", "--solver=bicgstab:double/18/gf"], "/gf")
        self.assert_error(BLOCK_SOLVER, ["--csv="], "--csv")
        self.assert_error(BLOCK_SOLVER, ["--gauge=cfg.lime", "--csv=cfg.lime"], "--csv", "--gauge")


class CloverBenchmarkTest(ProgramTestCase, LatticeChecks):
    def test_help(self):
        self.assert_help(CLOVER, ["--lattice=LXxLYxLZxLT[,...]", "--repetitions=N",
                                  "--precision=all|double|single|half"])

    def test_errors(self):
        self.assert_common_errors(CLOVER, flag_with_number="--repetitions", positive_flag="--repetitions")
        self.assert_bad_lattices(CLOVER)
        self.assert_error(CLOVER, ["--lattice=32x32x32x32,24x24x24x63"], "--lattice", "odd")
        self.assert_error(CLOVER, ["--lattice=32x32x32x32,"], "--lattice")
        self.assert_error(CLOVER, ["--precision=quad"], "--precision")
        self.assert_error(CLOVER, ["--precision=half", "--precision=single"], "--precision", "more than once")
        self.assert_error(CLOVER, ["--links=12"], "--links")  # the clover term has no links


class CloverDslashBenchmarkTest(ProgramTestCase, LatticeChecks):
    def test_help(self):
        self.assert_help(CLOVER_DSLASH, ["--lattice=LXxLYxLZxLT", "--repetitions=N",
                                         "--precision=all|double|single|half", "--links=all|18|12|8"])

    def test_errors(self):
        self.assert_common_errors(CLOVER_DSLASH, flag_with_number="--repetitions", positive_flag="--repetitions")
        self.assert_bad_lattices(CLOVER_DSLASH)
        self.assert_error(CLOVER_DSLASH, ["--lattice=32x32x32x32,24x24x24x64"], "--lattice")  # one lattice only
        self.assert_error(CLOVER_DSLASH, ["--precision=quad"], "--precision")
        self.assert_error(CLOVER_DSLASH, ["--links=9"], "--links")
        self.assert_error(CLOVER_DSLASH, ["--links=18", "--links=12"], "--links", "more than once")


if __name__ == "__main__":
    unittest.main()
