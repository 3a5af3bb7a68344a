#!/usr/bin/python3
"""tools/ is the CLI over the library (DESIGN.md layout, issue 44): no file of tools/ (*.cpp, *.hpp) includes a
header of sim/core/, sim/kernel/, workloads/ or dataflows/ (what a command needs comes through the public headers
in include/stasim/), and the commands stay thin, tools/*.cpp at most 2500 lines in all. Prints the line total.
Usage: check_tools_layering.py SOURCE_DIR (exit 1 listing every offending file:line)."""
import pathlib
import re
import sys

MAX_LINES = 2500
BELOW_THE_API = ("sim/core/", "sim/kernel/", "workloads/", "dataflows/")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')

tools = pathlib.Path(sys.argv[1]).resolve() / "tools"
problems = []
sources = sorted(tools.glob("*.cpp")) + sorted(tools.glob("*.hpp"))
for path in sources:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = INCLUDE.match(line)
        if match and match.group(1).startswith(BELOW_THE_API):
            problems.append(f"tools/{path.name}:{number}: includes {match.group(1)}; go through include/stasim/")

total = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in sorted(tools.glob("*.cpp")))
print(f"tools/*.cpp: {total} lines (at most {MAX_LINES})")
if total > MAX_LINES:
    problems.append(f"tools/*.cpp: {total} lines, more than {MAX_LINES}: move library work into the library")
for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
