"""The shared vocabulary every other folder speaks: user-facing errors, date ranges in a time zone (`period`),
PRs and scored PRs (`models`), report.json's types (`report`), repository settings, channels and the watch list
(`config`, `channels`). Pure data and validation; imports nothing of prhub outside `core`."""
