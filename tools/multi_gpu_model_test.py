"""multi_gpu_model.py: face bytes, the overlap threshold and the Dslash time against hand-computed values."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import multi_gpu_model as m  # noqa: E402


class MultiGpuModelTest(unittest.TestCase):
    def test_face_bytes(self):
        # 32^3 x 64 cut in t over 2 GPUs: local 32^4; 2 faces x 32^3 / 2 sites x 12 reals x 8 bytes.
        self.assertEqual(m.face_bytes((32, 32, 32, 32), 3, "double"), 2 * (32**3 // 2) * 12 * 8)
        self.assertEqual(m.face_bytes((32, 32, 32, 32), 3, "double"), 3145728)
        # half: 12 x 2 bytes + a 4-byte norm per site in t; the whole site (24 x 2 + 4) in x, y, z
        self.assertEqual(m.face_bytes((32, 32, 32, 32), 3, "half"), 32**3 * 28)
        self.assertEqual(m.face_bytes((32, 32, 32, 32), 2, "half"), 32**3 * 52)
        # single, the z direction of a 32 x 32 x 16 x 32 local lattice: V / L_z = 32^3 sites x 48 bytes
        self.assertEqual(m.face_bytes((32, 32, 16, 32), 2, "single"), 32**3 * 48)

    def test_per_site_rate(self):
        # (115.8 - 7.6) us over 524288 output sites
        self.assertAlmostEqual(m.per_site_us("single"), 108.2 / 524288, places=12)
        self.assertAlmostEqual(m.interior_us((32, 32, 32, 32), "half"), 68.1, places=9)

    def test_overlap_threshold(self):
        # single/12, one direction over NVLink, L^4 local: by hand
        #   interior = 7.6 + (108.2 / 524288) L^4 / 2
        #   pack + exchange = 4 + L^3 (24 + 12) 4 / 2860e3 + 5 + L^3 48 / 380e3
        def slack(L):
            interior = 7.6 + (108.2 / 524288) * L**4 / 2
            comm = 4 + L**3 * 144 / 2860e3 + 5 + L**3 * 48 / 380e3
            return interior - comm

        L = m.overlap_threshold_L("single", 1, "nvlink")
        self.assertAlmostEqual(slack(L), 0.0, places=6)
        self.assertGreater(L, 11.0)
        self.assertLess(L, 11.4)
        for x in (L + 0.5, 16, 32, 64):
            self.assertGreater(slack(x), 0)
        self.assertLess(slack(L - 0.5), 0)
        # double over NVLink in one direction hides the exchange at every L >= 4
        self.assertEqual(m.overlap_threshold_L("double", 1, "nvlink"), 4.0)

    def test_dslash_time(self):
        local, part = (32, 32, 32, 32), [3]
        tr = {3: "nvlink"}
        interior = m.interior_us(local, "double")
        comm = m.pack_us(local, part, "double") + m.exchange_us(local, part, "double", tr)
        # exchange: 5 us + 3145728 B / 380 GB/s
        self.assertAlmostEqual(m.exchange_us(local, part, "double", tr), 5 + 3145728 / 380e3, places=9)
        # exterior: 4 us + 32^3 sites x (12 + 18 + 48) reals x 8 bytes / 2860 GB/s
        self.assertAlmostEqual(m.exterior_us(local, part, "double"), 4 + 32**3 * 78 * 8 / 2860e3, places=9)
        # the exterior in the chain beside the interior, then the measured per-call cost: 7 us per direction
        self.assertAlmostEqual(m.dslash_us(local, part, "double", tr),
                               max(interior, comm + m.exterior_us(local, part, "double")) + 7, places=9)
        self.assertEqual(m.call_overhead_us([2, 3]), 2 * 7)
        self.assertEqual(m.dslash_us(local, [], "double", tr), interior)

    def test_grids_and_nodes(self):
        self.assertIn((1, 1, 2, 4), m.grids(8, (32, 32, 32, 64)))
        self.assertNotIn((1, 1, 1, 32), m.grids(32, (32, 32, 32, 64)))  # local t = 2 < 4
        self.assertEqual(m.transports_for((1, 1, 2, 8))[3], "infiniband")
        self.assertEqual(m.transports_for((1, 1, 2, 8))[2], "nvlink")
        self.assertEqual(m.transports_for((1, 1, 2, 4))[3], "nvlink")

    def test_tables_print(self):
        import io
        import contextlib
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(m.main(), 0)
        self.assertIn("Overlap threshold", out.getvalue())


if __name__ == "__main__":
    unittest.main()
