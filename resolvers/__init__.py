"""resolvers"""
