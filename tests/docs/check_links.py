#!/usr/bin/python3
"""The README and docs/ stay inside the repository: every relative link or picture of README.md and docs/*.md
names a file of the repository, no text points at notes outside it (DESIGN.md, hardware-facts.md, ../), every
docs/*.md page is linked from the README, and every picture in docs/plots is shown somewhere. The comments of
configs/**/*.yaml cite pages too: each `docs/X.md` or bare `X.md` (read as docs/X.md) must exist, a `row "R"` after
it must be a table row whose first cell is R, and a quoted `"S"` after it a heading of that page that contains S.
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

cited = re.compile(r'((?:docs/)?[A-Za-z0-9_-]+\.md)(?:,? (row )?"([^"]+)")?')
citations = 0
for config in sorted((root / "configs").rglob("*.yaml")):
    for number, line in enumerate(config.read_text(encoding="utf-8").splitlines(), 1):
        comment = re.search(r"(?:^|\s)#(.*)$", line)
        if not comment:
            continue
        where = f"{config.relative_to(root)}:{number}"
        for name, row, part in cited.findall(comment.group(1)):
            citations += 1
            page = root / (name if name.startswith("docs/") else f"docs/{name}")
            if not page.exists():
                problems.append(f"{where}: cites '{name}', which the repository does not have")
                continue
            if not part:
                continue
            lines = page.read_text(encoding="utf-8").splitlines()
            if row and not any(re.match(rf"\|\s*{re.escape(part)}\s*\|", x) for x in lines):
                problems.append(f"{where}: {name} has no table row \"{part}\"")
            elif not row and not any(x.startswith("#") and part in x for x in lines):
                problems.append(f"{where}: {name} has no heading \"{part}\"")
for p in problems:
    print(p)
print(f"check_links: {len(pages)} pages, {len(targets)} link targets, {citations} citations in configs/, "
      f"{len(problems)} problems")
sys.exit(1 if problems else 0)
