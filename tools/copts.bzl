"""Compiler options shared by every C++ target, and thin wrappers that apply them.

C++17, optimised (the oracle is benchmarked and runs the experiments), warnings on and treated as
errors in our own code; Eigen and GoogleTest come in as system includes, so their warnings stay out.
"""

LQCD_COPTS = [
    "-std=c++17",
    "-O2",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-sign-compare",
]

def lqcd_cc_library(name, copts = [], **kwargs):
    native.cc_library(name = name, copts = LQCD_COPTS + copts, **kwargs)

def lqcd_cc_binary(name, copts = [], **kwargs):
    native.cc_binary(name = name, copts = LQCD_COPTS + copts, **kwargs)

def lqcd_cc_test(name, copts = [], deps = [], **kwargs):
    """A GoogleTest test with the shared options and gtest_main linked in."""
    native.cc_test(
        name = name,
        copts = LQCD_COPTS + copts,
        deps = deps + ["@gtest//:gtest", "@gtest//:gtest_main"],
        **kwargs
    )

def lqcd_cc_benchmark(name, copts = [], tags = [], **kwargs):
    """A benchmark: a testonly binary tagged `benchmark`, so `bazel test //...` builds but never runs it."""
    native.cc_binary(
        name = name,
        copts = LQCD_COPTS + copts,
        testonly = True,
        tags = tags + ["benchmark"],
        **kwargs
    )
