"""The engine's version follows what it judges with (issue 49): a changed rule, pattern or phrase is a new version,
the same in every process, with no hand bump."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import prhub
import pytest
from prhub.engine import lexicon, noun_phrases, rules, scoring, verb_phrases, wording
from prhub.engine.scoring import ENGINE_VERSION, engine_version


def _row(table: tuple[rules.Rule, ...], name: str, **changed: object) -> tuple[rules.Rule, ...]:
    return tuple(replace(rule, **changed) if rule.name == name else rule for rule in table)  # type: ignore[arg-type]


CHANGES = {
    "a rule's points": lambda m: m.setattr(rules, "RULES", _row(rules.RULES, "with_tests", points=0.75)),
    "a computed rule's figure": lambda m: m.setattr(rules, "RULES", _row(rules.RULES, "fix_silent",
                                                                          points=rules.IfCore(2.5, 1.0))),
    "a cap's figure": lambda m: m.setattr(rules, "CAPS", _row(rules.CAPS, "cap_examples", points=rules.Lifted(3.5))),
    "a rule's group": lambda m: m.setattr(rules, "RULES", _row(rules.RULES, "perf_unmeasured", group="")),
    "a rule's phrase": lambda m: m.setattr(rules, "RULES", _row(rules.RULES, "new_capability",
                                                                 phrase=rules.Phrase("new capability", "新能力"))),
    "what a condition is built with": lambda m: m.setattr(rules, "RULES", _row(
        rules.RULES, "fix_crash", condition=rules._words_hit(rules.CRASH, "title", ()))),
    "a pattern": lambda m: m.setattr(rules, "TYPO", rules.re.compile(rules.TYPO.pattern + "|misprint", rules.re.I)),
    "a type's base": lambda m: m.setitem(rules.BASE, "docs", 1.5),
    "an insight phrase": lambda m: m.setitem(wording.PHRASES["en"], "ins_design", "a design"),
    "a type pattern of the scoring module": lambda m: m.setattr(scoring, "TYPE_ALIASES",
                                                                 {**scoring.TYPE_ALIASES, "feature": "chore"}),
    "the hand-kept revision": lambda m: m.setattr(scoring, "REVISION", scoring.REVISION + 1),
    "a translator's verb class": lambda m: m.setitem(lexicon.TO_TARGET, "hand", "交给"),
    "a translator's noun-phrase pattern": lambda m: m.setattr(noun_phrases, "CONTAINERS",
                                                               noun_phrases.re.compile("(?:脚本)$")),
    "a translator's adverb": lambda m: m.setitem(verb_phrases.ADVERB_ZH, "quietly", "静默"),
}


@pytest.mark.parametrize("change", CHANGES, ids=list(CHANGES))
def test_a_changed_input_of_the_judgement_is_a_new_version(change: str, monkeypatch: pytest.MonkeyPatch) -> None:
    CHANGES[change](monkeypatch)
    assert engine_version() != ENGINE_VERSION
    monkeypatch.undo()
    assert engine_version() == ENGINE_VERSION


def test_the_version_reads_as_its_revision_and_a_short_hash() -> None:
    prefix, digest = ENGINE_VERSION.rsplit("-", 1)
    assert prefix == f"engine-{scoring.REVISION}" and len(digest) == 10 and int(digest, 16) >= 0


def test_the_version_is_the_same_in_every_process() -> None:
    # GIVEN fresh interpreters with different string-hash salts (set order differs between them)
    layer = str(Path(prhub.__file__).resolve().parents[1])
    seen = set()
    for seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": layer}
        proc = subprocess.run([sys.executable, "-c", "from prhub.engine.scoring import ENGINE_VERSION as v; print(v)"],
                              env=env, capture_output=True, text=True, timeout=120, check=True)
        seen.add(proc.stdout.strip())
    # THEN each says the version this process computed
    assert seen == {ENGINE_VERSION}


def _engine_imports(module: str) -> set[str]:
    """The prhub.engine modules `module`'s source imports (`from prhub.engine import x`, `from prhub.engine.x ...`)."""
    path = Path(prhub.__file__).resolve().parent.parent.joinpath(*module.split(".")).with_suffix(".py")
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "prhub.engine":
            found |= {f"prhub.engine.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("prhub.engine."):
            found.add(node.module or "")
    return found


def test_every_engine_module_the_judgement_reads_is_judged() -> None:
    # A module split in two (translate's words, phrases and clauses) keeps its constants in the version only when
    # the new modules are judged too: whatever a judged module imports from the engine is judged (the hasher aside).
    judged = {module.__name__ for module in scoring.JUDGED_BY} | {scoring.__name__}
    reached: set[str] = set()
    todo = sorted(judged)
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(_engine_imports(name))
    assert reached - judged == {"prhub.engine.fingerprint"}
