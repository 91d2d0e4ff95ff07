"""The GraphQL face: Strawberry types, queries, mutations, the ASGI app."""
