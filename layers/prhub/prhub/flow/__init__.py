"""The flow's services, one module per Lambda function, so each handler imports only what it uses.

    flow.deps      Deps (and the delivery service's DeliveryDeps): the adapters and per-process caches, built
                   once from the environment, the one place that reads it
    flow.plan      plan(event, deps): validate, list merged PRs, write the run, fan out to ScoreQueue
    flow.score     score_record(record, deps): load, score (cached), store once, completion check
    flow.messages  ReportMessage, PagesMessage, DeliveryMessage: the report's queues' messages, built by their
                   senders and parsed once by their handlers
    flow.publish   report_message(message, deps): the idempotent report, compose -> publish -> announce
                   (flow.compose, the site, flow.announce), and the sweep that finishes stuck runs
    flow.pages     publish_facts and queue_pages (the report's), pages_message(message, deps): the PR pages of a
                   published report, a bounded batch per PagesQueue message
    flow.deliver   request_deliveries (the report's) and deliver_one(message, deps): one channel told once
"""
