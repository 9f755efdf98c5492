"""An index run, full or incremental: parse (in a pool of processes when large), resolve,
analyse, write; and the project-wide facts an incremental update needs.
"""
