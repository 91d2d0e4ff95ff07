"""Conversation turns into candidate memories and triples; embeddings."""
