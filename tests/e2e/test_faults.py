"""Fault injection on the local pipeline (prhub_local.runner.run_pipeline: moto + the real handlers).

Every scenario is seeded and runs a small synthetic week; faults come in through the
runner's `invoke` hook (around each handler call) or by wrapping the adapter the fault
belongs to (Store.put_result for a killed worker, site.publish_report for a crashing
report, the fake GitHub and OpenAI servers for outages). After each, the same checks:
every PR of the week appears exactly once (scored or unscored, the exact number set),
counts are exact, exactly one report per run, the run ends reported with the queues
drained, and the dead-letter queues hold only what truly cannot be processed.
"""
from __future__ import annotations

import json
import os
import random
import re
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from unittest import mock

import boto3
import pytest
from prhub.cloud.store import Store
from prhub.core.config import RepoConfig, Settings
from prhub.core.models import PullRef, ScoredPR
from prhub.core.period import Period
from prhub.site import publish as site

from bench import synthetic
from prhub_local.embedded import EmbeddedAws, aws_env, patched_env
from prhub_local.runner import Invoker, LambdaContext, PipelineError, RunResult, load_handler, run_pipeline
from prhub_local.state import generation
from prhub_local.template import create_stack, default_root, load_template
from tests.fakes.github_server import FakeGitHub, load_export
from tests.fakes.openai_server import FakeOpenAI, Fault, down_for

pytestmark = pytest.mark.slow

REPO = synthetic.REPO
WEEK = {"since": "2026-01-05", "until": "2026-01-11", "tz": "Asia/Shanghai"}
PRS = 12
SEED = 20260105
Handler = Callable[[Any, Any], Any]
ORIGINAL_PUBLISH = site.publish_report


# -- the scenario harness --------------------------------------------------------------------------------------

@pytest.fixture
def export(tmp_path: Path) -> tuple[Path, set[int]]:
    """A synthetic week of PRS merged PRs (all inside WEEK) and their numbers."""
    rows = list(synthetic.generate(PRS, seed=SEED, since=date(2026, 1, 5), days=7, repo=REPO))
    path = synthetic.write_jsonl(tmp_path / "week.jsonl", PRS, seed=SEED, since=date(2026, 1, 5), days=7, repo=REPO)
    return path, {r["number"] for r in rows}


@pytest.fixture
def publishes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every completed publish_report call, by report prefix (flow calls it through the module)."""
    calls: list[str] = []
    original = site.publish_report

    def counted(bucket: site.Bucket, report: dict[str, Any], files: dict[str, bytes],
                home: str | None = None) -> list[str]:
        keys = original(bucket, report, files, home)
        calls.append(site.report_prefix(report, home))
        return keys

    monkeypatch.setattr(site, "publish_report", counted)
    return calls


# Seconds. The runner's 2 s let a slow batch on a busy machine be received three times while still in flight, and
# then moved to the DLQ although it succeeds (the deployed queues wait 6x the function timeout).
VISIBILITY_TIMEOUT = 4



def run(tmp_path: Path, export_path: Path | None, invoke: Invoker | None = None, *, source: str | None = None,
        scorer: str = "heuristic", workers: int = 3, **options: Any) -> RunResult:
    # moto's backends are global to the process: a prefix of its own keeps each scenario's stack apart.
    options.setdefault("prefix", "f" + uuid.uuid4().hex[:10])
    options.setdefault("state", tmp_path / "state")
    options.setdefault("visibility_timeout", VISIBILITY_TIMEOUT)
    return run_pipeline(repo=REPO, **WEEK, source=source or f"jsonl:{export_path}", scorer=scorer,
                              out=tmp_path / "site", workers=workers, invoke=invoke, progress=lambda _msg: None,
                              timeout=300, **options)


def table(state: Path, logical: str) -> list[dict[str, Any]]:
    path = generation(state) / "tables" / f"{logical}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def queue(state: Path, logical: str) -> list[dict[str, Any]]:
    path = generation(state) / "queues" / f"{logical}.messages.jsonl"  # {"body", "due"} a line
    return [json.loads(json.loads(line)["body"]) for line in path.read_text().splitlines() if line.strip()] \
        if path.exists() else []


def check(result: RunResult, state: Path, publishes: list[str], expected: set[int],
          unscored: set[int] = frozenset(), dead: set[int] = frozenset()) -> None:  # type: ignore[assignment]
    """The guarantees every scenario must keep."""
    report = result.report
    scored_numbers = [p["number"] for p in report["prs"]]
    unscored_numbers = [u["number"] for u in report["unscored"]]
    # every PR exactly once, the exact set
    assert len(scored_numbers) == len(set(scored_numbers))
    assert not set(scored_numbers) & set(unscored_numbers)
    assert set(scored_numbers) | set(unscored_numbers) == expected
    assert set(unscored_numbers) == set(unscored)
    assert all(u["reason"] for u in report["unscored"])  # skipped with a reason
    # counts exact: every merged PR in the headline, the ones without a result said apart
    assert report["stats"]["pr_count"] == len(expected)
    assert report["stats"]["unscored_count"] == len(unscored)
    runs = table(state, "RunsTable")
    assert len(runs) == 1
    run_item = runs[0]
    assert run_item["status"]["S"] == "reported"  # nothing stuck
    assert int(run_item["expected"]["N"]) == len(expected)
    assert int(run_item["done"]["N"]) == len(expected) - len(unscored)
    assert int(run_item.get("failed", {"N": "0"})["N"]) == len(dead)
    results = [(int(r["number"]["N"]), r["status"]["S"]) for r in table(state, "ResultsTable")]
    assert sorted(n for n, _ in results) == sorted(expected - (set(unscored) - set(dead)))
    # exactly one report for the run, all four files
    assert publishes == [result.report_key]
    slugs = [s for s in (result.site_dir / REPO / "reports").iterdir() if s.is_dir()]  # index.html lists them
    assert [s.name for s in slugs] == [f"{WEEK['since']}-to-{WEEK['until']}"]
    # the four files, and pulls.json: what the PR pages read of this period
    assert sorted(p.name for p in slugs[0].iterdir()) == ["index.html", "pulls.json", "report.json", "report.md",
                                                         "report.pdf"]
    # the dead-letter queues hold exactly what cannot be processed; the work queues are drained
    assert sorted(int(m["number"]) for m in queue(state, "ScoreDLQ")) == sorted(dead)
    assert queue(state, "ReportDLQ") == []
    assert queue(state, "ScoreQueue") == [] and queue(state, "ReportQueue") == []


@dataclass
class Injector:
    """The runner's invoke hook with a seeded fault plan; counts what it injected."""

    seed: int = SEED
    injected: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def __call__(self, name: str, handler: Handler, event: Any, context: Any) -> Any:
        return handler(event, context)

    def draw(self) -> float:
        with self.lock:
            return self.rng.random()

    def count(self) -> None:
        with self.lock:
            self.injected += 1


def queue_url(arn: str) -> str:
    """The URL of the queue an SQS record came from (the handlers' environment names both queues)."""
    name = arn.rsplit(":", 1)[1]
    for var in ("SCORE_QUEUE_URL", "REPORT_QUEUE_URL"):
        if os.environ[var].rstrip("/").endswith("/" + name):
            return os.environ[var]
    raise AssertionError(f"no queue for {arn}")


def numbers(event: dict[str, Any]) -> list[int]:
    return [int(json.loads(r["body"])["number"]) for r in event.get("Records", []) if "number" in r["body"]]


# -- 1. every SQS message delivered twice ----------------------------------------------------------------------

class DeliverTwice(Injector):
    """Before a handler sees a message, a copy of it goes back into its queue: SQS's at-least-once, always."""

    def __init__(self) -> None:
        super().__init__()
        self.copied: set[str] = set()
        self.clients = threading.local()  # made inside the run, where the embedded AWS is configured

    def __call__(self, name: str, handler: Handler, event: Any, context: Any) -> Any:
        for record in event.get("Records", []) if isinstance(event, dict) else []:
            with self.lock:
                fresh = record["body"] not in self.copied
                self.copied.add(record["body"])
            if fresh:
                if not hasattr(self.clients, "sqs"):
                    self.clients.sqs = boto3.session.Session().client("sqs")
                self.clients.sqs.send_message(QueueUrl=queue_url(record["eventSourceARN"]), MessageBody=record["body"])
                self.count()
        return handler(event, context)


def test_every_message_delivered_twice_changes_nothing(tmp_path: Path, export: tuple[Path, set[int]],
                                                       publishes: list[str]) -> None:
    path, expected = export
    injector = DeliverTwice()
    result = run(tmp_path, path, injector)
    assert injector.injected == PRS + 1  # every score message and the report message
    check(result, tmp_path / "state", publishes, expected)


# -- 2. 10 % of score invocations raise mid-batch ------------------------------------------------------------------

class CrashMidBatch(Injector):
    """10 % of ScoreFunction invocations (seeded) handle the first half of their batch, then the process fails.

    Lambda then retries the whole batch; the first half was already stored. Only fresh batches crash, so
    every message is eventually processed (a transient fault must not reach the DLQ).
    """

    rate = 0.1

    def __call__(self, name: str, handler: Handler, event: Any, context: Any) -> Any:
        records = event.get("Records", []) if isinstance(event, dict) else []
        fresh = records and all(r["attributes"]["ApproximateReceiveCount"] == "1" for r in records)
        if name == "ScoreFunction" and fresh and self.draw() < self.rate:
            self.count()
            handler({**event, "Records": records[: max(1, len(records) // 2)]}, context)
            raise RuntimeError("injected: the execution environment died mid-batch")
        return handler(event, context)


def test_ten_percent_of_score_invocations_crashing_mid_batch(tmp_path: Path, export: tuple[Path, set[int]],
                                                             publishes: list[str]) -> None:
    path, expected = export
    injector = CrashMidBatch(seed=31)  # seed 31 crashes the first fresh batch: the scenario always happens
    assert random.Random(31).random() < CrashMidBatch.rate
    result = run(tmp_path, path, injector)
    assert injector.injected >= 1
    check(result, tmp_path / "state", publishes, expected)


# -- 3. a worker killed after storing its result, before deleting its message -------------------------------------

class Killed(Exception):
    """The simulated SIGKILL: nothing after it in this invocation happens."""


class KillAfterStore(Injector):
    """For chosen PRs the worker dies right after the batch's results commit (Store.put_results): no completion
    check, no delete."""

    def __init__(self, victims: set[int]) -> None:
        super().__init__()
        self.victims = set(victims)
        self.dead = threading.local()

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        original = Store.put_results

        def put_results(store: Store, results: Sequence[tuple[str, ScoredPR, bool, int]], now: int) -> list[bool]:
            if getattr(self.dead, "yes", False):
                raise Killed("this worker is dead")
            stored = original(store, results, now)
            with self.lock:
                victims = sorted({scored.number for _, scored, _, _ in results} & self.victims)
                self.victims.difference_update(victims)
            if victims:
                for _ in victims:
                    self.count()
                self.dead.yes = True
                raise Killed(f"killed after storing #{victims[0]}")
            return stored

        monkeypatch.setattr(Store, "put_results", put_results)

    def __call__(self, name: str, handler: Handler, event: Any, context: Any) -> Any:
        self.dead.yes = False
        answer = handler(event, context)
        if self.dead.yes:
            # The process is gone: Lambda never answers, so SQS deletes nothing of this batch.
            raise RuntimeError("injected: worker killed")
        return answer


def test_worker_killed_after_storing_before_deleting(tmp_path: Path, export: tuple[Path, set[int]],
                                                     publishes: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    path, expected = export
    ordered = sorted(expected)
    injector = KillAfterStore({ordered[0], ordered[len(ordered) // 2], ordered[-1]})
    injector.install(monkeypatch)
    result = run(tmp_path, path, injector)
    assert injector.injected == 3
    check(result, tmp_path / "state", publishes, expected)


# -- 4. the report function crashes after writing half the files ------------------------------------------------------

def crash_after_half(monkeypatch: pytest.MonkeyPatch, times: int) -> list[int]:
    """publish_report writes half its files, then the function dies; `times` crashes, then it works."""
    crashes: list[int] = []
    working = site.publish_report

    def half_then_crash(bucket: site.Bucket, report: dict[str, Any], files: dict[str, bytes],
                        home: str | None = None) -> list[str]:
        if len(crashes) < times:
            crashes.append(1)
            names = sorted(files)[: len(files) // 2]
            for name in names:
                key = site.report_prefix(report, home) + name
                bucket.put(key, files[name], site.content_type(key), site.REPORT_CACHE)
            raise RuntimeError("injected: report function crashed mid-publish")
        return working(bucket, report, files, home)

    monkeypatch.setattr(site, "publish_report", half_then_crash)
    return crashes


def test_report_crash_after_half_the_files_is_repaired_by_the_retry(
        tmp_path: Path, export: tuple[Path, set[int]], publishes: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path, expected = export
    crashes = crash_after_half(monkeypatch, times=1)
    result = run(tmp_path, path)
    assert crashes == [1]
    check(result, tmp_path / "state", publishes, expected)
    report_dir = result.paths["report.json"].parent
    numbers_in_json = {p["number"] for p in result.report["prs"]}
    for name in ("report.md", "index.html"):
        # The rewritten files come from the same complete report: every PR they cite is in report.json.
        cited = {int(n) for n in re.findall(r"#(\d{4})\b", (report_dir / name).read_text(encoding="utf-8"))}
        assert cited and cited <= numbers_in_json, name
    assert (report_dir / "report.pdf").read_bytes().startswith(b"%PDF")


def test_a_half_written_site_left_by_a_failing_report_is_repaired_by_a_rerun(
        tmp_path: Path, export: tuple[Path, set[int]], monkeypatch: pytest.MonkeyPatch) -> None:
    path, expected = export
    slug = f"{REPO}/reports/{WEEK['since']}-to-{WEEK['until']}/"
    prefix = "f" + uuid.uuid4().hex[:10]
    with EmbeddedAws() as aws, patched_env(aws_env(aws.url, fake_credentials=True)):
        crash_after_half(monkeypatch, times=10_000)  # the report never gets through
        with pytest.raises(PipelineError, match="report could not be written"):
            run(tmp_path, path, endpoint_url=aws.url, state=None, prefix=prefix)
        s3 = boto3.session.Session().client("s3")
        bucket = f"{prefix}-sitebucket"
        half = sorted(o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix=slug).get("Contents", []))
        assert half == [slug + "index.html", slug + "report.json"]  # half of the four files, no complete report
        sqs = boto3.session.Session().client("sqs")
        dlq = sqs.get_queue_url(QueueName=f"{prefix}-ReportDLQ")["QueueUrl"]
        attrs = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["ApproximateNumberOfMessages"])["Attributes"]
        assert attrs["ApproximateNumberOfMessages"] == "1"  # the report message, after its three receives

        monkeypatch.setattr(site, "publish_report", ORIGINAL_PUBLISH)
        result = run(tmp_path, path, endpoint_url=aws.url, state=None, prefix=prefix)
        keys = sorted(o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix=slug).get("Contents", []))
        # The four report files, and pulls.json (what the PR pages read of the period) once they are out.
        assert keys == [slug + n for n in ("index.html", "pulls.json", "report.json", "report.md", "report.pdf")]
        stored = json.loads(s3.get_object(Bucket=bucket, Key=slug + "report.json")["Body"].read())
        assert {p["number"] for p in stored["prs"]} == expected == {p["number"] for p in result.report["prs"]}
        # The first run, left open, is finished by the sweep (the stack runs it on a schedule).
        template = load_template(default_root() / "template.yaml")
        stack = create_stack(template, prefix, "{}", visibility_timeout=VISIBILITY_TIMEOUT)
        with patched_env(stack.env):
            sweep = load_handler(default_root(), template, "ReportFunction")
            swept = sweep({"sweep": True, "older_than_minutes": 0}, LambdaContext("ReportFunction"))
        assert len(swept["swept"]) == 1 and swept["failed"] == []
        ddb = boto3.session.Session().client("dynamodb")
        statuses = [i["status"]["S"] for i in ddb.scan(TableName=f"{prefix}-RunsTable")["Items"]]
        assert sorted(statuses) == ["reported", "reported"]



# -- 5. conditional-check races between workers completing the same run ------------------------------------------------

def test_store_races_have_exactly_one_winner(tmp_path: Path) -> None:
    """Eight workers store the same 60 results three times each and all try to claim the report."""
    template = load_template(default_root() / "template.yaml")
    with EmbeddedAws() as aws, patched_env(aws_env(aws.url, fake_credentials=True)):
        stack = create_stack(template, "race" + uuid.uuid4().hex[:8], "{}")
        with patched_env(stack.env):
            settings = Settings.from_env(os.environ)
            per_thread = threading.local()

            def store() -> Store:
                if not hasattr(per_thread, "store"):
                    per_thread.store = Store(boto3.session.Session().client("dynamodb"), settings)
                return per_thread.store

            moment = datetime(2026, 1, 6, tzinfo=UTC)
            refs = [PullRef(n, f"t{n}", "a", moment, f"u{n}") for n in range(60)]
            period = Period.parse(WEEK["since"], WEEK["until"], WEEK["tz"])
            assert store().create_run("r", RepoConfig(REPO), period, "jsonl:x", refs, 0, "t")

            def result(n: int) -> bool:
                scored = ScoredPR(n, "t", "u", "a", "2026-01-06T00:00:00Z", ["m"], "fix", False, 1.0, 1.0, False,
                                  "s", [], [], 1, 1, 1, "heuristic")
                return store().put_result("r", scored, 1)

            jobs = [n for n in range(60) for _ in range(3)]
            random.Random(SEED).shuffle(jobs)
            with ThreadPoolExecutor(8) as pool:
                wins = list(pool.map(result, jobs))
                claims = list(pool.map(lambda _: store().claim_report("r", 2), range(16)))
            run_item = store().get_run("r")
            assert run_item is not None
            progress = store().progress("r")
            assert sum(wins) == 60 and run_item.done == 60 and progress is not None and progress.complete
            assert len(store().results("r")) == 60
            assert claims.count(True) == 1


class ConcurrentCopies(Injector):
    """Every score batch is handled by three execution environments at once (SQS duplicates to concurrent pollers).

    The last batch thus completes the run in three workers simultaneously: all race on the
    conditional claim, and exactly one may ask for the report.
    """

    def __init__(self, copies: int = 3) -> None:
        super().__init__()
        template = load_template(default_root() / "template.yaml")
        self.root, self.template, self.copies = default_root(), template, copies
        self.spares: list[Handler] = []

    def __call__(self, name: str, handler: Handler, event: Any, context: Any) -> Any:
        if name != "ScoreFunction":
            return handler(event, context)
        with self.lock:
            if not self.spares:
                self.spares = [load_handler(self.root, self.template, name) for _ in range(self.copies * 4)]
            others = [self.spares.pop() for _ in range(self.copies - 1)]
        self.count()
        barrier = threading.Barrier(self.copies)

        def call(fn: Handler) -> Any:
            barrier.wait(timeout=10)
            return fn(event, LambdaContext(name))

        with ThreadPoolExecutor(self.copies) as pool:
            futures = [pool.submit(call, fn) for fn in [handler, *others]]
            answers = [f.result() for f in futures]
        with self.lock:
            self.spares.extend(others)
        return answers[0]


def test_concurrent_workers_completing_the_same_run_give_one_report(
        tmp_path: Path, export: tuple[Path, set[int]], publishes: list[str]) -> None:
    path, expected = export
    injector = ConcurrentCopies()
    result = run(tmp_path, path, injector, workers=2)
    assert injector.injected >= 2
    check(result, tmp_path / "state", publishes, expected)


# -- 6. GitHub and the model failing at once ------------------------------------------------------------------------

@pytest.fixture
def outage(export: tuple[Path, set[int]],
           monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeGitHub, FakeOpenAI, int]]:
    path, expected = export
    gone, sick = sorted(expected)[3], sorted(expected)[5]
    # The model is down for one PR whatever the workers' order, so the engine must cover for it.
    with FakeGitHub(load_export(path), REPO, token="ghp_faults") as gh, FakeOpenAI(down_for({sick})) as model:
        # GitHub: flaky gateways, a secondary rate limit, a cut answer, and one PR that no longer exists.
        gh.inject("502", path=r"/pulls/\d+/files", times=3)
        gh.inject("429", path=r"/pulls/\d+$", times=2, retry_after=1)
        gh.inject("cut", path=r"/pulls/\d+/reviews", times=1)
        gh.inject("404", path=rf"/pulls/{gone}(/|\?|$)", times=10_000)
        # The model: rate limited, erroring, and talking nonsense, interleaved with good answers.
        model.enqueue(Fault.rate_limited(0.2), Fault.server_error(), "this is not JSON", "{\"importance\": 99}",
                      Fault.server_error(), Fault.server_error(), Fault.server_error(), Fault.server_error())
        monkeypatch.setenv("GITHUB_API_URL", gh.url)
        monkeypatch.setenv("GITHUB_TOKEN", "ghp_faults")
        monkeypatch.setenv("OPENAI_BASE_URL", model.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-faults")
        yield gh, model, gone


def test_github_and_model_failing_at_once(tmp_path: Path, export: tuple[Path, set[int]], publishes: list[str],
                                          outage: tuple[FakeGitHub, FakeOpenAI, int]) -> None:
    _, expected = export
    gh, model, gone = outage
    result = run(tmp_path, None, source="github", scorer="llm")
    check(result, tmp_path / "state", publishes, expected, unscored={gone}, dead={gone})
    reason = next(u["reason"] for u in result.report["unscored"])
    assert "404" in reason or "not found" in reason.lower()
    by = {p["number"]: p["scored_by"] for p in result.report["prs"]}
    sick = sorted(expected)[5]
    assert by[sick] == "heuristic" and "llm" in by.values()  # the engine covered for the failing model
    assert gh.counts and len(model.calls) >= len(expected) - 1



# -- 7. the weekly plan killed right after writing its run (issue 46, item 2) ------------------------------------------

class PlanKilled(BaseException):
    """The process is gone (a Lambda timeout, an out-of-memory kill): no handler of the plan sees it."""


class KillPlanAfterRun(Injector):
    """PlanFunction gets the weekly schedule's event; its first invocation dies right after the run is written
    (Store.create_run), before any PR is sent to ScoreQueue. Lambda then retries the same event, which names the
    same weekly run."""

    schedule = {"time": "2026-01-12T01:00:00Z"}  # Monday 09:00 in Shanghai: WEEK has just ended
    now = datetime(2026, 1, 12, 1, 0, 5, tzinfo=UTC)

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[Any] = []

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        original = Store.create_run

        def create_run(store: Store, *args: Any, **kwargs: Any) -> bool:
            created = original(store, *args, **kwargs)
            if created and not self.injected:
                self.count()
                raise PlanKilled("killed after writing the run")
            return created

        monkeypatch.setattr(Store, "create_run", create_run)

    def __call__(self, name: str, handler: Handler, event: Any, context: Any) -> Any:
        if name != "PlanFunction" or "Records" in event:
            return handler(event, context)
        with mock.patch("prhub.flow.deps.utc_now", return_value=self.now):
            with pytest.raises(PlanKilled):
                handler(self.schedule, context)
            answer = handler(self.schedule, context)  # Lambda's retry of the asynchronous invocation
        self.answers.append(answer)
        return answer


def test_a_weekly_plan_killed_after_writing_its_run_is_finished_by_the_retry(
        tmp_path: Path, export: tuple[Path, set[int]], publishes: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path, expected = export
    injector = KillPlanAfterRun()
    injector.install(monkeypatch)
    watched = json.dumps({"repos": [{"repo": REPO, "source": f"jsonl:{path}", "tz": WEEK["tz"]}]})
    result = run(tmp_path, path, injector, config_text=watched)
    assert injector.injected == 1
    # Every PR scored once, one report, nothing left in a queue: the sweep had nothing to finish.
    check(result, tmp_path / "state", publishes, expected)
    # The retry handed on every PR of the run the killed plan wrote, instead of answering `duplicate`.
    [answer] = injector.answers
    [planned] = answer["runs"]
    assert answer["ok"] is True and planned["run_id"].endswith("/weekly") and planned["sent"] == PRS
