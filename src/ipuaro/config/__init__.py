"""Configuration: pydantic schema (``schema``), layered loading (``loader``), shipped lists."""
