"""A bash lexer and parser: a command line -> every simple command it would run (words,
redirections, where each came from). Imports nothing else of ipuaro's security.
"""
