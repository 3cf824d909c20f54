"""The shared vocabulary every other folder speaks: user-facing errors, date ranges in a time zone (`period`),
PRs and scored PRs (`models`), a repository's record before a period (`history`), report.json's types
(`report`), repository settings, channels, the platforms they send to and the watch list (`config`, `channels`,
`platforms`, `globs`), and how every
output writes text (`text`). Pure data and validation; imports nothing of prhub outside `core`."""
