"""Where PRs come from (adapters): an export file (`source`), GitHub's GraphQL (`graphql`, composed of
`graphql_listing`, `graphql_details`, `graphql_history`, `graphql_pages`, `graphql_budget`, `graphql_query` and
`graphql_nodes`) and REST (`github`) APIs over one HTTP client (`http`), with their diffs (`diffs`) and
organisation listings (`orgs`), the package registries (`registry`), a report's scope applied to a listing
(`scope`), and the judgements a CHANGELOG and the watch list write (`judgements`). May import `core`, `engine` and
`cloud`; never `flow`."""
