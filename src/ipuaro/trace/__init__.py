"""Traces of agent runs: recorder, secret redaction, golden-trace replay."""
