#!/usr/bin/python3
"""docs/models.md and configs/models/*.yaml say the same: every table of docs/models.md whose first column is
"Model" and whose other headers are backticked YAML keys (`moe.experts`) is compared cell by cell with the YAML
that cites that row (`docs/models.md, row "NAME"` in its comments); a cell `—` means the YAML lacks the key. Every
model YAML must have a row in the first table. Usage: check_models.py SOURCE_DIR (exit 1 listing every problem)."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1]).resolve()
ABSENT = "—"


def read_yaml(path):
    """The flat key paths ("moe.experts") of a model YAML and their value text, comments dropped. The model files
    use two levels, scalars and one-line lists only, which is all this reads (no PyYAML in the setup list)."""
    values = {}
    section = None
    for line in path.read_text(encoding="utf-8").splitlines():
        text = re.sub(r"\s+#.*$", "", line) if not line.lstrip().startswith("#") else ""
        if not text.strip():
            continue
        key, _, value = text.strip().partition(":")
        value = value.strip().strip('"')
        if not line.startswith(" "):
            section = key if value == "" else None
            if value != "":
                values[key] = value
        elif section is not None:
            values[f"{section}.{key}"] = value
    return values


def same(cell, value):
    if cell == value:
        return True
    try:
        return float(cell) == float(value)
    except ValueError:
        return False


configs = {}
for path in sorted((root / "configs" / "models").glob("*.yaml")):
    cited = re.search(r'docs/models\.md,? row "([^"]+)"', path.read_text(encoding="utf-8"))
    configs[path] = cited.group(1) if cited else None

problems = []
tables = []
lines = (root / "docs" / "models.md").read_text(encoding="utf-8").splitlines()
for number, line in enumerate(lines, 1):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if line.startswith("| Model |") and all(re.fullmatch(r"`[a-z_.]+`", c) for c in cells[1:]):
        tables.append({"line": number, "keys": [c.strip("`") for c in cells[1:]], "rows": {}})
    elif tables and line.startswith("|") and not line.startswith("|---") and number == tables[-1]["line"] + 2 + len(
            tables[-1]["rows"]):
        tables[-1]["rows"][cells[0]] = (number, cells[1:])

checked = 0
for path, row in configs.items():
    name = path.relative_to(root)
    if row is None:
        problems.append(f"{name}: cites no row of docs/models.md (write: docs/models.md, row \"NAME\")")
        continue
    if not tables or row not in tables[0]["rows"]:
        problems.append(f"{name}: docs/models.md has no row \"{row}\" in its first table")
    values = read_yaml(path)
    for table in tables:
        if row not in table["rows"]:
            continue
        number, cells = table["rows"][row]
        for key, cell in zip(table["keys"], cells):
            checked += 1
            if cell == ABSENT:
                if key in values:
                    problems.append(f"docs/models.md:{number}: {row} {key} is '{ABSENT}' but {name} has {values[key]}")
            elif key not in values:
                problems.append(f"docs/models.md:{number}: {row} {key} is {cell} but {name} has no {key}")
            elif not same(cell, values[key]):
                problems.append(f"docs/models.md:{number}: {row} {key} is {cell} but {name} has {values[key]}")
cited_rows = set(configs.values())
for table in tables:
    for row, (number, _) in table["rows"].items():
        if row not in cited_rows:
            problems.append(f"docs/models.md:{number}: row \"{row}\" is cited by no configs/models YAML")
for p in problems:
    print(p)
print(f"check_models: {len(configs)} model YAMLs, {len(tables)} tables, {checked} cells compared, "
      f"{len(problems)} problems")
sys.exit(1 if problems or not tables else 0)
