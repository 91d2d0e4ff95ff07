"""Composition root: settings (BMAM_* env), the CLI, the MCP server, use-cases, the local Neo4j launcher,
the gql client."""
