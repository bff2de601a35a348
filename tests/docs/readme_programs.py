#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the README's ```cpp and ```c examples as programs to compile
against an installed uriscan (tools/package-test.sh runs them).

Each block's #include lines stay at the top; the rest becomes the body of
main(), after the few names the examples take as given (`text`, the
column arrays and `capacity`). A statement followed by "// true" or
"// "..."" (a string) is checked: the program exits 1, naming it, when the
value differs. The examples thus compile, run and say what they do.

Usage: readme_programs.py README.md OUT_DIR   (writes readme_cpp.cc, readme_c.c)
       readme_programs.py --programs DOC.md OUT_DIR
The second form writes each block right after a line
"<!-- example: program NAME -->", a whole program, as OUT_DIR/NAME.cc
(or NAME.c for a ```c block), and prints the file names.
"""
import os
import re
import sys

CPP_GIVEN = """#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>
#define URISCAN_README_CHECK(expr, want) \\
  do { if (!((expr) == (want))) { \\
    std::fprintf(stderr, "README example: %s is not %s\\n", #expr, #want); \\
    std::exit(1); } } while (0)
"""
CPP_MAIN = """int main() {
  const std::string text = "http://a.example/x\\nhttp://b.example/?q\\n";
"""
C_GIVEN = """#include <stdint.h>
#include <stdio.h>
#include <string.h>
"""
C_MAIN = """int main(void) {
  const char *text = "http://a.example/x\\nhttp://b.example/?q\\n";
  enum { capacity = 16 };
  uint32_t host_begin[capacity], host_end[capacity];
  uint8_t error_kind[capacity];
"""
CHECKED = re.compile(r'^(\s*)(.+?);\s*//\s*(true|false|"[^"]*")(\s.*)?$')


def blocks(text, lang):
    return re.findall(r"^```%s\n(.*?)^```" % lang, text, re.M | re.S)


def program(body, given, main, checks):
    includes, lines = [], []
    for line in body.splitlines():
        if line.startswith("#include"):
            includes.append(line)
            continue
        m = CHECKED.match(line) if checks else None
        if m:
            lines.append("%sURISCAN_README_CHECK(%s, %s);" %
                         (m.group(1) or "  ", m.group(2), m.group(3)))
        else:
            lines.append("  " + line)
    return (given + "\n".join(includes) + "\n\n" + main +
            "\n".join(lines) + "\n  return 0;\n}\n")


PROGRAM = re.compile(r"^<!-- example: program (\w+) -->\n```(cpp|c)\n(.*?)^```",
                     re.M | re.S)


def programs(doc, out):
    text = open(doc, encoding="utf-8").read()
    found = PROGRAM.findall(text)
    if not found:
        print("readme_programs: no program in %s" % doc, file=sys.stderr)
        return 1
    os.makedirs(out, exist_ok=True)
    for name, lang, body in found:
        path = os.path.join(out, name + (".cc" if lang == "cpp" else ".c"))
        with open(path, "w") as f:
            f.write(body)
        print(path)
    return 0


def main():
    if sys.argv[1] == "--programs":
        return programs(sys.argv[2], sys.argv[3])
    readme, out = sys.argv[1], sys.argv[2]
    text = open(readme, encoding="utf-8").read()
    cpp, c = blocks(text, "cpp"), blocks(text, "c")
    if len(cpp) != 1 or len(c) != 1:
        print("readme_programs: expected one cpp and one c block, found %d "
              "and %d" % (len(cpp), len(c)), file=sys.stderr)
        return 1
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "readme_cpp.cc"), "w") as f:
        f.write(program(cpp[0], CPP_GIVEN, CPP_MAIN, True))
    with open(os.path.join(out, "readme_c.c"), "w") as f:
        f.write(program(c[0], C_GIVEN, C_MAIN, False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
