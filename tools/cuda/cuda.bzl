"""cuda_library: compile .cu files with nvcc and use them like any cc_library.

    load("//tools/cuda:cuda.bzl", "cuda_library")
    cuda_library(
        name = "copy_bandwidth",
        srcs = ["copy_bandwidth.cu"],      # compiled by nvcc, one object file each
        hdrs = ["copy_bandwidth.h"],       # the host-side API that .cc files include
        deps = [":cuda_check"],            # cc_library / cuda_library deps: headers and link inputs
    )

How it works:
  - A rule (_cuda_objects) runs one nvcc action per .cu file. Its inputs are the .cu file, this target's
    headers and every header of its deps (from their CcInfo), so editing any header that a .cu file may
    include rebuilds it. Include paths, defines and system includes of the deps are passed on.
  - nvcc compiles for the GPU architectures in CUDA_ARCHS: SASS for sm_90 (H100/H200) and the PTX
    of compute_90 embedded, so newer GPUs can JIT it. Whole-program compilation (no -rdc): a kernel
    and the device functions it calls live in one .cu file or in headers it includes.
  - The object files become the srcs of a cc_library, which also links the static CUDA runtime
    (@local_cuda//:cudart_static). cc_test and cc_binary targets depend on it as usual.
"""

load("@local_cuda//:defs.bzl", "CUDA_PATH")

# SASS for Hopper, and its PTX embedded for forward compatibility.
CUDA_ARCHS = [
    "-gencode=arch=compute_90,code=sm_90",
    "-gencode=arch=compute_90,code=compute_90",
]

NVCC_COPTS = [
    "-std=c++17",
    "-O3",
    "-Xcompiler=-fPIC",
    "-Xcompiler=-Wall",
    # `#pragma unroll` is CUDA's; the host compiler sees it in __host__ __device__ functions (the host checks of
    # kernels' per-site code) and would warn once per loop.
    "-Xcompiler=-Wno-unknown-pragmas",
    "--expt-relaxed-constexpr",
    "-lineinfo",  # source lines in profiles; no effect on the generated code
]

def _cuda_objects_impl(ctx):
    dep_contexts = [dep[CcInfo].compilation_context for dep in ctx.attr.deps if CcInfo in dep]
    headers = depset(ctx.files.hdrs, transitive = [c.headers for c in dep_contexts])

    include_flags = ["-I.", "-I" + ctx.bin_dir.path, "-I" + ctx.genfiles_dir.path]
    for c in dep_contexts:
        include_flags += ["-I" + p for p in c.includes.to_list()]
        include_flags += ["-I" + p for p in c.quote_includes.to_list()]
        include_flags += ["-isystem=" + p for p in c.system_includes.to_list()]
        include_flags += ["-D" + d for d in c.defines.to_list()]

    objects = []
    for src in ctx.files.srcs:
        obj = ctx.actions.declare_file("_objs/%s/%s.o" % (ctx.label.name, src.basename[:-len(".cu")]))
        args = ctx.actions.args()
        args.add_all(CUDA_ARCHS + NVCC_COPTS + ctx.attr.copts)
        args.add_all(include_flags)
        args.add_all(["-x", "cu", "-c", src.path, "-o", obj.path])
        ctx.actions.run(
            executable = CUDA_PATH + "/bin/nvcc",
            arguments = [args],
            inputs = depset([src], transitive = [headers]),
            outputs = [obj],
            mnemonic = "NvccCompile",
            progress_message = "nvcc %s" % src.short_path,
            # nvcc calls the host compiler from PATH; the action's default PATH may not have it.
            env = {"PATH": "/usr/local/bin:/usr/bin:/bin"},
        )
        objects.append(obj)
    return [DefaultInfo(files = depset(objects))]

_cuda_objects = rule(
    implementation = _cuda_objects_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu"]),
        "hdrs": attr.label_list(allow_files = [".h", ".cuh"]),
        "deps": attr.label_list(providers = [CcInfo]),
        "copts": attr.string_list(),
    },
)

def cuda_library(name, srcs, hdrs = [], deps = [], copts = [], visibility = None, testonly = False, **kwargs):
    """A cc_library whose .cu sources are compiled by nvcc (see the file comment)."""
    _cuda_objects(
        name = name + "_cu_objects",
        srcs = srcs,
        hdrs = hdrs,
        deps = deps,
        copts = copts,
        testonly = testonly,
        visibility = ["//visibility:private"],
    )
    native.cc_library(
        name = name,
        srcs = [":" + name + "_cu_objects"],
        hdrs = hdrs,
        deps = deps + ["@local_cuda//:cudart_static"],
        linkstatic = True,
        alwayslink = True,  # kernels are reached only through host stubs; keep every object
        visibility = visibility,
        testonly = testonly,
        **kwargs
    )
