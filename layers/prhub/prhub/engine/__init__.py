"""The analysis engine, pure: a PR's modules, type, breaking markers, risks, importance and insight
(`scoring`, `changes`, `risks`, `gist`, `textparse`, `synopsis`), the period's analysis (`analysis`, with its
`clusters` and `reverts`) and the engine's
narrative and sentences in zh and en (`narrative`, `wording`). Imports `core` only; never an adapter."""
