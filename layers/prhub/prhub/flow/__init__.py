"""The flow's services, one module per Lambda function, so each handler imports only what it uses.

    flow.deps      Deps (and the delivery service's DeliveryDeps): the adapters and per-process caches, built
                   once from the environment, the one place that reads it
    flow.plan      plan(event, deps): validate, list merged PRs, write the run, fan out to ScoreQueue
    flow.score     score_record(record, deps): load, score (cached), store once, completion check
    flow.publish   report_message(body, deps): the idempotent report (analyse, narrate, render, publish) and
                   the sweep that finishes stuck runs
    flow.pages     fan_out(report, home, scored, deps) and pages_message(body, deps): the PR pages of a
                   published report, a bounded batch per PagesQueue message
"""
