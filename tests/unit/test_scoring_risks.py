"""Per-PR risks: each rule on a small PR (with patch text where the rule reads diffs), each with its detail."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from prhub.core.config import RepoConfig
from prhub.core.models import PullRequest
from prhub.engine.changes import file_kind, pins_in
from prhub.engine.scoring import score_pull

from tests.unit.engine_support import CONFIG, change, make_pr

VERL_CONFIG = RepoConfig(repo="verl-project/verl", tz="Asia/Shanghai", language="en")


def risks(pr, config=CONFIG) -> dict[str, str]:
    return {r.kind: r.detail for r in score_pull(pr, config).risks}


def test_missing_tests_when_source_changes_without_tests():
    found = risks(make_pr("[trainer] fix: x", [change("pkg/a.py", 30, 5), change("pkg/b.py", 3, 0)]))
    assert found["missing_tests"] == "changes 2 source files (38 lines, most in pkg/a.py) but no test file"
    one = risks(make_pr("[trainer] fix: x", [change("pkg/b.py", 3, 0)]))
    assert one["missing_tests"] == "changes pkg/b.py (3 lines) but no test file"
    assert "missing_tests" not in risks(make_pr("[trainer] fix: x", [change("pkg/a.py"), change("tests/test_a.py")]))
    assert "missing_tests" not in risks(make_pr("[doc] docs: x", [change("docs/a.md")]))
    # a PR the repository calls docs edits doc comments in its source files: no test is missing (hono #5081)
    source = [change("src/language.ts", 12, 0)]
    assert "missing_tests" not in risks(make_pr("docs(language): add JSDoc @example", source))
    assert "missing_tests" in risks(make_pr("feat(language): add an example helper", source))


def test_a_test_support_crate_or_module_is_tests():
    # cargo's crates/cargo-test-support and okhttp's okhttp-testing-support serve their tests only: a change there
    # needs no test of its own, and okhttp's public-API PRs were filed under "okhttp-testing-support 模块"
    # so is a type test (tsd's *.test-d.ts: vue's dts-test/directives.test-d.ts stood as untested source)
    for path in ("crates/cargo-test-support/src/lib.rs", "okhttp-testing-support/src/main/kotlin/okhttp3/Rec.kt",
                 "packages-private/dts-test/directives.test-d.ts"):
        assert file_kind(path, CONFIG.test_paths) == "test"
        assert "missing_tests" not in risks(make_pr("fix: x", [change(path)]))


def test_markdown_tests_and_snapshots_are_tests():
    # ruff's busy week said 95 PRs changed source without tests: ty's tests are Markdown files under mdtest/ (and had
    # counted as docs: "附带测试和文档"), its linter's expected output insta .snap files
    source = change("crates/ty_python_semantic/src/types/narrow.rs", 120, 30)
    for path in ("crates/ty_python_semantic/resources/mdtest/narrow/match.md",
                 "crates/ruff_linter/src/rules/pylint/snapshots/ruff_linter__rules__PLR1714.py.snap",
                 "packages/app/src/__snapshots__/view.test.ts.snap"):
        assert file_kind(path, CONFIG.test_paths) == "test"
        assert "missing_tests" not in risks(make_pr("[ty] fix: narrowing in match", [source, change(path)]))
    assert "missing_tests" in risks(make_pr("[ty] fix: narrowing in match", [source, change("docs/match.md")]))


def test_a_release_or_a_typos_fix_wants_no_test():
    # svelte's busy week counted its release PR (the version string its only source edit) and a JSDoc typo among
    # "source changes without tests"; langgraph's "release(cli): 0.4.30" too
    version = [change("packages/svelte/src/version.js", 1, 1)]
    for title in ("release(cli): 0.4.30", "Bump 0.15.20", "chore: fix typo in read_version JSDoc", "Fix typos",
                  "Fix: typo in autoencoder_dc.py"):
        assert "missing_tests" not in risks(make_pr(title, version)), title
    # a typo's fix that does more, or renames an API, is judged as any change
    for title in ("Fix a Typo in One_Step_Off_Policy and Add async of Generative Reward",
                  "Typo fix -- Rename `to_openai_function_tool_schema` to `get_openai_tool_schema`",
                  "fix: version check"):
        assert "missing_tests" in risks(make_pr(title, version)), title


def test_test_paths_are_configurable():
    files = [change("pkg/a.py"), change("spec/a_spec.py")]
    assert "missing_tests" in risks(make_pr("fix: x", files))
    assert "missing_tests" not in risks(make_pr("fix: x", files), CONFIG.with_overrides(test_paths=("spec/",)))


def test_todo_left_reads_added_lines_only():
    patch = "@@ -1,3 +1,4 @@\n # TODO: old marker stays\n-x = 1\n+x = 2  # FIXME: handle negative steps\n+y = 3\n"
    found = risks(make_pr("fix: x", [change("pkg/a.py", 2, 1, patch=patch), change("tests/test_a.py")]))
    assert found["todo_left"] == "adds 1 TODO or FIXME marker, e.g. pkg/a.py: x = 2 # FIXME: handle negative steps"
    moved = "@@ -1 +1 @@\n-# TODO: later\n+# TODO: later\n"
    assert "todo_left" not in risks(make_pr("fix: x", [change("pkg/a.py", 1, 1, patch=moved)]))


def test_large_change_uses_the_configured_threshold():
    pr = make_pr("feat: x", [change("pkg/a.py", 700, 400), change("tests/test_a.py", 10, 0)])
    assert risks(pr)["large_change"] == "1110 changed lines (+710/−400) in 2 files; threshold 1000"
    assert "large_change" not in risks(pr, CONFIG.with_overrides(large_change_lines=2000))
    # what a reviewer need not read makes no large change: tests (okhttp #9118), a lock file, a change that only
    # deletes (hono #5108's unused benchmarks)
    assert "large_change" not in risks(make_pr("test: fewer strings", [change("okhttp/src/test/AssertsTest.kt",
                                                                              700, 651)]))
    assert "large_change" not in risks(make_pr("chore: bump", [change("pkg/a.py", 10, 2),
                                                               change("pnpm-lock.yaml", 1500, 1400)]))
    assert "large_change" not in risks(make_pr("chore: drop old", [change("pkg/old.py", 0, 1080, "removed")]))


def test_dependency_pins_from_patch_text():
    files = [
        change("requirements.txt", 2, 1, patch="@@ -1,2 +1,3 @@\n-vllm>=0.8\n+vllm==0.9.2\n+numpy>=2.0,<3  # new\n"),
        change("pyproject.toml", 1, 0, patch='@@ -5 +5,2 @@\n dependencies = [\n+  "ray[default]>=2.40",\n'),
        change("docker/Dockerfile.vllm", 2, 0,
               patch="@@ -1 +1,3 @@\n+FROM nvcr.io/nvidia/pytorch:24.05-py3\n+RUN pip install flash-attn==2.7.4\n"),
        change("web/package.json", 1, 0, patch='@@ -3 +3,2 @@\n+    "left-pad": "^1.3.0",\n'),
    ]
    detail = risks(make_pr("[deps] chore: pin", files))["dependency_pin"]
    for pin in ("vllm==0.9.2", "numpy>=2.0,<3", "ray>=2.40", "flash-attn==2.7.4", "left-pad^1.3.0",
                "nvcr.io/nvidia/pytorch:24.05-py3"):
        assert pin in detail


def test_a_dependency_file_without_a_readable_version_is_no_risk_line():
    assert "dependency_pin" not in risks(make_pr("chore: deps", [change("requirements-npu.txt", 1, 1)]))
    comment_only = change("requirements.txt", 1, 0, patch="@@ -1 +1,2 @@\n vllm==0.9.2\n+# keep sorted\n")
    assert "dependency_pin" not in risks(make_pr("chore: deps", [comment_only]))
    # versions named in a title or description do not make a risk unless a dependency file changed
    assert "dependency_pin" not in risks(make_pr("[vllm] fix: import error on vllm 0.13 -> 0.14",
                                                 body="pip install transformers==5.3.0"))


def test_a_dependency_no_user_installs_is_no_risk_line():
    # svelte's dev dependency (playground, "deps-dev"), diffusers' example requirements and ruff's docs pins had
    # each been a risk line with "确认上文的依赖版本变更对下游用户的影响，并写进发布说明"
    patch = "@@ -1 +1 @@\n-transformers==4.47.0\n+transformers==5.5.0\n"
    for path in ("examples/flux-control/requirements.txt", "docs/requirements.txt",
                 "playgrounds/sandbox/requirements.txt", "libs/cli/js-examples/requirements.txt"):
        assert "dependency_pin" not in risks(make_pr("Bump transformers to 5.5.0", [change(path, 1, 1, patch=patch)]))
    shipped = change("requirements.txt", 1, 1, patch=patch)
    assert "dependency_pin" in risks(make_pr("Bump transformers to 5.5.0", [shipped]))
    assert "dependency_pin" not in risks(make_pr("chore(deps-dev): bump transformers to 5.5.0", [shipped]))


@pytest.mark.parametrize(("title", "body", "shown"), [
    ("[docker] feat: bump aarch64 vllm 0.17->0.18", "", "vllm 0.17→0.18"),
    ("[ci] chore: bump trtllm to 1.3.0rc14 and pin mbridge",
     "- Pin mbridge to commit 641a5a0 to match Dockerfile.stable.vllm", "trtllm 1.3.0rc14, mbridge@641a5a0"),
    ("[docker] feat: bump stable trtllm image to 1.3.0rc15",
     "Replace the git install with pinned PyPI packages (megatron-core==0.17.0). Pin\ntransformers==5.3.0.",
     "trtllm 1.3.0rc15, megatron-core==0.17.0, transformers==5.3.0"),
    ("[env] fix: pin the PyArrow version to <=24.0.0", "", "PyArrow<=24.0.0"),
    ("[docker] chore: update vllm 0.20.2 image", "", "vllm 0.20.2"),
    ("[ci] fix: all CIs, transformers upgrade to 5.3.0", "", "transformers 5.3.0"),
])
def test_dependency_versions_from_title_and_description(title, body, shown):
    detail = risks(make_pr(title, [change("docker/Dockerfile.stable.vllm", 3, 3)], body=body))["dependency_pin"]
    assert detail == f"sets versions: {shown}"


def test_the_diffs_reading_of_a_package_wins_over_the_prose():
    files = [change("requirements.txt", 1, 1, patch="@@ -1 +1 @@\n-vllm==0.9.1\n+vllm==0.9.2\n")]
    detail = risks(make_pr("chore: bump vllm to 0.9", files))["dependency_pin"]
    assert detail == "sets versions: vllm==0.9.2"


VERL = Path(__file__).resolve().parents[3] / "shared" / "data" / "verl-project-verl" / "pulls.jsonl"


@pytest.mark.skipif(not VERL.exists(), reason=f"{VERL} is not here")
def test_dependency_versions_of_real_verl_prs():
    wanted = {6222: ["vllm 0.17→0.18"], 6262: ["trtllm 1.3.0rc14", "mbridge@641a5a0"],
              6730: ["trtllm 1.3.0rc15", "transformers==5.3.0", "megatron-bridge==0.4.1"]}
    with VERL.open(encoding="utf-8") as handle:
        prs = {pr.number: pr for line in handle if (pr := PullRequest.from_export(json.loads(line))).number in wanted}
    for number, shown in wanted.items():
        detail = risks(prs[number], VERL_CONFIG)["dependency_pin"]
        assert all(s in detail for s in shown), (number, detail)
    zh = risks(prs[6222], VERL_CONFIG.with_overrides(language="zh"))["dependency_pin"]
    assert zh == "依赖版本：vllm 0.17→0.18"


def test_pins_in_reads_only_added_lines():
    pins = pins_in(change("requirements.txt", patch="@@ -1 +1 @@\n-torch==2.5.0\n+torch==2.6.0\n"))
    assert [str(p) for p in pins] == ["torch==2.6.0"] and pins[0].exact_version == "2.6.0"


def test_title_convention_when_the_tag_disagrees_with_the_paths():
    found = risks(make_pr("[doc] fix: correct the loss", [change("pkg/loss.py"), change("tests/test_loss.py")]))
    assert found["title_convention"] == "tagged [doc] but touches only pkg, tests"
    mapped = CONFIG.with_overrides(module_map={"pkg/rollout/": "rollout"})
    assert "title_convention" in risks(make_pr("[rollout] fix: x", [change("pkg/trainer.py")]), mapped)
    assert "title_convention" not in risks(make_pr("[rollout] fix: x", [change("pkg/rollout/a.py")]), mapped)
    # a tag nothing in the paths can confirm or deny (e.g. "algo") is not judged
    assert "title_convention" not in risks(make_pr("[algo] fix: x", [change("pkg/trainer.py")]))


def test_file_kinds():
    paths = {"tests/test_a.py": "test", "pkg/a_test.py": "test", ".github/workflows/x.yml": "ci",
             "docker/Dockerfile.x": "deps", "docker/README.md": "docs", "docs/a.rst": "docs",
             "examples/run.sh": "example", "pkg/a.py": "source", "pkg/config/a.yaml": "config", "uv.lock": "deps",
             # a root dotfile or dot folder is the repository's own tooling, not something its users run
             ".gemini/config.yaml": "ci", ".gitignore": "ci", ".vscode/settings.json": "ci",
             # other ecosystems' tests: hono's src/utils/url.test.ts and runtime-tests/, cargo's resolver-tests crate
             "src/utils/url.test.ts": "test", "src/jsx/hooks.spec.tsx": "test", "src/jsx/__tests__/a.ts": "test",
             "runtime-tests/deno/index.ts": "test", "crates/resolver-tests/src/lib.rs": "test",
             "pkg/server/handler_test.go": "test", "spec/models/user_spec.rb": "test",
             # Rust's test module beside its code (tokio #8252 had "changes 3 source files, most in `tests.rs`, but
             # no test file"), Django's app tests
             "tokio/src/runtime/time_alt/tests.rs": "test", "shop/orders/tests.py": "test",
             "crates/ty/src/types/property_tests.rs": "test", "app/contests.py": "source", "src/attests.rs": "source",
             # ... and not a name that only holds the word
             "src/testing.ts": "source", "src/latest.ts": "source", "src/contest/a.go": "source",
             "src/unit-tests.ts": "source",
             # a dot folder below the root is tooling too: an editor's settings, a runtime test's static files
             "benchmarks/deno/.vscode/settings.json": "ci", "runtime-tests/bun/.static/a.txt": "test",
             # the repository's own tools' settings (hono #4797 removing a tsconfig.json read as breaking)
             "packages/app/tsconfig.build.json": "ci", "clippy.toml": "ci", "vitest.config.ts": "ci",
             "pkg/config/tsconfig_loader.py": "source",
             # its docs site's builder (pydantic-ai #7416 removing mkdocs.yml was a breaking highlight)
             "mkdocs.yml": "ci", "website/docusaurus.config.ts": "ci", "src/doc/book.toml": "ci",
             # Kotlin's test source sets (okhttp's July was told 10 PRs had no tests; 9 had theirs in commonTest/)
             "okhttp/src/commonTest/kotlin/okhttp3/CacheTest.kt": "test", "app/src/androidTest/java/A.java": "test",
             "okhttp/src/commonJvmAndroid/kotlin/okhttp3/Cache.kt": "source"}
    assert {p: file_kind(p, CONFIG.test_paths) for p in paths} == paths


def test_deleting_the_repositorys_tooling_config_breaks_no_user():
    # verl #7219 "[ci] chore: remove gemini code review" deleted .gemini/config.yaml and was a breaking highlight
    gone = [change(".gemini/config.yaml", 0, 12, status="removed")]
    assert "breaking" not in risks(make_pr("[ci] chore: remove gemini code review", gone))
    assert "breaking" in risks(make_pr("[ci] chore: remove x", [change("pkg/config/a.yaml", 0, 12, status="removed")]))


def test_every_risk_has_a_detail():
    files = [change("pkg/a.py", 900, 300, status="removed"),
             change("requirements.txt", 1, 1, patch="@@ -1 +1 @@\n-torch==2.5.0\n+torch==2.6.0\n"),
             change("pkg/b.py", 5, 0, patch="@@ -0,0 +1 @@\n+# XXX: temporary\n")]
    titles = ('Revert "[doc] feat: x"', "[doc] feat: x")
    reverted, plain = (score_pull(make_pr(title, files), CONFIG) for title in titles)
    assert {r.kind for r in reverted.risks} >= {"revert", "dependency_pin", "todo_left", "large_change",
                                                "title_convention"}
    assert {r.kind for r in plain.risks} >= {"breaking", "dependency_pin", "todo_left", "large_change",
                                             "title_convention", "doc_mismatch"}
    assert all(r.detail.strip() for r in [*reverted.risks, *plain.risks])


def test_a_revert_breaks_only_when_its_author_says_so():
    # The sample's #1209 reverted #1205 of the same week and stood as a breaking change ("迁移：删除公共模块
    # ack_bench.py") for deleting the module #1205 had added: what a revert removes is the reverted PR's own
    removed = [change("pkg/ack_bench.py", 0, 120, status="removed"), change("pkg/worker.py", 3, 40)]
    revert = score_pull(make_pr('Revert "[worker] perf: batch acknowledgements"', removed), CONFIG)
    assert not revert.breaking and "breaking" not in {r.kind for r in revert.risks}
    assert "revert" in {r.kind for r in revert.risks}
    assert score_pull(make_pr("[worker] refactor: drop the ack bench", removed), CONFIG).breaking
    declared = score_pull(make_pr('[BREAKING] Revert "[worker] perf: batch acknowledgements"', removed), CONFIG)
    assert declared.breaking


def test_title_convention_is_not_judged_when_one_tag_cannot_be_located():
    assert "title_convention" not in risks(make_pr("[fsdp, recipe] fix: x", [change("examples/run.sh")]))


def test_doc_mismatch_for_breaks_and_new_options_without_docs():
    removed = [change("pkg/legacy.py", 0, 80, status="removed")]
    assert risks(make_pr("[trainer] refactor: x", removed))["doc_mismatch"] == (
        "breaking change (removes public module pkg/legacy.py) but no documentation file changed")
    assert "doc_mismatch" not in risks(make_pr("[trainer] refactor: x", [*removed, change("docs/migrate.md")]))
    cli = '@@ -1 +1,2 @@\n+    parser.add_argument("--warmup-steps", type=int)\n'
    options = [change("pkg/cli.py", 1, 0, patch=cli),
               change("pkg/config/ppo.yaml", 2, 0, patch="@@ -1 +1,3 @@\n   lr: 1\n+  warmup: 10\n+  decay: cosine\n")]
    assert risks(make_pr("[trainer] feat: warmup", options))["doc_mismatch"] == (
        "adds --warmup-steps, warmup, decay but no documentation file changed")
    plain_change = [change("pkg/trainer.py", 5, 1, patch="@@ -1 +1 @@\n-x = 1\n+x = 2\n")]
    assert "doc_mismatch" not in risks(make_pr("[trainer] fix: x", plain_change))


def test_a_titles_module_tags_put_the_one_its_source_bears_first():
    # verl #7374 "[ci, trainer] feat: remove mindspeedllm backend engine support" removes trainer and engine code
    # and trims two workflows: its highlight was headed "CI 流水线" (its first tag)
    with VERL.open(encoding="utf-8") as handle:
        pr = next(p for line in handle if (p := PullRequest.from_export(json.loads(line))).number == 7374)
    assert score_pull(pr, VERL_CONFIG).modules == ["trainer", "ci"]
    # no tag borne by source: the title's order stands
    assert score_pull(make_pr("[ci, trainer] fix: x", [change(".github/workflows/a.yml")]), CONFIG).modules == [
        "ci", "trainer"]
    assert score_pull(make_pr("[ci, trainer] fix: x", [change("pkg/trainer/a.py")]), CONFIG).modules == [
        "trainer", "ci"]


def test_a_todo_at_a_glance_says_how_many_and_where_and_the_details_quote_it():
    # make run's sample read "新增 1 处 FIXME，例如 redis_streams.py：# TODO: handle consumer group …": the brief cut
    # "TODO/FIXME" as a path, and the comment's English stood as prose; the key-PR table cut the line mid-phrase.
    # The brief says how many and where; the appendix's details quote the line (code of any length, "|" and "; ")
    from prhub.core.models import Risk
    from prhub.engine import headline, observations

    line = "x = 1; y = 2  # TODO: handle `group` | rebalancing when a worker dies, see configs/ppo/base.yaml"
    patch = f"@@ -1 +1,3 @@\n x\n+{line}\n+# FIXME: later\n"
    pr = make_pr("[storage] feat: x", [change("pkg/storage/redis_streams.py", 3, 0, patch=patch)])
    for lang, said, glance in (
            ("zh", "新增 2 处 TODO 或 FIXME，例如 pkg/storage/redis_streams.py：", "共 2 处，首处在 redis_streams.py"),
            ("en", "adds 2 TODO or FIXME markers, e.g. pkg/storage/redis_streams.py: ", "2 in all, the first in "
                                                                                        "redis_streams.py")):
        detail = next(r.detail for r in score_pull(pr, CONFIG.with_overrides(language=lang)).risks
                      if r.kind == "todo_left")
        assert detail.startswith(said) and "# TODO: handle" in detail
        entry = {"number": 7, "importance": 8.0, "key": True, "changed_files": 1, "additions": 3, "deletions": 0}
        report = {"prs": [entry], "risks": [{"kind": "todo_left", "prs": [7], "detail": detail,
                                              "items": [{"pr": 7, "detail": detail}]}]}
        note = observations.risk_notes(report, lang == "zh")[0]["text"]
        assert note.endswith(glance) and "TODO: handle" not in note, note
        point = headline.points("", False, "", [Risk("todo_left", detail)], None, 1, 3, 0, lang)
        assert point == [said.split("，例如")[0] if lang == "zh" else said.split(", e.g.")[0]]


def test_tests_written_beside_the_code_are_tests():
    # axum writes its tests inside src/*.rs (#[crate::test]); Go beside the code in the same package's file
    rust = ("@@ -1,2 +1,9 @@\n fn redirect() {}\n+#[cfg(test)]\n+mod tests {\n+    #[crate::test]\n"
            "+    async fn it_redirects() {}\n+}\n")
    go = "@@ -1,1 +1,4 @@\n package server\n+func TestHandler(t *testing.T) {\n+}\n"
    for path, patch in (("axum/src/response/redirect.rs", rust), ("pkg/server/handler.go", go)):
        pr = make_pr("feat: redirect parts", [change(path, 12, 1, patch=patch)], number=770)
        scored = score_pull(pr, CONFIG)
        assert "missing_tests" not in {r.kind for r in scored.risks}, path
        assert any("with tests" in r for r in scored.reasons), path
    # a diff that only mentions a test, or removes one, adds none
    plain = "@@ -1,2 +1,2 @@\n-#[test]\n-fn old() {}\n+// see the test module\n+fn new() {}\n"
    pr = make_pr("feat: redirect parts", [change("axum/src/response/redirect.rs", 2, 2, patch=plain)], number=771)
    assert "missing_tests" in {r.kind for r in score_pull(pr, CONFIG).risks}


def test_a_revert_of_an_unnamed_change_reads_without_a_gap_in_chinese():
    # pydantic-ai's year read "回滚：9 个 PR，例如 #4847：回滚 此前的改动"
    from dataclasses import replace

    pr = score_pull(make_pr("Revert the batching change", [change("pkg/a.py", 2, 20)], number=900),
                    replace(CONFIG, language="zh"))
    assert [r.detail for r in pr.risks if r.kind == "revert"] == ["回滚此前的改动"]
    numbered = score_pull(make_pr("Revert #12", [change("pkg/a.py", 2, 20)], number=901),
                          replace(CONFIG, language="zh"))
    assert [r.detail for r in numbered.risks if r.kind == "revert"] == ["回滚 #12"]  # a space before a number stays
