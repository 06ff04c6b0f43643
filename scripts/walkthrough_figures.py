#!/usr/bin/env python3
"""The figures docs/tuning-walkthrough.md shows, taken from the reports its own commands made.

  walkthrough_figures.py write DOC MADE   rewrite DOC's generated parts from the files in MADE
  walkthrough_figures.py check DOC MADE   fail where DOC drifted from them

A generated part lies between `<!-- generated: NAME -->` and `<!-- /generated -->`: NAME `table`
is the steps' makespans and hints above the line, NAME `file:F` is the text file MADE/F in a
fence. The check also reads the prose: in a section headed by steps, e.g. `## (d, e) ...`, every
quote of a report (a backticked span with a space in it, `...` standing for an omitted part),
every time in ms, every `unit N` and every share `N.N%` must appear in a report of those steps
(elsewhere, in any step's report or any other text file the commands made); a figure from the paper is written in a sentence that
names the paper, and that sentence's shares are not checked.
"""
import re
import sys
from pathlib import Path

STEPS = "abcdefgh"
RUNS = {
    "a": "64 pieces, the misplaced brace",
    "b": "64 pieces, round-robin from core 0",
    "c": "64 pieces, others first",
    "d": "120 pieces, others first",
    "e": "160 pieces, others first",
    "f": "64 pieces, dedicated creator core",
    "g": "as (f), results VP on core 0",
    "h": "120 pieces, dedicated creator, results VP on core 0",
}
BLOCK = re.compile(r"(<!-- generated: (\S+) -->\n)(.*?)(<!-- /generated -->)", re.S)


def report(made: Path, step: str) -> str:
    return (made / f"{step}-report.txt").read_text()


def makespan(text: str) -> str:
    found = re.search(r"^makespan:\s+(\S+ \S+)", text, re.M)
    if not found:
        raise SystemExit("walkthrough_figures: a report without its makespan line")
    return found.group(1)


def hints_above_line(text: str) -> list:
    hints, inside = [], False
    for line in text.splitlines():
        if line.startswith("hints ("):
            inside = True
        elif inside and not line.startswith("  ["):
            break
        elif inside:
            rule = re.match(r"\s+\[([\w-]+)\]", line).group(1)
            lost = re.search(r"lost (\S+) ms of core time$", line)
            hints.append(f"{rule} ({float(lost.group(1)):.1f} ms)" if lost else rule)
    return hints


def table(made: Path) -> str:
    rows = ["| step | run | makespan | hints above the line (core time each cost) |",
            "| --- | --- | ---: | --- |"]
    for step in STEPS:
        text = report(made, step)
        rows.append(f"| {step} | {RUNS[step]} | {makespan(text)} | {', '.join(hints_above_line(text))} |")
    return "\n".join(rows) + "\n"


def generated(name: str, made: Path) -> str:
    if name == "table":
        return table(made)
    if name.startswith("file:"):
        path = made / name[len("file:"):]
        if not path.is_file():
            raise SystemExit(f"walkthrough_figures: the doc's commands made no {path.name}")
        return "```text\n" + path.read_text() + "```\n"
    raise SystemExit(f"walkthrough_figures: unknown generated part '{name}'")


def regenerate(doc: str, made: Path) -> str:
    return BLOCK.sub(lambda m: m.group(1) + generated(m.group(2), made) + m.group(4), doc)


def flat(text: str) -> str:
    return " ".join(text.split())


def prose_sections(doc: str):
    """(steps, prose) per section, without code, generated parts or headings' own text."""
    doc = BLOCK.sub("", doc)
    doc = re.sub(r"^```.*?^```", "", doc, flags=re.S | re.M)
    sections, steps, lines = [], STEPS, []
    for line in doc.splitlines():
        if line.startswith("## "):
            sections.append((steps, "\n".join(lines)))
            named = re.match(r"## \(([a-h](?:, [a-h])*)\)", line)
            steps = "".join(named.group(1).split(", ")) if named else STEPS
            lines = []
        elif not line.startswith("|") and not line.startswith("!["):
            lines.append(line)
    sections.append((steps, "\n".join(lines)))
    return sections


def drift(doc: str, made: Path) -> list:
    problems = []
    if regenerate(doc, made) != doc:
        names = [m.group(2) for m in BLOCK.finditer(doc)
                 if m.group(3) != generated(m.group(2), made)]
        problems.append(f"generated part(s) {', '.join(names)} are stale (bash scripts/walkthrough.sh rewrites them)")
    for steps, prose in prose_sections(doc):
        names = list(steps) + (["h-results-last"] if "h" in steps else [])
        texts = [report(made, s) for s in names]
        if steps == STEPS:  # the intro and the sections of no step also quote what replay printed
            texts += [f.read_text() for f in sorted(made.glob("*.txt")) if not f.name.endswith("-report.txt")]
        reports = flat(" ".join(texts))
        where = f"section of step(s) {', '.join(steps)}" if steps != STEPS else "the intro"
        text = flat(prose)
        for quote in re.findall(r"`([^`]+)`", text):
            if " " not in quote or re.match(r"(build/|moirai |matmul |--|bash |scripts/)", quote):
                continue
            position = 0
            for piece in (p.strip() for p in quote.split("...")):
                found = reports.find(piece, position) if piece else position
                if found < 0:
                    problems.append(f"{where}: no report shows the quote `{piece}`")
                    break
                position = found + len(piece)
        unquoted = re.sub(r"`[^`]+`", "", text)
        for figure in re.findall(r"\b\d+\.\d+ ms\b|\bunits? \d+\b", unquoted):
            if figure.startswith("units "):
                figure = "unit " + figure.split()[1]
            if figure not in reports:
                problems.append(f"{where}: no report shows {figure}")
        for sentence in re.split(r"(?<=[.;:])\s", unquoted):
            if "paper" in sentence:
                continue
            for share in re.findall(r"\b\d+\.\d+%", sentence):
                if share not in reports:
                    problems.append(f"{where}: no report shows the share {share}")
    return problems


def main() -> int:
    if len(sys.argv) != 4 or sys.argv[1] not in ("write", "check"):
        print(__doc__, file=sys.stderr)
        return 2
    path, made = Path(sys.argv[2]), Path(sys.argv[3])
    doc = path.read_text()
    if sys.argv[1] == "write":
        path.write_text(regenerate(doc, made))
        return 0
    problems = drift(doc, made)
    for problem in problems:
        print(f"walkthrough: {path}: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
