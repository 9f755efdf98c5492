"""References and call edges: which uses of a name mean a given definition (scopes, receivers,
re-exports), and which file a call reaches.
"""
