"""The model path: who scores (`scorers`, at an `endpoint`), the prompts (`prompting`, `prompts/`), the model's
HTTP client (`client`, the one module importing openai), its answers checked, guarded and merged with the
engine's (`answers`, pure), the per-PR scorer (`scorer`) and the week's narrator (`narrator`), the fact guard
(`factguard`) and prices (`pricing`). Imports run one way (scorers -> scorer -> client -> endpoint; scorer and
narrator -> answers -> factguard): none imports a module that imports it. May import `core`, `engine` and
`cloud`; never `flow`."""
