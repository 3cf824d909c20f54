"""A report put together, pure: `compose` (analysis, title, run notes, narrative: the one place a report.json is
built) and `digest` (the cross-repository digest). May import `core` and `engine`; never an adapter."""
