"""The model path: who scores (`scorers`), the prompts (`prompting`, `prompts/`), the model's client and its
answers checked, guarded and merged with the engine's (`llm`), the fact guard (`factguard`) and prices
(`pricing`). May import `core`, `engine` and `cloud`; never `flow`."""
