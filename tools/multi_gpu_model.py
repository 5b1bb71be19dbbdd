"""multi_gpu_model.py: the performance model of the multi-GPU Wilson Dslash and BiCGstab (docs/multi_gpu.md).

    python3 tools/multi_gpu_model.py          # prints every table of docs/multi_gpu.md's model section

A model, not a measurement: single-GPU kernel rates measured on the H100 (docs/gpu_results.md,
docs/gpu_benchmarks.md) are combined with interconnect figures (published nominal or measured-by-others values
and assumed latencies) and the fixed cost of a partitioned call measured on four GPUs (docs/multi_gpu.md).
Every assumption is a named constant below; change one and rerun.
"""
import itertools
import math
import sys

# ---------------------------------------------------------------------------------------------------------------
# Measured on our H100 (docs/gpu_results.md, docs/gpu_benchmarks.md).
# ---------------------------------------------------------------------------------------------------------------
# Dslash at 32^4 (V/2 = 524288 output sites), current production kernels, median of three medians
# (gpu_results.md, "Production kernel: one formula, measured", the "after" column).
DSLASH_32_4_US = {"double": 300.9, "single": 115.8, "half": 68.1}
RECONSTRUCT = {"double": 18, "single": 12, "half": 12}  # the variants modelled: double/18, single/12, half/12
SITES_32_4 = 32**4 // 2
# Fixed cost per Dslash launch: the intercept of a straight-line fit time = a + b x sites to the Dslash over
# T = 8..128 at 24^3 (docs/data/dslash_sweep.csv, unpadded, no gauge fixing; the half rows are of the older
# half kernels). Launch, the last partial wave and the tail; it makes small local volumes less efficient.
DSLASH_FIXED_US = {"double": 16.3, "single": 7.6, "half": 10.5}
# Copy-kernel bandwidth of the H100 (gpu_results.md, bandwidth roofline): packing and exterior kernels run at it.
COPY_GBS = 2860.0
# BiCGstab's vector work per iteration (DotNorm, CaxpyNorm, DotNorm, BicgstabUpdate, BicgstabDirection), us,
# measured on one parity of 24^3x32 (221184 sites) and of 16^3x32 (65536 sites) (gpu_results.md, fused vector
# kernels); interpolated linearly in the sites per parity. The intercept holds the three reductions' host round
# trips (13-17 us each on one GPU).
VECTOR_WORK_US = {  # (sites, us)
    "double": ((65536, 17.5 + 18.4 + 17.5 + 41.2 + 16.6), (221184, 44.7 + 58.5 + 44.7 + 117.0 + 63.2)),
    "single": ((65536, 14.4 + 14.3 + 14.4 + 20.4 + 8.8), (221184, 25.7 + 29.1 + 25.7 + 69.5 + 32.3)),
    "half": ((65536, 14.7 + 15.0 + 14.7 + 18.4 + 8.6), (221184, 20.4 + 21.6 + 20.4 + 46.7 + 15.3)),
}
REDUCTIONS_PER_ITERATION = 3  # BiCGstab: DotNorm, CaxpyNorm, DotNorm (each one global sum on several GPUs)
DSLASH_PER_ITERATION = 4  # two M_ee = 1 - kappa^2 D_eo D_oe per BiCGstab iteration; xpay's extra read ignored
# Device memory of the fields of a double BiCGstab solve, per site (main_job.md: 4.03 GB at 32^3x64).
SOLVER_BYTES_PER_SITE = 4.03e9 / (32**3 * 64)
GPU_MEMORY_BYTES = 80e9

# ---------------------------------------------------------------------------------------------------------------
# Storage (gpu/wilson_dslash.h's byte model).
# ---------------------------------------------------------------------------------------------------------------
BYTES_PER_REAL = {"double": 8, "single": 4, "half": 2}
HALF_NORM_BYTES = 4  # one float norm per half-precision spinor or half spinor
FACE_REALS = 12  # a spin-projected half spinor
SPINOR_REALS = 24

# ---------------------------------------------------------------------------------------------------------------
# Interconnect (per GPU, each way). Bandwidths in GB/s, latencies in us per partitioned direction.
# ---------------------------------------------------------------------------------------------------------------
# NVLink 4 through NVSwitch (HGX/DGX H100): nominal 450 GB/s each way per GPU (900 GB/s bidirectional);
# NVIDIA's p2pBandwidthLatencyTest reached ~380 GB/s one way on HGX H100 (reported on NVIDIA's NCCL issue tracker). We use 380.
NVLINK_GBS = 380.0
NVLINK_LATENCY_US = 5.0  # assumed: one peer copy launch through CUDA IPC + the cross-process event wait
# Host-staged through pinned memory: device -> host, host exchange between the ranks (MPI shared memory),
# host -> device. PCIe Gen5 x16: nominal ~64 GB/s each way; nvbandwidth on H100 measured ~53 GB/s device-to-host
# (reported on nvbandwidth's issue tracker). Assumed 50 GB/s each copy and 20 GB/s for the host-side exchange.
PCIE_GBS = 50.0
HOST_EXCHANGE_GBS = 20.0
STAGED_LATENCY_US = 15.0  # assumed: two copies, an MPI message and their synchronisations
# InfiniBand NDR: nominal 400 Gb/s = 50 GB/s per port each way, one port per GPU (DGX H100). Assumed 45 GB/s
# achieved and 10 us per direction (MPI with GPU buffers, GPUDirect RDMA, plus synchronisation).
IB_GBS = 45.0
IB_LATENCY_US = 10.0
# Partitioned directions are exchanged one after another (assumption: the simplest schedule; the two faces of
# one direction go at the same time, to the two neighbours, on full-duplex links). With NVSwitch the bandwidth
# is per GPU in aggregate, so running directions concurrently would only hide latencies.
TRANSPORTS = {
    "nvlink": dict(latency_us=NVLINK_LATENCY_US, stages_gbs=(NVLINK_GBS,)),
    "pcie-staged": dict(latency_us=STAGED_LATENCY_US, stages_gbs=(PCIE_GBS, HOST_EXCHANGE_GBS, PCIE_GBS)),
    "infiniband": dict(latency_us=IB_LATENCY_US, stages_gbs=(IB_GBS,)),
}
SMALL_KERNEL_US = 4.0  # assumed fixed cost of a pack or exterior kernel (launch and tail)
# What a partitioned call costs beyond max(interior, the exchange chain), measured (docs/multi_gpu.md, device
# transport, 2026-11-27): with the interior queued before the packs and the exterior beside it on a
# high-priority stream, the partitioned Dslash takes 0.5-8 us more than the plain kernel on the same local
# lattice with one cut direction on two H200 (NVLink), and on one GPU self-partitioned at 32^4 5-8 us with one
# cut direction and 9-19 us with two (the latency of one call's pack -> copy -> handshake -> exterior chain and
# the host's share of queuing it). Fitted as 7 us per partitioned direction, no base. (The first version, which
# queued the packs first, measured 14-20 us with one direction and 27-32 us with two on four H200: 4 + 13 us per
# direction; the four-GPU tables' "model" column used that.) The exterior kernel runs beside the interior, so
# its work is in the chain, and its sites in the interior's time (the interior term is the whole local Dslash).
PARTITIONED_CALL_US = 0.0
PARTITIONED_CALL_US_PER_DIRECTION = 7.0
# A global sum across GPUs: MPI_Allreduce of a few doubles between host processes (deterministic variant: an
# allgather of the partial sums, summed in rank order; about the same cost). Assumed.
ALLREDUCE_US = {"node": 3.0, "fabric": 8.0}
GPUS_PER_NODE = 8
DIRECTIONS = "xyzt"
PRECISIONS = ("double", "single", "half")


def ghost_reals(precision, mu):
    """Reals of one ghost site (gpu/halo.cuh): the projected half spinor or the kept spin pair (12), except for
    half precision in x, y, z, which sends the whole site (24 levels: an exact projected half spinor of 16-bit
    levels needs 17 bits)."""
    return SPINOR_REALS if precision == "half" and mu < 3 else FACE_REALS


def face_site_bytes(precision, mu=3):
    """Bytes of one packed face site in direction mu (+ its norm in half)."""
    return ghost_reals(precision, mu) * BYTES_PER_REAL[precision] + (HALF_NORM_BYTES if precision == "half" else 0)


def face_sites(local, mu):
    """Face sites sent per Dslash in direction mu: 2 faces x (V_local / L_mu) / 2 (one parity) = V / L_mu."""
    return math.prod(local) / local[mu]


def face_bytes(local, mu, precision):
    """Bytes sent (= bytes received) per Dslash in direction mu."""
    return face_sites(local, mu) * face_site_bytes(precision, mu)


def per_site_us(precision):
    """Time per output site of a Dslash at large volume, from the 32^4 measurement less the fixed cost."""
    return (DSLASH_32_4_US[precision] - DSLASH_FIXED_US[precision]) / SITES_32_4


def interior_us(local, precision):
    """The interior Dslash: every local output site, local hops only (as the single-GPU kernel)."""
    return DSLASH_FIXED_US[precision] + per_site_us(precision) * math.prod(local) / 2


def pack_us(local, partitioned, precision):
    """The pack kernels of all partitioned directions: read the spinor (24 reals), write the ghost site."""
    b = BYTES_PER_REAL[precision]
    n = HALF_NORM_BYTES if precision == "half" else 0
    nbytes = sum(face_sites(local, mu) * (SPINOR_REALS * b + n + face_site_bytes(precision, mu)) for mu in partitioned)
    return SMALL_KERNEL_US + nbytes / (COPY_GBS * 1e3)


def exterior_us(local, partitioned, precision):
    """One exterior kernel per partitioned direction: read the ghost half spinor and a link, read and write out."""
    b = BYTES_PER_REAL[precision]
    n = HALF_NORM_BYTES if precision == "half" else 0
    def per_site(mu):
        return face_site_bytes(precision, mu) + RECONSTRUCT[precision] * b + 2 * (SPINOR_REALS * b + n)
    return sum(SMALL_KERNEL_US + face_sites(local, mu) * per_site(mu) / (COPY_GBS * 1e3) for mu in partitioned)


def direction_exchange_us(nbytes, transport):
    t = TRANSPORTS[transport]
    return t["latency_us"] + sum(nbytes / (gbs * 1e3) for gbs in t["stages_gbs"])


def exchange_us(local, partitioned, precision, transports):
    """Directions one after another; transports maps a partitioned direction to its transport."""
    return sum(direction_exchange_us(face_bytes(local, mu, precision), transports[mu]) for mu in partitioned)


def call_overhead_us(partitioned):
    """The measured fixed cost of a partitioned call (PARTITIONED_CALL_US...)."""
    return PARTITIONED_CALL_US + PARTITIONED_CALL_US_PER_DIRECTION * len(partitioned) if partitioned else 0.0


def dslash_us(local, partitioned, precision, transports):
    """Predicted Dslash time: max(interior, pack + exchange + exterior) + the fixed cost of a partitioned call."""
    if not partitioned:
        return interior_us(local, precision)
    chain = (pack_us(local, partitioned, precision) + exchange_us(local, partitioned, precision, transports) +
             exterior_us(local, partitioned, precision))
    return max(interior_us(local, precision), chain) + call_overhead_us(partitioned)


def overlap_slack_us(L, precision, k, transport):
    """interior - (pack + exchange) on a hypercubic local lattice L^4 with the last k directions partitioned."""
    local = (L, L, L, L)
    part = list(range(4 - k, 4))
    comm = pack_us(local, part, precision) + exchange_us(local, part, precision, {mu: transport for mu in part})
    return interior_us(local, precision) - comm


def overlap_threshold_L(precision, k, transport, smallest=4.0, largest=512.0):
    """The hypercubic local extent L (real) above which pack + exchange <= interior holds for every L, k
    directions partitioned; `smallest` when it holds down to L = smallest. (At small L the interior's fixed
    cost can hide the exchange again, so the slack is not monotone: scan down from `largest`.)"""
    step = 0.25
    L = largest
    while L - step >= smallest and overlap_slack_us(L - step, precision, k, transport) >= 0:
        L -= step
    if L - step < smallest and overlap_slack_us(smallest, precision, k, transport) >= 0:
        return smallest
    lo, hi = L - step, L  # slack(lo) < 0 <= slack(hi)
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if overlap_slack_us(mid, precision, k, transport) < 0 else (lo, mid)
    return hi


def grids(P, extents, min_local=4):
    """Every process grid with product P whose local extents are even and >= min_local."""
    out = []
    for g in itertools.product(*[[d for d in range(1, P + 1) if P % d == 0]] * 4):
        if math.prod(g) != P:
            continue
        local = tuple(e // d for e, d in zip(extents, g))
        if any(e % d or l % 2 or (d > 1 and l < min_local) for e, d, l in zip(extents, g, local)):
            continue
        out.append(g)
    return out


def node_block(grid):
    """The sub-grid of ranks on one node: filled from x outwards, GPUS_PER_NODE ranks (grid sizes powers of 2)."""
    left, block = GPUS_PER_NODE, []
    for d in grid:
        b = min(d, left)
        block.append(b)
        left //= b
    return tuple(block)


def transports_for(grid, within_node_transport="nvlink"):
    """A partitioned direction whose grid size exceeds the node block's crosses nodes: InfiniBand; the others
    stay inside the node on within_node_transport."""
    block = node_block(grid) if math.prod(grid) > GPUS_PER_NODE else grid
    return {mu: ("infiniband" if grid[mu] > block[mu] else within_node_transport) for mu in range(4)}


def predict(extents, grid, precision, within_node_transport="nvlink"):
    local = tuple(e // d for e, d in zip(extents, grid))
    part = [mu for mu in range(4) if grid[mu] > 1]
    return local, part, dslash_us(local, part, precision, transports_for(grid, within_node_transport))


def best_grid(extents, P, precision, transport="nvlink"):
    best = None
    for g in grids(P, extents):
        t = predict(extents, g, precision, transport)[2]
        key = (round(t, 6), sum(d > 1 for d in g))
        if best is None or key < best[0]:
            best = (key, g, t)
    return best[1], best[2]


def vector_us(sites, precision):
    (s0, t0), (s1, t1) = VECTOR_WORK_US[precision]
    return t0 + (t1 - t0) * (sites - s0) / (s1 - s0)


def iteration_us(extents, grid, precision, transport="nvlink"):
    """One BiCGstab iteration: 4 Dslash, the vector work, and a global sum per reduction on several GPUs."""
    local, part, t = predict(extents, grid, precision, transport)
    P = math.prod(grid)
    allreduce = 0.0 if P == 1 else REDUCTIONS_PER_ITERATION * ALLREDUCE_US["node" if P <= GPUS_PER_NODE else "fabric"]
    return DSLASH_PER_ITERATION * t + vector_us(math.prod(local) / 2, precision), allreduce


def fmt_grid(g):
    return "x".join(str(d) for d in g)


def fmt_local(local):
    return "x".join(str(l) for l in local)


def label(p):
    return "%s/%d" % (p, RECONSTRUCT[p])


def table_inputs():
    print("Derived inputs: time per output site at large volume, fixed cost per Dslash, face bytes per site")
    print()
    print("| precision | us at 32^4 | fixed us | ns per site | face bytes per site | interior at 32^4, us |")
    print("|---|---|---|---|---|---|")
    for p in PRECISIONS:
        faces = ("%d" % face_site_bytes(p) if face_site_bytes(p, 0) == face_site_bytes(p)
                 else "%d (x, y, z) / %d (t)" % (face_site_bytes(p, 0), face_site_bytes(p)))
        print("| %s | %.1f | %.1f | %.4f | %s | %.1f |" % (label(p), DSLASH_32_4_US[p], DSLASH_FIXED_US[p],
                                                           per_site_us(p) * 1e3, faces, interior_us((32,) * 4, p)))
    print()


def table_thresholds():
    print("Overlap threshold: smallest hypercubic local lattice L^4 with pack + exchange <= interior, k = number of")
    print("partitioned directions (L real; local sites = L^4; \"all\": holds for every L >= 4)")
    print()
    header = "| precision | transport | " + " | ".join("k=%d: L (sites)" % k for k in (1, 2, 3, 4)) + " |"
    print(header)
    print("|---" * (2 + 4) + "|")
    for p in PRECISIONS:
        for tr in TRANSPORTS:
            cells = []
            for k in (1, 2, 3, 4):
                L = overlap_threshold_L(p, k, tr)
                cells.append("all" if L == 4.0 else "%.1f (%s)" % (L, sites_str(L**4)))
            print("| %s | %s | %s |" % (label(p), tr, " | ".join(cells)))
    print()


def sites_str(v):
    if v >= 1e6:
        return "%.1fM" % (v / 1e6)
    return "%.0fk" % (v / 1e3)


def table_strong(extents, transport="nvlink"):
    name = "x".join(str(e) for e in extents)
    mem = SOLVER_BYTES_PER_SITE * math.prod(extents)
    print("Strong scaling of the Dslash at %s over %s (double BiCGstab fields on one GPU: %.1f GB of %.0f)"
          % (name, transport, mem / 1e9, GPU_MEMORY_BYTES / 1e9))
    print()
    print("| precision | GPUs | grid | local | Dslash us | exchange+pack us | interior us | overlap | efficiency | "
          "z x t grid: efficiency |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for p in PRECISIONS:
        t1 = predict(extents, (1, 1, 1, 1), p, transport)[2]
        for P in (1, 2, 4, 8):
            g, t = best_grid(extents, P, p, transport)
            local, part, _ = predict(extents, g, p, transport)
            comm = (pack_us(local, part, p) + exchange_us(local, part, p, transports_for(g, transport))) if part else 0
            tonly = {4: (1, 1, 2, 2), 8: (1, 1, 2, 4)}.get(P)
            if tonly in grids(P, extents):
                tt = predict(extents, tonly, p, transport)[2]
                tcell = "%.0f%% (%s)" % (100 * t1 / (P * tt), fmt_grid(tonly))
            else:
                tcell = "-"
            print("| %s | %d | %s | %s | %.1f | %.1f | %.1f | %s | %.0f%% | %s |" % (
                label(p), P, fmt_grid(g), fmt_local(local), t, comm, interior_us(local, p),
                "-" if not part else ("yes" if comm <= interior_us(local, p) else "no"), 100 * t1 / (P * t), tcell))
    print()


WEAK_GRIDS = [(1, 1, 1, 1), (1, 1, 1, 2), (1, 1, 2, 2), (1, 2, 2, 2), (2, 2, 2, 2), (2, 2, 2, 4), (2, 2, 4, 4),
              (2, 4, 4, 4)]


def table_weak(local=(32, 32, 32, 32), transport="nvlink"):
    print("Weak scaling at %s per GPU (%s inside a node; beyond %d GPUs the t direction crosses nodes over"
          " InfiniBand)" % (fmt_local(local), transport, GPUS_PER_NODE))
    print()
    print("| GPUs | grid | " + " | ".join("%s us (eff.)" % label(p) for p in PRECISIONS) + " |")
    print("|---|---|" + "---|" * len(PRECISIONS))
    for g in WEAK_GRIDS:
        extents = tuple(l * d for l, d in zip(local, g))
        cells = []
        for p in PRECISIONS:
            t1 = interior_us(local, p)
            t = predict(extents, g, p, transport)[2]
            cells.append("%.1f (%.0f%%)" % (t, 100 * t1 / t))
        print("| %d | %s | %s |" % (math.prod(g), fmt_grid(g), " | ".join(cells)))
    print()


def table_pcie_strong(extents):
    print("The same strong scaling host-staged over PCIe (best grid per GPU count): efficiency")
    print()
    print("| precision | " + " | ".join("%d GPUs" % P for P in (2, 4, 8)) + " |")
    print("|---|---|---|---|")
    for p in PRECISIONS:
        t1 = predict(extents, (1, 1, 1, 1), p, "pcie-staged")[2]
        cells = []
        for P in (2, 4, 8):
            g, t = best_grid(extents, P, p, "pcie-staged")
            cells.append("%.0f%% (%s)" % (100 * t1 / (P * t), fmt_grid(g)))
        print("| %s | %s |" % (label(p), " | ".join(cells)))
    print()


def table_across_nodes(extents, gpu_counts=(8, 16, 32, 64)):
    name = "x".join(str(e) for e in extents)
    print("Strong scaling of the Dslash at %s past one node (%d GPUs a node, NVLink inside, InfiniBand between;"
          " best grid; efficiency against one GPU)" % (name, GPUS_PER_NODE))
    print()
    print("| precision | " + " | ".join("%d GPUs: grid, us, eff." % P for P in gpu_counts) + " |")
    print("|---|" + "---|" * len(gpu_counts))
    for p in PRECISIONS:
        t1 = predict(extents, (1, 1, 1, 1), p)[2]
        cells = []
        for P in gpu_counts:
            g, t = best_grid(extents, P, p)
            cells.append("%s, %.0f, %.0f%%" % (fmt_grid(g), t, 100 * t1 / (P * t)))
        print("| %s | %s |" % (label(p), " | ".join(cells)))
    print()


def table_solver(extents):
    name = "x".join(str(e) for e in extents)
    print("BiCGstab iteration at %s over NVLink: 4 Dslash + vector work (+ %d global sums of %.0f us each on"
          " several GPUs)" % (name, REDUCTIONS_PER_ITERATION, ALLREDUCE_US["node"]))
    print()
    print("| precision | GPUs | grid | iteration us | of which global sums | efficiency | without the global sums |")
    print("|---|---|---|---|---|---|---|")
    for p in ("double", "half"):
        base, _ = iteration_us(extents, (1, 1, 1, 1), p)
        for P in (1, 2, 4, 8):
            g, _ = best_grid(extents, P, p)
            work, red = iteration_us(extents, g, p)
            print("| %s | %d | %s | %.1f | %.1f (%.0f%%) | %.0f%% | %.0f%% |" % (
                label(p), P, fmt_grid(g), work + red, red, 100 * red / (work + red), 100 * base / (P * (work + red)),
                100 * base / (P * work)))
    print()


def main():
    table_inputs()
    table_thresholds()
    table_strong((32, 32, 32, 64))
    table_strong((64, 64, 64, 128))
    table_pcie_strong((32, 32, 32, 64))
    table_weak()
    table_across_nodes((64, 64, 64, 128))
    table_solver((32, 32, 32, 64))
    table_solver((64, 64, 64, 128))
    return 0


if __name__ == "__main__":
    sys.exit(main())
