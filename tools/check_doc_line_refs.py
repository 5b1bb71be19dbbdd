"""check_doc_line_refs.py: checks the `path:line` and `path:a-b` citations of a Markdown page against the files.

    python3 tools/check_doc_line_refs.py docs/wilson_walkthrough.md [--show] [--root DIR]

A citation is a backticked `path:N` or `path:A-B` whose path is a file under the root (default: the repository,
this script's parent directory). Checked:
  - the file exists and 1 <= A <= B <= its line count;
  - a fenced code block in a source language (```c++, ```python, ...; not shell commands or output) with
    citations in the text since the previous block is a quotation: it must be verbatim in one of them, as
    consecutive lines inside the cited range (trailing whitespace ignored). A block with none is an example.
--show prints each citation with its lines, to read next to the symbol the text names (what no script checks).
Exit status 1 if any check fails.
"""
import argparse
import os
import re
import sys

CITATION = re.compile(r"`([A-Za-z0-9_./-]+\.[A-Za-z0-9]+):(\d+)(?:-(\d+))?`")
FENCE = re.compile(r"^```\s*(\S*)")
SOURCE_LANGUAGES = {"c", "c++", "cpp", "cc", "cuda", "python", "py"}


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip() for line in f.read().split("\n")]


def parse(page_lines):
    """Yields ("text", line_no, text) and ("code", line_no, [lines]) items of the page in order; blocks not in
    a source language come as ("other", line_no, [lines])."""
    i = 0
    while i < len(page_lines):
        fence = FENCE.match(page_lines[i])
        if fence:
            start = i
            i += 1
            block = []
            while i < len(page_lines) and not FENCE.match(page_lines[i]):
                block.append(page_lines[i])
                i += 1
            yield ("code" if fence.group(1).lower() in SOURCE_LANGUAGES else "other", start + 1, block)
        else:
            yield ("text", i + 1, page_lines[i])
        i += 1


def contains_run(lines, block):
    """Whether block occurs as consecutive lines of lines."""
    n = len(block)
    return any(lines[k:k + n] == block for k in range(len(lines) - n + 1))


def check(page, root, show=False, out=sys.stdout):
    """Returns the list of problems found in page (a path), printing citations if show."""
    problems = []
    cache = {}
    cited = []  # (path, a, b) of the valid citations since the previous fenced block
    for kind, line_no, content in parse(read_lines(page)):
        if kind == "text":
            for m in CITATION.finditer(content):
                path, a = m.group(1), int(m.group(2))
                b = int(m.group(3)) if m.group(3) else a
                full = os.path.join(root, path)
                if not os.path.isfile(full):
                    problems.append("%s:%d: %s names no file" % (page, line_no, m.group(0)))
                    continue
                lines = cache.setdefault(path, read_lines(full))
                count = len(lines) - (1 if lines and lines[-1] == "" else 0)
                if not 1 <= a <= b <= count:
                    problems.append("%s:%d: %s is outside %s (%d lines)" % (page, line_no, m.group(0), path, count))
                    continue
                cited.append((path, a, b))
                if show:
                    out.write("%s:%d: %s\n" % (page, line_no, m.group(0)))
                    for k in range(a, b + 1):
                        out.write("    %5d  %s\n" % (k, lines[k - 1]))
        else:
            quoted = any(contains_run(cache[path][a - 1:b], content) for path, a, b in cited)
            if kind == "code" and cited and not quoted:
                problems.append("%s:%d: code block is verbatim in none of %s" %
                                (page, line_no, ", ".join("%s:%d-%d" % c for c in cited)))
            cited = []
    return problems


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pages", nargs="+")
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args(argv)
    problems = []
    for page in args.pages:
        problems += check(page, args.root, args.show)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
