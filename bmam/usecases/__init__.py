"""Use-cases: what the faces (GraphQL, CLI, MCP) may ask of bmam, each one a plain method."""
