#!/usr/bin/python3
"""The README and docs/ stay inside the repository: every relative link or picture of README.md and docs/*.md
names a file of the repository, no text points at notes outside it (DESIGN.md, hardware-facts.md, ../), every
docs/*.md page is linked from the README, and every picture in docs/plots is shown somewhere.
Usage: check_links.py SOURCE_DIR (exit 1 listing every problem)."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1]).resolve()
pages = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
link = re.compile(r"\]\(([^)\s]+)\)")
outside = re.compile(r"DESIGN\.md|hardware-facts\.md|fidelity-mechanisms\.md|\.\./shared|/work/")
problems = []
targets = set()
for page in pages:
    text = page.read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), 1):
        where = f"{page.relative_to(root)}:{number}"
        for hit in outside.finditer(line):
            problems.append(f"{where}: points outside the repository ('{hit.group(0)}')")
        for target in link.findall(line):
            if re.match(r"[a-z]+://|#|mailto:", target):
                continue
            path = (page.parent / target.split("#")[0]).resolve()
            if root not in path.parents and path != root:
                problems.append(f"{where}: link '{target}' leaves the repository")
            elif not path.exists():
                problems.append(f"{where}: link '{target}' names no file")
            else:
                targets.add(path)
for doc in pages[1:]:
    if doc not in targets:
        problems.append(f"{doc.relative_to(root)}: no page links to it")
for picture in sorted((root / "docs" / "plots").glob("*.png")):
    if picture not in targets:
        problems.append(f"{picture.relative_to(root)}: shown on no page")
for p in problems:
    print(p)
print(f"check_links: {len(pages)} pages, {len(targets)} link targets, {len(problems)} problems")
sys.exit(1 if problems else 0)
