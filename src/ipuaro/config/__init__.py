"""Configuration: pydantic schema (``schema``), layered loading (``loader``), shipped lists.

Layers, lowest first: schema defaults < user ``config.json`` (``paths.config_dir()``) < project
``.ipuaro.json`` < ``IPUARO_SECTION__KEY`` environment variables < command-line flags. Problems
raise :class:`ConfigError` with a one-line message naming the source and the key.

The command lists ship as package data in ``data/`` (``blacklist.json``, ``whitelist.json``);
users extend them with ``whitelist.user`` and ``blacklist.user``.

Names are re-exported lazily so ``import ipuaro.config`` stays free of pydantic until used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ipuaro._lazy import lazy_exports

if TYPE_CHECKING:
    from ipuaro.config.loader import (
        ConfigError,
        default_config_json,
        find_project_root,
        load_config,
    )
    from ipuaro.config.schema import Config

__all__ = ["Config", "ConfigError", "default_config_json", "find_project_root", "load_config"]

_LOCATIONS = {
    "Config": "ipuaro.config.schema",
    "ConfigError": "ipuaro.config.loader",
    "default_config_json": "ipuaro.config.loader",
    "find_project_root": "ipuaro.config.loader",
    "load_config": "ipuaro.config.loader",
}


__getattr__ = lazy_exports(__name__, _LOCATIONS)
