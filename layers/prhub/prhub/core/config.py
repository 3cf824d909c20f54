"""Configuration: the stack's settings (environment) and each watched repository's settings.

The deployed stack keeps the repositories in one JSON document (an SSM
parameter named by PRHUB_CONFIG_PARAMETER), read at run time, so the operator
changes what is watched without a deploy:

    {"defaults": {"tz": "Asia/Shanghai", "language": "zh"},
     "repos": [{"repo": "verl-project/verl", "module_map": {"verl/workers/rollout/": "rollout"}}],
     "org": "verl-project", "exclude": ["*.github.io"],
     "digest": {"title": "verl weekly", "notify": [...], "deadline_hours": 3}}

Every key of RepoConfig may appear in `defaults` or per repository. A repository may be listed again with
`"name"` and `"paths"`: a slice of a monorepo, reported on its own (prhub.sources.scope). `org` adds the
organisation's public, non-archived repositories (prhub.sources.orgs; `exclude` holds fnmatch patterns of names to
leave out); `digest` makes one digest of every watched repository per period (DigestConfig, prhub.flow.digest).
"""
from __future__ import annotations

import fnmatch
import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from prhub.core.channels import Channel, parse_channels
from prhub.core.errors import InputError
from prhub.core.globs import check_patterns
from prhub.core.judgements import MAX_GRADE, VERDICTS, Judgement, Verdict, judgement, valid_grade
from prhub.core.period import zone

REPO_PATTERN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$")
# A slice's name is one folder of the site (<owner>/<repo>/slices/<name>/) and part of its run ids.
SLICE_PATTERN = re.compile(r"^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$")
LANGUAGES = ("zh", "en")
# Accounts that are bots though their login has no "[bot]" suffix (GitHub Apps have it: dependabot[bot]).
DEFAULT_BOTS = ("dependabot", "renovate", "renovate-bot", "pre-commit-ci", "github-actions", "mergify", "codecov")


def refuse_unknown(where: str, given: Any, known: tuple[str, ...] | set[str]) -> None:
    """InputError naming each key of `given` not in `known`, with the nearest valid name: a misspelled key
    ("defualts") would otherwise be ignored, and the run go on with defaults nobody chose."""
    unknown = sorted(set(given) - set(known))
    if not unknown:
        return
    from difflib import get_close_matches  # only for a watch list that is wrong: off the handlers' cold start

    hints = []
    for key in unknown:
        near = get_close_matches(str(key), sorted(known), n=1, cutoff=0.6)
        hints.append(f"{str(key)[:60]!r}" + (f" (did you mean {near[0]!r}?)" if near else ""))
    raise InputError(f"unknown {where} settings: {', '.join(hints)}; known: {', '.join(sorted(known))}")


def check_repo(repo: Any) -> str:
    if not isinstance(repo, str) or not REPO_PATTERN.fullmatch(repo) or repo.endswith((".", "/")):
        # :.100 keeps a huge input out of the message (and the logs)
        raise InputError(f"repo must look like owner/name, got {repo!r:.100}")
    return repo


@dataclass(frozen=True)
class LlmConfig:
    base_url: str | None = None  # None: the openai package's OPENAI_BASE_URL / default
    model: str | None = None  # None: env PRHUB_LLM_MODEL, else prhub.model.scorers.DEFAULT_MODEL
    api_key_secret: str | None = None  # Secrets Manager name; locally OPENAI_API_KEY
    temperature: float = 0.2
    max_tokens_per_pr: int = 6000  # prompt budget for one PR (diff hunks are cut to fit)
    max_tokens_per_run: int = 400_000  # past it the engine scores the rest
    # A money budget too: the smaller one stops (prhub.model.pricing.token_limit).
    max_cost_per_run_usd: float | None = None
    timeout: float = 60.0  # seconds per model call
    max_retries: int = 3  # retries of 429 (honouring Retry-After), 5xx and timeouts
    retry_model: bool = False  # ask the model again for PRs the engine scored in its place in an earlier run

    def __post_init__(self) -> None:
        usd = self.max_cost_per_run_usd
        if usd is not None and (isinstance(usd, bool) or not isinstance(usd, int | float)
                                or not math.isfinite(usd) or usd <= 0):
            raise InputError(f"llm.max_cost_per_run_usd must be a positive number of US dollars (or absent for "
                             f"no money budget), got {usd!r:.40}")


# Lists of names, kept as tuples; key_labels and minor_labels make judgements (issue 27, prhub.flow.judgements).
CONVENTION_KEYS = ("highlight_labels", "chore_labels", "product_kinds", "key_labels", "minor_labels")


def _name_lists(values: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """The convention keys given, as tuples of non-empty names."""
    out = {}
    for key in CONVENTION_KEYS:
        if key in values:
            words = values[key]
            if not isinstance(words, list | tuple) or not all(isinstance(v, str) and v for v in words):
                raise InputError(f"{key} must be a list of names")
            out[key] = tuple(words)
    return out


@dataclass(frozen=True)
class ChangelogConfig:
    """`"changelog"` of a repository: the file its maintainers curate (a path in the repository, read from its
    default branch; beside the export for a jsonl: source) and the verdict of each of its sections (None: no
    verdict; the key "🎉" is the verdict of highlighted entries, key unless given), and optionally each section's
    grade (0–9, higher ranks above lower within a week; "🎉" for highlights), finer than the verdicts for the
    learner. See prhub.engine.changelog."""

    path: str
    sections: dict[str, Verdict | None]
    grades: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "sections": dict(self.sections)}
        if self.grades:  # absent without grades: a config (and the cache keys built from it) reads as before
            out["grades"] = dict(self.grades)
        return out

    @classmethod
    def from_dict(cls, data: Any) -> ChangelogConfig:
        if not isinstance(data, dict):
            raise InputError('changelog must be an object like {"path": "CHANGELOG.md", "sections": {"Added": "key"}}')
        refuse_unknown("changelog", data, ("path", "sections", "grades"))
        path, sections, grades = data.get("path"), data.get("sections", {}), data.get("grades", {})
        if (not isinstance(path, str) or not path.strip() or path.startswith("/") or "\\" in path
                or ".." in path.split("/")):
            raise InputError(f"changelog.path must be a file's path inside the repository, got {path!r:.100}")
        if not isinstance(sections, dict) or not all(isinstance(k, str) and k.strip() for k in sections):
            raise InputError('changelog.sections must map section names to "key", "minor" or null')
        for name, verdict in sections.items():
            if verdict is not None and verdict not in VERDICTS:
                raise InputError(f"changelog.sections[{name[:60]!r}] must be key, minor or null, got {verdict!r:.40}")
        if not isinstance(grades, dict) or not all(isinstance(k, str) and k.strip() for k in grades):
            raise InputError(f'changelog.grades must map section names to whole numbers 0-{MAX_GRADE}')
        for name, grade in grades.items():
            if not valid_grade(grade):
                raise InputError(f"changelog.grades[{name[:60]!r}] must be a whole number 0-{MAX_GRADE}, "
                                 f"got {grade!r:.40}")
        return cls(path.strip(), dict(sections), dict(grades))


PR_TYPES = ("feat", "fix", "perf", "refactor", "docs", "test", "ci", "chore", "revert")  # the engine's change types
MAX_MARKERS = 50


@dataclass(frozen=True)
class Conventions:
    """`"conventions"` of a repository: its own word on its PRs (issue 48), before the engine's inference.

    `minor_markers`: title prefixes (`minor:`), `[tags]` or labels that say a PR is not worth noting;
    `types`: a prefix, tag, emoji (gitmoji's "✨") or label word -> the PR's type (a word ending in ":" only as a
    title's prefix); `breaking_marker`: whether the repository marks a breaking change in its titles (`[BREAKING]`,
    `feat!:`), so that one without the mark is worth telling its author (None: not known, told). With `learn` (the
    default; `"conventions": false` turns it off) the plan adds what the repository's own history shows
    (prhub.engine.conventions.learn), the given ones winning. Words are kept lower case."""

    learn: bool = True
    minor_markers: tuple[str, ...] = ()
    types: tuple[tuple[str, str], ...] = ()  # sorted (word, type) pairs: hashable, and one order in cache keys
    breaking_marker: bool | None = None

    def type_of(self, word: str) -> str | None:
        return dict(self.types).get(word.lower())

    def to_dict(self) -> dict[str, Any]:
        return {"learn": self.learn, "minor_markers": list(self.minor_markers), "types": dict(self.types),
                "breaking_marker": self.breaking_marker}

    @classmethod
    def from_value(cls, value: Any) -> Conventions:
        """The watch list's value: false (learn nothing), true or an object of the settings; InputError naming
        what is wrong."""
        if isinstance(value, Conventions):
            return value
        if isinstance(value, bool):
            return cls(learn=value)
        if not isinstance(value, dict):
            raise InputError('conventions must be false (learn none) or an object like {"minor_markers": ["minor"], '
                             f'"types": {{"bugfix": "fix"}}}}, got {value!r:.100}')
        refuse_unknown("conventions", value, ("learn", "minor_markers", "types", "breaking_marker"))
        if not isinstance(value.get("learn", True), bool):
            raise InputError(f"conventions.learn must be true or false, got {value['learn']!r:.40}")
        if not isinstance(value.get("breaking_marker"), bool | None):
            raise InputError("conventions.breaking_marker must be true (titles mark breaking changes), false or null, "
                             f"got {value['breaking_marker']!r:.40}")
        markers = value.get("minor_markers", [])
        if (not isinstance(markers, list | tuple) or len(markers) > MAX_MARKERS
                or not all(isinstance(m, str) and m.strip() and len(m) <= 100 for m in markers)):
            raise InputError(f"conventions.minor_markers must be a list of at most {MAX_MARKERS} words (title "
                             f"prefixes, tags or labels), got {markers!r:.100}")
        types = value.get("types", {})
        if not isinstance(types, dict) or len(types) > MAX_MARKERS or not all(
                isinstance(k, str) and k.strip() and len(k) <= 100 for k in types):
            raise InputError('conventions.types must map title prefixes, tags or labels to a type, like '
                             '{"bugfix": "fix"}')
        for word, kind in types.items():
            if kind not in PR_TYPES:
                raise InputError(f"conventions.types[{word[:60]!r}] must be one of {', '.join(PR_TYPES)}, "
                                 f"got {kind!r:.40}")
        return cls(bool(value.get("learn", True)), tuple(sorted({_word(m) for m in markers})),
                   tuple(sorted((_word(k), str(v)) for k, v in types.items())), value.get("breaking_marker"))


def _word(word: str) -> str:
    """A convention's word as titles are read (prhub.engine.conventions.words): lower case, an emoji without the
    U+FE0F variation selector that "⬆️" carries and "⬆" does not."""
    return word.strip().lower().replace("\ufe0f", "")


def _judgements(repo: Any, value: Any) -> tuple[Judgement, ...] | str:
    """The watch list's `judgements`: [{"pr": N, "verdict": "key"|"minor"}, ...] or "jsonl:PATH" (read by
    prhub.sources.judgements where exports are read)."""
    if isinstance(value, str):
        if not value.startswith("jsonl:") or len(value) == len("jsonl:"):
            raise InputError(f'judgements must be a list of {{"pr": N, "verdict": "key"}} or "jsonl:PATH", '
                             f"got {value!r:.100}")
        return value
    if not isinstance(value, list | tuple):
        raise InputError('judgements must be a list of {"pr": N, "verdict": "key"} or "jsonl:PATH"')
    out = []
    for entry in value:
        if isinstance(entry, Judgement):
            entry = {"pr": entry.pr, "verdict": entry.verdict}
        if not isinstance(entry, dict):
            raise InputError(f'each judgement must be {{"pr": N, "verdict": "key"}}, got {entry!r:.100}')
        refuse_unknown("judgement", entry, ("pr", "verdict"))
        out.append(judgement(str(repo), entry.get("pr"), entry.get("verdict"), "watchlist"))
    return tuple(out)


# The settings a PR's score reads (prhub.engine.scoring and what it calls: rules, risks, reviews, classify), kept
# apart from the rest so the score cache keys by them alone: `repo` (whose `name` the rules read) is in the key
# already; labels that judge a PR, learned weights and everything about the report apply after the cache.
# tests/unit/test_score_cache_key.py fails when the engine reads a setting not listed here.
SCORING_SETTINGS = ("language", "key_threshold", "module_map", "test_paths", "highlight_labels", "chore_labels",
                    "product_kinds", "large_change_lines", "check_registry", "bots", "conventions")
# Of config.llm: what the model's answer depends on beyond its name and prompt version (both in the key already):
# the prompt's budget (prhub.model.prompting) and the sampling temperature (prhub.model.scorers).
MODEL_SCORING_SETTINGS = ("max_tokens_per_pr", "temperature")


@dataclass(frozen=True)
class RepoConfig:
    repo: str
    tz: str = "UTC"
    language: str = "zh"
    source: str = "github"  # github | jsonl:PATH (local path or s3://bucket/key)
    scorer: str = "auto"  # auto | heuristic | llm
    key_threshold: float = 4.0  # engine scale: about half of a typical verl week (docs/calibration.md)
    module_map: dict[str, str] = field(default_factory=dict)  # path prefix -> module
    # Python's, JavaScript's (url.test.ts, __tests__/), Go's, Ruby's and Kotlin's (src/commonTest/, jvmTest/) test
    # files, Rust's test module beside its code (src/runtime/tests.rs) and Django's app tests.py; spec/ may be a
    # specification; ruff's ty tests are Markdown under mdtest/, and snapshot files (insta's, Jest's .snap) are a
    # test's expected output
    test_paths: tuple[str, ...] = ("tests/", "test/", "__tests__/", "-tests/", "_tests/", "-test-support/",
                                   "-testing-support/", "*Test/", "mdtest/", "test_", "_test.py", "_test.go",
                                   "_spec.rb", ".test.", ".test-d.", ".spec.", ".snap", "conftest.py", "tests.rs",
                                   "tests.py")
    # The repository's own conventions the engine reads (prhub.engine.rules): labels that mark a change as
    # mattering or as a chore, and the file kinds it ships (a docs site's "docs"), which are then not capped.
    highlight_labels: tuple[str, ...] = ("release-notes", "highlight", "breaking-change")
    chore_labels: tuple[str, ...] = ("chore", "dependencies", "ci")
    product_kinds: tuple[str, ...] = ()
    # What the maintainers say about PRs (issue 27, prhub.flow.judgements): verdicts listed here or in a file,
    # labels meaning key or minor, and the CHANGELOG's sections.
    judgements: tuple[Judgement, ...] | str = ()
    key_labels: tuple[str, ...] = ()
    minor_labels: tuple[str, ...] = ()
    changelog: ChangelogConfig | None = None
    conventions: Conventions = field(default_factory=Conventions)  # its title prefixes, tags, labels (issue 48)
    large_change_lines: int = 1000
    check_registry: bool = False  # look pinned versions up on PyPI / npm
    llm: LlmConfig = field(default_factory=LlmConfig)
    notify: tuple[Channel, ...] = ()  # channels told when a report is published (prhub.core.channels)
    bots: tuple[str, ...] = DEFAULT_BOTS  # logins counted apart (with any login ending in "[bot]")
    exclude_authors: tuple[str, ...] = ()  # logins whose PRs are left out of the report entirely
    paths: tuple[str, ...] = ()  # globs (prhub.core.globs): only PRs touching one are reported (prhub.sources.scope)
    slice: str = ""  # the watch list's "name": a slice of the repository, its own report (needs paths)

    def __post_init__(self) -> None:
        check_repo(self.repo)
        if self.slice and not SLICE_PATTERN.fullmatch(self.slice):
            raise InputError(f"name must be lower-case letters, digits, - and _ (a folder of the site), "
                             f"got {self.slice!r:.100}")
        if self.slice and not self.paths:
            raise InputError(f"slice {self.slice!r} of {self.repo} needs paths: the globs its PRs touch")
        zone(self.tz)
        if self.language not in LANGUAGES:
            raise InputError(f"language must be one of {LANGUAGES}, got {self.language!r:.100}")
        if self.scorer not in ("auto", "heuristic", "llm"):
            raise InputError(f"scorer must be auto, heuristic or llm, got {self.scorer!r:.100}")
        both = {x.lower() for x in self.key_labels} & {x.lower() for x in self.minor_labels}
        if both:
            raise InputError(f"labels {', '.join(sorted(both))} are in both key_labels and minor_labels")

    def is_bot(self, login: str) -> bool:
        """A bot account: GitHub's "[bot]" suffix, or a login in `bots` (case-insensitive, with or without it)."""
        name = login.lower()
        return name.endswith("[bot]") or name.removesuffix("[bot]") in {b.lower() for b in self.bots}

    def excludes(self, login: str) -> bool:
        return login.lower() in {a.lower() for a in self.exclude_authors}

    @property
    def report_id(self) -> str:
        """The report's identity: "owner/repo", or "owner/repo/slices/<name>" for a slice. It starts the run ids
        and is the report's folder on the site (prhub.site.paths), so slices never share either."""
        return f"{self.repo}/slices/{self.slice}" if self.slice else self.repo

    @property
    def display_name(self) -> str:
        """How titles, pages and feeds name the report: the repository, with the slice's name."""
        return f"{self.repo} ({self.slice})" if self.slice else self.repo

    @property
    def owner(self) -> str:
        return self.repo.split("/")[0]

    @property
    def name(self) -> str:
        return self.repo.split("/")[1]

    def scoring_fingerprint(self, model: bool) -> str:
        """A digest of the settings a PR's score reads (SCORING_SETTINGS, and for the model MODEL_SCORING_SETTINGS):
        part of the score cache's key, so a result is reused only under the settings it was scored with (a
        watch list edited between runs, a slice and its repository with settings of their own)."""
        read = {name: getattr(self, name) for name in SCORING_SETTINGS}
        read["conventions"] = self.conventions.to_dict()
        if model:
            read.update({f"llm.{name}": getattr(self.llm, name) for name in MODEL_SCORING_SETTINGS})
        text = json.dumps(read, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def with_overrides(self, **changes: Any) -> RepoConfig:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def to_dict(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["test_paths"] = list(self.test_paths)
        for key in CONVENTION_KEYS:
            data[key] = list(getattr(self, key))
        data["llm"] = {f.name: getattr(self.llm, f.name) for f in fields(self.llm)}
        data["notify"] = [c.to_dict() for c in self.notify]
        data["bots"], data["exclude_authors"] = list(self.bots), list(self.exclude_authors)
        data["paths"] = list(self.paths)
        data["judgements"] = self.judgements if isinstance(self.judgements, str) else [
            {"pr": j.pr, "verdict": j.verdict} for j in self.judgements]
        data["changelog"] = self.changelog.to_dict() if self.changelog else None
        data["conventions"] = self.conventions.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RepoConfig:
        values = dict(data)
        if "name" in values:  # the watch list's word for a slice (a dataclass field cannot shadow .name)
            if "slice" in values:
                raise InputError("give a slice's name once, as name")
            values["slice"] = values.pop("name")
        refuse_unknown("repository", values, {f.name for f in fields(cls)} | {"name"})
        if "llm" in values:
            if not isinstance(values["llm"], dict):
                raise InputError("llm must be an object of model settings")
            refuse_unknown("llm", values["llm"], {f.name for f in fields(LlmConfig)})
            values["llm"] = LlmConfig(**values["llm"])
        if "test_paths" in values:
            values["test_paths"] = tuple(values["test_paths"])
        values.update(_name_lists(values))
        for key in ("bots", "exclude_authors"):
            if key in values:
                logins = values[key]
                if not isinstance(logins, list | tuple) or not all(isinstance(v, str) and v for v in logins):
                    raise InputError(f"{key} must be a list of GitHub logins")
                values[key] = tuple(logins)
        if "paths" in values:
            values["paths"] = check_patterns(values["paths"]) if values["paths"] != [] else ()  # [] : to_dict's
        if not isinstance(values.get("slice", ""), str):
            raise InputError("name must be a string")
        if "notify" in values:
            values["notify"] = parse_channels(values["notify"])
        if "judgements" in values:
            values["judgements"] = _judgements(values.get("repo"), values["judgements"])
        if values.get("changelog") is not None:
            values["changelog"] = ChangelogConfig.from_dict(values["changelog"])
        if "conventions" in values:
            values["conventions"] = Conventions.from_value(values["conventions"])
        try:
            return cls(**values)
        except TypeError as exc:
            raise InputError(f"bad repository settings: {exc}") from exc


DIGEST_KEYS = ("title", "notify", "deadline_hours", "language", "tz")
ORG_PATTERN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")


@dataclass(frozen=True)
class DigestConfig:
    """`"digest"` of the watch list: one digest of every watched repository per period.

    It goes out once every watched repository's report for the period is out, or `deadline_hours` after the
    weekly period ends (the Monday 01:00 schedule plus two hours by default), naming the missing ones.
    """

    title: str = ""  # "" -> "Organisation digest" / "组织周报" (prhub.report.digest)
    notify: tuple[Channel, ...] = ()
    deadline_hours: float = 3.0
    language: str = "zh"  # default: the watch list's defaults
    tz: str = "UTC"  # the weekly period's time zone; default: the watch list's defaults

    @classmethod
    def from_dict(cls, data: Any, defaults: Mapping[str, Any]) -> DigestConfig:
        if not isinstance(data, dict):
            raise InputError('digest must be an object like {"title": "...", "notify": [...]}')
        refuse_unknown("digest", data, DIGEST_KEYS)
        title = data.get("title", "")
        if not isinstance(title, str) or len(title) > 200:
            raise InputError("digest.title must be a string of at most 200 characters")
        hours = data.get("deadline_hours", cls.deadline_hours)
        if isinstance(hours, bool) or not isinstance(hours, int | float) or not 0 <= hours <= 7 * 24:
            raise InputError(f"digest.deadline_hours must be a number of hours from 0 to 168, got {hours!r:.40}")
        language = data.get("language", defaults.get("language", "zh"))
        if language not in LANGUAGES:
            raise InputError(f"digest.language must be one of {LANGUAGES}, got {language!r:.100}")
        tz = data.get("tz", defaults.get("tz", "UTC"))
        zone(tz)
        notify = parse_channels(data.get("notify"), "digest.notify")
        for i, channel in enumerate(notify):
            if channel.channel == "github" and channel.repo is None:
                # A repository's post goes to that repository; the digest has none of its own.
                raise InputError(f"digest.notify[{i}]: a github channel of the digest needs `repo` (owner/name)")
        return cls(title.strip(), notify, float(hours), language, tz)


def parse_org(doc: Mapping[str, Any]) -> tuple[str | None, tuple[str, ...]]:
    """`org` (an organisation's login) and `exclude` (fnmatch patterns of repository names) of the watch list."""
    org, exclude = doc.get("org"), doc.get("exclude", [])
    if org is not None and (not isinstance(org, str) or not ORG_PATTERN.fullmatch(org)):
        raise InputError(f"org must be a GitHub organisation name, got {org!r:.100}")
    if not isinstance(exclude, list) or not all(isinstance(p, str) and p.strip() for p in exclude):
        raise InputError('exclude must be a list of name patterns, e.g. ["*-archive", "owner/website"]')
    if exclude and org is None:
        raise InputError("exclude applies to the repositories of org: give org too")
    return org, tuple(p.strip() for p in exclude)


def excluded(repo: str, patterns: tuple[str, ...]) -> bool:
    """Whether `exclude` leaves `repo` out: a pattern matches "owner/name" or the bare name, case-insensitively."""
    full = repo.lower()
    name = full.split("/", 1)[-1]
    return any(fnmatch.fnmatchcase(full, p.lower()) or fnmatch.fnmatchcase(name, p.lower()) for p in patterns)


WATCH_KEYS = ("defaults", "repos", "org", "exclude", "digest")


@dataclass(frozen=True)
class WatchList:
    """All configured repositories (those of `org` join them through prhub.sources.orgs.expand)."""

    repos: tuple[RepoConfig, ...]
    defaults: dict[str, Any] = field(default_factory=dict)
    org: str | None = None
    exclude: tuple[str, ...] = ()
    digest: DigestConfig | None = None

    @classmethod
    def parse(cls, text: str) -> WatchList:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"repository configuration is not valid JSON: {exc}") from exc
        if not isinstance(doc, dict) or not isinstance(doc.get("repos", []), list):
            raise InputError('repository configuration must be {"defaults": {...}, "repos": [...]}')
        refuse_unknown("watch list", doc, WATCH_KEYS)
        defaults = doc.get("defaults") or {}
        if not isinstance(defaults, dict):
            raise InputError("defaults must be an object of repository settings")
        # Defaults apply to every repository: a repository's own name, or verdicts on its PRs, are no default.
        refuse_unknown("defaults", defaults, {f.name for f in fields(RepoConfig)} - {"repo", "judgements"})
        repos = tuple(
            RepoConfig.from_dict({**defaults, **(r if isinstance(r, dict) else {"repo": r})})
            for r in doc.get("repos", [])
        )
        seen: set[str] = set()
        for cfg in (c for c in repos if c.slice):  # two slices of one name would share run ids and a site folder
            if cfg.report_id.lower() in seen:
                raise InputError(f"the watch list names slice {cfg.slice!r} of {cfg.repo} twice")
            seen.add(cfg.report_id.lower())
        org, exclude = parse_org(doc)
        digest = DigestConfig.from_dict(doc["digest"], defaults) if doc.get("digest") is not None else None
        return cls(repos, defaults, org, exclude, digest)

    def channels(self) -> tuple[Channel, ...]:
        """Every channel the list subscribes: each repository's (the defaults' included) and the digest's."""
        found = [c for r in self.repos for c in r.notify] + list(self.digest.notify if self.digest else ())
        return tuple(dict.fromkeys(found))

    def with_repos(self, names: list[str]) -> WatchList:
        """The list with `names` added (the defaults' settings) unless listed already; listed settings win."""
        listed = {c.repo.lower() for c in self.repos}
        extra = tuple(RepoConfig.from_dict({**self.defaults, "repo": check_repo(n)})
                      for n in names if n.lower() not in listed)
        return replace(self, repos=self.repos + extra)

    def get(self, repo: str, slice: str = "") -> RepoConfig:
        """The settings of the repository (or of its slice named `slice`); an unlisted repo gets the defaults
        (custom ranges on demand); an unlisted slice is bad input (its paths are only in the watch list)."""
        for cfg in self.repos:
            if cfg.repo.lower() == repo.lower() and cfg.slice == slice:
                return cfg
        if slice:
            raise InputError(f"the watch list has no slice {slice!r} of {check_repo(repo)}")
        return RepoConfig.from_dict({**self.defaults, "repo": check_repo(repo)})


@dataclass(frozen=True)
class Settings:
    """Names of the stack's resources, set by template.yaml (or the local runner) as environment."""

    runs_table: str
    results_table: str
    cache_table: str
    idempotency_table: str
    score_queue_url: str
    report_queue_url: str
    site_bucket: str
    pages_queue_url: str = ""  # PagesQueue: the PR pages of a published report
    plan_queue_url: str = ""  # PlanQueue: a listing's continuation
    distribution_id: str = ""
    site_url: str = ""
    config_parameter: str = ""
    max_receive_count: int = 3
    delivery_queue_url: str = ""  # DeliveryQueue: one message per (report, channel)
    deliveries_table: str = ""  # DeliveriesTable: the delivery ledger and log (prhub.notify.ledger)
    judgements_table: str = ""  # JudgementsTable: what maintainers said of PRs, kept across runs (issue 27)
    export_bucket: str = ""  # ExportBucket: the one bucket a jsonl:s3:// source may name ("" = none)
    local_exports: bool = False  # a jsonl: source may name a path on this machine (the CLI; never the stack)
    cjk_font: str = ""  # PRHUB_CJK_FONT: the PDF's font ("path#N": face N of a .ttc); "" = the packaged one

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        try:
            return cls(
                runs_table=env["RUNS_TABLE"],
                results_table=env["RESULTS_TABLE"],
                cache_table=env["CACHE_TABLE"],
                idempotency_table=env["IDEMPOTENCY_TABLE"],
                score_queue_url=env["SCORE_QUEUE_URL"],
                report_queue_url=env["REPORT_QUEUE_URL"],
                site_bucket=env["SITE_BUCKET"],
                pages_queue_url=env["PAGES_QUEUE_URL"],
                plan_queue_url=env.get("PLAN_QUEUE_URL", ""),
                distribution_id=env.get("DISTRIBUTION_ID", ""),
                site_url=env.get("SITE_URL", ""),
                config_parameter=env.get("PRHUB_CONFIG_PARAMETER", ""),
                max_receive_count=int(env.get("MAX_RECEIVE_COUNT", "3")),
                delivery_queue_url=env.get("DELIVERY_QUEUE_URL", ""),
                deliveries_table=env.get("DELIVERIES_TABLE", ""),
                judgements_table=env.get("JUDGEMENTS_TABLE", ""),
                export_bucket=env.get("EXPORT_BUCKET", ""),
                local_exports=env.get("LOCAL_EXPORTS", "false").lower() == "true",
                cjk_font=env.get("PRHUB_CJK_FONT", "").strip(),
            )
        except KeyError as exc:
            raise InputError(f"environment variable {exc.args[0]} is not set (template.yaml sets it)") from exc
