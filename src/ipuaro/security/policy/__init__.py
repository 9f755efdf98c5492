"""Decisions: may this command run (allow / ask / deny), may this path be read or written,
may this text be written. Reads commands through :mod:`ipuaro.security.shell` and takes the
secret places from :mod:`ipuaro.security.sandboxing`; runs nothing.
"""
