"""The judged corpus (issue 48): many public repositories' merged PRs beside their maintainers' changelog sections.

    python -m bench.corpus build OWNER/NAME --git GIT_DIR   export the PRs, read the changelog, write the folder
    python -m bench.corpus list                             the table of index.json
    python -m bench.corpus labels OWNER/NAME [--section S]  a built repository's labels, to check a mapping

The corpus lives outside the project (`PRHUB_CORPUS`, default `<repo root>/../cache/corpus`), one folder per
repository: `pulls.jsonl` (made by ../shared/tools' extractors from a bare clone the `fetch` tool brings),
`labels.jsonl` (one line per PR the changelog names), `CHANGELOG.<ext>` (the file as read, from the same commit),
`BUILD.json` (how it was built) and, for all of them, `index.json`. Recipes are in bench/corpus.json.

Labels. A recipe maps a section heading (its `section_name`, matched in full by a regular expression, first rule
wins) to a coarse category (feature, fix, perf, docs, internal, or `entry`: decided by the entry's own first word,
fix for "Fix…", feature otherwise) and a grade: 3 the release's highlights, 2 features / changes / breaking /
deprecations / performance, 1 fixes, 0 docs, internal, refactors, dependencies, tests, CI. An `entry` section's
fixes take its `fix_grade` where it has one (a component section such as ruff's "Server": its fixes are fixes; a
breaking section's fixes stay breaking, grade 2). An entry opening with 🎉 takes the recipe's `highlight` grade.
A PR named in several entries takes its highest grade (and that entry's section and category); `breaking` when any
of its entries sits in a breaking section. Headings no rule matches give no label (a release heading, "Contributors").

References. Entries are read by prhub.engine.changelog (the reader a deployed stack uses): only links to the
repository's own pulls count. Repositories that write references another way have them rewritten into that link
form here first, per recipe (`refs`), and only in forms that are unambiguous for that repository: `paren` a
trailing group of `(#N)` / `(#N, #M)` (black cites its PRs that way), `pull_role` RST's :pull:`N` (xarray),
`pr_role` :pr:`N`. A bare #N elsewhere may be an issue and is left alone. RST files (`format: rst`) have their
underlined headings turned into markdown ones first.

Unlabelled PRs: a changelog that lists only notable PRs leaves the rest unnamed; evaluation should take them as
grade 0 only within the changelog's covered range (`since`/`until` in index.json: the first and last merge of a
labelled PR that is in the export), and outside a recipe's `out_of_scope` (a part of the repository the changelog
never covers: ruff's ty PRs, whose changelog is another repository's). `Corpus.in_range()` gives those PRs;
`prs_in_range` counts them.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prhub.core.models import PullRequest
from prhub.engine.changelog import HIGHLIGHT, changelog_entries, pull_links, section_name

ROOT = Path(__file__).resolve().parents[1]
RECIPES = Path(__file__).with_name("corpus.json")
CATEGORIES = ("feature", "fix", "perf", "docs", "internal")
_FIX = re.compile(r"^\W*(?:fix|fixe[sd]|fixing)\b", re.IGNORECASE)


def corpus_dir() -> Path:
    return Path(os.environ.get("PRHUB_CORPUS") or ROOT.parent / "cache" / "corpus")


def tools_dir() -> Path:
    return Path(os.environ.get("PRHUB_TOOLS") or ROOT.parent / "shared" / "tools")


def folder_of(repo: str, base: Path | None = None) -> Path:
    return (base or corpus_dir()) / repo.replace("/", "__")


@dataclass(frozen=True)
class Rule:
    """One section rule of a recipe: the section names it matches, and what its entries are."""
    match: str
    category: str  # one of CATEGORIES, or "entry"
    grade: int
    breaking: bool = False
    fix_grade: int | None = None  # an `entry` section's fixes: this grade (None: the section's)

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> Rule:
        rule = cls(raw["match"], raw["category"], int(raw["grade"]), bool(raw.get("breaking", False)),
                   None if raw.get("fix_grade") is None else int(raw["fix_grade"]))
        if rule.category not in (*CATEGORIES, "entry") or not 0 <= rule.grade <= 3:
            raise ValueError(f"bad section rule {raw!r}")
        re.compile(rule.match)
        return rule


@dataclass(frozen=True)
class Label:
    number: int
    section: str  # the raw heading of the entry that gave the grade
    category: str
    breaking: bool
    grade: int

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "section": self.section, "category": self.category,
                "breaking": self.breaking, "grade": self.grade}


@dataclass
class Corpus:
    repo: str
    kind: str
    held_out: bool
    prs: list[PullRequest]
    labels: dict[int, Label]
    since: str  # the changelog's covered range (merge days, UTC): evaluate unlabelled PRs as grade 0 only in it
    until: str
    build: dict[str, Any] = field(default_factory=dict)

    def in_range(self) -> list[PullRequest]:
        """The PRs the changelog could have named: merged in its covered range, and not in a part of the
        repository its changelog never covers (the recipe's `out_of_scope`: ruff's ty PRs)."""
        scope = self.build.get("out_of_scope") or {}
        return [p for p in self.prs if self.since <= _day(p.merged_at) <= self.until
                and not out_of_scope(p.title, [f.filename for f in p.files], scope)]


def out_of_scope(title: str, files: list[str], scope: dict[str, Any]) -> bool:
    """A PR of a part the changelog never covers: its title matches `title`, or all its files are under `paths`."""
    if scope.get("title") and re.match(scope["title"], title, re.IGNORECASE):
        return True
    paths = tuple(scope.get("paths") or ())
    return bool(paths and files and all(f.startswith(paths) for f in files))


def _day(when: datetime | str) -> str:
    return when[:10] if isinstance(when, str) else when.astimezone(UTC).strftime("%Y-%m-%d")


# --- reading a changelog ---------------------------------------------------------------------------------------

_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`*+#:.])\1{2,}\s*$")


def rst_headings(text: str) -> str:
    """RST section titles (a line over an underline, optionally an overline) as markdown headings; the levels
    follow the order the adornment styles first appear in, as RST's own do."""
    lines = text.splitlines()
    styles: list[tuple[str, bool]] = []
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        over = _RST_UNDERLINE.match(line)
        if (over and i + 2 < len(lines) and lines[i + 1].strip() and _RST_UNDERLINE.match(lines[i + 2])
                and lines[i + 2].strip() == line.strip()):
            style, title, i = (line.strip()[0], True), lines[i + 1].strip(), i + 3
        elif (line.strip() and not line[:1].isspace() and i + 1 < len(lines)
              and (m := _RST_UNDERLINE.match(lines[i + 1])) and len(lines[i + 1].rstrip()) >= len(line.rstrip())
              and not _RST_UNDERLINE.match(line)):
            style, title, i = (m.group(1), False), line.strip(), i + 2
        else:
            out.append(line)
            i += 1
            continue
        if style not in styles:
            styles.append(style)
        out.append("#" * min(styles.index(style) + 1, 6) + " " + title)
    return "\n".join(out)


def normalise(text: str, repo: str, fmt: str = "markdown", refs: tuple[str, ...] = (),
              renamed_from: tuple[str, ...] = (), outdent: bool = False) -> str:
    """The changelog in the form prhub.engine.changelog reads: markdown headings, PR references as links.

    `renamed_from`: the repository's former names (tiangolo/fastapi): GitHub redirects their pull links here.
    `outdent`: a bullet indented by one space is a top-level entry (mypy 1.11 to 1.15 write ` * `; markdown reads
    it so), where the reader takes any indented bullet for a nested one."""
    url = f"https://github.com/{repo}/pull/"
    if outdent:
        text = re.sub(r"^ ([-*+]\s)", r"\1", text, flags=re.MULTILINE)
    for old in renamed_from:
        text = re.sub(r"https?://github\.com/" + re.escape(old) + r"/pull/", url, text, flags=re.IGNORECASE)
    if fmt == "rst":
        text = rst_headings(text)
    if "pull_role" in refs:
        text = re.sub(r":pull:`(\d+)`", lambda m: f"[#{m.group(1)}]({url}{m.group(1)})", text)
    if "pr_role" in refs:
        text = re.sub(r":pr:`(\d+)`", lambda m: f"[#{m.group(1)}]({url}{m.group(1)})", text)
    if "paren" in refs:
        # Only a parenthesised group of nothing but #N references: "(#4141)", "(#4141, #4142)".
        def group(m: re.Match[str]) -> str:
            return re.sub(r"#(\d+)", lambda n: f"[#{n.group(1)}]({url}{n.group(1)})", m.group(0))
        text = re.sub(r"\(#\d+(?:\s*,\s*#\d+)*\)", group, text)
    return text


def _headings(text: str) -> dict[str, str]:
    """section_name -> the first raw heading with that name."""
    seen: dict[str, str] = {}
    for m in re.finditer(r"^#{1,6}\s+(.*?)\s*#*\s*$", text, re.MULTILINE):
        seen.setdefault(section_name(m.group(1)), m.group(1))
    return seen


def read_labels(text: str, repo: str, rules: list[Rule], highlight: int | None = 3,
                entry_text: str | None = None) -> dict[int, Label]:
    """Every PR of `repo` the (normalised) changelog names under a section a rule maps, with its label.

    `entry_text`: a pattern whose first group is an entry's own words, where a tool writes something before them
    (changesets: "[#N](…) [`sha`](…) Thanks [@a](…)! - Fixes …"); an `entry` section reads its category there."""
    own = re.compile(entry_text) if entry_text else None
    raw = _headings(text)
    mapped: dict[str, Rule] = {}
    for name in raw:
        found = next((r for r in rules if re.fullmatch(r.match, name)), None)
        if found is not None:
            mapped[name] = found
    labels: dict[int, Label] = {}
    broken: set[int] = set()
    for section, entry in changelog_entries(text, mapped):
        if section is None:
            continue
        name, rule = section, mapped[section]
        category, grade = rule.category, rule.grade
        if category == "entry":
            m = own.search(entry) if own else None
            fix = _FIX.match(m.group(1) if m else entry) is not None
            category = "fix" if fix else "feature"
            grade = rule.fix_grade if fix and rule.fix_grade is not None else grade
        if highlight is not None and entry.startswith(HIGHLIGHT):
            grade = max(grade, highlight)
        for number in pull_links(entry, repo):
            if rule.breaking:
                broken.add(number)
            old = labels.get(number)
            if old is None or grade > old.grade:
                labels[number] = Label(number, raw[name], category, False, grade)
    return {n: Label(lab.number, lab.section, lab.category, n in broken, lab.grade) for n, lab in labels.items()}


# --- recipes and building --------------------------------------------------------------------------------------

def recipes(path: Path = RECIPES) -> dict[str, dict[str, Any]]:
    return {r["repo"]: r for r in json.loads(path.read_text(encoding="utf-8"))["repositories"]}


def _git(gitdir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True, text=True, check=True,
                          errors="replace").stdout


def _complete_gitdir(mirror: str, recipe: dict[str, Any], base: Path | None = None) -> tuple[str, list[str]]:
    """A git dir in which every blob the extractor reads exists, and the blobs that stood in for missing ones.

    The fetch tool's snapshots may lack their largest blobs (ruff's benchmark snapshots), and `git log --numstat`
    dies on the first. Then a work repository beside the corpus borrows the snapshot's objects (alternates) and
    replaces each missing blob of the range with the empty blob (refs/replace): its files count 0 changed lines,
    every other file its true count. The snapshot itself is never written to."""
    branch, since = recipe.get("branch", "HEAD"), recipe.get("since")
    extra = [f"--since={since}"] if since else []
    raw = _git(mirror, "log", "--first-parent", "--diff-merges=first-parent", "--no-renames", "--raw",
               "--no-abbrev", "--format=", *extra, branch)
    blobs = sorted({oid for line in raw.splitlines() if line.startswith(":")
                    for oid in line.split()[2:4] if set(oid) != {"0"}})
    check = subprocess.run(["git", "--git-dir", mirror, "cat-file", "--batch-check"], input="\n".join(blobs) + "\n",
                           capture_output=True, text=True, check=True).stdout
    missing = [line.split()[0] for line in check.splitlines() if line.endswith(" missing")]
    if not missing:
        return mirror, []
    work = (base or corpus_dir()) / ".git-work" / (recipe["repo"].replace("/", "__") + ".git")
    if not work.exists():
        subprocess.run(["git", "init", "-q", "--bare", str(work)], check=True)
    (work / "objects" / "info" / "alternates").write_text(str(Path(mirror).resolve() / "objects") + "\n")
    head = _git(mirror, "symbolic-ref", "HEAD").strip() if branch == "HEAD" else f"refs/heads/{branch}"
    _git(str(work), "update-ref", head, _git(mirror, "rev-parse", branch).strip())
    _git(str(work), "symbolic-ref", "HEAD", head)
    empty = subprocess.run(["git", "--git-dir", str(work), "hash-object", "-w", "--stdin"], input="",
                           capture_output=True, text=True, check=True).stdout.strip()
    for oid in missing:
        _git(str(work), "update-ref", f"refs/replace/{oid}", empty)
    return str(work), missing


def _extract(recipe: dict[str, Any], gitdir: str, out: Path) -> list[str]:
    """Run the recipe's extractor into `out`; its command line, for BUILD.json."""
    since, branch = recipe.get("since"), recipe.get("branch", "HEAD")
    if recipe["extractor"] == "merge":
        cmd = [sys.executable, str(tools_dir() / "extract_merge_prs.py"), gitdir, recipe["repo"], str(out)]
        cmd += (["--since", since] if since else []) + (["--branch", branch] if branch != "HEAD" else [])
        subprocess.run(cmd, check=True)
        return cmd[1:]
    cmd = [sys.executable, str(tools_dir() / "extract_git_prs.py"), gitdir, recipe["repo"], str(out)]
    subprocess.run(cmd, check=True)
    if since:  # the squash extractor reads all history: keep the recipe's range
        rows = [line for line in out.read_text(encoding="utf-8").splitlines()
                if json.loads(line)["merged_at"][:10] >= since]
        out.write_text("".join(r + "\n" for r in rows), encoding="utf-8")
    return cmd[1:]


def _read_rows(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def build(repo: str, gitdir: str | None, base: Path | None = None, recipe: dict[str, Any] | None = None,
          reuse: bool = False) -> dict:
    """Build one repository's folder and update index.json; returns its BUILD.json. `reuse`: keep an export made
    from the same commit and since (to re-read the changelog after a recipe's sections change)."""
    recipe = recipe or recipes()[repo]
    folder = folder_of(repo, base)
    folder.mkdir(parents=True, exist_ok=True)
    paths = recipe["changelog"] if isinstance(recipe["changelog"], list) else [recipe["changelog"]]
    if recipe.get("prebuilt"):  # an export made elsewhere (cargo: ../shared/data); read in place, never copied
        src = Path(recipe["prebuilt"])
        if not src.is_absolute():
            src = (ROOT / src).resolve()
        pulls_path, commit, cmd = src / "pulls.jsonl", recipe.get("commit", ""), ["prebuilt", str(src)]
        missing = []
        text = "\n".join((src / p).read_text(encoding="utf-8") for p in paths)
    else:
        if not gitdir:
            raise SystemExit(f"{repo}: --git GIT_DIR is needed (the fetch tool's bare clone)")
        commit = _git(gitdir, "rev-parse", recipe.get("branch", "HEAD")).strip()
        pulls_path = folder / "pulls.jsonl"
        built = folder / "BUILD.json"
        old = json.loads(built.read_text(encoding="utf-8")) if built.exists() else {}
        if reuse and pulls_path.exists() and (old.get("commit"), old.get("since_arg")) == (commit, recipe.get("since")):
            cmd, missing = old["extractor"], [""] * old.get("missing_blobs_counted_empty", 0)
        else:
            workdir, missing = _complete_gitdir(gitdir, recipe, base)
            cmd = _extract(recipe, workdir, pulls_path)
        text = "\n".join(_git(gitdir, "show", f"{commit}:{p}") for p in paths)
    ext = Path(paths[0]).suffix or ".md"
    (folder / f"CHANGELOG{ext}").write_text(text, encoding="utf-8")
    rules = [Rule.parse(r) for r in recipe["sections"]]
    labels = read_labels(normalise(text, repo, recipe.get("format", "markdown"), tuple(recipe.get("refs", ())),
                                   tuple(recipe.get("renamed_from", ())), bool(recipe.get("outdent"))),
                         repo, rules, recipe.get("highlight", 3),
                         recipe.get("entry_text"))
    with (folder / "labels.jsonl").open("w", encoding="utf-8") as fh:
        for lab in sorted(labels.values(), key=lambda lab: lab.number):
            fh.write(json.dumps(lab.to_json(), ensure_ascii=False) + "\n")
    rows = _read_rows(pulls_path)
    merged = {r["number"]: r["merged_at"][:10] for r in rows}
    days = sorted(merged[n] for n in labels if n in merged)
    since, until = (days[0], days[-1]) if days else ("", "")
    scope = recipe.get("out_of_scope") or {}
    in_range = [r["number"] for r in rows if days and since <= merged[r["number"]] <= until
                and not out_of_scope(r["title"], [f["filename"] for f in r["files"]], scope)]
    days = sorted(merged[n] for n in labels if n in merged)  # the range: every labelled PR in the export
    grades: dict[str, int] = {}
    categories: dict[str, int] = {}
    for lab in labels.values():
        if lab.number in merged:
            grades[str(lab.grade)] = grades.get(str(lab.grade), 0) + 1
            categories[lab.category] = categories.get(lab.category, 0) + 1
    info = {
        "repo": repo, "kind": recipe["kind"], "held_out": recipe["held_out"], "commit": commit,
        "since_arg": recipe.get("since"),
        "extractor": cmd, "pulls": str(pulls_path), "changelog": paths,
        "format": recipe.get("format", "markdown"), "refs": recipe.get("refs", []),
        "renamed_from": recipe.get("renamed_from", []),
        "missing_blobs_counted_empty": len(missing),
        "built_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "prs": len(rows), "export_since": min(merged.values(), default=""), "export_until": max(merged.values(),
                                                                                                  default=""),
        "labelled": len(labels), "labelled_in_export": len(days), "labelled_not_in_export": len(labels) - len(days),
        "since": since, "until": until, "prs_in_range": len(in_range),
        "labelled_in_range": len(set(labels) & set(in_range)),
        "labelled_share_in_range": round(len(set(labels) & set(in_range)) / len(in_range), 3) if in_range else 0.0,
        "out_of_scope": scope,
        "grades_in_export": dict(sorted(grades.items())), "categories_in_export": dict(sorted(categories.items())),
        "sections": recipe["sections"], "highlight": recipe.get("highlight", 3), "note": recipe.get("note", ""),
    }
    (folder / "BUILD.json").write_text(json.dumps(info, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    _update_index(info, base)
    return info


def _update_index(info: dict[str, Any], base: Path | None = None) -> None:
    path = (base or corpus_dir()) / "index.json"
    index = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    row = {"repo": info["repo"], "kind": info["kind"], "held_out": info["held_out"], "since": info["since"],
           "until": info["until"], "prs": info["prs"], "prs_in_range": info["prs_in_range"],
           "labelled": info["labelled_in_export"], "labelled_in_range": info["labelled_in_range"],
           "commit": info["commit"]}
    if info.get("note"):
        row["note"] = info["note"]
    index = [r for r in index if r["repo"] != info["repo"]] + [row]
    index.sort(key=lambda r: (r["held_out"], r["repo"]))
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(index, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)  # readers never see half a file


# --- loading ---------------------------------------------------------------------------------------------------

def index(base: Path | None = None) -> list[dict[str, Any]]:
    path = (base or corpus_dir()) / "index.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []


def load(repo: str, base: Path | None = None) -> Corpus | None:
    """A built repository's PRs and labels; None when it is not built here (callers skip it)."""
    folder = folder_of(repo, base)
    if not (folder / "BUILD.json").exists() or not (folder / "labels.jsonl").exists():
        return None
    info = json.loads((folder / "BUILD.json").read_text(encoding="utf-8"))
    pulls = folder / "pulls.jsonl" if (folder / "pulls.jsonl").exists() else Path(info["pulls"])
    if not pulls.exists():
        return None
    prs = [PullRequest.from_export(row) for row in _read_rows(pulls)]
    labels = {}
    for row in _read_rows(folder / "labels.jsonl"):
        labels[int(row["number"])] = Label(int(row["number"]), row["section"], row["category"],
                                           bool(row["breaking"]), int(row["grade"]))
    return Corpus(repo, info["kind"], bool(info["held_out"]), prs, labels, info["since"], info["until"], info)


# --- command line ----------------------------------------------------------------------------------------------

def _list(base: Path | None = None) -> None:
    rows = index(base)
    print(f"{'repository':34} {'kind':18} {'held':5} {'PRs':>6} {'in range':>8} {'labelled':>8}  range")
    for r in rows:
        print(f"{r['repo']:34} {r['kind']:18} {'yes' if r['held_out'] else 'no':5} {r['prs']:>6} "
              f"{r.get('prs_in_range', 0):>8} {r['labelled']:>8}  {r['since']} .. {r['until']}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.corpus", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="export one repository and read its changelog")
    b.add_argument("repo")
    b.add_argument("--git", help="bare git dir (the fetch tool's /work/.mirror/OWNER+NAME/repo)")
    b.add_argument("--reuse", action="store_true", help="keep the export if made from the same commit and since")
    sub.add_parser("list", help="the table of index.json")
    lab = sub.add_parser("labels", help="a built repository's labels, by section")
    lab.add_argument("repo")
    lab.add_argument("--section", help="only this raw section, with PR titles")
    a = ap.parse_args(argv)
    if a.cmd == "build":
        info = build(a.repo, a.git, reuse=a.reuse)
        print(json.dumps({k: v for k, v in info.items() if k != "sections"}, indent=1, ensure_ascii=False))
    elif a.cmd == "list":
        _list()
    else:
        corpus = load(a.repo)
        if corpus is None:
            raise SystemExit(f"{a.repo} is not built in {corpus_dir()}")
        by_section: dict[tuple[str, str, int], int] = {}
        for x in corpus.labels.values():
            by_section[(x.section, x.category, x.grade)] = by_section.get((x.section, x.category, x.grade), 0) + 1
        if a.section:
            titles = {p.number: p.title for p in corpus.prs}
            for x in corpus.labels.values():
                if x.section == a.section:
                    print(x.number, x.category, x.grade, titles.get(x.number, "(not in export)"))
        else:
            for (section, category, grade), n in sorted(by_section.items(), key=lambda kv: -kv[1]):
                print(f"{n:6}  {grade}  {category:9} {section}")


if __name__ == "__main__":
    main()
