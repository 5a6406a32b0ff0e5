"""The robot config: a TOML file parsed and validated into the geometry and hardware types of :mod:`hanoibot.motion`.

``reader`` holds the typed, bounded TOML section reader; ``robot_config`` the :class:`RobotConfig` and its loaders.
"""

from .robot_config import (
    MAX_DISKS,
    RobotConfig,
    config_hash,
    default_config_path,
    is_packaged_config,
    load_config,
    packaged_config_path,
    parse_config,
)

__all__ = [
    "MAX_DISKS",
    "RobotConfig",
    "config_hash",
    "default_config_path",
    "is_packaged_config",
    "load_config",
    "packaged_config_path",
    "parse_config",
]
