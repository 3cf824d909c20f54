"""Reports that come to the reader: one short message per subscribed channel when a report is published.

    channels.parse_channels(watch-list "notify")  -> Channel settings (validated; secrets by name)
    channels.resolve(channel, read_secret, ...)    -> Target (the URL and signing secret, read at send time)
    message.build_message(report, links)           -> Message (platform-neutral: title, summary, highlights, counts)
    <platform>.build(message, target, now)          -> Request (that platform's format, limits and signature)
    delivery.deliver(target, message, ...)          -> Outcome (sent with retries; delivered / throttled /
                                                       transient / permanent)

One module per platform of prhub.core.platforms (slack, feishu, dingtalk, wecom, teams, webhook, email), found by its
name in delivery.SENDERS; each knows its own payload, size limits, signing and documented error answers.
github_post is the one channel that posts the report itself, as an issue or discussion kept and edited across
revisions (delivery.deliver_post). The Request and
Verdict they exchange with delivery are `wire`'s: platforms import wire, delivery imports the platforms. Nothing
here imports boto3 or requests at import time, so prhub.core.config can parse the `notify` setting cheaply.
"""
