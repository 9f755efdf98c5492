"""Which files the index holds (ignore rules, the scan) and reading one (text or binary,
hash, lines).
"""
