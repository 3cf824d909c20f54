"""Per-PR judgement by the model: the engine's result as the model's facts, its answer checked, guarded and
merged over the engine's (prhub.model.answers), and the engine's result wherever the model fails (an API error,
an answer still invalid after one repair, the run's token budget spent).

    LlmScorer(chat, language, period=()).score(pr, config, budget) -> ScoredPR

Which endpoint, key and model a run uses, and whether the model scores at all, is prhub.model.scorers' business.
"""
from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from aws_lambda_powertools import Logger

from prhub.cloud import metrics
from prhub.core.config import RepoConfig
from prhub.core.models import PullRequest, ScoredPR
from prhub.engine import conventions
from prhub.engine.scoring import Budget, HeuristicScorer, parse_title
from prhub.model.answers import (
    ANALYST_VERSION,
    GUARD_POINTS,
    PR_SCHEMA,
    RepoWord,
    fallback,
    guard_fields,
    injected,
    merge,
    validate_pr_answer,
)
from prhub.model.client import (
    ChatModel,
    Completion,
    busy_handback,
    charged,
    describe,
    message_text,
    model_error,
    record_tokens,
)
from prhub.model.factguard import CITE, Quotable
from prhub.model.prompting import PrPrompt, estimate_tokens, pr_prompt, prompt_version, repair_message

logger = Logger(service="prhub", child=True)

PR_ANSWER_TOKENS = 1000


def pr_prompt_version(language: str) -> str:
    """The per-PR prompt version (part of the score cache key): templates, answer schema and guard."""
    return prompt_version(language, json.dumps([ANALYST_VERSION, GUARD_POINTS, PR_SCHEMA], sort_keys=True))


class LlmScorer:
    """Scores a PR with the model, the engine's result as facts, guards and fallback.

    `period` is the run's PRs: the numbers, besides the PR itself and those its title or description cite,
    that the model's text may name."""

    kind = "llm"

    def __init__(self, chat: ChatModel, language: str, engine: HeuristicScorer | None = None,
                 period: Collection[int] = ()) -> None:
        self.chat = chat
        self.model: str | None = chat.model
        self.engine = engine or HeuristicScorer(language=language)
        self.prompt_version = pr_prompt_version(language)
        self.period = frozenset(period)

    def facts(self, pr: PullRequest, engine: ScoredPR, prompt: PrPrompt) -> Quotable:
        """What the model's text about `pr` may cite and quote: the PR, the period's PRs and the PRs its own text
        cites; the numbers of what it read (the prompt carries the title, description, files, diffs, the engine's
        figures) and the PR's counts."""
        cited = {int(n) for n in CITE.findall(f"{pr.title}\n{pr.body}")}
        allowed = {pr.number, *self.period, *engine.refs, *cited, *([engine.reverts] if engine.reverts else [])}
        return Quotable.for_text(allowed, "\n".join(m["content"] for m in prompt.messages if m["role"] == "user"),
                              {pr.additions, pr.deletions, pr.changed_files, pr.additions + pr.deletions,
                               pr.commits or 0, len(pr.reviews), 1})

    def score(self, pr: PullRequest, config: RepoConfig, budget: Budget) -> ScoredPR:
        engine = self.engine.score(pr, config, budget)
        prompt = pr_prompt(pr, engine, config)
        messages = prompt.messages
        spent_in = spent_out = 0
        errors: list[str] = []
        for attempt in range(2):  # the answer, then at most one repair
            reserved = estimate_tokens(message_text(messages)) + PR_ANSWER_TOKENS
            if not budget.reserve(reserved):
                return self.stand_in(engine, f"budget exhausted: {budget.exhausted}", spent_in, spent_out)
            try:
                answer = self.chat.complete(messages, "prhub_pr", PR_SCHEMA, PR_ANSWER_TOKENS)
            except model_error() as exc:
                lost_in, lost_out = charged(exc)  # calls that timed out: the provider bills them all the same
                spent_in += lost_in
                spent_out += lost_out
                budget.settle(reserved, lost_in + lost_out)
                if lost_in or lost_out:
                    record_tokens("pr", self.chat.model, lost_in, lost_out)
                # Still limited after our retries: not an outage to paper over with the engine, but a wait the
                # queue takes better than this invocation (score.py hands the PR back, then the engine).
                if (handback := busy_handback(exc, (spent_in, spent_out))) is not None:
                    raise handback from exc
                logger.warning("model call failed, engine scores the PR",
                               extra={"number": pr.number, "error": describe(exc)})
                return self.stand_in(engine, f"model unavailable ({describe(exc)})", spent_in, spent_out)
            spent_in += answer.tokens_in
            spent_out += answer.tokens_out
            budget.settle(reserved, answer.tokens_in + answer.tokens_out)
            record_tokens("pr", self.chat.model, answer.tokens_in, answer.tokens_out)
            parsed, errors = validate_pr_answer(answer.content, config.language)
            if not errors:
                return self.merged(pr, engine, prompt, parsed, config, (spent_in, spent_out))
            if attempt == 0:
                messages = [*messages, *self.repair(answer, config.language, errors)]
        logger.info("model answer invalid after repair", extra={"number": pr.number, "errors": errors[:5]})
        return self.stand_in(engine, "model answer invalid after one repair: " + "; ".join(errors[:3]), spent_in,
                             spent_out)

    def merged(self, pr: PullRequest, engine: ScoredPR, prompt: PrPrompt, answer: dict[str, Any],
               config: RepoConfig, spent: tuple[int, int]) -> ScoredPR:
        """A valid answer, its text guarded, over the engine's result; what the calls spent and what the prompt
        covered said on it."""
        parsed, removed = guard_fields(answer, self.facts(pr, engine, prompt))
        # the repository's word (issue 48): a type its conventions or the title's conventional prefix state
        said = RepoWord(conventions.said_type(pr.title, pr.labels, config.conventions) or parse_title(pr.title)[1],
                        conventions.minor_marker(pr.title, pr.labels, config.conventions))
        scored = merge(engine, parsed, config, injected(f"{pr.title}\n{pr.body}"), removed, said)
        scored.tokens_in, scored.tokens_out = spent
        scored.reasons.append(prompt.coverage(pr, config.language))
        if prompt.left_out:
            scored.note = f"diff left out for {len(prompt.left_out)} files to fit the token budget"
        return scored

    @staticmethod
    def repair(answer: Completion, language: str, errors: list[str]) -> list[dict[str, str]]:
        """The messages that ask once more: the invalid answer, then what was wrong with it."""
        return [{"role": "assistant", "content": answer.content[:4000]}, repair_message(language, errors)]

    @staticmethod
    def stand_in(engine: ScoredPR, note: str, tokens_in: int, tokens_out: int) -> ScoredPR:
        """The engine's result in the model's place (answers.fallback), counted as a ModelFallbacks metric."""
        metrics.count("ModelFallbacks")
        return fallback(engine, note, tokens_in, tokens_out)
