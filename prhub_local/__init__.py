"""The local harness: the embedded AWS (moto and its patches), the local runner, `prhub invoke`,
`prhub serve` and the `prhub` command. Installed by `pip install -e .` for the CLI and the tests; never
shipped in the Lambda layer (layers/prhub), which it drives through the real handlers.

Modules: template (template.yaml loaded and provisioned), moto_patches, embedded (the moto server and
its environment), state (save and restore), sample (the bundled sample, the local watch list), runner
(handlers, pollers, `prhub run`), invoke, serve, cli.
"""

# Every AWS::Serverless::Function of template.yaml by its logical id (a test holds them equal): what `prhub invoke`
# offers, known before anything heavy is imported.
FUNCTIONS = ("PlanFunction", "ScoreFunction", "ReportFunction", "DeliveryFunction", "PagesFunction")
