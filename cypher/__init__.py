"""cypher"""
