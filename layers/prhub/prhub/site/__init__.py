"""The static site, pure but for the Bucket it is handed: report and PR pages rendered as Markdown, HTML, PDF
and JSON (`render/`, `templates/`), where each page lives (`paths`), a PR's page (`pulls`), the repository
dashboard (`dashboard`) and the bucket's layout, indexes and feeds (`publish`). May import `core`, `engine` and
`report`; never an adapter."""
