"""The README's Python example (the main job's correlator from Python) runs as printed and gives the numbers
the README quotes: the plaquette to the 10 digits shown, C(0) and C(8) to the digits shown (the main job's
pion_out/pion_correlator.csv has the same values). On the CPU it takes about a minute (12 BiCGstab solves at
8^3 x 16, kappa = 0.153 near the critical one)."""

import contextlib
import io
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main():
    # Bazel's runfiles, the Python bundle (README.md beside this file), or the source tree.
    candidates = [os.path.join(os.environ.get("TEST_SRCDIR", ""), os.environ.get("TEST_WORKSPACE", ""), "README.md"),
                  os.path.join(HERE, "README.md"), os.path.join(HERE, "..", "..", "README.md")]
    readme = next(path for path in candidates if os.path.isfile(path))
    text = open(readme).read()
    block = re.search(r"The same correlator from Python.*?```python\n(.*?)```", text, re.S)
    assert block, "README.md: no Python example after 'The same correlator from Python'"
    quoted = re.search(r"main job's plaquette, ([0-9.]+), and its `C\(t\)` \(`C\(0\) = ([0-9.]+)`, `C\(8\) = ([0-9.]+)`\)",
                       text)
    assert quoted, "README.md: the example's quoted numbers are missing"
    plaquette, c0, c8 = (float(v) for v in quoted.groups())
    namespace = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block.group(1), "README.md example", "exec"), namespace)
    print(out.getvalue())
    got_plaquette = namespace["plaquettes"][-1]
    c = np.array(namespace["lqcd"].pion_correlator_of(namespace["prop"]))
    digits = lambda quoted_text: 0.5 * 10.0 ** -len(quoted_text.split(".")[1])   # half a unit of the last digit
    assert abs(got_plaquette - plaquette) <= digits(quoted.group(1)), got_plaquette
    assert abs(c[0] - c0) <= digits(quoted.group(2)), c[0]
    assert abs(c[8] - c8) <= digits(quoted.group(3)), c[8]
    print("readme_example_test: the README's example printed the quoted plaquette and correlator")


if __name__ == "__main__":
    main()
