"""check_doc_line_refs.py: passes cited lines and verbatim quotes; fails stale ranges, missing files, edited quotes."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_doc_line_refs.py")
SOURCE = "int f() {\n  return 1;\n}\n\nint g() {\n  return 2;\n}\n"


def run(root, page_text):
    page = os.path.join(root, "page.md")
    with open(page, "w") as f:
        f.write(page_text)
    return subprocess.run([sys.executable, SCRIPT, "--root", root, page], capture_output=True, text=True)


class CheckDocLineRefsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        os.makedirs(os.path.join(self.dir.name, "src"))
        with open(os.path.join(self.dir.name, "src", "a.h"), "w") as f:
            f.write(SOURCE)

    def tearDown(self):
        self.dir.cleanup()

    def test_valid_citations_and_blocks_pass(self):
        r = run(self.dir.name, "`f` (`src/a.h:1-3`), `g` at `src/a.h:5-7`:\n\n```c++\n  return 2;\n```\n")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_range_past_the_end_fails(self):
        r = run(self.dir.name, "`src/a.h:5-8`\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("outside", r.stderr)

    def test_missing_file_fails(self):
        r = run(self.dir.name, "`src/b.h:1`\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("names no file", r.stderr)

    def test_block_not_in_the_cited_lines_fails(self):
        edited = run(self.dir.name, "`src/a.h:1-3`:\n\n```c++\n  return 3;\n```\n")
        self.assertEqual(edited.returncode, 1)
        self.assertIn("verbatim in none", edited.stderr)
        elsewhere = run(self.dir.name, "`src/a.h:1-3`:\n\n```c++\n  return 2;\n```\n")
        self.assertEqual(elsewhere.returncode, 1)

    def test_uncited_blocks_and_shell_blocks_are_not_quotations(self):
        example = run(self.dir.name, "an example:\n\n```c++\nint h();\n```\n")
        self.assertEqual(example.returncode, 0, example.stderr)
        command = run(self.dir.name, "`src/a.h:1-3`, built with\n\n```sh\nmake a\n```\n")
        self.assertEqual(command.returncode, 0, command.stderr)


if __name__ == "__main__":
    unittest.main()
