"""ipuaro's own git: which repository it may see for a project (:mod:`.git_place`, never one
the project's files name) and how it runs git without the programs a repository's
configuration names (:mod:`.git_guard`).
"""
