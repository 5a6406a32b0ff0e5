"""Where the firmware files are: ``main.py``, ``board_config.py`` and the ``hanoifw`` package.

In a checkout they lie together in ``firmware_micropython/``. An installed wheel carries ``hanoifw`` as a package
of its own and ``main.py`` and ``board_config.py`` as data of hanoibot (``hanoibot/data/firmware/``, links to the
checkout's files in the source tree), so ``hanoibot deploy`` and ``vpico://`` work from a ``pip install`` too.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from .errors import ConfigError

#: The firmware's files copied as source, at the board's root.
ROOT_FILES = ("board_config.py", "main.py")
#: The firmware package's folder name (on the board too).
PACKAGE = "hanoifw"
#: Where a wheel carries ``main.py`` and ``board_config.py`` inside the hanoibot package.
DATA_PARTS = ("data", "firmware")


class FirmwareSource(NamedTuple):
    """The firmware on this machine: the ``hanoifw`` package folder, ``main.py`` and ``board_config.py``."""

    package_dir: Path
    main_py: Path
    board_config_py: Path

    @classmethod
    def from_folder(cls, folder: Path) -> FirmwareSource:
        """A firmware folder laid out as on the board (``main.py``, ``board_config.py``, ``hanoifw/``); ConfigError
        naming what is missing otherwise."""
        source = cls(folder / PACKAGE, folder / "main.py", folder / "board_config.py")
        if not source.is_complete:
            raise ConfigError(f"{folder} is not the firmware folder (main.py, board_config.py and {PACKAGE}/*.py)")
        return source

    @property
    def is_complete(self) -> bool:
        """True when every file is there (and the package holds modules)."""
        has_modules = self.package_dir.is_dir() and any(self.package_dir.glob("*.py"))
        return has_modules and self.main_py.is_file() and self.board_config_py.is_file()

    def modules(self) -> list[Path]:
        """The package's modules, sorted by name."""
        return sorted(self.package_dir.glob("*.py"))

    def with_board_config(self, board_config_py: Path) -> FirmwareSource:
        """The same firmware with another board wiring (the user's ``board_config.py``)."""
        return self._replace(board_config_py=board_config_py)


def shipped_firmware() -> FirmwareSource:
    """The firmware shipped with this hanoibot: the checkout's folder, else the installed package and the wheel's
    data files; ConfigError when neither is complete."""
    import hanoifw

    package_dir = Path(hanoifw.__file__).resolve().parent
    beside = package_dir.parent
    checkout = FirmwareSource(package_dir, beside / "main.py", beside / "board_config.py")
    if checkout.is_complete:
        return checkout
    data = Path(__file__).resolve().parent.joinpath(*DATA_PARTS)
    installed = FirmwareSource(package_dir, data / "main.py", data / "board_config.py")
    if installed.is_complete:
        return installed
    raise ConfigError(
        f"firmware files not found next to {package_dir} nor in {data}: expected main.py and board_config.py "
        "(reinstall hanoibot)"
    )
